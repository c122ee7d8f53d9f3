"""Wire formats to typed replies: whatever a server sent becomes a ModelReply, never an exception."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.decision import RAW_TEXT_CHARS, show
from ..core.reply import MalformedCall, ModelReply, ToolCall
from ..core.text import SPEAKER_LABEL, without_thinking

RAW_CHARS = 4000
# A name longer than this is no tool's; it is kept only to be shown in the audit.
NAME_CHARS = 80
# A model that loops can emit hundreds of calls; read a bounded number of them.
MAX_CALLS = 32

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
_INVALID = object()
# Braces that open no call before reading calls from a text stops.
MAX_MISSES = 8
# What small models wrap the calls they write into their text with: Qwen's tags, a code fence.
_CALL_WRAPPING = re.compile(r"</?tool_call>|```(?:json)?", re.IGNORECASE)
_DECODER = json.JSONDecoder()
_LABEL = re.compile(SPEAKER_LABEL)


def _loads(text: str) -> Any:
    """json.loads that answers _INVALID for anything unparsable, deep nesting included."""
    try:
        return json.loads(text[:RAW_TEXT_CHARS])
    except (ValueError, RecursionError):
        return _INVALID


def _read_call(raw: Any) -> ToolCall | MalformedCall:
    """One call from Ollama ({name, arguments: {}}), OpenAI (arguments as a JSON string) or bare shapes."""
    if not isinstance(raw, Mapping):
        return MalformedCall("", show(raw))
    function = raw.get("function")
    if isinstance(function, Mapping):
        raw = function
    name = raw.get("name")
    arguments = raw.get("arguments", raw.get("parameters"))
    if isinstance(arguments, str):
        arguments = _loads(arguments) if arguments.strip() else {}
    if arguments is None:
        arguments = {}
    if not isinstance(name, str) or not name:
        return MalformedCall(show(name) if name is not None else "", show(raw))
    if not isinstance(arguments, Mapping):
        return MalformedCall(name, show(raw.get("arguments", raw.get("parameters"))))
    # The name is kept exactly as sent: a disguised name ("lift\u200b_up") is no tool's name.
    return ToolCall(name[:NAME_CHARS], dict(arguments))


def read_calls(raw_calls: Any) -> tuple[tuple[ToolCall, ...], tuple[MalformedCall, ...], bool]:
    """(readable calls, malformed ones, whether some were cut) from a provider's call list."""
    if isinstance(raw_calls, Mapping):
        raw_calls = [raw_calls]
    if not isinstance(raw_calls, list | tuple):
        return (), (), False
    calls: list[ToolCall] = []
    malformed: list[MalformedCall] = []
    for raw in raw_calls[:MAX_CALLS]:
        read = _read_call(raw)
        (calls if isinstance(read, ToolCall) else malformed).append(read)  # type: ignore[arg-type]
    return tuple(calls), tuple(malformed), len(raw_calls) > MAX_CALLS


def calls_in_text(text: str) -> tuple[str, list[dict[str, Any]], bool]:
    """Return the calls a small model wrote into its text, the text without them, whether some were cut.

    A call is a JSON object with a "name" and its "arguments" (or "parameters"), as Qwen and
    other small local models write them: inside <tool_call> tags or a code fence or bare, and
    with the doubled outer braces of their template's example ({{"name": ...}}). They are read
    like calls from the structured channel, so the same strict checks judge them; a reply that
    was only such calls leaves no text to post. Only an object that stands where a call is
    written counts (first on its line, or after the tag or fence). Reading is bounded: at most
    MAX_CALLS calls, and it stops after a few braces that open no call (each try may read to
    the end).
    """
    calls: list[dict[str, Any]] = []
    kept: list[str] = []
    position = start = 0
    misses = 0
    while len(calls) < MAX_CALLS and misses < MAX_MISSES:
        start = text.find("{", start)
        if start == -1:
            break
        if text.startswith("{{", start):  # a doubled brace: the call, if any, opens at the next
            start += 1
            continue
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            misses += 1
            start += 1
            continue
        opens = _call_opening(text, start, position) if _looks_like_call(value) else None
        if opens is None:
            misses += 1
            start = end
            continue
        begin = start
        if begin > position and text[begin - 1] == "{" and text.startswith("}", end):
            begin, end = begin - 1, end + 1  # the template's doubled braces
        begin = min(begin, opens)  # a speaker's label goes with its call
        calls.append(value)
        kept.append(text[position:begin])
        position = start = end
    if not calls:
        return text, [], False
    # A reply that reached the bound of calls loops: what follows is more of them, not words.
    cut = len(calls) == MAX_CALLS and "{" in text[position:]
    kept.append("" if cut else text[position:])
    return _CALL_WRAPPING.sub(" ", "".join(kept)).strip(), calls, cut


def _call_opening(text: str, start: int, after: int) -> int | None:
    """Where the call written at start opens, or None when the object stands where no call is written.

    A call is first on its line, or after a tag, a fence or a speaker's label ("Overseer: {...}",
    the transcript's form copied); the label opens the call, so it leaves with it. Right after
    the call before it counts as first. A call named inside a sentence ("I will not call {...}
    today") is words, not a call.
    """
    line_start = max(text.rfind("\n", 0, start) + 1, after)
    line = text[line_start:start].rstrip("{").strip().casefold()
    if not line or line.endswith(("<tool_call>", "```", "```json")):
        return start
    return line_start if _LABEL.fullmatch(line) else None


def _looks_like_call(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and ("arguments" in value or "parameters" in value)
    )


def ollama_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return the decision's messages as Ollama's /api/chat takes them.

    A tool turn comes in the OpenAI shape (core/context.py tool_turn): Ollama wants the call's
    arguments as an object, and names the tool of each result instead of the call's id.
    """
    names: dict[str, str] = {}
    adapted: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call["function"]
                names[call["id"]] = function["name"]
                calls.append(
                    {"function": {"name": function["name"], "arguments": _loads(function["arguments"])}}
                )
            adapted.append({"role": "assistant", "content": message.get("content", ""), "tool_calls": calls})
        elif message.get("role") == "tool":
            tool = names.get(message.get("tool_call_id", ""), "")
            adapted.append({"role": "tool", "content": message["content"], "tool_name": tool})
        else:
            adapted.append(dict(message))
    return adapted


def raw_output(text: str, calls: Any) -> str:
    """Return the model's reply as one bounded string: text, then the tool calls as JSON."""
    parts = [text] if text else []
    if calls:
        parts.append(json.dumps(calls, ensure_ascii=False, default=str))
    return "\n".join(parts)[:RAW_CHARS]


def typed_reply(
    text: Any,
    raw_calls: Any,
    *,
    calls_in_words: bool = True,
    raw: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cached_tokens: int | None = None,
) -> ModelReply:
    """Return the typed reply for a text and a list of calls in any of the wire shapes.

    calls_in_words: read calls a model wrote into the text (off where the format has a field for
    them, so that words in the chat field stay words).
    """
    content = text[:RAW_TEXT_CHARS] if isinstance(text, str) else ""
    calls, malformed, cut = read_calls(raw_calls)
    # What the model only thought about is never a call.
    rest, written, written_cut = (
        calls_in_text(without_thinking(content)) if calls_in_words else ("", [], False)
    )
    if written:
        text_calls, text_malformed, _ = read_calls(written)
        # A model that wrote its call both ways meant one call.
        new = [call for call in text_calls if call not in calls]
        room = max(0, MAX_CALLS - len(calls))
        cut = cut or written_cut or len(new) > room
        calls, malformed = (*calls, *new[:room]), (*malformed, *text_malformed)
    return ModelReply(
        text=rest if written else content,
        tool_calls=calls,
        malformed=malformed,
        calls_cut=cut,
        raw=raw if raw is not None else raw_output(content, raw_calls),
        prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else None,
        completion_tokens=completion_tokens if isinstance(completion_tokens, int) else None,
        cached_tokens=cached_tokens if isinstance(cached_tokens, int) else None,
    )


def json_decision_reply(text: Any) -> ModelReply:
    """Read the reply of an agent asked for {"chat": "...", "tool_calls": [...]}, as conversation agents give.

    Accepts it with or without a code fence; a reply that is not JSON is taken as a chat line.
    """
    if not isinstance(text, str):
        return ModelReply()
    raw = text[:RAW_CHARS]
    body = _FENCE.sub("", without_thinking(text[:RAW_TEXT_CHARS]))
    start, end = body.find("{"), body.rfind("}")
    if start == -1 or end <= start:
        return typed_reply(body, None, raw=raw)
    data = _loads(body[start : end + 1])
    if data is _INVALID:
        return typed_reply(body, None, raw=raw)
    chat = data.get("chat", data.get("text", data.get("message")))
    calls = data.get("tool_calls", data.get("tools", data.get("actions")))
    if str(data.get("mode", "")).upper() == "SKIP":
        chat = None
    return typed_reply(chat, calls, calls_in_words=False, raw=raw)
