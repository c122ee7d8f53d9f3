"""The demo check's judge, on lines and moves whose verdict a person can tell at a glance."""

from __future__ import annotations

import pytest

from .demo_judge import (
    LIFT,
    Asked,
    Call,
    Line,
    Reading,
    Room,
    claims,
    contradicted,
    false_facts,
    invented,
    judge,
    quip_names_a_device,
    shows_colour,
)
from .demo_questions import Kind, Question, Want

BENCH = "light.bench"


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("The lift stays down. Earn it.", [(LIFT, "closed")]),
        ("Lift's up, alex.", [(LIFT, "open")]),
        ("No, the lift is down.", [(LIFT, "closed")]),
        ("La luz del banco ya está azul.", [(BENCH, "blue")]),
        ("La aspiradora se ha encendido para limpiar.", [("vacuum.neato", "cleaning")]),
        ("The bench light is blue now but not for long", [(BENCH, "blue")]),
        ("The lift isn't up.", []),
        ("Lift won’t go up.", []),
        ("Keep the lift down.", []),
        ("Should I raise the lift?", []),
        ("The vacuum is running home.", []),
        ("The lift and the vacuum are fine.", []),
        ("Rover 2 is parked on the bench.", []),
        ("El rover 1 está en el banco.", []),
        ("The bench light is on.", [(BENCH, "on")]),
        ("The car is parked on the bench.", []),
        ("The robot aspirator is parked on the corner.", []),
        ("I switched on the bench light.", [(BENCH, "on")]),
        ("La luz del banco está encendida.", [(BENCH, "on")]),
        ("La luz de la esquina está apagada.", [("light.corner", "off")]),
    ],
)
def test_a_line_states_what_a_person_would_read_in_it(line, read):
    assert claims(line) == read


def test_a_statement_is_contradicted_only_by_what_the_room_showed_then():
    room = Room()
    room.add(LIFT, Reading(0, "closed"))
    room.add(LIFT, Reading(100, "opening"))
    room.add(LIFT, Reading(104, "open"))
    assert contradicted("The lift is up.", 50, room)
    assert not contradicted("The lift is up.", 101, room)  # on its way
    assert not contradicted("The lift is up.", 120, room)
    assert contradicted("The lift is down.", 200, room)


def test_colours_are_read_as_home_assistant_names_them():
    assert shows_colour(Reading(0, "on", {"hs_color": [240, 100]}), "blue")
    assert shows_colour(Reading(0, "on", {"hs_color": [300, 100]}), "purple")
    assert not shows_colour(Reading(0, "on", {"hs_color": [0, 0]}), "red")
    assert shows_colour(Reading(0, "on", {"hs_color": [0, 0]}), "white")
    assert not shows_colour(Reading(0, "off", {"hs_color": [240, 100]}), "blue")


def test_a_move_is_the_doing_of_the_call_just_before_it_and_judged_against_its_question():
    room = Room()
    room.add(LIFT, Reading(0, "closed"))
    room.add(LIFT, Reading(30, "opening"))
    room.add(LIFT, Reading(34, "open"))
    room.add(BENCH, Reading(0, "off"))
    room.add(BENCH, Reading(300, "on", {"hs_color": [240, 100]}))
    calls = [Call(29.5, "d1", "lift_up", "executed"), Call(299, "d2", "ha_set_entity", "executed")]
    moves = room.moves(calls)
    assert [(move.entity_id, move.decision_id) for move in moves] == [(LIFT, "d1"), (BENCH, "d2")]
    lower = Question("overseer lower the lift", "en", Kind.ACTION, (Want(LIFT, "closed"),))
    asked = Asked(lower, 10, "p1", routed_at=12, finished_at=40)
    said = [Line(33, "Overseer", "Down it goes.", True, "d1", "p1")]
    verdict = judge(asked, said, room, moves, lambda _: False, lambda _: None, lambda _: "en")
    # Down already, it was raised: the opposite of what was asked, and nothing left to be done.
    assert verdict.wrong_actions == ["cover.lift: closed -> open"] and verdict.done is None
    raise_it = Question("overseer raise the lift", "en", Kind.ACTION, (Want(LIFT, "open"),))
    asked = Asked(raise_it, 10, "p1", routed_at=12, finished_at=40)
    verdict = judge(asked, said, room, moves, lambda _: False, lambda _: None, lambda _: "en")
    assert verdict.wrong_actions == [] and verdict.done is True
    # A move no call explains belongs to no one.
    room.add(BENCH, Reading(500, "off"))
    assert room.moves(calls)[-1].decision_id is None


def test_a_scripted_bots_line_is_no_answer_in_the_models_own_words():
    room = Room()
    room.add(LIFT, Reading(0, "closed"))
    rate = Question("hey overseer, rate that last lap", "en", Kind.OPINION, ())
    asked = Asked(rate, 10, "p1", routed_at=11, finished_at=40)
    fallback = Line(
        30, "Overseer", "Sorry robin, I have nothing useful to say to that right now.", True, "d1", "p1"
    )
    guide = Line(31, "Rover guide", "To add what the track shows: Rover 1 is on its dock.", True, None, "p1")
    said = [fallback, guide]

    def judged(scripted):
        return judge(
            asked,
            said,
            room,
            [],
            lambda text: text.startswith("Sorry"),
            lambda _: None,
            lambda _: "en",
            scripted,
        )

    assert judged(frozenset()).own_line
    verdict = judged(frozenset({"Rover guide"}))
    assert not verdict.own_line and verdict.accepted == []


def lit(at: float, hue: float) -> Reading:
    return Reading(at, "on", {"hs_color": [hue, 100.0]})


@pytest.mark.parametrize(
    ("facts", "wrong"),
    [
        ([{"entity_id": LIFT, "state": "closed"}], False),
        ([{"entity_id": LIFT, "state": "open", "deed": "open", "outcome": "blocked"}], True),
        ([{"entity_id": BENCH, "state": "on", "colour": "blue"}], False),
        ([{"entity_id": BENCH, "state": "on", "colour": "red"}], True),
        ([{"entity_id": BENCH, "state": "off"}], True),
        # A rover's sensors are not read by this judge: nothing to contradict.
        ([{"entity_id": "binary_sensor.rover1_docked", "state": "docked"}], False),
    ],
)
def test_the_facts_a_line_carries_are_read_against_the_rooms_states(facts, wrong):
    room = Room()
    room.add(LIFT, Reading(0.0, "closed"))
    room.add(BENCH, lit(0.0, 240.0))
    line = Line(100.0, "Overseer", "…", True, "d1", "p1", tuple(facts))
    assert bool(false_facts(line, room)) is wrong


def test_the_models_words_are_read_for_device_names_and_unknown_facts_for_owning_up():
    named = Line(
        1.0, "Overseer", "Lift is closed. The lift is tired.", True, "d1", "p1", (), "The lift is tired."
    )
    assert quip_names_a_device(named) == [LIFT]
    assert quip_names_a_device(Line(1.0, "Overseer", "x", True, "d1", "p1", (), "Chaos has standards.")) == []
    score = Question("overseer what is the score", "en", Kind.UNKNOWN_FACT)
    said = Line(1.0, "Overseer", "", True, "d1", "p1")
    assert not invented(score, said)
    assert invented(score, Line(1.0, "Overseer", "", True, "d1", "p1", (), "It is 2-1 to Sam."))
    assert invented(score, Line(1.0, "Overseer", "", True, "d1", "p1", (), "Sam is winning, clearly."))
    assert not invented(score, Line(1.0, "Overseer", "", True, "d1", "p1", (), "No idea, nobody tells me."))
    assert not invented(score, Line(1.0, "Overseer", "", True, "d1", "p1", (), "Ni idea, no lo veo."))
