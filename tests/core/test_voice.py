"""The model's voice: its sentences after the facts, kept only when they say nothing of the room."""

from __future__ import annotations

import pytest
from home_assistant_intents import get_intents

from custom_components.overseer.core.acts import LIFT, VACUUM, Device, Kind
from custom_components.overseer.core.voice import Dropped, sentences, voice, voice_words

DEVICES = (
    Device(LIFT, Kind.LIFT, ("Lift", "elevador"), "closed", entity_id="cover.lift"),
    Device(VACUUM, Kind.VACUUM, ("Neato",), "docked", entity_id="vacuum.neato"),
    Device("light.bench", Kind.LIGHT, ("Bench light", "Bench"), "off", entity_id="light.bench"),
)
STATES = {"cover.closed": "Closed", "cover.open": "Open", "light.on": "On", "light.off": "Off"}


def words(language: str = "en"):
    return voice_words(get_intents(language), STATES.items(), ("blue", "azul", "red"))


@pytest.mark.parametrize(
    ("line", "kept", "why"),
    [
        ("The lift stays down. Chaos has standards.", ("Chaos has standards.",), Dropped.NAMES_A_DEVICE),
        ("I got the lift up for you.", (), Dropped.NAMES_A_DEVICE),
        ("Neato is hard at work.", (), Dropped.NAMES_A_DEVICE),
        ("All the lights are off.", (), Dropped.NAMES_A_DEVICE),
        ("The bench is shining.", (), Dropped.NAMES_A_DEVICE),
        ("Yes, it's up.", (), Dropped.STATES),
        ("It glows red now.", (), Dropped.STATES),
        ("The score is 3-1.", (), Dropped.FIGURE),
        ("Chaos has standards.", ("Chaos has standards.",), None),
    ],
)
def test_a_sentence_that_speaks_of_the_room_is_dropped_whatever_its_wording(line, kept, why):
    said = voice(line, DEVICES, words(), "STATE_UPDATE lift: closed", "en")
    assert said.kept == kept
    assert all(reason == why for _, reason in said.dropped) and bool(said.dropped) == (why is not None)


@pytest.mark.parametrize(
    ("line", "why"),
    [("El elevador ya subió.", Dropped.NAMES_A_DEVICE), ("Sí, ya está arriba.", Dropped.STATES)],
)
def test_a_spanish_sentence_is_read_in_spanish_words(line, why):
    said = voice(line, DEVICES, words("es"), "", "es")
    assert said.kept == () and [reason for _, reason in said.dropped] == [why]


def test_a_device_a_dropped_sentence_named_is_handed_back_for_its_fact():
    said = voice("Neato is asleep. The lift is bored. Keep at it.", DEVICES, words(), "", "en")
    assert said.named == (VACUUM, LIFT) and said.kept == ("Keep at it.",)


@pytest.mark.parametrize("line", ["It went up.", "Ya lo subí.", "Er ist hochgefahren.", "Está roja ahora."])
def test_without_facts_the_rooms_words_are_the_rooms_all_the_same(line):
    # No fact states the lift, and no device is named: a claim all the same, in any language.
    assert voice(line, DEVICES, words(), "", "en").kept == ()


def test_yes_and_no_answer_for_the_room_the_facts_answer_what_was_asked():
    # "is it up yet?" names nothing: a bare yes would state the lift up beside no fact of it.
    assert voice("Yes, it is.", DEVICES, words(), "", "en").kept == ()
    assert voice("Sí, ya está.", DEVICES, words("es"), "", "es").kept == ()
    assert voice("Nobody asked me.", DEVICES, words(), "", "en").kept == ("Nobody asked me.",)


def test_a_language_no_table_reads_keeps_none_of_the_models_words():
    said = voice("Hij staat nu omhoog. Gedaan, baas.", DEVICES, words("nl"), "", "nl")
    assert said.kept == () and {reason for _, reason in said.dropped} == {Dropped.UNREAD}


def test_a_figure_the_model_was_shown_may_be_said_again():
    said = voice("Three laps in 21 s, not bad.", DEVICES, words(), "rover1: lap 21 s", "en")
    assert said.kept == ("Three laps in 21 s, not bad.",)


def test_a_sentence_in_another_language_than_the_askers_is_dropped():
    said = voice("Tengo mis dudas de eso. Vamos.", DEVICES, words("es"), "", "en")
    assert [reason for _, reason in said.dropped] == [Dropped.LANGUAGE]
    assert said.kept == ("Vamos.",)


def test_sentences_split_at_their_marks_only():
    assert sentences("Up? Down! Sideways… ok. 3.5 laps") == ["Up?", "Down!", "Sideways…", "ok.", "3.5 laps"]
