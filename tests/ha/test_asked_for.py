"""Never the opposite of what was asked, and the answer in the asker's language.

Asked to lower the lift, the demo's model raised it; asked in Spanish, every answer came in
English. Here the model is scripted to do the wrong thing, and the room is read back.
"""

from __future__ import annotations

import json

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, name_the_lift, say, setup_overseer, tick


def bot_texts(events) -> list[str]:
    return [event.data["text"] for event in events if event.data.get("bot")]


def outcomes(events) -> list[tuple[str, str, str | None]]:
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


async def test_asked_to_lower_the_lift_a_model_that_raises_it_is_refused(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Up it goes!", call("lift_up"))
    ollama_stub.after_calls("Not today, alex.")
    say(hass, "alex", "overseer, lower the lift")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    # The model hears why, in the same decision, and its line knows it.
    [follow_up] = ollama_stub.follow_ups
    result = json.loads(next(m for m in follow_up["messages"] if m["role"] == "tool")["content"])
    assert result["error"] == "not_what_was_asked" and result["success"] is False
    assert bot_texts(chat) == ["Not today, alex."]


async def test_something_else_instead_is_refused_and_the_asked_for_action_runs(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "min_gap": 0})
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.shelf", state="blue"))
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer)
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.bench", state="blue"))
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer, seconds=20)
    assert outcomes(actions) == [
        ("ha_set_entity", "blocked", "not_what_was_asked"),
        ("ha_set_entity", "executed", None),
    ]
    assert [c.data for c in room["light.turn_on"]] == [{"entity_id": "light.bench", "color_name": "blue"}]


async def test_words_that_ask_for_no_act_are_answered_without_touching_the_room(
    hass, freezer, ollama_stub, room
):
    # Asked to "roast rover 3", the demo's model raised the lift: nobody had asked for that.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Chaos has standards.", call("lift_up"))
    ollama_stub.after_calls("Chaos has standards.")
    say(hass, "alex", "overseer, what do you think of us?")
    await tick(hass, freezer)
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []
    # Its cue asks for a line, and does not invite a call.
    assert "call a tool" not in ollama_stub.decisions[0]["messages"][-1]["content"]
    assert bot_texts(chat) == ["Chaos has standards."]


@pytest.mark.parametrize("text", ["overseer, how do I lower the lift", 'overseer, sam says "lower the lift"'])
async def test_words_that_mention_an_act_without_asking_for_it_act_on_no_device(
    hass, freezer, ollama_stub, room, text
):
    # A how-to question and a quoted order named the lift, and the model raised it.
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Like this.", call("lift_up"))
    ollama_stub.after_calls("Ask me to, and I will.")
    say(hass, "alex", text)
    await tick(hass, freezer)
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []


async def test_a_spanish_request_is_held_to_its_action_and_answered_in_spanish(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    # The lift's registry entry, with the Spanish name the household gave it, as an alias.
    name_the_lift(hass, "open", "elevador")
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "¿overseer, puedes bajar el elevador?")
    await tick(hass, freezer)
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    asked = ollama_stub.decisions[0]["messages"][-1]["content"]
    assert asked.endswith("Say it in Spanish.")
    assert ollama_stub.follow_ups[0]["messages"][-1]["content"].endswith("Say it in Spanish.")
    await tick(hass, freezer)  # asked again, and again nothing usable: the fallback, in Spanish
    assert room["cover.open_cover"] == []
    assert bot_texts(chat) == ["Lo siento, alex: ahora mismo no tengo nada útil que decir a eso."]


async def test_the_rooms_language_option_answers_a_line_it_cannot_place_in_that_language(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "language": "es"})
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    await tick(hass, freezer)
    assert ollama_stub.decisions[0]["messages"][-1]["content"].endswith("Say it in Spanish.")
    assert bot_texts(chat) == ["Lo siento, alex: ahora mismo no tengo nada útil que decir a eso."]
    # An English question is still answered in English.
    say(hass, "sam", "overseer, what do you think of the lift?")
    await tick(hass, freezer, seconds=20)
    assert ollama_stub.decisions[2]["messages"][-1]["content"].endswith("Say it in English.")


async def test_an_answer_in_another_language_than_the_askers_is_asked_for_in_theirs(
    hass, freezer, ollama_stub, room
):
    # Asked in Spanish, the bundled model answered in English now and then ("Lift down.").
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The dark side, always.")
    ollama_stub.line_owed("El lado oscuro, siempre.")
    say(hass, "alex", "overseer, ¿de qué lado estás?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["El lado oscuro, siempre."]
    [owed] = ollama_stub.lines_owed
    assert owed["messages"][-2:] == [
        {"role": "assistant", "content": "The dark side, always."},
        {"role": "user", "content": "Translate your line into Spanish for alex."},
    ]
    # Answered in the asker's language, or where a line's language cannot be told: asked nothing more.
    ollama_stub.reply("Con nadie. Yo vigilo.")
    say(hass, "sam", "overseer, ¿con quién vas?")
    await tick(hass, freezer, seconds=20)
    ollama_stub.reply("Ja.")
    say(hass, "kim", "overseer, ¿te ríes?")
    await tick(hass, freezer, seconds=20)
    assert bot_texts(chat)[1:] == ["Con nadie. Yo vigilo.", "Ja."]
    assert len(ollama_stub.lines_owed) == 1
