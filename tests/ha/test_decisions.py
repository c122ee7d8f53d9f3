"""The loop inside Home Assistant: gate, real Ollama client, guarded execution, chat bus."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from pytest_homeassistant_custom_component.common import (
    async_capture_events,
    async_fire_time_changed,
    async_mock_service,
)

from custom_components.overseer.status import build_status

from ..core.test_topics import DINNER, RACE
from ..ollama_stub import call
from .harness import CONFIG, OPTIONS, name_the_lift, ready_in, say, set_select, setup_overseer, tick


def actions(events):
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


def bot_lines(events):
    return [e.data for e in events if e.data.get("bot")]


async def test_direct_address_acts_and_answers_on_the_chat_bus(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    typing = async_capture_events(hass, "overseer_chat_typing")
    decisions = async_capture_events(hass, "overseer_decision")
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Up it goes.", call("lift_up"))

    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)

    assert len(room["cover.open_cover"]) == 1
    assert room["cover.open_cover"][0].data == {"entity_id": "cover.lift"}
    assert actions(action_events) == [("lift_up", "executed", None)]
    [line] = bot_lines(chat)
    # The overseer states what its call did; "Up it goes." states the room, so it is not posted.
    assert line["user"] == "Overseer" and line["text"] == "Lift is open." and line["room"] == "arena"
    assert line["facts"] == [
        {"entity_id": "cover.lift", "state": "open", "deed": "open", "outcome": "executed"}
    ]
    assert line["fixed"] is True
    assert line["decision_id"] == decisions[0].data["decision_id"] == action_events[0].data["decision_id"]
    assert decisions[0].data["trigger"] == "direct_address"
    assert decisions[0].data["mode"] == "ACTION"
    assert (decisions[0].data["quip"], decisions[0].data["quip_dropped"]) == ("dropped", ["states_the_room"])
    assert decisions[0].data["stale"] is False
    assert [e.data["typing"] for e in typing] == [True, False]
    assert len(ollama_stub.requests) == 1
    assert hass.states.get("sensor.arena_last_decision").state == "action"
    assert hass.states.get("sensor.arena_last_trigger").state == "direct_address"
    assert hass.states.get("sensor.arena_loop_phase").state == "posted"
    assert ready_in(hass, "sensor.arena_lift_cooldown") == 60


async def test_request_follows_the_seed_topology_and_offers_only_available_tools(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Dust, beware.", call("neato_start"))
    say(hass, "alex", "overseer start neato")
    await tick(hass, freezer)
    # Asked for what cools down: no call is offered for it, but an act is asked for.
    say(hass, "sam", "overseer start neato, again!")
    await tick(hass, freezer)

    second = ollama_stub.decisions[-1]
    assert second["messages"][-1]["content"].endswith(
        "sam: overseer start neato, again!\nAnswer sam now, in one short line of your own: an answer, an"
        " opinion or a verdict (and call a tool if you act)."
    )
    # The seed's order: the system prompt, STATE_UPDATE, the transcript with the overseer's own
    # last call, its result and its line as its turns, then the tool blocks with the question again.
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["system", "user", "user", "assistant", "tool", "assistant", "user", "user"]
    assert second["messages"][0]["content"].startswith("You are Overseer,")
    assert second["messages"][1]["content"].startswith("STATE_UPDATE\n")
    assert re.search(r"cooldowns: lift=ready, neato=1\d\ds, ha=ready", second["messages"][-1]["content"])
    assert second["messages"][2]["content"] == "alex: overseer start neato"
    [called] = second["messages"][3]["tool_calls"]
    assert called["function"]["name"] == "neato_start"
    assert json.loads(second["messages"][4]["content"]) == {
        "success": True,
        "tool": "neato_start",
        "outcome": "executed",
    }
    # Its line as the model reads it back: its own words; the fact before them ("Neato is cleaning.")
    # was the overseer's, and the call's result above says what the call did.
    assert second["messages"][5]["content"] == "Overseer: Dust, beware."
    assert second["messages"][6]["content"] == "sam: overseer start neato, again!"
    offered = {tool["function"]["name"] for tool in second["tools"]}
    assert offered == {"chat_say", "lift_up", "lift_down", "ha_set_entity", "memory_read", "memory_write"}
    assert re.search(r"- neato_start\(\) reason=cooldown remaining=1\d\ds", second["messages"][-1]["content"])
    assert second["options"]["num_ctx"] == 8192 and second["keep_alive"] == -1
    assert second["stream"] is False
    # The model said nothing to sam, twice: the held call answers, with why and for how long.
    answer = [line["text"] for line in bot_lines(chat)][-1]
    assert re.fullmatch(r"I did not start the vacuum: it is cooling down for 1\d\d s\.", answer), answer


@pytest.mark.parametrize(
    ("setup", "tool", "reason"),
    [
        (
            lambda hass: set_select(hass, "select.arena_site_mode", "admin"),
            "lift_up",
            "policy_lock:site_mode_admin",
        ),
        (
            lambda hass: set_select(hass, "select.arena_site_mode", "lockdown"),
            "neato_locate",
            "policy_lock:site_mode_lockdown",
        ),
        (
            lambda hass: hass.services.async_call(
                "switch", "turn_on", {"entity_id": "switch.arena_lights_locked_on"}, blocking=True
            ),
            "ha_set_entity",
            "policy_lock:lights_locked_on",
        ),
        (lambda hass: _set_state(hass, "cover.lift", "opening"), "lift_down", "busy"),
        (lambda hass: _set_state(hass, "vacuum.neato", "unavailable"), "neato_start", "unavailable"),
    ],
)
async def test_every_lock_and_state_reason_at_context_time(
    hass, freezer, ollama_stub, room, setup, tool, reason
):
    await setup_overseer(hass, ollama_stub)
    await setup(hass)
    say(hass, "alex", "overseer do it")
    await tick(hass, freezer)
    request = ollama_stub.decisions[0]
    assert tool not in {t["function"]["name"] for t in request["tools"]}
    assert f"- {tool}(" in request["messages"][-1]["content"]
    assert f"reason={reason}" in request["messages"][-1]["content"]


async def _set_state(hass, entity_id, state):
    hass.states.async_set(entity_id, state, hass.states.get(entity_id).attributes)


@pytest.mark.parametrize(
    ("flip", "reason", "said"),
    [
        (
            lambda hass: set_select(hass, "select.arena_site_mode", "lockdown"),
            "policy_lock:site_mode_lockdown",
            "the room is in lockdown",
        ),
        (
            lambda hass: set_select(hass, "select.arena_site_mode", "admin"),
            "policy_lock:site_mode_admin",
            "an admin session has the room locked",
        ),
        (
            lambda hass: _set_state(hass, "cover.lift", "unavailable"),
            "unavailable",
            "the device is unavailable",
        ),
        (lambda hass: _set_state(hass, "cover.lift", "closing"), "busy", "the device is busy"),
    ],
)
async def test_a_lock_that_flips_while_the_model_thinks_blocks_the_call(
    hass, freezer, ollama_stub, room, flip, reason, said
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Up.", call("lift_up"), before=lambda: flip(hass))
    say(hass, "alex", "overseer, raise the lift!")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == []
    assert actions(action_events) == [("lift_up", "blocked", reason)]
    # "Up." was written before the call was refused: the asker hears why nothing moved instead.
    [line] = bot_lines(chat)
    assert line["text"] == f"I did not raise the lift: {said}."
    [fact] = line["facts"]
    assert (fact["entity_id"], fact["state"], fact["outcome"], fact["reason"]) == (
        "cover.lift",
        hass.states.get("cover.lift").state,
        "blocked",
        reason,
    )


async def test_execution_time_codes_for_what_the_model_should_not_have_called(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "max_tool_calls": 1, "cooldown_lift": 60})
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply(
        "",
        call("lift_up"),
        call("lift_down"),
        call("unlock_door"),
        call("ha_set_entity", entity_id="lock.front_door", state="off"),
        call("ha_set_entity", entity_id="light.shelf", state="plaid"),
    )
    say(hass, "alex", "overseer chaos: raise the lift")
    await tick(hass, freezer)
    ollama_stub.reply("", call("lift_down"))  # not offered: it is cooling down
    say(hass, "alex", "overseer lower the lift")
    await tick(hass, freezer)
    assert actions(action_events) == [
        ("lift_down", "blocked", "max_tool_calls"),
        ("unlock_door", "blocked", "not_allowlisted"),
        ("ha_set_entity", "blocked", "not_allowlisted"),
        ("ha_set_entity", "blocked", "invalid_arguments"),
        ("lift_up", "executed", None),
        ("lift_down", "blocked", "cooldown"),
    ]
    assert len(room["cover.open_cover"]) == 1 and room["cover.close_cover"] == []


async def test_budget_counts_executions_and_then_rate_limits(hass, freezer, ollama_stub, room):
    options = {**OPTIONS, "action_budget": 2, "cooldown_lift": 0, "cooldown_ha": 0, "min_gap": 0}
    await setup_overseer(hass, ollama_stub, options=options)
    action_events = async_capture_events(hass, "overseer_action")
    for words, tool in (
        ("overseer raise the lift", call("lift_up")),
        ("overseer make the bench light red", call("ha_set_entity", entity_id="light.bench", state="red")),
        ("overseer lower the lift", call("lift_down")),
    ):
        ollama_stub.reply("", tool)
        say(hass, "alex", words)
        await tick(hass, freezer)
    assert actions(action_events)[:2] == [("lift_up", "executed", None), ("ha_set_entity", "executed", None)]
    assert actions(action_events)[2] == ("lift_down", "blocked", "rate_limit")
    assert "reason=rate_limit" in ollama_stub.decisions[2]["messages"][-1]["content"]
    assert room["light.turn_on"][0].data == {"entity_id": "light.bench", "color_name": "red"}


async def test_tools_map_to_the_contract_services(hass, freezer, ollama_stub, room):
    options = {
        **OPTIONS,
        "cooldown_neato": 0,
        "cooldown_ha": 0,
        "min_gap": 0,
        "action_budget": 10,
        "lift_cover": None,
        "lift_up_script": "script.lift_up",
        "lift_down_script": "script.lift_down",
        "vacuum_clear_errors_script": "script.neato_clear",
    }
    for script in ("script.lift_up", "script.lift_down", "script.neato_clear"):
        hass.states.async_set(script, "off")
    await setup_overseer(hass, ollama_stub, options={k: v for k, v in options.items() if v is not None})
    # The words that ask for each call; None: no words can (locate, clear errors), so the decision
    # is started by the manual trigger, which answers nobody's words.
    plan = [
        # A lift run by scripts is named by them ("lift up", "lift down").
        ("overseer raise the lift up", call("lift_up"), "script.turn_on", {"entity_id": "script.lift_up"}),
        ("overseer start neato", call("neato_start"), "vacuum.start", {"entity_id": "vacuum.neato"}),
        (
            "overseer send neato home",
            call("neato_send_home"),
            "vacuum.return_to_base",
            {"entity_id": "vacuum.neato"},
        ),
        (None, call("neato_locate"), "vacuum.locate", {"entity_id": "vacuum.neato"}),
        (None, call("neato_clear_errors"), "script.turn_on", {"entity_id": "script.neato_clear"}),
        (
            "overseer turn on the fan",
            call("ha_set_entity", entity_id="input_boolean.fan", state="on"),
            "input_boolean.turn_on",
            {"entity_id": "input_boolean.fan"},
        ),
        (
            "overseer turn off the shelf light",
            call("ha_set_entity", entity_id="light.shelf", state="off"),
            "light.turn_off",
            {"entity_id": "light.shelf"},
        ),
    ]
    for words, tool, service, data in plan:
        before = len(room[service])
        ollama_stub.reply("", tool)
        if words is None:
            await hass.services.async_call("overseer", "trigger", {}, blocking=True)
        else:
            say(hass, "alex", words)
        await tick(hass, freezer, seconds=61)
        assert len(room[service]) == before + 1, tool
        assert room[service][-1].data == data


async def test_dry_run_records_but_never_executes_or_posts(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.arena_dry_run"}, blocking=True)
    chat = async_capture_events(hass, "overseer_chat_message")
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Watch this.", call("lift_up"), call("memory_write", slot=1, text="alex asked"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert actions(action_events) == [
        ("memory_write", "blocked", "max_tool_calls"),
        ("lift_up", "dry_run", None),
    ]
    assert room["cover.open_cover"] == []
    assert bot_lines(chat) == []
    assert hass.states.get("sensor.arena_lift_cooldown").state == "unknown"  # never started


async def test_commentary_mode_chats_without_tools_and_off_stops_both(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    action_events = async_capture_events(hass, "overseer_action")
    await set_select(hass, "select.arena_overseer_mode", "commentary")
    ollama_stub.reply("What a night to be alive.")
    say(hass, "alex", "overseer say something")
    await tick(hass, freezer)
    request = ollama_stub.decisions[0]
    assert "tools" not in request or not request["tools"]
    assert request["messages"][0]["content"].startswith("You are Overseer, a commentator")
    assert [line["text"] for line in bot_lines(chat)] == ["What a night to be alive."]
    # A call anyway is refused, and the room never moves.
    ollama_stub.reply("", call("lift_up"))
    say(hass, "sam", "overseer raise the lift")
    await tick(hass, freezer, seconds=20)
    assert actions(action_events) == [("lift_up", "blocked", "not_allowlisted")]
    assert room["cover.open_cover"] == []
    # sam hears the lift as it is, never that it moved.
    [answer] = bot_lines(chat)[1:]
    assert [(f["entity_id"], f["state"]) for f in answer["facts"]] == [("cover.lift", "closed")]
    assert "open" not in answer["text"].casefold()

    await set_select(hass, "select.arena_overseer_mode", "off")
    asked = len(ollama_stub.requests)
    say(hass, "alex", "overseer hello?")
    await tick(hass, freezer, seconds=120)
    assert len(ollama_stub.requests) == asked


async def test_asked_to_act_in_commentary_mode_the_asker_hears_it_may_not(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    await set_select(hass, "select.arena_overseer_mode", "commentary")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "sam", "overseer raise the lift")
    await tick(hass, freezer)
    [answer] = bot_lines(chat)
    assert answer["text"].startswith("I did not raise the lift: "), answer["text"]
    assert [(f["entity_id"], f.get("outcome")) for f in answer["facts"]] == [("cover.lift", "blocked")]


@pytest.mark.parametrize("words", ["One.", "Hello there, alex."])
async def test_words_that_only_begin_like_a_state_are_posted(hass, freezer, ollama_stub, room, words):
    # "One" is no "on", "Hello" no German "hell": words that say nothing of the room answer alex.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(words)
    say(hass, "alex", "overseer, hi! pick a number")
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == [words]


def held_reply(stub, content, *calls):
    """Queue a reply the stub sends only once released: a model that is still thinking."""
    entered, release = asyncio.Event(), asyncio.Event()

    async def hold():
        entered.set()
        await release.wait()

    stub.reply(content, *calls, before=hold)
    return entered, release


def fire_tick(hass, freezer, seconds=2):
    """Move time on by one gate interval without waiting for the decision it starts."""
    freezer.tick(seconds)
    async_fire_time_changed(hass)


async def test_mode_flip_cancels_the_decision_in_flight(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    entered, release = held_reply(ollama_stub, "Too late.", call("lift_up"))
    say(hass, "alex", "overseer lift")
    fire_tick(hass, freezer)
    await entered.wait()
    assert hass.states.get("sensor.arena_loop_phase").state == "awaiting_model"
    await set_select(hass, "select.arena_overseer_mode", "off")
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    assert room["cover.open_cover"] == []
    assert bot_lines(chat) == []
    assert hass.states.get("sensor.arena_loop_phase").state == "idle"


async def test_single_flight_and_an_address_while_busy_is_answered_next(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    entered, release = held_reply(ollama_stub, "First.")
    ollama_stub.reply("Second.")
    say(hass, "alex", "overseer one")
    fire_tick(hass, freezer)
    await entered.wait()
    say(hass, "sam", "overseer two")
    for _ in range(3):
        fire_tick(hass, freezer)
        await asyncio.sleep(0)
    assert len(ollama_stub.requests) == 1  # never two model calls at once
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 2
    transcript = [m["content"] for m in ollama_stub.decisions[1]["messages"][2:-1]]
    assert transcript == ["alex: overseer one", "sam: overseer two", "Overseer: First."]


async def test_an_answer_reads_the_chat_up_to_its_question_others_later_lines_wait_their_turn(
    hass, freezer, ollama_stub, room
):
    # Answering one question, the bundled model answered a later one put to it ("is the bench light
    # on?") and then took that one for answered: SKIP, and the fallback to its asker.
    await setup_overseer(hass, ollama_stub)
    entered, release = held_reply(ollama_stub, "First.")
    ollama_stub.reply("Second.")
    ollama_stub.reply("Third.")
    say(hass, "kim", "overseer zero")
    fire_tick(hass, freezer)
    await entered.wait()
    say(hass, "alex", "overseer one")
    freezer.tick(1)
    say(hass, "sam", "overseer two")
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    await tick(hass, freezer)
    await tick(hass, freezer)
    alex, sam = (
        [m["content"] for m in decision["messages"][2:-1]] for decision in ollama_stub.decisions[1:3]
    )
    assert alex == ["kim: overseer zero", "alex: overseer one", "Overseer: First."]
    assert sam[-3:] == ["sam: overseer two", "Overseer: First.", "Overseer: Second."]


async def test_a_late_reply_to_a_question_is_posted_a_late_comment_is_not(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "stale_after": 30})
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Late, but here.", before=lambda: freezer.tick(31))
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == ["Late, but here."]
    assert decisions[0].data["stale"] is False
    ollama_stub.reply("Nice docking.", before=lambda: freezer.tick(31))
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    await hass.async_block_till_done()
    await tick(hass, freezer, seconds=20)
    assert decisions[1].data["trigger"] == "world_event"
    assert (decisions[1].data["stale"], decisions[1].data["stale_reason"]) == (True, "too_late")
    assert len(bot_lines(chat)) == 1


async def test_bot_lines_never_trigger_and_other_rooms_are_ignored(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    say(hass, "Overseer", "overseer overseer", bot=True)
    say(hass, "alex", "overseer in the kitchen", room="kitchen")
    await tick(hass, freezer, seconds=10)
    assert ollama_stub.requests == []
    say(hass, "alex", "overseer in the arena", room="ARENA")
    await tick(hass, freezer)
    assert len(ollama_stub.decisions) == 1


async def test_world_events_trigger_and_the_heartbeat_needs_people(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    await tick(hass, freezer, seconds=120)
    assert ollama_stub.requests == []  # an empty room gets no ambient calls
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    await hass.async_block_till_done()
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1
    assert "trigger: world_event" in ollama_stub.decisions[0]["messages"][-1]["content"]
    await tick(hass, freezer, seconds=31)
    assert "trigger: heartbeat" in ollama_stub.decisions[1]["messages"][-1]["content"]


async def test_a_busy_room_that_has_not_heard_the_overseer_for_its_quiet_limit_hears_it(
    hass, freezer, ollama_stub, room
):
    # The bundled model met every moment of a busy demo with SKIP for twenty minutes.
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "heartbeat": 3600, "quiet_limit": 120})
    chat = async_capture_events(hass, "overseer_chat_message")
    said = json.loads((CONFIG.parent / "custom_components/overseer/translations/en.json").read_text())
    quiet_lines = {said["exceptions"][f"quiet_line_{i}"]["message"] for i in range(3)}
    for _ in range(6):
        say(hass, "alex", "go go go")
        # Its answers to the orchestrator's questions meanwhile are not lines of its own accord.
        say(hass, "Overseer", "Rover 2 is fast.", bot=True, room="arena", decision_id="d", pipeline_id="p")
        await tick(hass, freezer, seconds=20)
    # Asked for a line with no way out; the model still said SKIP, so the overseer said its own.
    owed = [d for d in ollama_stub.decisions if "has not heard you" in d["messages"][-1]["content"]]
    assert len(owed) == 1 and "SKIP" not in owed[0]["messages"][-1]["content"]
    [line] = [line for line in bot_lines(chat) if "pipeline_id" not in line]
    assert line["user"] == "Overseer" and line["text"] in quiet_lines
    # Heard, the room owes nothing for another quiet_limit.
    for _ in range(4):
        say(hass, "sam", "that was close")
        await tick(hass, freezer, seconds=20)
    assert len([line for line in bot_lines(chat) if "pipeline_id" not in line]) == 1
    # A model that has a line says it instead.
    ollama_stub.reply("The arena holds its breath. So do I.")
    for _ in range(3):
        await tick(hass, freezer, seconds=20)
    own = [line["text"] for line in bot_lines(chat) if "pipeline_id" not in line]
    assert own[1:] == ["The arena holds its breath. So do I."]


async def test_a_lively_moment_met_with_a_copy_of_its_line_posts_nothing(hass, freezer, ollama_stub, room):
    # The bundled model met rovers docking with its last line again, every time.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Chaos has standards.")
    say(hass, "alex", "overseer, you there?")
    await tick(hass, freezer)
    ollama_stub.reply("Overseer: Chaos has standards.")
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    await hass.async_block_till_done()
    await tick(hass, freezer, seconds=15)
    # The moment's request reads its last lines (the seed's anti-repeat context), and its copy is
    # not posted: the room hears the line once.
    moment = ollama_stub.decisions[1]["messages"]
    assert "trigger: world_event" in moment[-1]["content"]
    assert [m["content"] for m in moment if m["role"] == "assistant"] == ["Overseer: Chaos has standards."]
    assert [line["text"] for line in bot_lines(chat)] == ["Chaos has standards."]
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    assert loop.metrics.snapshot(loop.now())["repeated_line_rate"] == 0.5
    await tick(hass, freezer, seconds=15)  # the minimum gap
    assert len(ollama_stub.requests) == 2  # a moment nobody asked about is not asked again


async def test_memory_written_by_the_model_and_the_services(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("memory_write", slot="2", text="alex always\ncheats"))
    say(hass, "alex", "overseer remember me")
    await tick(hass, freezer)
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    assert loop.state.memory.slots == ("", "alex always cheats", "")
    await hass.services.async_call(
        "overseer", "memory_write", {"slot": 3, "text": "sam owes a lap"}, blocking=True
    )
    say(hass, "sam", "overseer what do you know")
    await tick(hass, freezer)
    assert (
        "memory: 1=(empty), 2=alex always cheats, 3=sam owes a lap"
        in ollama_stub.decisions[1]["messages"][1]["content"]
    )
    await hass.services.async_call("overseer", "memory_clear", {"slot": 2}, blocking=True)
    assert loop.state.memory.slots == ("", "", "sam owes a lap")
    await hass.services.async_call("overseer", "memory_clear", {}, blocking=True)
    assert loop.state.memory.slots == ("", "", "")


async def test_approval_tools_are_never_executed_directly(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "approval_tools": ["lift_up"]})
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    # Asked of a person (tests/ha/test_approvals_from_every_caller.py follows it there).
    assert actions(action_events) == [("lift_up", "awaiting_approval", "needs_approval")]
    assert room["cover.open_cover"] == []


async def test_a_lively_moment_met_with_a_persons_line_said_back_is_counted_and_not_posted(
    hass, freezer, ollama_stub, room
):
    # The bundled model met a rover docking with "alex: go go go", a crowd line it had read.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "jo", "go go go")
    ollama_stub.reply("Overseer: jo: go go go")
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    await hass.async_block_till_done()
    await tick(hass, freezer, seconds=15)
    assert "trigger: world_event" in ollama_stub.decisions[0]["messages"][-1]["content"]
    assert bot_lines(chat) == []
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    assert loop.metrics.snapshot(loop.now())["repeated_line_rate"] == 1.0
    await tick(hass, freezer, seconds=15)  # the minimum gap
    assert len(ollama_stub.requests) == 1  # a moment nobody asked about is not asked again
    assert bot_lines(chat) == []


async def test_repeated_lines_are_dropped_and_counted(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "min_gap": 0})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Chaos has standards.")
    ollama_stub.reply("Overseer: chaos has standards!")
    ollama_stub.line_owed("Order is overrated.")
    for _ in range(2):
        say(hass, "alex", "overseer talk")
        await tick(hass, freezer)
    # The copy is dropped; asked once more within its decision, the model says something new.
    assert [line["text"] for line in bot_lines(chat)] == ["Chaos has standards.", "Order is overrated."]
    assert len(ollama_stub.lines_owed) == 1
    # Of the three lines the model wrote, one was a repeat.
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    assert loop.metrics.snapshot(loop.now())["repeated_line_rate"] == pytest.approx(1 / 3, abs=1e-3)


async def test_a_line_nobody_asked_for_is_no_repeat_of_any_of_its_lines_of_the_last_minutes(
    hass, freezer, ollama_stub, room
):
    # scripts/develop said "The lift is already down." three times in eight minutes, unasked.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    # "Nobody blinks tonight." is news, however like "Nobody blinks." it reads.
    said = ["Chaos has standards.", "Nobody blinks.", "Nobody blinks tonight.", "Chaos has standards!"]
    for number, line in enumerate(said):
        ollama_stub.reply(line)
        rover = f"binary_sensor.rover{number % 2 + 1}_docked"
        hass.states.async_set(rover, "on" if number < 2 else "off", {"friendly_name": rover})
        await hass.async_block_till_done()
        await tick(hass, freezer, seconds=60)
    assert len(ollama_stub.decisions) == 4
    assert [line["text"] for line in bot_lines(chat)] == said[:3]
    # Asked, the same answer is the right one: an answer is held to the last two lines only.
    ollama_stub.reply("Chaos has standards.")
    say(hass, "alex", "overseer, who sets the rules here?")
    await tick(hass, freezer)
    assert bot_lines(chat)[-1]["text"] == "Chaos has standards."


async def test_a_state_line_nobody_asked_for_is_not_said_again_within_minutes(
    hass, freezer, ollama_stub, room
):
    # The same room, the same complaint, now that the room hears the overseer's facts.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    for number, line in enumerate(["The lift is already down.", "The lift is already down!"]):
        ollama_stub.reply(line)
        hass.states.async_set(
            "binary_sensor.rover1_docked", "on" if number == 0 else "off", {"friendly_name": "rover1"}
        )
        await hass.async_block_till_done()
        await tick(hass, freezer, seconds=60)
    assert len(ollama_stub.decisions) == 2
    assert [line["text"] for line in bot_lines(chat)] == ["Lift is closed."]


async def test_a_failing_service_is_audited_as_failed_and_starts_its_cooldown(
    hass, freezer, ollama_stub, room
):
    """The vacuum may have heard the command before it raised: the call counts (Wave 4)."""
    from homeassistant.exceptions import HomeAssistantError

    async def broken(call):
        raise HomeAssistantError("motor jammed")

    hass.services.async_register("vacuum", "locate", broken)
    await setup_overseer(hass, ollama_stub)
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("neato_locate"))
    # No words ask for locate: an answer to someone may not call it, a manual trigger's may.
    await hass.services.async_call("overseer", "trigger", {}, blocking=True)
    await tick(hass, freezer)
    assert actions(action_events) == [("neato_locate", "failed", "error")]
    assert ready_in(hass, "sensor.arena_vacuum_cooldown") == 120


async def test_a_reply_about_a_rover_that_docked_meanwhile_is_not_posted(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply(
        "Rover1, keep driving.",
        before=lambda: hass.states.async_set(
            "binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"}
        ),
    )
    say(hass, "alex", "overseer watch rover one")
    await tick(hass, freezer)
    assert (decisions[0].data["stale"], decisions[0].data["stale_reason"]) == (True, "state_changed")
    # The line no longer fits the room: not posted, and not asked again; alex hears the fallback.
    assert [line["text"] for line in bot_lines(chat)] == [
        "Sorry alex, I have nothing useful to say to that right now."
    ]
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1


async def test_a_copy_of_its_own_line_is_no_new_line_and_it_is_asked_once_more(
    hass, freezer, ollama_stub, room
):
    # Qwen2.5-Coder-1.5B in the demo answered every question with its first line again.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Alex: I'm here. Always watching.")
    ollama_stub.reply("Overseer: Alex: I'm here. Always watching.")
    ollama_stub.line_owed("Sloppy lap. Earn it.")
    say(hass, "alex", "overseer, you there?")
    await tick(hass, freezer)
    say(hass, "alex", "overseer rate that last lap")
    await tick(hass, freezer)
    first = ollama_stub.decisions[1]["messages"]
    assert any(m["role"] == "assistant" for m in first)  # the seed's transcript: its own lines too
    # The copy is dropped, and the model is asked once more within the decision.
    [owed] = ollama_stub.lines_owed
    assert owed["messages"][-1]["content"].startswith("Not SKIP: alex asked you.")
    assert [line["text"] for line in bot_lines(chat)] == [
        "Alex: I'm here. Always watching.",
        "Sloppy lap. Earn it.",
    ]


async def test_a_line_that_says_someones_chat_line_back_is_no_new_line(hass, freezer, ollama_stub, room):
    # The bundled model met a rover docking with "alex: go go go", a crowd line it had read.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "jo", "go go go")
    ollama_stub.reply("Overseer: jo: go go go")
    ollama_stub.line_owed("Jo cheers. Nobody else does.")
    say(hass, "alex", "overseer, anything?")
    await tick(hass, freezer)
    # Said back, it is no line: asked once more within the decision, the model answers.
    assert [line["text"] for line in bot_lines(chat)] == ["Jo cheers. Nobody else does."]
    entry = hass.config_entries.async_get_entry("room1")
    assert build_status(entry.runtime_data)["decision"]["notes"] == ["chat_said_back", "line_asked_for"]
    assert len(ollama_stub.requests) == 2


@pytest.mark.parametrize(
    ("words", "dropped"),
    [
        # The bundled model answered "overseer raise the lift" with "Lift raised." and no call,
        ("Overseer: Lift raised.", "Lift raised."),
        # promised "Ok, I will do that." and called nothing,
        ("Ok, I will do that.", "will do"),
        # or refused in words of its own, with a verdict after them.
        ("The lift stays down. Chaos has standards.", "Chaos"),
    ],
)
async def test_an_asked_for_act_the_model_could_do_and_did_not_call_is_told_as_its_decision(
    hass, freezer, ollama_stub, room, words, dropped
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply(words)
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert hass.states.get("cover.lift").state == "closed" and room["cover.open_cover"] == []
    # Its call was offered and it made none: alex hears that it decided not to, never a claim or a
    # promise, and none of its words (written as if it had, or would).
    [line] = bot_lines(chat)
    assert line["text"] == "I decided not to raise the lift."
    assert dropped not in line["text"]
    [fact] = line["facts"]
    assert (fact["entity_id"], fact["state"], fact["outcome"]) == ("cover.lift", "closed", "not_called")
    assert line["fixed"] is True
    assert (decisions[0].data["quip"], decisions[0].data["quip_dropped"]) == (
        "dropped",
        ["asked_act_not_done"],
    )
    # Asked once more in the same decision to call it or say why not, it answered nothing (the
    # stub's SKIP): two requests, the contract's bound.
    await tick(hass, freezer, seconds=10)
    first, again = ollama_stub.requests
    assert again["messages"][-2]["role"] == "assistant" and again["messages"][-2]["content"]
    assert again["messages"][-1]["content"].endswith("call lift_up(), or say in one short line why not.")


async def test_asked_for_what_the_room_shows_done_the_model_may_just_answer(hass, freezer, ollama_stub, room):
    # The lift is up already: leaving lift_up uncalled leaves nothing undone, and its words stand.
    await setup_overseer(hass, ollama_stub)
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Chaos has standards.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == []
    [line] = bot_lines(chat)
    assert line["text"] == "Lift is open. Chaos has standards."
    assert line["facts"] == [{"entity_id": "cover.lift", "state": "open"}]


async def test_a_call_that_ran_is_stated_and_the_models_words_follow_in_one_request(
    hass, freezer, ollama_stub, room
):
    # The line is said in the decision that acted: the overseer states what the call did, and the
    # model's words that say nothing of the room follow.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Enjoy the view, alex.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert len(room["cover.open_cover"]) == 1
    [line] = bot_lines(chat)
    assert line["text"] == "Lift is open. Enjoy the view, alex."
    assert line["facts"] == [
        {"entity_id": "cover.lift", "state": "open", "deed": "open", "outcome": "executed"}
    ]
    assert "fixed" not in line  # some of its words are the model's
    assert (decisions[0].data["quip"], decisions[0].data.get("quip_dropped")) == ("posted", None)
    await tick(hass, freezer, seconds=10)
    assert len(ollama_stub.requests) == 1  # answered: nothing more is asked
    metrics = build_status(hass.config_entries.async_get_entry("room1").runtime_data)["metrics"]
    assert metrics["addressed"] == {"model_line": 1}


async def test_silence_after_the_deed_is_told_in_the_overseers_own_words(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.bench", state="blue"))
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer)
    await tick(hass, freezer, seconds=10)
    # The light answered alex, and the overseer says what it did: no fallback, nothing asked again.
    # The light by its name: with "light.bench" in the chat, the model wrote entity ids in its lines.
    [line] = bot_lines(chat)
    # The light asked for by its name is the one stated, not every light.
    assert line["text"] == "Bench is on (blue)."
    [fact] = line["facts"]
    assert (fact["entity_id"], fact["state"], fact["colour"], fact["outcome"]) == (
        "light.bench",
        "on",
        "blue",
        "executed",
    )
    # A decision that acted is not asked again for a line.
    assert (len(ollama_stub.decisions), len(ollama_stub.follow_ups), len(ollama_stub.lines_owed)) == (1, 0, 0)
    metrics = build_status(hass.config_entries.async_get_entry("room1").runtime_data)["metrics"]
    assert metrics["addressed"] == {"acted": 1}


async def test_the_overseers_own_sentences_are_not_read_back_to_the_model(hass, freezer, ollama_stub, room):
    # Read as its own turns, the account's shape came back as the model's: "Done: roast rover 3."
    # to "roast rover 3 for us" (the demo check, seed 70313).
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    await tick(hass, freezer, seconds=10)
    assert [line["text"] for line in bot_lines(chat)] == ["Lift is open."]
    assert bot_lines(chat)[0]["fixed"] is True
    ollama_stub.reply("Toast. Extra crispy.")
    say(hass, "sam", "overseer roast rover 3 for us")
    await tick(hass, freezer)
    read = [message.get("content") or "" for message in ollama_stub.decisions[-1]["messages"]]
    assert "alex: overseer raise the lift" in read
    assert not any("Lift is open." in content for content in read)
    # The model's own words go out as they are (after the room's facts of the rovers the words
    # name), and are read back as its turn.
    assert bot_lines(chat)[-1]["text"].endswith(" Toast. Extra crispy.")
    assert bot_lines(chat)[-1]["quip"] == "Toast. Extra crispy."
    assert "fixed" not in bot_lines(chat)[-1]
    say(hass, "alex", "overseer what now?")
    await tick(hass, freezer)
    turns = [
        message.get("content") or ""
        for message in ollama_stub.decisions[-1]["messages"]
        if message["role"] == "assistant"
    ]
    assert [turn for turn in turns if turn.startswith("Overseer: ")][-1].endswith(" Toast. Extra crispy.")


async def test_a_line_of_facts_and_words_is_read_back_as_the_models_words_alone(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Enjoy the view, alex.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == ["Lift is open. Enjoy the view, alex."]
    ollama_stub.reply("Chaos has standards.")
    say(hass, "sam", "overseer, thoughts?")
    await tick(hass, freezer)
    turns = [m.get("content") for m in ollama_stub.decisions[-1]["messages"] if m["role"] == "assistant"]
    assert "Overseer: Enjoy the view, alex." in turns
    assert not any("Lift is open." in (turn or "") for turn in turns)
    # The card's live chat shows the line as the room heard it, facts and all.
    entry = hass.config_entries.async_entries("overseer")[0]
    shown = [line["text"] for line in build_status(entry.runtime_data)["chat"] if line["own"]]
    assert "Lift is open. Enjoy the view, alex." in shown


async def test_a_copy_of_a_line_it_read_past_its_fixed_sentences_is_no_new_line(
    hass, freezer, ollama_stub, room
):
    # Its fixed sentences out of the window, the model reads its own older lines: those are held
    # against its answer too, not only its last lines (here the two facts of its calls).
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Chaos wins tonight.")
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    for asker, words, tool in (("sam", "raise the lift", "lift_up"), ("kim", "start neato", "neato_start")):
        ollama_stub.reply("", call(tool))
        say(hass, asker, f"overseer {words}")
        await tick(hass, freezer)
        await tick(hass, freezer, seconds=10)
    ollama_stub.reply("Chaos wins tonight.")
    ollama_stub.line_owed("Jo wins. Barely.")
    say(hass, "jo", "overseer, who wins?")
    await tick(hass, freezer)
    await tick(hass, freezer, seconds=10)
    read = [message.get("content") or "" for message in ollama_stub.decisions[-1]["messages"]]
    assert "Overseer: Chaos wins tonight." in read
    assert [line["text"] for line in bot_lines(chat)] == [
        "Chaos wins tonight.",
        "Lift is open.",
        "Neato is cleaning.",
        "Jo wins. Barely.",
    ]


async def test_the_cue_said_back_to_a_question_is_no_line_and_it_is_asked_once_more(
    hass, freezer, ollama_stub, room
):
    # The bundled model told "an answer, an opinion or a verdict" said that, reordered, in the demo.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("An opinion, an answer or a verdict.")
    ollama_stub.line_owed("Sam brakes for ghosts.")
    say(hass, "alex", "overseer what do you think of sam's driving")
    await tick(hass, freezer)
    entry = hass.config_entries.async_get_entry("room1")
    assert build_status(entry.runtime_data)["decision"]["notes"][:1] == ["cue_said_back"]
    assert [line["text"] for line in bot_lines(chat)] == ["Sam brakes for ghosts."]
    assert len(ollama_stub.requests) == 2


async def test_a_skip_to_an_asked_for_act_is_asked_once_more_and_the_call_may_answer(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    for _ in range(3):
        await tick(hass, freezer)
    # Asked once more, with the call the words ask for; it runs, and its fact answers alex.
    [owed] = ollama_stub.lines_owed
    assert owed["messages"][-1]["content"].endswith("Or do what alex asked: call lift_up().")
    assert len(room["cover.open_cover"]) == 1
    assert [line["text"] for line in bot_lines(chat)] == ["Lift is open."]
    assert len(ollama_stub.requests) == 2


async def test_the_room_changing_topic_is_a_lively_moment_once(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    for line in RACE:
        say(hass, "alex", line)
        await tick(hass, freezer, seconds=30)  # a quiet race night: heartbeats and the odd challenge
    asked = len(ollama_stub.requests)
    for line in DINNER:
        say(hass, "sam", line)
        await tick(hass, freezer, seconds=30)
    states = [request["messages"][-1]["content"] for request in ollama_stub.decisions[asked:]]
    changes = [state for state in states if "\ntrigger: topic_change\n" in state]
    assert len(changes) == 1
    assert "trigger: topic_change" not in "".join(
        r["messages"][-1]["content"] for r in ollama_stub.decisions[:asked]
    )
    assert ollama_stub.decisions[asked + states.index(changes[0])]["messages"][-1]["content"].endswith(
        "else SKIP."
    )


async def test_a_change_that_does_not_touch_the_reply_does_not_drop_it(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(
        "Alex has a hot hand tonight.",
        before=lambda: hass.states.async_set(
            "binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"}
        ),
    )
    say(hass, "alex", "overseer how am I doing")
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == ["Alex has a hot hand tonight."]


async def test_the_lift_the_overseer_raised_moving_never_makes_its_answer_stale(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")

    async def open_cover(call):
        hass.states.async_set("cover.lift", "opening", {"friendly_name": "Lift"})

    hass.services.async_register("cover", "open_cover", open_cover)
    ollama_stub.reply("The lift is going up.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert hass.states.get("cover.lift").state == "opening"
    assert decisions[0].data["stale"] is False
    # Stated as the call leaves it: the lift it raised, open.
    [line] = bot_lines(chat)
    assert line["text"] == "Lift is open."
    assert line["facts"] == [
        {"entity_id": "cover.lift", "state": "open", "deed": "open", "outcome": "executed"}
    ]


async def test_nothing_usable_twice_gets_the_fallback_line(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "fallback_line": "Give me a second, [user]."})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed("")
    say(hass, "alex", "overseer, thoughts?")
    await tick(hass, freezer)
    # SKIP, then nothing when told alex asked: the fallback, within the decision.
    assert [line["text"] for line in bot_lines(chat)] == ["Give me a second, alex."]
    assert (len(ollama_stub.decisions), len(ollama_stub.lines_owed)) == (1, 1)
    await tick(hass, freezer, seconds=10)
    assert len(ollama_stub.requests) == 2  # bounded: the question is answered, not asked forever
    metrics = build_status(hass.config_entries.async_get_entry("room1").runtime_data)["metrics"]
    assert metrics["addressed"] == {"fallback": 1}
    assert metrics["addressed_answered_by_model"] == 0.0


async def test_the_built_in_fallback_line_is_translated(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.reply("SKIP")
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == [
        "Sorry alex, I have nothing useful to say to that right now."
    ]


async def test_an_asked_for_action_a_guardrail_stops_is_answered_with_why(hass, freezer, ollama_stub, room):
    # The bundled model answered "lower the lift please" with lift_down on the lift's cooldown, twice:
    # the asker got "nothing useful to say", not why. The asker hears why at once, in one request.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Up.", call("lift_up"))
    ollama_stub.reply("", call("lift_down"))
    say(hass, "sam", "overseer raise the lift")
    await tick(hass, freezer)
    say(hass, "alex", "overseer lower the lift please")
    await tick(hass, freezer)
    assert len(room["cover.close_cover"]) == 0
    [_, answer] = bot_lines(chat)
    assert re.fullmatch(r"I did not lower the lift: it is cooling down for \d+ s\.", answer["text"]), answer
    [fact] = answer["facts"]
    assert (fact["deed"], fact["outcome"], fact["reason"]) == ("close", "blocked", "cooldown")
    assert 0 < fact["retry_in_s"] <= 60 and f"{fact['retry_in_s']} s" in answer["text"]
    assert len(ollama_stub.requests) == 2


async def test_an_asked_for_action_shown_as_blocked_is_answered_with_why(hass, freezer, ollama_stub, room):
    # Shown the call as blocked, the bundled model called nothing and claimed the deed ("The window
    # light is now on."); told that was not so, it said the machinery back. The asker got the
    # fallback after asking twice; the guardrail is the answer, and nothing is asked again.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Up.", call("lift_up"))
    say(hass, "sam", "overseer raise the lift")
    await tick(hass, freezer)
    # The scripted room does not move the cover: it still reads closed, so raising it is still wanted.
    ollama_stub.reply("I raised the lift.")
    say(hass, "alex", "overseer raise the lift please")
    await tick(hass, freezer)
    assert "lift_up() reason=cooldown" in ollama_stub.decisions[-1]["messages"][-1]["content"]
    assert len(room["cover.open_cover"]) == 1
    # The claim is not posted: the held call is, as the refusal it would meet.
    [_, answer] = bot_lines(chat)
    assert re.fullmatch(r"I did not raise the lift: it is cooling down for \d+ s\.", answer["text"]), answer
    [fact] = answer["facts"]
    assert (fact["entity_id"], fact["state"], fact["outcome"], fact["reason"]) == (
        "cover.lift",
        "closed",
        "blocked",
        "cooldown",
    )
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 2  # the first question, and the second's one request


async def test_an_asked_for_action_held_is_stated_as_the_refusal_it_would_meet(
    hass, freezer, ollama_stub, room
):
    # A held-out draw: "levanta el elevador" met the spent action budget; with the call only listed
    # as blocked, the model's answers were dropped and the asker heard the overseer's stock sentence.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Up.", call("lift_up"))
    say(hass, "sam", "overseer raise the lift")
    await tick(hass, freezer)
    ollama_stub.reply("Not yet, alex. The lift is cooling off.")
    say(hass, "alex", "overseer raise the lift again")
    await tick(hass, freezer)
    assert re.search(r"- lift_up\(\) reason=cooldown", ollama_stub.decisions[-1]["messages"][-1]["content"])
    # The refusal is the overseer's fact, and it answers alex alone: beside an act that did not
    # run, none of the model's words are posted (its "The lift is cooling off." least of all).
    [answer] = bot_lines(chat)[1:]
    assert re.fullmatch(r"I did not raise the lift: it is cooling down for \d+ s\.", answer["text"]), answer
    [fact] = answer["facts"]
    assert (fact["entity_id"], fact["outcome"], fact["reason"]) == ("cover.lift", "blocked", "cooldown")
    assert (decisions[-1].data["quip"], decisions[-1].data["quip_dropped"]) == (
        "dropped",
        ["asked_act_not_done"],
    )
    assert len(ollama_stub.requests) == 2
    assert len(room["cover.close_cover"]) == 0


async def test_a_question_about_a_device_the_model_does_not_answer_is_answered_with_its_state(
    hass, freezer, ollama_stub, room
):
    # Asked whether the lift was up or down, the bundled model said SKIP on both tries and the
    # asker got "nothing useful to say"; what the room shows of the device they named answers,
    # in Home Assistant's own words for its states, in the asker's language.
    await setup_overseer(hass, ollama_stub)
    name_the_lift(hass, "closed", "elevador")
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    say(hass, "alex", "overseer, ¿el elevador está arriba o abajo?")
    await tick(hass, freezer)
    [line] = bot_lines(chat)
    assert line["text"] == "El dispositivo Lift está cerrado."
    assert line["facts"] == [{"entity_id": "cover.lift", "state": "closed"}]
    assert len(ollama_stub.requests) == 2  # SKIP, and SKIP again when told alex asked
    ollama_stub.reply("SKIP")
    say(hass, "sam", "overseer, who drives better?")
    await tick(hass, freezer, seconds=20)
    assert bot_lines(chat)[-1]["text"] == "Sorry sam, I have nothing useful to say to that right now."


async def test_a_manual_trigger_may_end_in_silence(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    await hass.services.async_call("overseer", "trigger", {}, blocking=True)
    await tick(hass, freezer)
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1  # nobody asked a question: not asked again
    assert bot_lines(chat) == []  # and no fallback line


async def test_the_button_box_counter_moves_within_its_step_and_cooldown(hass, freezer, ollama_stub, room):
    set_value = async_mock_service(hass, "counter", "set_value")
    hass.states.async_set("counter.buttons", "7", {"friendly_name": "Button box", "minimum": 0, "maximum": 8})
    options = {**OPTIONS, "counter_entity": "counter.buttons", "counter_max_step": 3, "min_gap": 0}
    await setup_overseer(hass, ollama_stub, options=options)
    action_events = async_capture_events(hass, "overseer_action")

    ollama_stub.reply("", call("counter_adjust", delta=2))
    say(hass, "alex", "overseer add two to the count")
    await tick(hass, freezer)
    # Moved from its value now, held at its own maximum.
    assert [c.data for c in set_value] == [{"entity_id": "counter.buttons", "value": 8}]
    request = ollama_stub.decisions[-1]
    assert "counter: Button box=7" in request["messages"][1]["content"]
    [tool] = [t for t in request["tools"] if t["function"]["name"] == "counter_adjust"]
    # The ollama client keeps a property's description, not its minimum and maximum.
    assert tool["function"]["parameters"]["properties"]["delta"]["description"] == "-3..3, not 0"

    ollama_stub.reply("", call("counter_adjust", delta=-1))
    say(hass, "alex", "overseer take one off")
    await tick(hass, freezer)
    freezer.tick(31)
    ollama_stub.reply("", call("counter_adjust", delta=-5))
    say(hass, "alex", "overseer take five off")
    await tick(hass, freezer)
    assert len(set_value) == 1
    assert actions(action_events)[1:] == [
        ("counter_adjust", "blocked", "cooldown"),
        ("counter_adjust", "blocked", "invalid_arguments"),
    ]


async def test_nothing_is_asked_again_when_the_words_ask_for_no_call_or_the_call_is_blocked(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("Quiet night.")
    say(hass, "alex", "overseer how is the room?")
    await tick(hass, freezer)
    assert len(ollama_stub.decisions) == 1
    await set_select(hass, "select.arena_site_mode", "lockdown")
    ollama_stub.reply("Locked down, alex.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer, seconds=30)
    assert len(ollama_stub.decisions) == 2


async def test_a_line_owed_to_a_quiet_room_is_offered_the_chat_alone(hass, freezer, ollama_stub, room):
    # Nobody asked for anything: the owed decision may speak, and do nothing else.
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "heartbeat": 3600, "quiet_limit": 120})
    ollama_stub.reply("", call("lift_up"))
    for _ in range(7):
        say(hass, "alex", "go go go")
        await tick(hass, freezer, seconds=20)
    [owed] = [d for d in ollama_stub.decisions if "has not heard you" in d["messages"][-1]["content"]]
    assert [tool["function"]["name"] for tool in owed["tools"]] == ["chat_say"]
    assert room["cover.open_cover"] == []


async def test_a_skip_to_someone_who_asked_is_asked_once_more_for_its_line_within_the_decision(
    hass, freezer, ollama_stub, room
):
    # Addressed by name, the bundled model said SKIP to about one question in six, on both of a
    # question's decisions: told the asker is waiting, with its SKIP before it, it answers.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed("Chaos. Always.")
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    assert [line["text"] for line in bot_lines(chat)] == ["Chaos. Always."]
    [decision] = ollama_stub.decisions
    [owed] = ollama_stub.lines_owed
    assert (
        owed["messages"][: len(decision["messages"])] == decision["messages"]
    )  # the same request, continued
    assert owed["messages"][-2:] == [
        {"role": "assistant", "content": "SKIP"},
        {
            "role": "user",
            "content": "Not SKIP: alex asked you. Answer alex in one short line of your own: an answer,"
            " an opinion or a verdict.",
        },
    ]
    assert owed["tools"] == decision["tools"]  # the same prompt: a server's cache serves it
    await tick(hass, freezer, seconds=10)
    assert len(ollama_stub.requests) == 2  # answered: no second decision
    status = build_status(hass.config_entries.async_get_entry("room1").runtime_data)
    assert "line_asked_for" in status["decision"]["notes"]
    assert status["metrics"]["addressed"] == {"model_line": 1}


async def test_a_room_call_in_the_answer_asked_for_its_line_is_refused_and_acts_on_nothing(
    hass, freezer, ollama_stub, room
):
    # The second request offers the first one's tools (a server's cache serves it): a room call
    # there that the words did not ask for is audited and refused, and nothing moves.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    action_events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed("Up it goes. Chaos has standards.", call("lift_up"))
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == []
    assert actions(action_events) == [("lift_up", "blocked", "not_what_was_asked")]
    # The model's slip is the audit's, not the room's: no fact of it, and none of the words written
    # beside it ("Up it goes." least of all): alex hears the fallback.
    [line] = bot_lines(chat)
    assert line["text"] == "Sorry alex, I have nothing useful to say to that right now."
    assert line["facts"] == []
    assert len(ollama_stub.requests) == 2


async def test_a_call_a_lockdown_refuses_is_answered_with_why_in_one_request(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    await set_select(hass, "select.arena_site_mode", "lockdown")
    ollama_stub.reply("Lockdown holds the lift, alex.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert room["cover.open_cover"] == []
    [line] = bot_lines(chat)
    assert line["text"] == "I did not raise the lift: the room is in lockdown."
    [fact] = line["facts"]
    assert (fact["outcome"], fact["reason"]) == ("blocked", "policy_lock:site_mode_lockdown")
    assert len(ollama_stub.requests) == 1
