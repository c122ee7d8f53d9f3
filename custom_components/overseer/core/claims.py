"""Claims of an action in a line: the overseer never says it did what no call of its decision did.

A small model answers "raise the lift" with "Lift raised." and no call at all; so do big ones
(home-assistant/core#177156). A line is read clause by clause: a clause that says the overseer
did, is doing or is about to do an action claims it; a question, a refusal, a negation, someone
else's deed and a state ("The lift is up.", "The vacuum is running.", which the STATE_UPDATE may
well back) claim nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .text import fold, without_addressee

# A clause claims an action in three shapes, each for the overseer alone: a headline with no
# verb to be ("Lift raised.", "Bench light now blue"), a deed with no other subject ("Raising the
# lift", "I've turned off the lights"), or a promise in the first person ("I'll raise the lift").
# A state ("The lift is going up."), a deed of someone else ("Alex raised the lift") and thanks
# ("Thanks for turning on the lights") are no claims.
_LEAD = (
    r"^(?:(?:i|i've|i have|i'm|i am|i just|we|we've|we're|we are|just|now|okay|ok|sure|done|so|then|yes|"
    r"alright|already|there)\s+)*"
)
_WILL = r"\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|let me|let's|let us|watch me)\s+"
_THE = r"(?:the |your |all |those |that |this )?"
_LIFT = rf"{_THE}lift"
_LIGHT = rf"{_THE}(?:\w+ ){{0,2}}(?:lights?|lamps?|led strip)"
_VACUUM = rf"{_THE}(?:vacuum|neato)"
_PART = r"(?:on |off |up |down )?"
_COLOURS = "red|orange|yellow|green|cyan|blue|purple|pink|white|magenta|violet|teal|amber|gold"
_HUE = r"(?:on|off|out|dark|dimmed|now \w+|set to \w+|turned \w+|switched \w+|changed to \w+)"
# "The lift was lowered.", "The lift is now up.": a deed said without its doer, or a change said
# to have just happened, in reply to whoever asked for it ("The lift is up." is a state).
_DONE = r"(?:(?:is |has )?(?=now|just))?(?:now |just )?"
_PASSIVE = r"(?:was|has been|got) (?:just )?"


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
        rf"^{_LIFT}(?:'s)? {_DONE}(?:raised|(?:going|coming|moving|on its way) up|rising|up)$",
        rf"^{_LIFT} {_PASSIVE}(?:raised|lifted|sent up|brought up)$",
        rf"{_LEAD}(?:raised|raising|lifted|lifting|sent up|sending up|brought up|bringing up) {_LIFT}\b",
        rf"{_LEAD}(?:sent|sending|brought|bringing) {_LIFT} up\b",
        rf"{_WILL}(?:raise|lift|send up|bring up) {_LIFT}\b",
        rf"{_WILL}(?:send|bring|call) {_LIFT} up\b",
        r"^up (?:it goes|goes the lift)\b",
    ),
    _kind(
        "lift_down",
        ("lift_down",),
        rf"^{_LIFT}(?:'s)? {_DONE}(?:lowered|(?:going|coming|moving|on its way) down|dropping|down)$",
        rf"^{_LIFT} {_PASSIVE}(?:lowered|dropped|sent down|brought down)$",
        rf"{_LEAD}(?:lowered|lowering|dropped|dropping|brought down|bringing down) {_LIFT}\b",
        rf"{_LEAD}(?:sent|sending|brought|bringing) {_LIFT} down\b",
        rf"{_WILL}(?:lower|drop|bring down) {_LIFT}\b",
        rf"{_WILL}(?:send|bring) {_LIFT} down\b",
        r"^down (?:it goes|goes the lift)\b",
    ),
    _kind(
        "light",
        ("ha_set_entity",),
        rf"^{_LIGHT} (?:now |just )?{_HUE}\b",
        rf"^{_LIGHT}(?: is|'s) (?:now|just) (?:on|off|out|dark|dimmed|{_COLOURS})\b",
        rf"^{_LIGHT} {_PASSIVE}(?:turned|switched|set|changed|dimmed)\b(?! by\b)(?!.* by\b)",
        rf"{_LEAD}(?:turned|turning|switched|switching|set|setting|changed|changing|made|making|painted|"
        rf"painting|flipped|flipping|killed|killing|dimmed|dimming) {_PART}{_LIGHT}\b",
        rf"{_WILL}(?:turn|switch|set|change|make|paint|flip|kill|dim) {_PART}{_LIGHT}\b",
        r"^(?:lights? out|let there be light)\b",
        # The scripted worst case's (and a small model's) "Red it is." to "make the light red".
        rf"^(?:{_COLOURS}) it is$",
    ),
    _kind(
        "vacuum",
        ("neato_start", "neato_send_home", "neato_locate", "neato_clear_errors"),
        rf"^{_VACUUM} (?:now |just )?(?:started|starting|sent home|going home|heading home|on its way|"
        r"dispatched|beeping|cleared|unleashed)\b",
        rf"{_LEAD}(?:started|starting|sent|sending|dispatched|dispatching|unleashed|unleashing|woke|waking) "
        rf"{_VACUUM}\b",
        rf"{_WILL}(?:start|send|dispatch|unleash|release|wake|locate) {_VACUUM}\b",
    ),
    _kind(
        "memory",
        ("memory_write",),
        r"\b(?:i'll|i will|i've|i have|i) (?:remember|remembered|memorised|memorized) (?:that|this|it)\b",
        r"\b(?:saved|stored|written|wrote|noted|save|store|write|note)(?: it| that| this)?(?: down)? "
        r"(?:to|in|into) (?:my )?memory\b",
    ),
)
# A clause that refuses or doubts claims nothing: "I won't raise the lift", "no lights out".
_NEGATION = re.compile(
    r"\b(?:not|never|no|nope|won't|can't|cannot|don't|didn't|isn't|aren't|wasn't|shan't|nor)\b|n't\b"
)
# Sentences, and the parts a comma or a conjunction joins: "No problem, raising the lift!"
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\s*,\s*|\s+(?:and|but|though|although|unless|so)\s+")


def claimed_actions(line: str) -> tuple[str, ...]:
    """Return the kinds of action the line claims the overseer did, is doing or will do now."""
    claimed: list[str] = []
    for part in _CLAUSES.split(fold(line).replace("\u2019", "'")):
        clause = without_addressee(part.strip()).strip("\"'\u201c\u201d").rstrip(".!… ")
        if not clause or clause.endswith("?"):
            continue
        for kind in CLAIM_KINDS:
            match = kind.pattern.search(clause)
            if match is None or kind.action in claimed or _NEGATION.search(clause[: match.end()]):
                continue
            claimed.append(kind.action)
    return tuple(claimed)


def unbacked_claims(line: str, ran: Iterable[str]) -> tuple[str, ...]:
    """Return the actions the line claims that none of the tools that ran in its decision backs."""
    done, claimed = frozenset(ran), claimed_actions(line)
    return tuple(kind.action for kind in CLAIM_KINDS if kind.action in claimed and not kind.tools & done)
