"""Plain words for what a decision did, in the overseer's own sentences.

For someone who asked through Assist and got no line, for the room when a call waits for a
person, and for someone whose asked-for call a guardrail stopped or holds back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from .acts import Deed, Device, Kind, changes
from .audit import AuditRecord, Outcome
from .context import label
from .policy import Block
from .tools import LIGHT, Refusal, call_for, deed_text

# A phrase by translation key, with its placeholders filled in.
Phrase = Callable[..., str]
# A device's name as the room shows it, by its entity id: "light.shelf": "Shelf".
Names = Mapping[str, str]
_NO_NAMES: Names = MappingProxyType({})
# The Home Assistant domain whose state words a kind of device's states are.
STATE_DOMAINS = {Kind.LIGHT: "light", Kind.LIFT: "cover", Kind.VACUUM: "vacuum"}


def reason_key(reason: str | None) -> str:
    """Return the translation key of a refusal's plain words ("reason_cooldown", ...)."""
    try:
        return f"reason_{Refusal(str(reason)).name.lower()}"
    except ValueError:
        return "reason_failed"


def describe_actions(records: Iterable[AuditRecord], phrase: Phrase, names: Names = _NO_NAMES) -> str | None:
    """One sentence per attempted call, from its audit record; None when nothing was attempted."""
    sentences = []
    for record in records:
        # What the call does in the room's words ("raise the lift"), never the machinery's name.
        arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
        tool = told_deed(record.tool, arguments, phrase, names)
        if record.outcome is Outcome.EXECUTED:
            sentences.append(phrase("reply_executed", tool=tool))
        elif record.outcome is Outcome.DRY_RUN:
            sentences.append(phrase("reply_dry_run", tool=tool))
        elif record.outcome is Outcome.AWAITING_APPROVAL:
            sentences.append(phrase("reply_awaiting_approval", tool=tool, approval_id=record.approval or ""))
        else:
            sentences.append(phrase("reply_refused", tool=tool, reason=_because(record, phrase)))
    return " ".join(sentences) or None


# The room's guardrails: what stops a well-formed call for now, not a call the registry refuses.
_GUARDRAILS = frozenset(
    {
        Refusal.COOLDOWN,
        Refusal.BUSY,
        Refusal.UNAVAILABLE,
        Refusal.RATE_LIMIT,
        Refusal.SITE_MODE_ADMIN,
        Refusal.SITE_MODE_LOCKDOWN,
        Refusal.LIGHTS_LOCKED_ON,
    }
)


def refusal_answer(
    records: Iterable[AuditRecord], asker: str, phrase: Phrase, names: Names = _NO_NAMES
) -> str | None:
    """Why the call made for asker did not run, or None.

    "robin, I tried to lower the lift, but it is cooling down for 40 s.": the deed in the room's
    words for its tool, which is true also when the model called something nobody asked for.
    """
    refused = next(
        (record for record in records if record.outcome is Outcome.BLOCKED and record.reason in _GUARDRAILS),
        None,
    )
    if refused is None:
        return None
    deed = told_deed(refused.tool, refused.arguments, phrase, names)
    return phrase("answer_refused", user=asker, deed=deed, reason=_because(refused, phrase))


def blocked_answer(
    asked: frozenset[Deed] | None,
    blocked: Iterable[tuple[str, Block]],
    asker: str,
    phrase: Phrase,
    names: Names = _NO_NAMES,
    devices: Sequence[Device] = (),
) -> str | None:
    """Why the one act asker's words ask for cannot run now, or None.

    "robin, I can't raise the lift yet: it is cooling down for 40 s.": the call was shown to the
    model as blocked, so it made none, and claimed the deed instead ("The window light is now
    on.") or said the machinery back; asked again, it would meet the same guardrail.
    """
    held = blocked_why(asked, blocked, phrase, names, devices)
    return None if held is None else phrase("answer_blocked", user=asker, deed=held[0], reason=held[1])


def held_call(
    asked: frozenset[Deed] | None, blocked: Iterable[tuple[str, Block]], devices: Sequence[Device] = ()
) -> tuple[str, dict[str, Any], Block] | None:
    """Return the one asked-for act a guardrail holds now: its call and the block.

    None when the words ask for no single act, nothing but a guardrail of the room's holds it, or
    the device shows it done or under way already ("start neato, again!" while it cleans: its
    cooldown holds nothing anyone still wants).
    """
    if asked is None or len(asked) != 1:
        return None
    deed = next(iter(asked))
    if any(device.key == deed.device and not changes(device, deed) for device in devices):
        return None
    held = dict(blocked)
    found = call_for(deed, held)
    if found is None:
        return None
    tool, arguments = found
    block = held[tool]
    return (tool, arguments, block) if block.reason in _GUARDRAILS else None


def blocked_why(
    asked: frozenset[Deed] | None,
    blocked: Iterable[tuple[str, Block]],
    phrase: Phrase,
    names: Names = _NO_NAMES,
    devices: Sequence[Device] = (),
) -> tuple[str, str] | None:
    """Return the one asked-for act a guardrail holds now, and why ("raise the lift", "it is cooling")."""
    found = held_call(asked, blocked, devices)
    if found is None:
        return None
    tool, arguments, block = found
    reason = phrase(reason_key(block.reason), seconds=block.remaining or 0)
    return told_deed(tool, arguments, phrase, names), reason


def state_answer(
    named: Sequence[tuple[Device, str]], asker: str, state_words: Mapping[str, str], phrase: Phrase
) -> str | None:
    """Return what the room shows of the devices the asker named; None when it can read none of them.

    "robin, as the room stands: elevador: Cerrado.": asked how a device is, the bundled model
    answered SKIP twice, and the asker got the fallback. state_words: Home Assistant's own words
    for a domain's states ("cover.closed": "Cerrado"), in the asker's language.
    """
    shown = [
        f"{name}: {state_words.get(f'{STATE_DOMAINS[device.kind]}.{device.state}', device.state)}"
        for device, name in named
        if device.known
    ]
    return phrase("answer_state", user=asker, states="; ".join(shown)) if shown else None


def told_deed(tool: str, arguments: Mapping[str, Any], phrase: Phrase, names: Names = _NO_NAMES) -> str:
    """Return what a call does in the room's language ("bajar el elevador"), else its title's words.

    A device is said by its name ("poner una luz (Shelf, green)"): the chat posted "light.shelf",
    and the model, reading it, wrote the entity id into its next lines.
    """
    named = {
        key: label(names[value]) if key == LIGHT.name and isinstance(value, str) and value in names else value
        for key, value in arguments.items()
    }
    key = f"deed_{tool}"
    words = phrase(key)
    if words == key:  # a tool with no phrase of its own
        return deed_text(tool, named)
    values = ", ".join(str(value) for value in named.values())
    return f"{words} ({values})" if values else words


def _because(record: AuditRecord, phrase: Phrase) -> str:
    """Return a refusal's plain words ("it is cooling down for 40 s")."""
    return phrase(reason_key(record.reason), seconds=record.remaining_s or 0)
