"""Claims of an action in a line: the overseer never says it did what no call of its decision did.

A small model answers "raise the lift" with "Lift raised." and no call at all; so do big ones
(home-assistant/core#177156). A line is read clause by clause: a clause that says an action is
done, under way or about to be done by the overseer claims it; a question, a refusal or a
negation claims nothing, and neither does a state ("The lift is up.", "The vacuum is running."),
which the STATE_UPDATE may well back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .text import fold

# What the overseer says it is about to do, in the forms small models write.
_WILL = r"(?:i'll|i will|i'm going to|i am going to|i'm gonna|let me|let's|let us|watch me)"
_DONE = r"(?:is |are |was |has been |have been |got )?(?:now |just )?"
_LIGHT = r"(?:lights?|lamps?|led strip)"
_THE = r"(?:the |your |all |those )?"
_LIGHT_DONE = "turned|switched|set|changed|made|painted|flipped|killed|dimmed"
_LIGHT_DOING = "turning|switching|setting|changing|making|painting|flipping|killing|dimming"
_LIGHT_DO = "turn|switch|set|change|make|paint|flip|kill|dim"
_MEMORY = "remember|remembered|note|noted|save|saved|store|stored|write|written"
_VACUUM = r"(?:the |your )?(?:vacuum|neato)\b"
_VACUUM_DONE = "started|sent|dispatched|unleashed|released|woke"
_VACUUM_DOING = "starting|sending|dispatching|unleashing|releasing|waking"
_VACUUM_STATE = "started|starting|sent home|going home|heading home|on its way|dispatched|beeping|cleared"


@dataclass(frozen=True, slots=True)
class ClaimKind:
    """One kind of action a line can claim, the tools that back it, and how it is said."""

    action: str
    tools: frozenset[str]
    pattern: re.Pattern[str]


def _kind(action: str, tools: Iterable[str], *forms: str) -> ClaimKind:
    return ClaimKind(action, frozenset(tools), re.compile("|".join(f"(?:{form})" for form in forms)))


CLAIM_KINDS = (
    _kind(
        "lift_up",
        ("lift_up",),
        rf"\blift {_DONE}(?:raised|going up|rising|coming up|on its way up)\b",
        r"\b(?:raised|raising|lifted|lifting|sent up|sending up) the lift\b",
        rf"\b{_WILL} (?:raise|lift|send up|bring up) the lift\b",
        r"\bup (?:it goes|goes the lift)\b",
    ),
    _kind(
        "lift_down",
        ("lift_down",),
        rf"\blift {_DONE}(?:lowered|going down|coming down|dropping|on its way down)\b",
        r"\b(?:lowered|lowering|dropped|dropping|brought down|bringing down) the lift\b",
        rf"\b{_WILL} (?:lower|drop|bring down) the lift\b",
        r"\bdown (?:it goes|goes the lift)\b",
    ),
    _kind(
        "light",
        ("ha_set_entity",),
        rf"\b{_LIGHT}\b[^.!?;]{{0,30}}\b(?:{_LIGHT_DONE}|going) (?:on|off|to|into|up|down)\b",
        rf"\b{_LIGHT} (?:is |are )?now (?:on|off|\w+)\b",
        rf"\b(?:{_LIGHT_DONE}|{_LIGHT_DOING}) (?:on |off |up |down )?{_THE}(?:\w+ ){{0,2}}{_LIGHT}\b",
        rf"\b{_WILL} (?:{_LIGHT_DO}) (?:on |off |up |down )?{_THE}(?:\w+ ){{0,2}}{_LIGHT}\b",
        r"\b(?:lights? out|let there be light)\b",
    ),
    _kind(
        "vacuum",
        ("neato_start", "neato_send_home", "neato_locate", "neato_clear_errors"),
        rf"\b(?:vacuum|neato) {_DONE}(?:{_VACUUM_STATE})\b",
        rf"\b(?:{_VACUUM_DONE}|{_VACUUM_DOING}) {_VACUUM}",
        rf"\b{_WILL} (?:start|send|dispatch|unleash|release|wake|locate|find) {_VACUUM}",
    ),
    _kind(
        "memory",
        ("memory_write",),
        rf"\b(?:i'll|i will|i've|i have) (?:{_MEMORY})\b",
        r"\b(?:saved|stored|written|noted) (?:it |that |this )?(?:to|in|into) (?:my )?memory\b",
    ),
)
# A clause that refuses or doubts claims nothing: "I won't raise the lift", "no lights out".
_NEGATION = re.compile(
    r"\b(?:not|never|no|nope|won't|can't|cannot|don't|didn't|isn't|aren't|wasn't|shan't|nor)\b|n't\b"
)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|,?\s+(?:but|though|although|unless)\s+")


def claimed_actions(line: str) -> tuple[str, ...]:
    """The kinds of action the line claims the overseer did, is doing or will do now."""
    claimed: list[str] = []
    for part in _CLAUSES.split(fold(line).replace("\u2019", "'")):
        clause = part.strip()
        if not clause or clause.endswith("?"):
            continue
        for kind in CLAIM_KINDS:
            match = kind.pattern.search(clause)
            if match is None or kind.action in claimed:
                continue
            if _NEGATION.search(clause[: match.end()]) or re.search(r"\bto be \S*$", clause[: match.start()]):
                continue
            claimed.append(kind.action)
    return tuple(claimed)


def unbacked_claims(line: str, ran: Iterable[str]) -> tuple[str, ...]:
    """The actions the line claims that none of the tools that ran in its decision backs."""
    done = frozenset(ran)
    return tuple(
        kind.action for kind in CLAIM_KINDS if kind.action in claimed_actions(line) and not kind.tools & done
    )
