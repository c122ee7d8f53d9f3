"""The overseer never tells the room what the room itself shows is not so.

Scripted lines the demo's model really said ("The bench light is already blue." while it was
off, "The lift is raised." with the lift down) and deeds said in other languages that nothing
did: each is checked against the room's states, read back here, when it would be posted.
"""

from __future__ import annotations

import json

import pytest
from homeassistant.helpers import entity_registry as er
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.status import build_status

from ..ollama_stub import call
from .harness import say, setup_overseer, tick


def bot_texts(events) -> list[str]:
    return [event.data["text"] for event in events if event.data.get("bot")]


def metrics(hass) -> dict:
    return build_status(hass.config_entries.async_get_entry("room1").runtime_data)["metrics"]


async def spanish_names(hass) -> None:
    """The lift and the bench light with the Spanish names a household gave them."""
    registry = er.async_get(hass)
    for entity_id, alias, state in (
        ("cover.lift", "elevador", "closed"),
        ("light.bench", "luz del banco", "off"),
    ):
        domain, _, object_id = entity_id.partition(".")
        hass.states.async_remove(entity_id)
        entry = registry.async_get_or_create(domain, "test", object_id, suggested_object_id=object_id)
        registry.async_update_entity(entry.entity_id, aliases={alias})
        hass.states.async_set(entity_id, state, {"friendly_name": object_id.capitalize()})


@pytest.mark.parametrize(
    "line",
    [
        "The lift is raised.",
        "The lift is up.",
        "The lift is open now.",
        # An attack review's: a motion in the past, said of a lift that is down.
        "The lift went up.",
        "The shelf light is off.",
        "The bench light is already blue.",
    ],
)
async def test_a_state_the_room_contradicts_is_never_posted(hass, freezer, ollama_stub, room, line):
    await setup_overseer(hass, ollama_stub)
    assert hass.states.get("cover.lift").state == "closed"
    assert hass.states.get("light.shelf").state == "on" and hass.states.get("light.bench").state == "off"
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    assert line not in bot_texts(chat)
    # Asked once more, with the facts; its SKIP is no line either.
    told = ollama_stub.decisions[1]["messages"][-1]["content"]
    assert told.startswith("statement_check: that is not so.") and "this decision ran: nothing" in told
    assert line not in told  # quoted again, the bundled model said it back
    assert metrics(hass)["false_statements"] == 1


async def test_a_rover_state_its_sensors_contradict_is_never_posted(hass, freezer, ollama_stub, room):
    # scripts/develop's overseer said "Rover 3 is idle and not charging." of a rover on its dock, charging.
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    hass.states.async_set("sensor.rover1_activity", "idle", {"friendly_name": "rover1 activity"})
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("rover1 is idle and off its dock.")
    ollama_stub.reply("rover1 sits on its dock, idle. Waiting.")
    say(hass, "alex", "overseer, what about rover1?")
    await tick(hass, freezer)
    assert "rover1: docked, not driving, idle" in ollama_stub.decisions[1]["messages"][-1]["content"]
    assert bot_texts(chat) == ["rover1 sits on its dock, idle. Waiting."]
    assert metrics(hass)["false_statements"] == 1


async def test_asked_again_with_the_facts_a_line_that_only_says_them_back_is_not_posted(
    hass, freezer, ollama_stub, room
):
    # The bundled model answered the facts with "The room shows Lift: open." in the demo.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The lift is up.")
    ollama_stub.reply("The room shows Lift: closed.")
    say(hass, "alex", "overseer, is the lift up?")
    await tick(hass, freezer)
    assert "Lift: closed" in ollama_stub.decisions[1]["messages"][-1]["content"]
    assert "The room shows Lift: closed." not in bot_texts(chat)


async def test_asked_again_with_the_facts_a_line_that_says_them_as_an_answer_is_posted(
    hass, freezer, ollama_stub, room
):
    # The bundled model answered the facts with "Neato is docked." to "is the vacuum running?",
    # and the asker got the overseer's state answer: every word was one of the request's.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The lift is up.")
    ollama_stub.reply("Lift is closed.")
    say(hass, "alex", "overseer, is the lift up?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Lift is closed."]


async def test_a_false_line_in_another_language_than_the_question_is_read_in_its_own(
    hass, freezer, ollama_stub, room
):
    # Asked in Spanish to raise the lift, the bundled model called nothing and said "Lift is open."
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Lift is open.")
    say(hass, "alex", "oye overseer, levanta el elevador")
    await tick(hass, freezer)
    assert "Lift is open." not in bot_texts(chat)
    assert metrics(hass)["false_statements"] == 1


async def test_asked_again_with_the_facts_a_true_line_is_posted(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The bench light is already blue.")
    ollama_stub.reply("The bench light is already blue.")  # told it called nothing: the same
    ollama_stub.reply("The bench sits dark. Earn the light.")
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer)
    told = ollama_stub.decisions[2]["messages"]
    assert told[-2] == {"role": "assistant", "content": "The bench light is already blue."}
    assert "Bench: off" in told[-1]["content"]
    assert bot_texts(chat) == ["The bench sits dark. Earn the light."]
    assert len(ollama_stub.requests) == 3


async def test_true_lines_are_posted_as_said(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    for line in ("The lift is down.", "The shelf light is on.", "Chaos has standards."):
        ollama_stub.reply(line)
        say(hass, "alex", f"overseer, tell me something {len(line)}")
        await tick(hass, freezer, seconds=20)
    assert bot_texts(chat) == ["The lift is down.", "The shelf light is on.", "Chaos has standards."]
    assert len(ollama_stub.requests) == 3
    assert metrics(hass)["false_statements"] == 0


async def test_a_deed_said_after_its_call_ran_is_true(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("Raised the lift. The lift is up, alex.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    # The cover still reads closed (the scripted room does not move it): the deed that ran counts.
    assert bot_texts(chat) == ["Raised the lift. The lift is up, alex."]


async def test_after_a_call_a_false_line_is_told_what_ran_and_asked_once(hass, freezer, ollama_stub, room):
    # Told only "this decision ran: ha_set_entity" after lighting Aux1, the bundled model said
    # "The bench light is now on." (its earlier line about the bench) three times.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("The bench light is on.")
    ollama_stub.after_calls("The bench light is on.")
    ollama_stub.after_calls("Up it goes. Watch it.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    result = json.loads(
        next(m for m in ollama_stub.requests[1]["messages"] if m["role"] == "tool")["content"]
    )
    assert result["state"] == "Lift: open"
    told = ollama_stub.requests[-1]["messages"][-1]["content"]
    assert "The room shows Bench: off; this decision ran: lift_up (Lift: open)." in told
    # A decision whose call ran makes three requests at most: the call, its line, one more.
    assert len(ollama_stub.requests) == 3
    assert not [text for text in bot_texts(chat) if "bench" in text.lower()]


async def test_a_deed_its_call_did_said_as_the_askers_is_asked_again_as_its_own(
    hass, freezer, ollama_stub, room
):
    # A newcomer run: "switch the corner light off" ran, and the line credited the asker.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("You raised the lift, alex.")
    ollama_stub.after_calls("Raised the lift for you, alex.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    told = ollama_stub.requests[-1]["messages"][-1]["content"]
    assert "this decision ran: lift_up (Lift: open). Your call did it, not them" in told
    assert bot_texts(chat) == ["Raised the lift for you, alex."]
    assert metrics(hass)["unbacked_claims"] == 1


async def test_after_a_refused_call_a_made_up_figure_is_asked_again_once(hass, freezer, ollama_stub, room):
    # A call no tool answers is refused, yet its result went back: three requests at most.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("fly_to_the_moon"))
    for _ in range(4):
        ollama_stub.after_calls("Kim bet 500 euros.")
    say(hass, "alex", "overseer, how much money did kim bet?")
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 3
    assert not [text for text in bot_texts(chat) if "euros" in text]


@pytest.mark.parametrize(
    "line",
    [
        "He subido el elevador.",
        "Listo, ya subí el elevador.",
        "El elevador está abierto.",
        "I raised the elevador.",
        "Lift: raised.",
        "La luz del banco está encendida.",
    ],
)
async def test_deeds_and_states_in_spanish_are_checked_too(hass, freezer, ollama_stub, room, line):
    await setup_overseer(hass, ollama_stub)
    await spanish_names(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "¿overseer, qué tal la sala?")
    await tick(hass, freezer)
    assert line not in bot_texts(chat)
    counted = metrics(hass)
    assert counted["false_statements"] + counted["unbacked_claims"] == 1


@pytest.mark.parametrize(
    ("raised_earlier", "lift", "posted"),
    [(True, "open", True), (True, "closed", False), (False, "open", False)],
)
async def test_its_own_deed_of_an_earlier_decision_is_posted_only_while_the_room_shows_it(
    hass, freezer, ollama_stub, room, raised_earlier, lift, posted
):
    # Issue #33: an earlier decision raised the lift; asked about it, the true answer was dropped.
    await setup_overseer(hass, ollama_stub)
    if raised_earlier:
        ollama_stub.reply("", call("lift_up"))
        say(hass, "alex", "overseer, raise the lift")
        await tick(hass, freezer)
    # The lift as it is now: still up, or lowered since by someone else; or up all along.
    hass.states.async_set("cover.lift", lift, {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    claims_before = metrics(hass)["unbacked_claims"]
    ollama_stub.reply("Yes, I raised the lift.")
    say(hass, "sam", "overseer, who raised the lift?")
    await tick(hass, freezer, seconds=20)
    assert ("Yes, I raised the lift." in bot_texts(chat)) is posted
    assert metrics(hass)["unbacked_claims"] - claims_before == (0 if posted else 1)


async def test_a_line_that_claims_what_a_refused_call_would_have_done_is_never_posted(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_down"))
    ollama_stub.after_calls("Done, the lift went down.")
    ollama_stub.reply("Done, the lift went down.")
    say(hass, "alex", "overseer, raise the lift")
    await tick(hass, freezer)
    assert [(e.data["tool"], e.data["outcome"]) for e in actions] == [("lift_down", "blocked")]
    assert "Done, the lift went down." not in bot_texts(chat)
    assert metrics(hass)["false_statements"] == 1


async def test_a_figure_nothing_it_read_holds_is_never_posted(hass, freezer, ollama_stub, room):
    # The demo's model answered "what was the final score last night?" with a score the room does not hold.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The final score was 10-10.")
    ollama_stub.reply("No score reaches this room. Watch the lift.")
    say(hass, "alex", "overseer, what was the final score last night?")
    await tick(hass, freezer)
    told = ollama_stub.decisions[1]["messages"][-1]["content"]
    # Told only to say a true line, the bundled model said the same score again: it is told what is.
    assert told == (
        "statement_check: that is not so. Nothing you were shown holds that figure: you do not know it."
        " alex asked. Say you do not know it, in one short line of your own."
    )
    assert bot_texts(chat) == ["No score reaches this room. Watch the lift."]
    assert metrics(hass)["false_statements"] == 1


async def test_a_figure_made_up_beside_a_deed_is_not_answered_with_not_knowing(
    hass, freezer, ollama_stub, room
):
    # "I do not know it." would be all the asker heard of a call that ran: told to say a true line.
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("neato_start"))
    ollama_stub.after_calls("Neato sweeps for 20 minutes.")
    ollama_stub.after_calls("Neato sweeps. Dust, beware.")
    say(hass, "alex", "overseer start neato")
    await tick(hass, freezer)
    told = ollama_stub.follow_ups[-1]["messages"][-1]["content"]
    assert "Nothing you were shown says 20" in told
    assert told.endswith("Say one short line that is true, or SKIP.")


async def test_the_number_of_a_rovers_name_is_no_score(hass, freezer, ollama_stub, room):
    # "The final score last night was 2-1." passed while the demo's rovers were called rover1..3.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The final score last night was 1-1.")
    ollama_stub.reply("Rover 1 is out driving; no score reaches me.")
    say(hass, "alex", "overseer, what was the final score last night?")
    await tick(hass, freezer)
    told = ollama_stub.decisions[1]["messages"][-1]["content"]
    assert told.startswith("statement_check: that is not so. Nothing you were shown holds that figure")
    assert bot_texts(chat) == ["Rover 1 is out driving; no score reaches me."]


async def test_a_count_of_the_rooms_lights_is_posted_as_said(hass, freezer, ollama_stub, room):
    # The room has two lights (shelf and bench): a count of them is no made-up figure.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("2 lights here; 1 light burns. Guess which.")
    say(hass, "alex", "overseer, which lights are on?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["2 lights here; 1 light burns. Guess which."]
    assert metrics(hass)["false_statements"] == 0


async def test_a_figure_still_made_up_when_asked_again_is_never_posted(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Kim bet 500 euros.")
    ollama_stub.reply("Kim bet 400 euros.")
    ollama_stub.reply("Kim bet 300 euros.")
    say(hass, "alex", "overseer, how much money did kim bet?")
    await tick(hass, freezer)
    assert not [text for text in bot_texts(chat) if "euros" in text]


async def test_told_a_second_made_up_figure_it_may_still_say_a_true_line(hass, freezer, ollama_stub, room):
    # The bundled model made a bet up twice ("500", then "100") and the asker heard the fallback.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Kim bet 500 euros.")
    ollama_stub.reply("Kim bet 100 euros.")
    ollama_stub.reply("Kim's bet never reached me.")
    say(hass, "alex", "overseer, how much money did kim bet?")
    await tick(hass, freezer)
    told = ollama_stub.decisions[2]["messages"][-1]["content"]
    assert told.startswith("statement_check: that is not so. Nothing you were shown holds that figure")
    assert bot_texts(chat) == ["Kim's bet never reached me."]


async def test_a_figure_someone_said_in_the_chat_is_posted_as_said(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "kim", "I put 500 on rover 2")
    await tick(hass, freezer, seconds=5)
    ollama_stub.reply("Kim bet 500. Bold.")
    say(hass, "alex", "overseer, how much did kim bet?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Kim bet 500. Bold."]
    assert metrics(hass)["false_statements"] == 0


@pytest.mark.parametrize(
    ("translation", "posted"),
    [
        ("El elevador está abajo.", "El elevador está abajo."),
        # Not true, or not Spanish: the true line is said as it is.
        ("El elevador está arriba.", "The lift is down, alex."),
        ("The lift is down, my friend.", "The lift is down, alex."),
    ],
)
async def test_asked_again_with_the_facts_a_line_in_another_language_is_translated_if_true(
    hass, freezer, ollama_stub, room, translation, posted
):
    # Asked again with the facts, the demo's model answered Spanish questions in English, after the
    # language was checked ("Lifted the elevator.").
    await setup_overseer(hass, ollama_stub)
    await spanish_names(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("El elevador está arriba.")
    ollama_stub.reply("The lift is down, alex.")
    ollama_stub.line_owed(translation)
    say(hass, "alex", "overseer, ¿dónde está el elevador?")
    await tick(hass, freezer)
    (asked,) = ollama_stub.lines_owed
    assert asked["messages"][-1]["content"] == "Translate your line into Spanish for alex."
    assert asked["messages"][-2] == {"role": "assistant", "content": "The lift is down, alex."}
    assert bot_texts(chat) == [posted]
