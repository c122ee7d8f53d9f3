"""The normaliser: a typed model reply becomes one bounded, checked Decision."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .arguments import bounded_arguments
from .line_rules import (
    AS_SAID,
    ECHOES,
    LineContext,
    LineRule,
    Note,
    Source,
    dropping,
    without_help_offers,
)
from .reply import ModelReply
from .text import fold, one_line, without_addressee, without_thinking
from .tools import CHAT_TOOLS, TOOLS, ArgumentError, Refusal, Vocabulary

RAW_TEXT_CHARS = 20000
REJECTED_ARGUMENT_CHARS = 200

# '"Okay, let's raise the lift!"', 'alex: "Hey everyone!"': a whole line in quotes, no quote inside.
# A chat assistant's eager opener before the line proper: "¡Por supuesto! He cambiado la luz…"
# (a held-out draw of the demo check). The keeper's line is what follows it.
_EAGER_OPENER = re.compile(
    r"^[¡\s]*(?:certainly|absolutely|of course|sure thing|claro|por supuesto|desde luego)\s*!+\s*(?=\w)",
    re.IGNORECASE,
)
# A chat assistant's apology in front of a refusal that goes on to say something: "I'm sorry, but I
# can't roast rover 3 for you. It's not my job." (a held-out draw of the demo check). The keeper
# refuses without it; a bare apology and refusal, nothing more, is still a stock refusal, dropped.
_APOLOGY_BEFORE_REFUSAL = re.compile(
    # At the line's start (perhaps after whom it is for, "Sam, "), or a sentence's.
    r"(?:^(?:[^\W\d_][\w' ]{0,30},\s+)?|(?<=[.!?]\s))(?P<apology>"
    r"(?:i['’]?m\s+|i am\s+)?(?:so\s+|very\s+|really\s+)?sorry[,.!]?\s+(?:but\s+)?"
    # "I won't" is left alone: "I'm sorry, I won't do it again." is no refusal.
    r"(?=i(?:\s+(?:can ?not|can['’]?t|am unable|am not able)|['’]m\s+(?:unable|not able))\b)"
    r"|¡?lo siento(?: mucho)?[,.!]?\s+(?:pero\s+)?(?=no\s+(?:puedo|podemos|me es posible)\b))",
    re.IGNORECASE,
)
_QUOTED = re.compile(r'^((?:[^:"\s]{1,32}:\s*)?)["\u201c]([^"\u201c\u201d]+)["\u201d]$')


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
    # The room devices the line says it is about, as the model named them (chat_say's about).
    about: tuple[str, ...] = ()


def normalise(
    reply: ModelReply,
    *,
    name: str,
    known_tools: Iterable[str],
    vocabulary: Vocabulary,
    own_lines: Iterable[str],
    chat_read: Iterable[str],
    rules: DecisionRules,
    question: str = "",
    shown_tools: Iterable[str] | None = None,
    cue: str = "",
    bots_read: Iterable[str] = (),
    results_read: Iterable[str] = (),
) -> Decision:
    """Turn a typed model reply into a Decision; never raises, whatever the reply holds.

    own_lines: the overseer's last lines: a line too close to one of them is a repeat.
    chat_read: the lines people said that it read: a line too close to one of them says it back
    ("alex: go go go" after jo said "go go go"). question: the words that addressed the
    overseer, if someone did. shown_tools: the tools the request showed (available or
    blocked), when fewer than the known ones; another known tool is not available to this
    decision. cue: what the request's last words asked for; a line of its words alone says it
    back. bots_read: the lines other bots said that it read: a line too close to one of them, or
    to one of its sentences, says it back. results_read: the states its calls' results reported:
    one said back is no line.
    """
    known = frozenset(known_tools)
    shown = known if shown_tools is None else frozenset(shown_tools)
    notes: list[Note] = [Note.CALLS_IGNORED] if reply.calls_cut else []
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
    about: tuple[str, ...] = ()
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
            if said is None:
                said, about = clean[spec.speaks], tuple(clean.get("about") or ())
            continue
        if len(intents) >= rules.max_tool_calls:
            rejections.append(RejectedCall(call.name, show(clean), Refusal.MAX_TOOL_CALLS))
            continue
        intents.append(Intent(call.name, clean))
    seen = LineContext(
        {
            Source.OWN_LINES: tuple(own_lines),
            Source.CHAT_READ: tuple(chat_read),
            Source.BOTS_READ: tuple(bots_read),
            Source.QUESTION: (question,),
            Source.CUE: (cue,),
            Source.RESULTS: tuple(results_read),
        },
        rules.repeat_threshold,
    )
    chat = _chat_line(said if said is not None else reply.text, name, rules, seen, notes)
    # Broken JSON ('{"text": "Hal') is a cut-off call, not a line.
    if chat is None and near_miss is not None and not near_miss.lstrip().startswith(("{", "[")):
        # The line is kept only if it passes the same rules; the call itself stays refused.
        chat = _chat_line(near_miss, name, rules, seen, notes)
        if chat is not None:
            notes.append(Note.CHAT_SALVAGED)
    if chat is not None and _dropped(chat, seen, ECHOES, notes):
        chat = None
    if intents:
        mode = Mode.ACTION_CHAT if chat else Mode.ACTION
    else:
        mode = Mode.CHAT if chat else Mode.SKIP
    return Decision(mode, tuple(intents), chat, tuple(rejections), tuple(notes), about)


def with_line(decision: Decision, chat: str | None, *notes: str) -> Decision:
    """Return the decision with this line (None: none), its mode to match, and the notes added."""
    if decision.intents:
        mode = Mode.ACTION_CHAT if chat else Mode.ACTION
    else:
        mode = Mode.CHAT if chat else Mode.SKIP
    return replace(decision, mode=mode, chat=chat, notes=(*decision.notes, *notes))


def show(value: Any) -> str:
    """Return a bounded, printable form of what a model sent, for the audit log."""
    try:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):  # circular or absurdly deep structures
        shown = repr(type(value))
    return one_line(shown, REJECTED_ARGUMENT_CHARS)


def _chat_line(
    text: str, name: str, rules: DecisionRules, seen: LineContext, notes: list[Note]
) -> str | None:
    """Return the line the text says, cut to its bound, or None: nothing said, or a rule drops it."""
    written = without_thinking(text[:RAW_TEXT_CHARS])
    line = _unquoted(one_line(written, RAW_TEXT_CHARS))
    # Models echo the transcript's "Name: text" form; the name is not part of the line.
    head, colon, rest = line.partition(":")
    while colon and fold(head) == fold(name):
        line = rest.strip()
        head, colon, rest = line.partition(":")
    line = _unquoted(line)
    if (opened := _EAGER_OPENER.match(line)) is not None:
        notes.append(Note.OPENER_CUT)
        line = line[opened.end() :]
    if (offered := without_help_offers(line)) != line:
        # Nothing but the offer: the help desk's line, which the room does not hear.
        notes.append(Note.HELP_OFFER_CUT if offered else Note.HELP_DESK_DROPPED)
        line = offered
    if not line or _dropped(line, replace(seen, written=written), AS_SAID, notes):
        return None
    if (unapologetic := _without_apology(line)) != line:
        notes.append(Note.APOLOGY_CUT)
        line = unapologetic
    if len(line) > rules.max_chat_chars:
        notes.append(Note.CHAT_CUT)
        line = _cut_at_word(line, rules.max_chat_chars)
    return line


def _dropped(line: str, seen: LineContext, rules: Iterable[LineRule], notes: list[Note]) -> bool:
    """Return whether one of the rules drops the line, noting why when its rule has a note."""
    rule = dropping(line, seen, rules)
    if rule is not None and rule.note is not None:
        notes.append(rule.note)
    return rule is not None


def _without_apology(line: str) -> str:
    """Return the line without the apologies in front of its refusals, whom it is for kept."""
    said = without_addressee(line)
    addressee = line[: len(line) - len(said)]
    kept, start = [], 0
    for found in _APOLOGY_BEFORE_REFUSAL.finditer(said):
        kept.append(said[start : found.start("apology")])
        # The refusal now starts its sentence: "no puedo" is "No puedo" (but "Sam, no puedo").
        refusal = said[found.end("apology")]
        kept.append(refusal.upper() if found.start("apology") == found.start() else refusal)
        start = found.end("apology") + 1
    return addressee + "".join(kept) + said[start:]


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
