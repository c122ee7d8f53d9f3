"""Approvals from every caller: the chat loop, Assist and other agents wait for a person like triage.

A consequential call (here lift_up, made so by approval_tools) runs only once an approver says so;
the one who asked is told at once that it waits, and told what became of it. Grants let the same
call from the same caller run again for a while without asking, never past the room's guardrails.
"""

from __future__ import annotations

import pytest
from homeassistant.core import Context
from homeassistant.exceptions import ServiceValidationError
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, say, set_select, setup_overseer, status, tick
from .test_assist import converse
from .test_llm_api import room_api, use

GUARDED = {**OPTIONS, "approval_tools": ["lift_up"], "min_gap": 0}
GRANTS = {**GUARDED, "max_grant_minutes": 30}


def bot_texts(events) -> list[str]:
    return [e.data["text"] for e in events if e.data.get("bot")]


def audit(hass) -> list[tuple[str, str, str | None, str | None]]:
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    return [(r["tool"], r["outcome"], r["reason"], r["approval"]) for r in loop.state.audit.as_list()]


async def answer(hass, user, approval_id: str, service: str = "approve", **extra) -> None:
    await hass.services.async_call(
        "overseer",
        service,
        {"approval_id": approval_id, **extra},
        blocking=True,
        context=Context(user_id=user.id),
    )


async def ask_in_chat(hass, freezer, ollama_stub, who: str = "alex") -> None:
    ollama_stub.reply("Up it goes.", call("lift_up"))
    say(hass, who, "overseer raise the lift")
    await tick(hass, freezer)


async def test_the_chat_loop_asks_a_person_and_the_asker_hears_the_outcome(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_ws_client
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")

    await ask_in_chat(hass, freezer, ollama_stub)

    assert room["cover.open_cover"] == []
    [pending] = approvals
    approval_id = pending.data["approval_id"]
    assert pending.data["source"] == "chat" and "incident_id" not in pending.data
    assert pending.data["status"] == "pending" and pending.data["tool"] == "lift_up"
    # The model's "Up it goes." claims what did not happen: only the truth is posted.
    assert bot_texts(chat) == [
        f"I will raise the lift once a person approves it ({approval_id}); nothing has run yet."
    ]
    assert audit(hass) == [("lift_up", "awaiting_approval", "needs_approval", approval_id)]
    notification = hass.data["persistent_notification"][f"overseer_approval_{approval_id}"]
    assert "alex asked for it in the room's chat." in notification["message"]
    shown = (await status(await hass_ws_client(hass)))["approvals"][0]
    assert (shown["source"], shown["asker"], shown["incident_id"]) == ("chat", "alex", "")

    await answer(hass, hass_admin_user, approval_id)
    assert len(room["cover.open_cover"]) == 1
    assert [e.data["status"] for e in approvals] == ["pending", "approved", "executed"]
    assert bot_texts(chat)[-1] == f"alex: {hass_admin_user.name} approved lift_up(), and it ran."
    # Single use: the same answer again runs nothing.
    with pytest.raises(ServiceValidationError, match="already answered"):
        await answer(hass, hass_admin_user, approval_id)
    assert len(room["cover.open_cover"]) == 1


async def test_asking_again_while_it_waits_is_one_approval_and_a_denial_is_said(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")
    await ask_in_chat(hass, freezer, ollama_stub)
    await ask_in_chat(hass, freezer, ollama_stub)
    # Nobody is asked twice for the same call from the same caller.
    assert [e.data["status"] for e in approvals] == ["pending"]
    approval_id = approvals[0].data["approval_id"]
    assert [r[3] for r in audit(hass)] == [approval_id, approval_id]

    await answer(hass, hass_admin_user, approval_id, "deny")
    assert room["cover.open_cover"] == []
    assert bot_texts(chat)[-1] == f"alex: {hass_admin_user.name} denied lift_up(); nothing ran."


async def test_an_approval_nobody_answers_expires_and_the_asker_is_told(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options={**GUARDED, "approval_timeout": 60})
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")
    await ask_in_chat(hass, freezer, ollama_stub)
    for _ in range(60 // 5 + 1):
        await tick(hass, freezer, 5)
    assert [e.data["status"] for e in approvals] == ["pending", "expired"]
    assert bot_texts(chat)[-1] == "alex: nobody approved lift_up() in time; nothing ran."
    with pytest.raises(ServiceValidationError, match="already answered"):
        await answer(hass, hass_admin_user, approvals[0].data["approval_id"])
    assert room["cover.open_cover"] == []


async def test_a_lockdown_meanwhile_runs_nothing_and_the_asker_hears_why(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")
    await ask_in_chat(hass, freezer, ollama_stub)
    await set_select(hass, "select.arena_site_mode", "lockdown")
    await answer(hass, hass_admin_user, approvals[0].data["approval_id"])
    assert room["cover.open_cover"] == []
    assert approvals[-1].data["status"] == "blocked"
    assert approvals[-1].data["reason"] == "policy_lock:site_mode_lockdown"
    assert bot_texts(chat)[-1].startswith(
        f"alex: {hass_admin_user.name} approved lift_up(), but it did not run:"
    )


async def test_assist_hears_that_it_waits_and_the_outcome_reaches_the_room(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.reply("", call("lift_up"))

    reply = await converse(hass, freezer, "raise the lift", hass_admin_user.id)

    [pending] = approvals
    approval_id = pending.data["approval_id"]
    assert pending.data["source"] == "assist"
    speech = reply["response"]["speech"]["plain"]["speech"]
    assert speech == f"I will raise the lift once a person approves it ({approval_id}); nothing has run yet."
    assert room["cover.open_cover"] == []

    await answer(hass, hass_admin_user, approval_id)
    assert len(room["cover.open_cover"]) == 1
    asker = hass_admin_user.name
    assert bot_texts(chat)[-1] == f"{asker}: {asker} approved lift_up(), and it ran."


async def test_another_agent_gets_the_approval_id_and_the_event_tells_it_the_outcome(
    hass, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    chat = async_capture_events(hass, "overseer_chat_message")
    approvals = async_capture_events(hass, "overseer_approval")
    instance = await room_api(hass)

    waiting = await use(hass, instance, "lift_up")

    [pending] = approvals
    approval_id = pending.data["approval_id"]
    assert waiting == {
        "success": False,
        "tool": "lift_up",
        "outcome": "awaiting_approval",
        "approval_id": approval_id,
        "note": "a person must approve this call first: nothing has run yet",
    }
    assert pending.data["source"] == "llm_api"
    # Asked again while it waits: the same approval, not a second request.
    assert (await use(hass, instance, "lift_up"))["approval_id"] == approval_id

    await answer(hass, hass_admin_user, approval_id)
    assert len(room["cover.open_cover"]) == 1
    assert [e.data["status"] for e in approvals] == ["pending", "approved", "executed"]
    # The agent is not in the room's chat: the event is its answer, and the chat stays quiet.
    assert bot_texts(chat) == []


async def test_a_grant_lets_the_same_call_run_again_but_never_past_the_guardrails(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_ws_client
):
    await setup_overseer(hass, ollama_stub, options={**GRANTS, "cooldown_lift": 60})
    approvals = async_capture_events(hass, "overseer_approval")
    instance = await room_api(hass)
    approval_id = (await use(hass, instance, "lift_up"))["approval_id"]
    await answer(hass, hass_admin_user, approval_id, grant_minutes=10)
    assert len(room["cover.open_cover"]) == 1
    [grant] = (await status(await hass_ws_client(hass)))["grants"]
    assert (grant["tool"], grant["arguments"], grant["source"]) == ("lift_up", {}, "llm_api")
    assert grant["approval_id"] == approval_id and grant["call"] == "lift_up()"

    # Within the grant the cooldown still holds.
    assert (await use(hass, instance, "lift_up"))["error"] == "cooldown"
    freezer.tick(61)
    assert (await use(hass, instance, "lift_up"))["outcome"] == "executed"
    assert len(room["cover.open_cover"]) == 2
    assert audit(hass)[-1] == ("lift_up", "executed", None, grant["grant_id"])
    # The chat loop is another caller: the grant is not its.
    freezer.tick(61)
    await ask_in_chat(hass, freezer, ollama_stub)
    assert audit(hass)[-1][1] == "awaiting_approval"
    # Past the grant, the agent asks again.
    freezer.tick(10 * 60)
    assert (await use(hass, instance, "lift_up"))["outcome"] == "awaiting_approval"
    assert len(room["cover.open_cover"]) == 2
    assert [e.data["status"] for e in approvals].count("pending") == 3


async def test_a_grant_survives_a_restart_and_a_revoked_one_asks_again(
    hass, ollama_stub, room, hass_admin_user, hass_read_only_user, hass_ws_client
):
    entry = await setup_overseer(
        hass, ollama_stub, options={**GRANTS, "cooldown_lift": 0, "action_budget": 10}
    )
    approval_id = (await use(hass, await room_api(hass), "lift_up"))["approval_id"]
    await answer(hass, hass_admin_user, approval_id, grant_minutes=30)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()

    assert (await use(hass, await room_api(hass), "lift_up"))["outcome"] == "executed"
    [grant] = (await status(await hass_ws_client(hass)))["grants"]
    revoke = {"grant_id": grant["grant_id"]}
    with pytest.raises(ServiceValidationError, match="not allowed to revoke"):
        await hass.services.async_call(
            "overseer", "revoke_grant", revoke, blocking=True, context=Context(user_id=hass_read_only_user.id)
        )
    assert (await use(hass, await room_api(hass), "lift_up"))["outcome"] == "executed"
    await hass.services.async_call(
        "overseer", "revoke_grant", revoke, blocking=True, context=Context(user_id=hass_admin_user.id)
    )
    assert (await status(await hass_ws_client(hass)))["grants"] == []
    assert (await use(hass, await room_api(hass), "lift_up"))["outcome"] == "awaiting_approval"
    assert len(room["cover.open_cover"]) == 3
    with pytest.raises(ServiceValidationError, match="No overseer has a running grant"):
        await hass.services.async_call(
            "overseer", "revoke_grant", revoke, blocking=True, context=Context(user_id=hass_admin_user.id)
        )


@pytest.mark.parametrize(
    ("options", "minutes", "refusal"),
    [
        (GUARDED, 5, "Grants are off in this room"),
        (GRANTS, 31, "lasts at most 30 minutes; 31 were asked"),
    ],
)
async def test_a_grant_the_room_does_not_allow_approves_nothing(
    hass, ollama_stub, room, hass_admin_user, options, minutes, refusal
):
    await setup_overseer(hass, ollama_stub, options=options)
    approvals = async_capture_events(hass, "overseer_approval")
    approval_id = (await use(hass, await room_api(hass), "lift_up"))["approval_id"]
    with pytest.raises(ServiceValidationError, match=refusal):
        await answer(hass, hass_admin_user, approval_id, grant_minutes=minutes)
    assert room["cover.open_cover"] == []
    assert [e.data["status"] for e in approvals] == ["pending"]
    # Still waiting, and still answerable once.
    await answer(hass, hass_admin_user, approval_id)
    assert len(room["cover.open_cover"]) == 1


async def test_a_grant_is_one_askers_and_ends_when_the_room_turns_grants_off(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    entry = await setup_overseer(
        hass, ollama_stub, options={**GRANTS, "cooldown_lift": 0, "action_budget": 10}
    )
    approvals = async_capture_events(hass, "overseer_approval")
    await ask_in_chat(hass, freezer, ollama_stub, "alex")
    await answer(hass, hass_admin_user, approvals[0].data["approval_id"], grant_minutes=10)
    await ask_in_chat(hass, freezer, ollama_stub, "alex")
    assert len(room["cover.open_cover"]) == 2  # alex's grant
    await ask_in_chat(hass, freezer, ollama_stub, "sam")
    assert len(room["cover.open_cover"]) == 2  # sam is asked about, not let through
    assert audit(hass)[-1][1] == "awaiting_approval"

    hass.config_entries.async_update_entry(entry, options={**entry.options, "max_grant_minutes": 0})
    await hass.async_block_till_done()
    await ask_in_chat(hass, freezer, ollama_stub, "alex")
    assert len(room["cover.open_cover"]) == 2
    assert audit(hass)[-1][1] == "awaiting_approval"


async def test_in_dry_run_a_consequential_call_is_recorded_and_nobody_is_asked(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    approvals = async_capture_events(hass, "overseer_approval")
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.arena_dry_run"}, blocking=True)
    assert (await use(hass, await room_api(hass), "lift_up"))["outcome"] == "dry_run"
    assert approvals == [] and room["cover.open_cover"] == []
