"""Staleness judged on what an answer is about: pure rules, no model."""

from __future__ import annotations

from dataclasses import replace

from custom_components.overseer.core.staleness import (
    Answer,
    OwnAction,
    StaleReason,
    judge,
    room_facts,
    unexplained_changes,
)
from custom_components.overseer.core.world import Entity, Lift, Rover, RoverField, SiteMode

from .worlds import demo_world

BEFORE = demo_world()
LIFT_UP = demo_world(lift=Lift(cover=Entity("cover.lift", "lift", "open")))
ROVER2_DOCKED = replace(
    BEFORE,
    rovers=tuple(
        Rover(
            rover.name,
            tuple(
                (field, replace(entity, state="on"))
                if rover.name == "rover2" and field is RoverField.DOCKED
                else (field, entity)
                for field, entity in rover.fields
            ),
        )
        for rover in BEFORE.rovers
    ),
)


def verdict(line, after, *, solicited=True, subject="alex", age=10.0, own=(), refused=False):
    answer = Answer(solicited=solicited, subject=subject, line=line, age=age, announced_refused=refused)
    return judge(answer, room_facts(BEFORE), room_facts(after), own, stale_after=90)


def test_a_reply_to_a_question_survives_changes_it_does_not_talk_about():
    assert verdict("Sam is winning, by a lot.", ROVER2_DOCKED) is None
    assert verdict("The lift is down, as it should be.", ROVER2_DOCKED) is None


def test_a_reply_that_names_what_changed_is_stale():
    assert verdict("Rover2 is still out on the track.", ROVER2_DOCKED) is StaleReason.STATE_CHANGED
    assert verdict("The lift stays down.", LIFT_UP) is StaleReason.STATE_CHANGED


def test_the_overseers_own_action_and_its_consequences_never_make_it_stale():
    raised = (OwnAction("lift_up", 5.0),)
    assert verdict("Going up: the lift is on its way.", LIFT_UP, own=raised) is None
    assert unexplained_changes(room_facts(BEFORE), room_facts(LIFT_UP), raised) == {}
    # Someone else's vacuum run is still news: only the lift was the overseer's doing.
    cleaning = replace(LIFT_UP, vacuum=Entity("vacuum.neato", "neato", "cleaning"))
    assert set(unexplained_changes(room_facts(BEFORE), room_facts(cleaning), raised)) == {"vacuum"}


def test_an_announced_action_that_was_refused_makes_the_line_wrong():
    assert verdict("Up you go.", BEFORE, refused=True) is StaleReason.ACTION_REFUSED


def test_a_late_reply_to_a_question_is_still_a_reply():
    assert verdict("Yes, I am here.", BEFORE, age=300) is None


def test_unsolicited_comments_are_dropped_when_late_locked_or_superseded():
    assert verdict("Nice lap.", BEFORE, solicited=False, age=300) is StaleReason.TOO_LATE
    locked = replace(BEFORE, site_mode=SiteMode.LOCKDOWN)
    assert verdict("Let's race!", locked, solicited=False) is StaleReason.LOCKED
    comment = "Welcome back, rover2."
    assert verdict(comment, ROVER2_DOCKED, solicited=False, subject="docked (rover2 docked)") is (
        StaleReason.SUPERSEDED
    )
    assert verdict("Quiet night.", ROVER2_DOCKED, solicited=False, subject="heartbeat") is None


def spaced(world):
    """The room with its rovers named as the demo names them: "Rover 1" … "Rover 3"."""
    return replace(world, rovers=tuple(replace(r, name=f"Rover {r.name[-1]}") for r in world.rovers))


def test_one_rover_moving_says_nothing_about_another():
    # "rover" alone names every rover: in the demo, where a rover moves every few seconds, a line
    # about one was dropped as stale whenever another docked.
    before, after = room_facts(spaced(BEFORE)), room_facts(spaced(ROVER2_DOCKED))

    def judged(line, solicited=True, subject="alex"):
        return judge(Answer(solicited, subject, line, 10.0), before, after, (), stale_after=90)

    assert judged("I think rover 1 is cheating again.") is None
    assert judged("Rover 2 is still out on the track.") is StaleReason.STATE_CHANGED
    assert judged("rover2 keeps driving, I see.") is StaleReason.STATE_CHANGED
    assert judged("Rover 1 docks. Coward.", False, "docked (Rover 1 Docked)") is None
    assert judged("Rover 2 leaves.", False, "undocked (Rover 2 Docked)") is StaleReason.SUPERSEDED


def test_facts_are_keyed_the_same_for_the_same_room():
    assert set(room_facts(BEFORE)) == set(room_facts(ROVER2_DOCKED))
    assert "rover:rover2:docked" in room_facts(BEFORE)


def facts(world):
    return {key: fact.value for key, fact in room_facts(world).items()}


def test_material_facts_change_with_the_room_and_not_with_the_clock():
    world = demo_world()
    assert facts(replace(world, site_mode=SiteMode.ADMIN)) != facts(world)
    assert facts(replace(world, lights_locked_on=True)) != facts(world)
    docked = replace(
        world.rovers[0],
        fields=tuple(
            (f, replace(e, state="on")) if f is RoverField.DOCKED else (f, e)
            for f, e in world.rovers[0].fields
        ),
    )
    assert facts(replace(world, rovers=(docked, *world.rovers[1:]))) != facts(world)
    assert facts(replace(world, vacuum=Entity("vacuum.neato", "neato", "cleaning"))) != facts(world)
    assert facts(replace(world, local_time="later", active_people=("zoe",))) == facts(world)
