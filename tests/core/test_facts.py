"""The overseer's facts: written from the room's states and the decision's calls in Home Assistant's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from home_assistant_intents import get_intents

from custom_components.overseer.core.acts import LIFT, Device, Kind
from custom_components.overseer.core.audit import AuditRecord, Outcome
from custom_components.overseer.core.facts import MAX_FACTS, FactWords, fact_words, facts_for, render

TRANSLATIONS = Path(__file__).parents[2] / "custom_components" / "overseer" / "translations"


def phrase_in(language: str):
    """The integration's own sentences in a language, as the shell's phrase() gives them."""
    found = json.loads((TRANSLATIONS / f"{language}.json").read_text())["exceptions"]

    def phrase(key: str, **placeholders) -> str:
        text = found.get(key, {}).get("message", key)
        for name, value in placeholders.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text

    return phrase


# Home Assistant's own translated states, as the shell reads them (entity_component translations).
STATES = {
    "en": {"cover.closed": "Closed", "cover.open": "Open", "light.on": "On", "light.off": "Off"},
    "es": {
        "cover.closed": "Cerrado",
        "cover.open": "Abierto",
        "light.on": "Encendido",
        "light.off": "Apagado",
    },
    "de": {"cover.closed": "Geschlossen", "cover.open": "Offen", "light.on": "An", "light.off": "Aus"},
    "nl": {"cover.closed": "Gesloten", "cover.open": "Open", "light.on": "Aan", "light.off": "Uit"},
    "pt": {"cover.closed": "Fechado", "cover.open": "Aberto", "light.on": "Ligado", "light.off": "Desligado"},
}


def words(language: str) -> FactWords:
    return fact_words(language, get_intents(language), STATES[language])


def room(lift: str = "closed", bench: str = "off", colour: str = "") -> tuple[Device, ...]:
    return (
        Device(LIFT, Kind.LIFT, ("Lift", "ascensor"), lift, entity_id="cover.lift"),
        Device("light.bench", Kind.LIGHT, ("Bench",), bench, colour=colour, entity_id="light.bench"),
        Device("light.gone", Kind.LIGHT, ("Gone",), "unavailable", known=False, entity_id="light.gone"),
    )


def call(tool: str, outcome: Outcome, reason: str | None = None, seconds: int | None = None, **arguments):
    return AuditRecord(0.0, "d1", tool, arguments, outcome, reason, seconds)


def test_a_call_that_ran_is_stated_as_the_state_it_leaves_in_home_assistants_sentence():
    said = facts_for([call("lift_up", Outcome.EXECUTED)], room(), (), words("en"), phrase_in("en"))
    assert said.text == "Lift is open."
    assert [fact.as_event() for fact in said.facts] == [
        {"entity_id": "cover.lift", "state": "open", "deed": "open", "outcome": "executed"}
    ]


def test_a_refused_call_says_why_and_how_long_and_the_device_as_it_stays():
    said = facts_for(
        [call("lift_down", Outcome.BLOCKED, "cooldown", 40)],
        room(lift="open"),
        (),
        words("en"),
        phrase_in("en"),
    )
    assert said.text == "I did not lower the lift: it is cooling down for 40 s."
    assert said.facts[0].as_event() == {
        "entity_id": "cover.lift",
        "state": "open",
        "deed": "close",
        "outcome": "blocked",
        "reason": "cooldown",
        "retry_in_s": 40,
    }


def test_each_language_states_a_device_in_its_own_words_from_the_data():
    lines = {
        language: facts_for([], room(), [LIFT], words(language), phrase_in("en")).text
        for language in ("en", "es", "de", "nl", "pt")
    }
    assert lines["en"] == "Lift is closed."
    # Home Assistant's Spanish answer, with its translated state.
    assert lines["es"] == "El dispositivo Lift está cerrado."
    # German's answer for a state came with a later intents release: before it, the plain form,
    # its word still Home Assistant's.
    assert lines["de"] in ("Lift: geschlossen.", "Lift ist geschlossen.")
    assert lines["nl"] == "Lift is gesloten."
    # A language whose answer leaves the name out still says which device: never a bare state.
    assert "Lift" in lines["pt"] and "fechado" in lines["pt"]


def test_a_lights_colour_is_said_in_the_languages_colour_word():
    said = facts_for([], room(bench="on", colour="blue"), ["light.bench"], words("es"), phrase_in("es"))
    assert said.text == "El dispositivo Bench está encendido (azul)."
    assert (said.facts[0].state, said.facts[0].colour) == ("on", "blue")


def test_what_the_line_is_about_is_said_once_after_the_calls_and_never_a_state_unknown():
    said = facts_for(
        [call("ha_set_entity", Outcome.EXECUTED, entity_id="light.bench", state="on")],
        room(),
        ["light.bench", "light.gone", LIFT, LIFT, "nothing.here"],
        words("en"),
        phrase_in("en"),
    )
    assert [fact.entity_id for fact in said.facts] == ["light.bench", "cover.lift"]
    assert said.text == "Bench is on. Lift is closed."


def test_calls_on_no_room_device_state_nothing_and_the_facts_are_bounded():
    colours = ["red", "blue", "green", "gold", "white", "pink", "purple", "orange", "yellow", "cyan"]
    refused = [
        call("ha_set_entity", Outcome.BLOCKED, "rate_limit", 9, entity_id="light.bench", state=colour)
        for colour in colours
    ]
    ran = call("ha_set_entity", Outcome.EXECUTED, entity_id="light.bench", state="on")
    records = [call("memory_write", Outcome.EXECUTED, slot=1, text="x"), *refused * 3, ran]
    said = facts_for(records, room(), (), words("en"), phrase_in("en"))
    assert len(said.facts) == MAX_FACTS < len(colours)
    assert all(fact.entity_id == "light.bench" for fact in said.facts)
    # What ran is said first, and a refusal said once however often the model asked.
    assert said.facts[0].outcome == "executed"
    assert len({fact.deed for fact in said.facts}) == MAX_FACTS


@pytest.mark.parametrize(
    "template",
    [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ query.matched | first }}",
        "{% if %}",
        "{{ 1/0 }}",
    ],
)
def test_a_template_that_cannot_be_rendered_falls_back_to_the_plain_sentence(template):
    assert render(template, "Lift", "closed", "cover") == "Lift: closed"
