"""The normaliser: a typed model reply becomes one bounded, checked Decision."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum
from typing import Any

from .arguments import bounded_arguments
from .claims import unbacked_claims
from .reply import ModelReply
from .text import SPEAKER_LABEL, fold, one_line, without_addressee, without_thinking
from .tools import CHAT_TOOLS, TOOLS, ArgumentError, Refusal, Vocabulary

RAW_TEXT_CHARS = 20000
REJECTED_ARGUMENT_CHARS = 200

NOTE_CHAT_CUT = "chat_cut"
NOTE_REPEAT_DROPPED = "repeat_dropped"
NOTE_JSON_TEXT_DROPPED = "json_text_dropped"
NOTE_CALLS_IGNORED = "calls_ignored"
NOTE_CHAT_SALVAGED = "chat_salvaged"
NOTE_TOOL_TEXT_DROPPED = "tool_text_dropped"
NOTE_STOCK_REFUSAL_DROPPED = "stock_refusal_dropped"
NOTE_UNBACKED_CLAIM_DROPPED = "unbacked_claim_dropped"
NOTE_QUESTION_SAID_BACK = "question_said_back"
NOTE_CUE_SAID_BACK = "cue_said_back"
# Shorter lines of the cue's words ("Your call.") may well be meant.
CUE_ECHO_WORDS = 3

# A call's JSON or tag left in a line (cut off, or named inside a sentence): never posted.
_CALL_JSON = re.compile(r'<tool_call>|\{\s*"name"\s*:[^{}]*"(?:arguments|parameters)"', re.IGNORECASE)
# "functions.lift_up:", "alex: lift_up()", "I will call the ha_set_entity function to set the
# bench light blue.": a small model writes or narrates a call it did not make. The room never
# hears the machinery's names; asked again, the model acts.
_TOOL_NAMED = re.compile(r"\b(?:" + "|".join(map(re.escape, TOOLS)) + r")\b", re.IGNORECASE)

# '"Okay, let's raise the lift!"', 'alex: "Hey everyone!"': a whole line in quotes, no quote inside.
_QUOTED = re.compile(r'^((?:[^:"\s]{1,32}:\s*)?)["\u201c]([^"\u201c\u201d]+)["\u201d]$')
# "alex:": whom a line is for, and no line.
_LABEL_ONLY = re.compile(SPEAKER_LABEL)
# A chat assistant's stock refusal ("I'm sorry, but I can't assist with that.", perhaps after
# "alex:" or "Sam,"), or its apology for anything ("I'm sorry, but I can't raise the lift right
# now.", said while the lift was free): not a line in the overseer's voice, and once in the
# transcript a small model says it again to everything. Asked again, it does what was asked.
_STOCK_REFUSAL = re.compile(
    r"(?:[^:,]{1,32}[:,]\s*)?(?:i'?m\s+|i am\s+|i\s+)?(?:so\s+|very\s+)?(?:sorry|apologi[sz]e)\b"
    r"(?:.{0,40}?\b(?:can ?not|can'?t|unable to|not able to)\s+(?:assist|help)(?: you)?"
    r"(?: with (?:that|this)[^.!]*)?"
    # The apology comes straight before "I can't": a reason or a name between them is in character.
    r"|,?\s+(?:but\s+)?i\s+(?:can ?not|can'?t|am unable to|am not able to)\s+[^.!?]{1,60}?\s"
    r"(?:right now|at the moment|at this time))[.!]?"
    # An assistant's sign-off after it: "Please try again (later).", "Please let me know if you
    # have any other questions."
    r"(?:\s+please (?:try again(?: later)?|let me know if you have any other questions)[.!]?)?",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[\w']+")
_SKIP_WORDS = frozenset(
    {"skip", "(skip)", "[skip]", "<skip>", "skip.", "skipped", "mode: skip", "none", "n/a"}
)


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
class RejectedCall:
    """A tool call refused before execution, kept for the audit log (truncated: cut at the bounds)."""

    name: str
    arguments: str
    reason: Refusal
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Decision:
    """One normalised decision."""

    mode: Mode
    intents: tuple[Intent, ...] = ()
    chat: str | None = None
    rejections: tuple[RejectedCall, ...] = ()
    notes: tuple[str, ...] = ()


def normalise(
    reply: ModelReply,
    *,
    name: str,
    known_tools: Iterable[str],
    vocabulary: Vocabulary,
    recent_lines: Iterable[str],
    rules: DecisionRules,
    question: str = "",
    shown_tools: Iterable[str] | None = None,
    cue: str = "",
) -> Decision:
    """Turn a typed model reply into a Decision; never raises, whatever the reply holds.

    recent_lines: the overseer's last lines and the chat it read: a line too close to one of
    them is a copy ("alex: go go go" after alex said it). question: the words that addressed
    the overseer, if someone did. shown_tools: the tools the request
    showed (available or blocked), when fewer than the known ones; another known tool is not
    available to this decision. cue: what the request's last words asked for; a line of its
    words alone says it back.
    """
    known = frozenset(known_tools)
    shown = known if shown_tools is None else frozenset(shown_tools)
    notes: list[str] = [NOTE_CALLS_IGNORED] if reply.calls_cut else []
    intents: list[Intent] = []
    rejections = [
        RejectedCall(
            show(call.name),
            call.shown,
            Refusal.INVALID_ARGUMENTS if call.name in known else Refusal.NOT_ALLOWLISTED,
        )
        for call in reply.malformed
    ]
    said: str | None = None
    # A small model's near miss: chat_say with arguments that do not check, beside no text.
    near_miss = next((call.shown for call in reply.malformed if call.name in CHAT_TOOLS), None)
    for call in reply.tool_calls:
        if (sent := bounded_arguments(call.arguments)).truncated:
            # More than the bounds hold is more than any tool takes; only the cut copy is kept.
            rejections.append(
                RejectedCall(show(call.name), show(sent.value), Refusal.INVALID_ARGUMENTS, truncated=True)
            )
            continue
        spec = TOOLS.get(call.name)
        if spec is None or call.name not in known:
            rejections.append(RejectedCall(show(call.name), show(call.arguments), Refusal.NOT_ALLOWLISTED))
            continue
        if call.name not in shown:
            rejections.append(RejectedCall(call.name, show(call.arguments), Refusal.NOT_AVAILABLE))
            continue
        try:
            clean = spec.validate(call.arguments, vocabulary)
        except ArgumentError as err:
            rejections.append(RejectedCall(call.name, show(call.arguments), err.reason))
            if spec.speaks is not None and near_miss is None:
                near_miss = next(
                    (v for v in call.arguments.values() if isinstance(v, str) and v.strip()), None
                )
            continue
        if spec.speaks is not None:
            # The chat channel, not an action: the first line said is the line.
            said = said if said is not None else clean[spec.speaks]
            continue
        if len(intents) >= rules.max_tool_calls:
            rejections.append(RejectedCall(call.name, show(clean), Refusal.MAX_TOOL_CALLS))
            continue
        intents.append(Intent(call.name, clean))
    chat = _chat_line(said if said is not None else reply.text, name, rules, notes)
    # Broken JSON ('{"text": "Hal') is a cut-off call, not a line.
    if chat is None and near_miss is not None and not near_miss.lstrip().startswith(("{", "[")):
        # The line is kept only if it passes the same rules; the call itself stays refused.
        chat = _chat_line(near_miss, name, rules, notes)
        if chat is not None:
            notes.append(NOTE_CHAT_SALVAGED)
    if chat is not None and _is_repeat(chat, recent_lines, rules.repeat_threshold):
        notes.append(NOTE_REPEAT_DROPPED)
        chat = None
    if chat is not None and _says_back(chat, question):
        notes.append(NOTE_QUESTION_SAID_BACK)
        chat = None
    if chat is not None and _only_words_of(chat, cue):
        # "An opinion, an answer or a verdict.": the cue said back, reordered, to a question.
        notes.append(NOTE_CUE_SAID_BACK)
        chat = None
    if intents:
        mode = Mode.ACTION_CHAT if chat else Mode.ACTION
    else:
        mode = Mode.CHAT if chat else Mode.SKIP
    return Decision(mode, tuple(intents), chat, tuple(rejections), tuple(notes))


def with_line(decision: Decision, chat: str | None, *notes: str) -> Decision:
    """Return the decision with this line (None: none), its mode to match, and the notes added."""
    if decision.intents:
        mode = Mode.ACTION_CHAT if chat else Mode.ACTION
    else:
        mode = Mode.CHAT if chat else Mode.SKIP
    return replace(decision, mode=mode, chat=chat, notes=(*decision.notes, *notes))


def backed(decision: Decision, ran: Iterable[str]) -> Decision:
    """Return the decision, without its line if the line claims an action no tool that ran backs.

    ran: the tools of the decision that executed (or would have, in a dry run). A line saying
    "Lift raised." beside no lift_up that ran would tell the room something that did not happen.
    """
    if decision.chat is None or not unbacked_claims(decision.chat, ran):
        return decision
    return with_line(decision, None, NOTE_UNBACKED_CLAIM_DROPPED)


def show(value: Any) -> str:
    """Return a bounded, printable form of what a model sent, for the audit log."""
    try:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):  # circular or absurdly deep structures
        shown = repr(type(value))
    return one_line(shown, REJECTED_ARGUMENT_CHARS)


def _is_json(text: str) -> bool:
    """Return True for a JSON document, including one nested too deep or cut off before its end.

    Python 3.13's parser gives up on deep nesting (RecursionError) while 3.14's reads on until
    the input runs out: either way it is a document, not words.
    """
    try:
        json.loads(text)
    except RecursionError:
        return True
    except json.JSONDecodeError as err:
        return err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string")
    except ValueError:
        return False
    return True


def _chat_line(text: str, name: str, rules: DecisionRules, notes: list[str]) -> str | None:
    """Return the chat line to post, or None: no SKIP words, no echoed name, no rambling."""
    text = without_thinking(text[:RAW_TEXT_CHARS])
    if (text.startswith(("{", "[")) and _is_json(text)) or _CALL_JSON.search(text):
        # A small model wrote a tool call as text: it is not a chat line, and it is
        # never run either, since only the structured channel carries calls.
        notes.append(NOTE_JSON_TEXT_DROPPED)
        return None
    line = _unquoted(one_line(text, RAW_TEXT_CHARS))
    # Models echo the transcript's "Name: text" form; the name is not part of the line.
    head, colon, rest = line.partition(":")
    while colon and fold(head) == fold(name):
        line = rest.strip()
        head, colon, rest = line.partition(":")
    line = _unquoted(line)
    if not line or fold(line) in _SKIP_WORDS:
        return None
    if _STOCK_REFUSAL.fullmatch(line.replace("\u2019", "'")):
        notes.append(NOTE_STOCK_REFUSAL_DROPPED)
        return None
    if _TOOL_NAMED.search(line):
        notes.append(NOTE_TOOL_TEXT_DROPPED)
        return None
    if _LABEL_ONLY.fullmatch(line):
        return None
    if len(line) > rules.max_chat_chars:
        notes.append(NOTE_CHAT_CUT)
        line = _cut_at_word(line, rules.max_chat_chars)
    return line


def _unquoted(line: str) -> str:
    """Small models put their own line in quotes, perhaps after a label: the quotes go."""
    return _QUOTED.sub(lambda match: match.group(1) + match.group(2).strip(), line)


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


def _says_back(line: str, question: str) -> bool:
    """Return whether the line only says the question again: "alex: Pick a side." to "overseer, pick a side".

    Its words in the question's order, and most of them: "The vacuum is running." answers "is
    the vacuum running?", and "Blue." answers "red or blue?".
    """
    said = _words(without_addressee(line))
    words = _words(question)
    asked = iter(words)
    return len(said) > len(words) / 2 and all(word in asked for word in said)


def _words(text: str) -> list[str]:
    """Return the text's words as a reader compares them."""
    return _WORDS.findall(fold(text))


def _only_words_of(line: str, told: str) -> bool:
    """Return whether the line is CUE_ECHO_WORDS words or more, every one of them a word of told."""
    said, words = _words(line), frozenset(_words(told))
    return len(said) >= CUE_ECHO_WORDS and all(word in words for word in said)


def _is_repeat(line: str, recent: Iterable[str], threshold: float) -> bool:
    """Too close to a recent line, to whomever it was said."""
    folded = fold(without_addressee(line))
    for previous in recent:
        other = fold(without_addressee(previous))
        if not other:
            continue
        if folded == other or SequenceMatcher(None, folded, other).ratio() >= threshold:
            return True
    return False
