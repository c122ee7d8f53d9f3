"""The normaliser: whatever the model returned becomes one bounded, checked Decision."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum
from typing import Any

from .text import fold, one_line
from .tools import TOOLS, ArgumentError, Refusal, validate_arguments

# A model that loops can emit hundreds of calls; look at a bounded number of them.
MAX_RAW_CALLS = 32
RAW_TEXT_CHARS = 20000
REJECTED_ARGUMENT_CHARS = 200

NOTE_CHAT_CUT = "chat_cut"
NOTE_REPEAT_DROPPED = "repeat_dropped"
NOTE_JSON_TEXT_DROPPED = "json_text_dropped"
NOTE_CALLS_IGNORED = "calls_ignored"

_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_SKIP_WORDS = frozenset(
    {"skip", "(skip)", "[skip]", "<skip>", "skip.", "skipped", "mode: skip", "none", "n/a"}
)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class Mode(StrEnum):
    """The four decision modes of the contract."""

    SKIP = "SKIP"
    CHAT = "CHAT"
    ACTION = "ACTION"
    ACTION_CHAT = "ACTION+CHAT"


@dataclass(frozen=True, slots=True)
class DecisionRules:
    """Bounds on what one decision may do and say."""

    max_tool_calls: int = 1
    max_chat_chars: int = 280
    # Similarity to a recent bot line at which a new line counts as a repeat.
    repeat_threshold: float = 0.85


@dataclass(frozen=True, slots=True)
class Intent:
    """A tool call that passed the normaliser; the executor still asks policy."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rejection:
    """A tool call refused before execution, kept for the audit log."""

    name: str
    arguments: str
    reason: Refusal


@dataclass(frozen=True, slots=True)
class Decision:
    """One normalised decision."""

    mode: Mode
    intents: tuple[Intent, ...] = ()
    chat: str | None = None
    rejections: tuple[Rejection, ...] = ()
    notes: tuple[str, ...] = ()


def normalise(
    text: Any,
    tool_calls: Any,
    *,
    name: str,
    known_tools: Iterable[str],
    allowlist: Mapping[str, str],
    recent_bot_lines: Iterable[str],
    rules: DecisionRules,
) -> Decision:
    """Turn raw model output into a Decision; never raises, whatever the input."""
    known = frozenset(known_tools)
    notes: list[str] = []
    intents: list[Intent] = []
    rejections: list[Rejection] = []
    said: str | None = None
    raw_calls = _as_call_list(tool_calls)
    if len(raw_calls) > MAX_RAW_CALLS:
        notes.append(NOTE_CALLS_IGNORED)
        raw_calls = raw_calls[:MAX_RAW_CALLS]
    for raw in raw_calls:
        call_name, arguments = _split_call(raw)
        if not isinstance(call_name, str) or call_name not in TOOLS or call_name not in known:
            rejections.append(Rejection(_show(call_name), _show(arguments), Refusal.NOT_ALLOWLISTED))
            continue
        try:
            clean = validate_arguments(call_name, arguments, allowlist)
        except ArgumentError as err:
            rejections.append(Rejection(call_name, _show(arguments), err.reason))
            continue
        if call_name == "chat_say":
            # chat_say is the chat channel, not an action: the first one is the line.
            said = said if said is not None else clean["text"]
            continue
        if len(intents) >= rules.max_tool_calls:
            rejections.append(Rejection(call_name, _show(clean), Refusal.MAX_TOOL_CALLS))
            continue
        intents.append(Intent(call_name, clean))
    chat = _chat_line(said if said is not None else text, name, rules, notes)
    if chat is not None and _is_repeat(chat, recent_bot_lines, rules.repeat_threshold):
        notes.append(NOTE_REPEAT_DROPPED)
        chat = None
    if intents:
        mode = Mode.ACTION_CHAT if chat else Mode.ACTION
    else:
        mode = Mode.CHAT if chat else Mode.SKIP
    return Decision(mode, tuple(intents), chat, tuple(rejections), tuple(notes))


def _as_call_list(tool_calls: Any) -> list[Any]:
    """A list of raw calls from whatever the provider handed over."""
    if isinstance(tool_calls, Mapping):
        return [tool_calls]
    if isinstance(tool_calls, list | tuple):
        return list(tool_calls[: MAX_RAW_CALLS + 1])
    return []


def _split_call(raw: Any) -> tuple[Any, Any]:
    """(name, arguments) from Ollama, OpenAI or bare {"name", "arguments"} shapes."""
    if not isinstance(raw, Mapping):
        return None, raw
    function = raw.get("function")
    if isinstance(function, Mapping):
        raw = function
    arguments = raw.get("arguments", raw.get("parameters"))
    if isinstance(arguments, str):
        # OpenAI sends arguments as a JSON string; Ollama as an object.
        arguments = _loads(arguments, default=arguments) if arguments.strip() else {}
    return raw.get("name"), arguments


_INVALID = object()


def _loads(text: str, default: Any = _INVALID) -> Any:
    """json.loads that answers default for anything unparsable, deep nesting included."""
    try:
        return json.loads(text[:RAW_TEXT_CHARS])
    except (ValueError, RecursionError):
        return default


def _is_json(text: str) -> bool:
    """True for a JSON document, including one nested too deep to parse."""
    try:
        json.loads(text)
    except RecursionError:
        return True
    except ValueError:
        return False
    return True


def _show(value: Any) -> str:
    """A bounded, printable form of whatever a model sent."""
    try:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):  # circular or absurdly deep structures
        shown = repr(type(value))
    return one_line(shown, REJECTED_ARGUMENT_CHARS)


def _chat_line(text: Any, name: str, rules: DecisionRules, notes: list[str]) -> str | None:
    """The chat line to post, or None: no SKIP words, no echoed name, no rambling."""
    if not isinstance(text, str):
        return None
    text = _THINKING.sub(" ", text[:RAW_TEXT_CHARS]).strip()
    if text.startswith(("{", "[")) and _is_json(text):
        # A small model wrote a tool call as text: it is not a chat line, and it is
        # never run either, since only the structured channel carries calls.
        notes.append(NOTE_JSON_TEXT_DROPPED)
        return None
    line = one_line(text, RAW_TEXT_CHARS)
    # Models echo the transcript's "Name: text" form; the name is not part of the line.
    head, colon, rest = line.partition(":")
    while colon and fold(head) == fold(name):
        line = rest.strip()
        head, colon, rest = line.partition(":")
    if not line or fold(line) in _SKIP_WORDS:
        return None
    if len(line) > rules.max_chat_chars:
        notes.append(NOTE_CHAT_CUT)
        line = _cut_at_word(line, rules.max_chat_chars)
    return line


def _cut_at_word(line: str, limit: int) -> str:
    """Shorten to limit characters at a sentence or word boundary, marked with …."""
    head = line[: limit - 1]
    for stop in (". ", "! ", "? "):
        end = head.rfind(stop)
        if end >= limit // 2:
            return head[: end + 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


def _is_repeat(line: str, recent: Iterable[str], threshold: float) -> bool:
    """Too close to something the overseer said recently."""
    folded = fold(line)
    for previous in recent:
        other = fold(previous)
        if not other:
            continue
        if folded == other or SequenceMatcher(None, folded, other).ratio() >= threshold:
            return True
    return False


def parse_json_decision(text: Any) -> tuple[Any, Any]:
    """(chat text, tool calls) from a reply asked to be JSON, as conversation agents give.

    Accepts {"chat": "...", "tool_calls": [...]} with or without a code fence; a reply
    that is not JSON is taken as a chat line.
    """
    if not isinstance(text, str):
        return None, None
    body = _FENCE.sub("", _THINKING.sub(" ", text[:RAW_TEXT_CHARS]).strip())
    start, end = body.find("{"), body.rfind("}")
    if start == -1 or end <= start:
        return body, None
    data = _loads(body[start : end + 1])
    if data is _INVALID:
        return body, None
    if not isinstance(data, Mapping):
        return None, None
    chat = data.get("chat", data.get("text", data.get("message")))
    calls = data.get("tool_calls", data.get("tools", data.get("actions")))
    if str(data.get("mode", "")).upper() == Mode.SKIP:
        chat = None
    return chat, calls
