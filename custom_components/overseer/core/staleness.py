"""Is an answer still right? Judged on what it is about, not on whether anything at all moved.

A reply to someone who asked is posted unless the change since the question makes it wrong:
it names something whose state is no longer what it was, or it announces an action that was
then refused. An unsolicited comment is dropped when it is late or when the event it comments
on was superseded. The overseer's own actions and their expected consequences (the lift it
raised reaching the top) never make its answers stale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from .text import fold
from .tools import TOOLS
from .world import RoverField, Target, World

_WORD = re.compile(r"\w+")


class StaleReason(StrEnum):
    """Why an answer was not posted; the metrics count each."""

    TOO_LATE = "too_late"
    STATE_CHANGED = "state_changed"
    ACTION_REFUSED = "action_refused"
    SUPERSEDED = "superseded"
    LOCKED = "locked"


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing about the room an answer could be about: its value and the names that call it."""

    value: str
    # Each name as the words a line uses for it. A line is about the fact when it holds every word
    # of one name: "rover" alone is every rover's, and with any word of a name enough, one rover
    # docking made a line about another stale (in the demo, a rover moves every few seconds).
    names: tuple[frozenset[str], ...]

    def named_in(self, words: frozenset[str]) -> bool:
        """Whether these words name the fact."""
        return any(name <= words for name in self.names)


LOCK_FACTS = ("site_mode", "lights_locked_on")
# Which fact a tool's target changes, so its consequences can be recognised as its own.
_FACT_OF_TARGET = {
    Target.LIFT_COVER: "lift",
    Target.LIFT_UP_SCRIPT: "lift",
    Target.LIFT_DOWN_SCRIPT: "lift",
    Target.VACUUM: "vacuum",
    Target.VACUUM_CLEAR_ERRORS_SCRIPT: "vacuum",
}


def _words(*names: str) -> frozenset[str]:
    """Return the folded words a line would use to talk about something."""
    return frozenset(word for name in names for word in _WORD.findall(fold(name)))


def _names(*names: str) -> tuple[frozenset[str], ...]:
    """Each name's folded words, and a name of several words run together too ("rover1")."""
    found: list[frozenset[str]] = []
    for name in names:
        if words := _WORD.findall(fold(name)):
            found.append(frozenset(words))
            if len(words) > 1:
                found.append(frozenset({"".join(words)}))
    return tuple(found)


def room_facts(world: World) -> dict[str, Fact]:
    """Return the room's material facts, keyed; the same keys for the same room."""
    facts = {
        "site_mode": Fact(world.site_mode.value, ()),
        "lights_locked_on": Fact(str(world.lights_locked_on), ()),
    }
    if world.lift is not None:
        lift = world.lift
        states = [entity.state for entity in (lift.cover, lift.up_script, lift.down_script) if entity]
        facts["lift"] = Fact("/".join(states), _names("lift"))
    if world.vacuum is not None:
        facts["vacuum"] = Fact(world.vacuum.state, _names("vacuum", "neato", world.vacuum.name))
    for rover in world.rovers:
        for field, entity in rover.fields:
            if field in (RoverField.DOCKED, RoverField.DRIVER):
                facts[f"rover:{rover.name}:{field.value}"] = Fact(entity.state, _names(rover.name))
    return facts


@dataclass(frozen=True, slots=True)
class OwnAction:
    """Something the overseer itself executed, and when."""

    tool: str
    ts: float


def _caused_by_overseer(key: str, own: Iterable[OwnAction]) -> bool:
    """Tell whether the fact is what one of the overseer's recent actions acts on: its change is expected."""
    return any(
        _FACT_OF_TARGET.get(binding.target) == key
        for action in own
        if (spec := TOOLS.get(action.tool)) is not None
        for binding in spec.bindings
    )


def unexplained_changes(
    before: Mapping[str, Fact], after: Mapping[str, Fact], own: Iterable[OwnAction]
) -> dict[str, tuple[Fact, Fact]]:
    """Facts that changed since the question and that the overseer did not cause itself.

    own holds the overseer's executions recent enough to still be having their effect.
    """
    own = tuple(own)
    changed: dict[str, tuple[Fact, Fact]] = {}
    for key, old in before.items():
        new = after.get(key)
        if new is None or new.value == old.value:
            continue
        if _caused_by_overseer(key, own):
            continue
        changed[key] = (old, new)
    return changed


def mentions(line: str, fact: Fact) -> bool:
    """Return whether the line names the thing the fact is about."""
    return fact.named_in(_words(line))


@dataclass(frozen=True, slots=True)
class Answer:
    """What is judged: the question's kind and subject, the line, and what the decision did."""

    solicited: bool
    subject: str
    line: str | None
    age: float
    # The decision announced an action (chat beside a tool call) that did not execute.
    announced_refused: bool = False


def judge(
    answer: Answer,
    before: Mapping[str, Fact],
    after: Mapping[str, Fact],
    own: Iterable[OwnAction],
    stale_after: float,
) -> StaleReason | None:
    """Why the answer should not be posted now, or None when it still fits."""
    changed = unexplained_changes(before, after, own)
    line = answer.line or ""
    if answer.announced_refused:
        return StaleReason.ACTION_REFUSED
    if not answer.solicited:
        if answer.age > stale_after:
            return StaleReason.TOO_LATE
        if any(key in changed for key in LOCK_FACTS):
            return StaleReason.LOCKED
        subject = _words(answer.subject)
        if any(fact.named_in(subject) for fact, _ in changed.values()):
            return StaleReason.SUPERSEDED
    if any(mentions(line, old) for old, _ in changed.values()):
        return StaleReason.STATE_CHANGED
    return None
