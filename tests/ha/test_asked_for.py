"""Never the opposite of what was asked, and the answer in the asker's language.

Asked to lower the lift, the demo's model raised it; asked in Spanish, every answer came in
English. Here the model is scripted to do the wrong thing, and the room is read back.
"""

from __future__ import annotations

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, name_the_lift, say, setup_overseer, tick


def bot_texts(events) -> list[str]:
    return [event.data["text"] for event in events if event.data.get("bot")]


def outcomes(events) -> list[tuple[str, str, str | None]]:
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


def facts(event) -> list[tuple[str, str, str | None, str | None]]:
    """What a posted line states, as data: each device, its state, and what came of a call on it."""
    return [(f["entity_id"], f["state"], f.get("outcome"), f.get("reason")) for f in event.data["facts"]]


async def test_asked_to_lower_the_lift_a_model_that_raises_it_is_refused(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Up it goes!", call("lift_up"))
    say(hass, "alex", "overseer, lower the lift")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    # One request: the raise was the model's slip (audited, not told); the asker hears that the
    # lowering they asked for, which it could do, was not done, and none of its "Up it goes!".
    assert len(ollama_stub.requests) == 1
    [line] = [event for event in chat if event.data.get("bot")]
    assert line.data["text"] == "I decided not to lower the lift."
    assert facts(line) == [("cover.lift", "open", "not_called", None)]
    assert line.data["fixed"] is True
    assert (decisions[0].data["quip"], decisions[0].data["quip_dropped"]) == (
        "dropped",
        ["asked_act_not_done"],
    )


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
    say(hass, "alex", "overseer, what do you think of us?")
    await tick(hass, freezer)
    assert outcomes(actions) == [("lift_up", "blocked", "not_what_was_asked")]
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []
    # Its cue asks for a line, and does not invite a call.
    assert "call a tool" not in ollama_stub.decisions[0]["messages"][-1]["content"]
    assert len(ollama_stub.requests) == 1
    # The stray call, the model's slip, is the audit's alone; the words written beside it may have
    # announced it ("Hoisting it in your honour!"), so alex hears the fallback, never a deed.
    assert bot_texts(chat) == ["Sorry alex, I have nothing useful to say to that right now."]


@pytest.mark.parametrize("text", ["overseer, how do I lower the lift", 'overseer, sam says "lower the lift"'])
async def test_words_that_mention_an_act_without_asking_for_it_act_on_no_device(
    hass, freezer, ollama_stub, room, text
):
    # A how-to question and a quoted order named the lift, and the model raised it.
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Like this.", call("lift_up"))
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
    assert len(ollama_stub.requests) == 1
    await tick(hass, freezer)  # nothing is asked again: alex was answered
    assert room["cover.open_cover"] == [] and len(ollama_stub.requests) == 1
    # Told in Spanish that what they asked for was not done (the raise was the model's slip).
    [line] = [event for event in chat if event.data.get("bot")]
    assert line.data["text"] == "Decidí no bajar el elevador."
    assert facts(line) == [("cover.lift", "open", "not_called", None)]


async def test_the_rooms_language_option_answers_a_line_it_cannot_place_in_that_language(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "language": "es"})
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    # SKIP, and SKIP again when told alex asked (in Spanish): the fallback, in Spanish.
    assert ollama_stub.decisions[0]["messages"][-1]["content"].endswith("Say it in Spanish.")
    [owed] = ollama_stub.lines_owed
    assert owed["messages"][-1]["content"].endswith("Say it in Spanish.")
    assert bot_texts(chat) == ["Lo siento, alex: ahora mismo no tengo nada útil que decir a eso."]
    # An English question is still answered in English: asked of the lift, the room's state of it.
    say(hass, "sam", "overseer, what do you think of the lift?")
    await tick(hass, freezer, seconds=20)
    assert ollama_stub.decisions[1]["messages"][-1]["content"].endswith("Say it in English.")
    assert ollama_stub.lines_owed[1]["messages"][-1]["content"].endswith("Say it in English.")
    assert bot_texts(chat)[1:] == ["Lift is closed."]


async def test_an_answer_in_another_language_than_the_askers_is_not_posted(hass, freezer, ollama_stub, room):
    # Asked in Spanish, the bundled model answered in English now and then ("Lift down.").
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Bold choice, my friend.")
    say(hass, "alex", "overseer, ¿de qué lado estás?")
    await tick(hass, freezer)
    # Not translated any more: the English line is dropped, and alex hears the fallback in Spanish.
    assert bot_texts(chat) == ["Lo siento, alex: ahora mismo no tengo nada útil que decir a eso."]
    assert (decisions[0].data["quip"], decisions[0].data["quip_dropped"]) == ("dropped", ["another_language"])
    assert len(ollama_stub.requests) == 1
    # Answered in the asker's language, or where a line's language cannot be told: posted as it is.
    ollama_stub.reply("Con nadie. Yo vigilo.")
    say(hass, "sam", "overseer, ¿con quién vas?")
    await tick(hass, freezer, seconds=20)
    ollama_stub.reply("Jaja.")
    say(hass, "kim", "overseer, ¿te ríes?")
    await tick(hass, freezer, seconds=20)
    assert bot_texts(chat)[1:] == ["Con nadie. Yo vigilo.", "Jaja."]
    assert len(ollama_stub.requests) == 3
