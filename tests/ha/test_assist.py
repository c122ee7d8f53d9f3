"""Assist: the overseer as a conversation agent, through Home Assistant's conversation API."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest
from homeassistant.components import conversation
from homeassistant.components.conversation import chat_log as chat_log_module
from homeassistant.core import Context
from homeassistant.helpers import device_registry as dr
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from custom_components.overseer.compat import chat_log_trace

from ..ollama_stub import Scripted, call
from .harness import OPTIONS, say, set_select, setup_overseer, tick

AGENT = "conversation.arena_agent"


async def converse(hass, freezer, text: str, user_id: str | None, step=tick) -> dict[str, Any]:
    """Ask through conversation.process as Assist does, while the room's clock runs."""
    # Not a Home Assistant task: tick() waits for those, and this one waits for the ticks.
    asked = asyncio.ensure_future(
        hass.services.async_call(
            "conversation",
            "process",
            {"text": text, "agent_id": AGENT},
            blocking=True,
            return_response=True,
            context=Context(user_id=user_id),
        )
    )
    for _ in range(10):
        for _ in range(20):
            await asyncio.sleep(0)
        if asked.done():
            return asked.result()
        await step(hass, freezer)
    raise AssertionError("the agent never replied")


async def tick_while_the_model_hangs(hass, freezer) -> None:
    """A second of the room's time, without waiting for the decision the model holds up."""
    freezer.tick(1)
    async_fire_time_changed(hass)
    await hass.async_add_executor_job(time.sleep, 0.02)


def speech(result: dict[str, Any]) -> str:
    return result["response"]["speech"]["plain"]["speech"]


async def test_an_utterance_is_a_direct_address_from_the_calling_user(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Hold tight, Mock User.", call("lift_up"))

    result = await converse(hass, freezer, "this is alex: raise the lift", hass_admin_user.id)

    # The overseer's fact of what its call did, then the model's words to the caller.
    assert speech(result) == "Lift is open. Hold tight, Mock User."
    assert result["conversation_id"]
    asked = [e.data for e in chat if not e.data["bot"]]
    assert asked == [
        {"room": "arena", "user": "Mock User", "text": "this is alex: raise the lift", "bot": False}
    ]
    assert [d.data["trigger"] for d in decisions] == ["direct_address"]
    assert len(room["cover.open_cover"]) == 1
    # The model saw the question as a line from the caller, whatever name the words claim.
    transcript = ollama_stub.requests[0]["messages"]
    assert any(m["content"] == "Mock User: this is alex: raise the lift" for m in transcript)


async def test_the_person_name_is_preferred_to_the_user_name(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    assert await async_setup_component(
        hass, "person", {"person": [{"id": "p1", "name": "Kim", "user_id": hass_admin_user.id}]}
    )
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Hello Kim.")

    await converse(hass, freezer, "hello", hass_admin_user.id)

    assert [e.data["user"] for e in chat if not e.data["bot"]] == ["Kim"]


async def test_an_action_without_a_line_is_told_in_plain_words(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("lift_up"))
    reply = speech(await converse(hass, freezer, "raise the lift please", hass_admin_user.id))
    # The fact of what the call left: the lift open (the scripted room does not move it).
    assert reply == "Lift is open."

    # Inside the cooldown, the refusal and the seconds left come from the audit.
    ollama_stub.reply("", call("lift_up"))
    reply = speech(await converse(hass, freezer, "raise the lift!", hass_admin_user.id))
    # The model said nothing: the asker hears why, with the seconds left.
    said = re.fullmatch(r"I did not raise the lift: it is cooling down for (\d+) s\.", reply)
    assert said is not None and int(said[1]) > 0, reply
    assert len(room["cover.open_cover"]) == 1
    assert len(ollama_stub.requests) == 2  # one request each: a call is an answer


async def test_assist_hears_its_own_answer_not_another_askers(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Hold tight, alex.", call("lift_up"))
    ollama_stub.reply("Bold choice, Mock User.")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)  # the lift rises, and alex hears of it
    assert speech(await converse(hass, freezer, "hello", hass_admin_user.id)) == "Bold choice, Mock User."
    assert [e.data["text"] for e in chat if e.data.get("bot")] == [
        "Lift is open. Hold tight, alex.",
        "Bold choice, Mock User.",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Hello there.",
        "Hello, Mock User.",
    ],
)
async def test_a_greeting_is_answered_with_the_models_greeting(
    hass, freezer, ollama_stub, room, hass_admin_user, line
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply(line)
    assert speech(await converse(hass, freezer, "hello", hass_admin_user.id)) == line


async def test_under_lockdown_the_reply_explains_and_nothing_moves(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    await set_select(hass, "select.arena_site_mode", "lockdown")
    ollama_stub.reply("", call("lift_up"))

    reply = speech(await converse(hass, freezer, "raise the lift", hass_admin_user.id))

    assert reply == "I did not raise the lift: the room is in lockdown."
    assert room["cover.open_cover"] == []


async def test_a_model_that_says_nothing_when_asked_again_gets_the_fallback_line(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("SKIP")
    ollama_stub.reply("SKIP")

    reply = speech(await converse(hass, freezer, "anyone there?", hass_admin_user.id))

    assert reply == "Sorry Mock User, I have nothing useful to say to that right now."
    # The question, then once more for its line: a decision's two requests, no more.
    assert (len(ollama_stub.decisions), len(ollama_stub.lines_owed)) == (1, 1)
    assert ollama_stub.lines_owed[0]["messages"][-2] == {"role": "assistant", "content": "SKIP"}


async def test_a_slow_model_gets_a_still_thinking_reply_and_the_answer_later(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "request_timeout": 5})
    chat = async_capture_events(hass, "overseer_chat_message")
    release = asyncio.Event()
    ollama_stub.reply("Here I am.", before=release.wait)
    ollama_stub.reply("Here I am.")  # asked again if the first request timed out

    reply = speech(
        await converse(hass, freezer, "you there?", hass_admin_user.id, step=tick_while_the_model_hangs)
    )

    assert reply == "Still thinking about that; the answer will appear in the room's chat."
    release.set()
    for _ in range(10):
        await tick(hass, freezer)
    assert [e.data["text"] for e in chat if e.data["bot"]] == ["Here I am."]


async def test_the_agent_says_so_when_the_overseer_is_off(hass, freezer, ollama_stub, room, hass_admin_user):
    await setup_overseer(hass, ollama_stub)
    await set_select(hass, "select.arena_overseer_mode", "off")

    reply = speech(await converse(hass, freezer, "hello", hass_admin_user.id))

    assert reply == "The overseer is off in this room."
    assert ollama_stub.requests == []


async def test_a_satellite_with_no_user_speaks_under_its_own_name(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen")}, name="Kitchen satellite"
    )
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Heard you, kitchen.")
    asked = asyncio.ensure_future(
        conversation.async_converse(
            hass=hass,
            text="hello",
            conversation_id=None,
            context=Context(),
            language="en",
            agent_id=AGENT,
            device_id=satellite.id,
        )
    )
    for _ in range(20):
        await asyncio.sleep(0)
    await tick(hass, freezer)
    for _ in range(20):
        await asyncio.sleep(0)

    assert asked.result().response.speech["plain"]["speech"] == "Heard you, kitchen."
    assert [e.data["user"] for e in chat if not e.data["bot"]] == ["Kitchen satellite"]


async def test_another_rooms_decision_is_never_taken_for_the_answer(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    await setup_overseer(hass, ollama_stub, entry_id="lab", data={"room": "Lab", "name": "Labbot"})

    def answer(payload):
        if "trigger: direct_address" not in payload["messages"][-1]["content"]:
            return None
        if payload["messages"][0]["content"].startswith("You are Labbot"):
            return Scripted(content="Lab here.")
        # The lab, addressed in its own chat, answers first; that answer is not the arena's.
        return Scripted(content="Arena here.", before=lambda: hass.async_add_executor_job(time.sleep, 0.3))

    ollama_stub.responder = answer
    hass.bus.async_fire("overseer_chat_message", {"user": "kim", "text": "labbot?", "room": "lab"})
    reply = speech(await converse(hass, freezer, "hello", hass_admin_user.id))
    assert reply == "Arena here."


async def test_switching_the_overseer_off_mid_question_says_so_at_once(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    release = asyncio.Event()
    ollama_stub.reply("Too late.", before=release.wait)

    async def off_while_thinking(hass, freezer) -> None:
        await tick_while_the_model_hangs(hass, freezer)
        if hass.states.get("sensor.arena_loop_phase").state == "awaiting_model":
            await set_select(hass, "select.arena_overseer_mode", "off")

    reply = speech(await converse(hass, freezer, "you there?", hass_admin_user.id, step=off_while_thinking))
    release.set()
    assert reply == "The overseer is off in this room."


async def test_in_dry_run_the_reply_says_what_it_would_have_said(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.arena_dry_run"}, blocking=True)
    ollama_stub.reply("Chaos has standards.")
    reply = speech(await converse(hass, freezer, "hello", hass_admin_user.id))
    assert reply == 'Dry run: I would have said "Chaos has standards.".'

    # Beside a call, what the call would do: the words written beside a call that did not run are not said.
    ollama_stub.reply("Up it goes.", call("lift_up"))
    reply = speech(await converse(hass, freezer, "raise the lift", hass_admin_user.id))
    assert reply == "Dry run: I would raise the lift; nothing was executed."
    assert room["cover.open_cover"] == []


async def test_assist_never_hears_an_action_claimed_that_did_not_run(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    # The same as the room's chat: "Lift raised." beside no call is not said; what was not done, is.
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("Lift raised.")

    reply = speech(await converse(hass, freezer, "raise the lift", hass_admin_user.id))

    # The lift it could raise, left down: the overseer says it decided not to, never the claim.
    assert reply == "I decided not to raise the lift."
    # Asked once more to call it or say why not (a SKIP to that), it still did not.
    assert len(ollama_stub.requests) == 2 and "call lift_up()" in str(ollama_stub.requests[1]["messages"][-1])
    assert actions == [] and room["cover.open_cover"] == []

    # Said beside the call that does it, the same words give way to the fact of what it did.
    ollama_stub.reply("Lift raised.", call("lift_up"))
    reply = speech(await converse(hass, freezer, "raise the lift, now", hass_admin_user.id))
    assert reply == "Lift is open."
    assert [(e.data["tool"], e.data["outcome"]) for e in actions] == [("lift_up", "executed")]


async def test_assist_traces_the_decisions_calls_and_results_in_its_chat_log(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    subscribe = getattr(chat_log_module, "async_subscribe_chat_logs", None)
    if subscribe is None:
        # 2025.4: a chat log takes no tool call its agent ran itself; the audit is the trace.
        assert chat_log_trace("agent", [("1", "lift_up", {}, {"success": True}, False)]) == []
        return
    added: list[dict] = []
    unsubscribe = subscribe(
        hass, lambda _, kind, data: added.append(data["content"]) if "content" in data else None
    )
    ollama_stub.reply("Hold tight.", call("lift_up"))
    said = speech(await converse(hass, freezer, "raise the lift", hass_admin_user.id))
    assert said == "Lift is open. Hold tight."
    unsubscribe()
    roles = [content["role"] for content in added]
    assert roles[-3:] == ["assistant", "tool_result", "assistant"], roles
    [called] = added[-3]["tool_calls"]
    assert called.tool_name == "lift_up" and called.external is True
    assert added[-2]["tool_name"] == "lift_up" and added[-2]["tool_call_id"] == called.id
    assert added[-1]["content"] == said
