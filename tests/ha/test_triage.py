"""Triage inside Home Assistant: the model proposes, policy decides, a person approves, the rules verify."""

from __future__ import annotations

import pytest
from homeassistant.core import Context
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import issue_registry as ir
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import (
    async_capture_events,
    async_fire_time_changed,
    async_mock_service,
)

from custom_components.overseer.core.approvals import Approval, ApprovalStatus, approval_as_dict
from custom_components.overseer.incidents import INCIDENT_LOST

from ..ollama_stub import call, reasoning
from .harness import OPTIONS, say, set_select, setup_overseer, status, tick

ERROR = {"friendly_name": "Neato", "status": "Brush stuck"}
REFRESH = ("asset_refresh", {"asset_id": "vacuum.neato"})
RESTART = ("asset_restart", {"asset_id": "vacuum.neato"})
VERIFY_AFTER = 30


def statuses(events) -> list[str]:
    return [event.data["status"] for event in events]


async def jam_the_vacuum(hass, freezer) -> None:
    """The vacuum reports an error; the desk opens INC-0001 and triage takes the next free flight."""
    hass.states.async_set("vacuum.neato", "error", ERROR)
    await tick(hass, freezer, 5)
    await tick(hass, freezer)


async def approve(hass, user, approval_id: str, service: str = "approve") -> None:
    await hass.services.async_call(
        "overseer", service, {"approval_id": approval_id}, blocking=True, context=Context(user_id=user.id)
    )


def triage_audit(hass) -> list[dict]:
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    return [r for r in loop.state.audit.as_list() if r["source"] != "overseer"]


async def test_a_safe_intent_runs_and_the_fix_is_verified(hass, freezer, ollama_stub, room, hass_ws_client):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_incident")

    refreshed = []

    async def device_answers(call):  # the vacuum, asked again, reports it is fine
        refreshed.append(dict(call.data))
        hass.states.async_set("vacuum.neato", "docked", {"friendly_name": "Neato", "battery_level": 80})

    hass.services.async_register("homeassistant", "update_entity", device_answers)
    ollama_stub.triage(reasoning(REFRESH, fault="the vacuum lost its brush sensor"))
    await jam_the_vacuum(hass, freezer)

    [request] = ollama_stub.triage_requests
    assert not request.get("tools") and request["format"]["required"][0] == "hypotheses"
    system, user = request["messages"]
    assert "Use only the supplied data" in system["content"]
    assert '"asset_id": "vacuum.neato"' in user["content"] and "Brush stuck" in user["content"]
    assert refreshed == [{"entity_id": ["vacuum.neato"]}]
    assert statuses(events) == ["open", "triaging", "verifying"]

    for _ in range(VERIFY_AFTER // 5 + 1):
        await tick(hass, freezer, 5)
    assert statuses(events)[-1] == "resolved" and events[-1].data["reason"] == "verified"
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["root_cause"] == "the vacuum lost its brush sensor"
    assert incident["resolution"] == "asset_refresh(asset_id=vacuum.neato) ran and the fault cleared"
    assert [step["what"] for step in incident["timeline"]] == [
        "opened",
        "request",
        "response",
        "intent",
        "cleared",
        "verified",
    ]
    [record] = triage_audit(hass)
    assert (record["tool"], record["outcome"], record["source"]) == ("asset_refresh", "executed", "triage")


async def test_a_fix_that_does_not_clear_the_fault_hands_it_to_a_person(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.triage(reasoning(REFRESH, action="Free the brush by hand."))
    await jam_the_vacuum(hass, freezer)
    assert len(room["homeassistant.update_entity"]) == 1
    for _ in range(VERIFY_AFTER // 5 + 1):
        await tick(hass, freezer, 5)

    issue = ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001")
    assert issue is not None and issue.translation_key == "incident_needs_human"
    assert issue.translation_placeholders["action"] == "Free the brush by hand."
    # Markdown-escaped (a repair renders markdown): it reads asset_refresh(asset_id=vacuum.neato).
    assert issue.translation_placeholders["tried"] == r"asset\_refresh\(asset\_id=vacuum.neato\)"
    assert hass.states.get("sensor.arena_open_incidents").state == "1"
    # Fixed by hand: the incident resolves once the fault stays away, and the repair goes.
    hass.states.async_set("vacuum.neato", "docked", {"battery_level": 80})
    for _ in range(600 // 5 + 1):
        await tick(hass, freezer, 5)
    assert hass.states.get("sensor.arena_open_incidents").state == "0"
    assert ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001") is None
    assert len(ollama_stub.triage_requests) == 1  # nothing asked again meanwhile


async def test_a_consequential_intent_waits_for_an_approver_and_runs_once(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    # The model calls the restart safe: the policy's class stands.
    ollama_stub.triage(reasoning(RESTART, safety="read"))
    await jam_the_vacuum(hass, freezer)

    assert room["homeassistant.reload_config_entry"] == []
    assert hass.states.get("sensor.arena_pending_approvals").state == "1"
    [pending] = approvals
    assert pending.data["status"] == "pending" and pending.data["tool"] == "asset_restart"
    assert pending.data["arguments"] == {"asset_id": "vacuum.neato"}
    approval_id = pending.data["approval_id"]
    notifications = hass.data["persistent_notification"]
    assert f"overseer_approval_{approval_id}" in notifications
    shown = await status(await hass_ws_client(hass))
    assert shown["incidents"][0]["status"] == "awaiting_approval"
    assert shown["approvals"][0]["approval_id"] == approval_id and "nonce" not in shown["approvals"][0]

    await approve(hass, hass_admin_user, approval_id)
    assert [call.data for call in room["homeassistant.reload_config_entry"]] == [
        {"entity_id": ["vacuum.neato"]}
    ]
    assert statuses(approvals) == ["pending", "approved", "executed"]
    assert f"overseer_approval_{approval_id}" not in notifications
    assert hass.states.get("sensor.arena_pending_approvals").state == "0"
    assert (await status(await hass_ws_client(hass)))["incidents"][0]["status"] == "verifying"

    with pytest.raises(ServiceValidationError, match="already answered"):
        await approve(hass, hass_admin_user, approval_id)
    assert len(room["homeassistant.reload_config_entry"]) == 1
    assert [r["approval"] for r in triage_audit(hass)] == [
        approval_id,
        "approved",
        "approval_already_decided",
    ]


async def test_answers_that_are_not_taken_run_nothing_and_are_audited(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_read_only_user
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    approval_id = approvals[0].data["approval_id"]

    with pytest.raises(ServiceValidationError, match="not allowed"):
        await approve(hass, hass_read_only_user, approval_id)
    with pytest.raises(ServiceValidationError, match="No overseer has a pending approval"):
        await approve(hass, hass_admin_user, "APR-00000000")
    # The site is locked meanwhile: approved, and refused by policy at that instant.
    await set_select(hass, "select.arena_site_mode", "lockdown")
    await approve(hass, hass_admin_user, approval_id)
    assert room["homeassistant.reload_config_entry"] == []
    assert statuses(approvals) == ["pending", "approved", "blocked"]
    assert approvals[-1].data["reason"] == "policy_lock:site_mode_lockdown"
    await tick(hass, freezer, 5)
    issue = ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001")
    assert issue is not None
    assert [(r["outcome"], r["reason"], r["approval"]) for r in triage_audit(hass)] == [
        ("awaiting_approval", "needs_approval", approval_id),
        ("blocked", "needs_approval", "not_an_approver"),
        ("blocked", "policy_lock:site_mode_lockdown", "approved"),
    ]


async def test_an_approval_expires_and_a_late_answer_runs_nothing(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "approval_timeout": 120})
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    approval_id = approvals[0].data["approval_id"]
    for _ in range(120 // 5 + 1):
        await tick(hass, freezer, 5)
    assert statuses(approvals) == ["pending", "expired"]
    with pytest.raises(ServiceValidationError, match="already answered"):
        await approve(hass, hass_admin_user, approval_id)
    assert room["homeassistant.reload_config_entry"] == []
    assert ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001") is not None


async def test_only_the_configured_approvers_may_answer_and_deny_runs_nothing(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_read_only_user
):
    options = {**OPTIONS, "approvers": [hass_read_only_user.id]}
    await setup_overseer(hass, ollama_stub, options=options)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    approval_id = approvals[0].data["approval_id"]
    with pytest.raises(ServiceValidationError, match="not allowed"):
        await approve(hass, hass_admin_user, approval_id)  # an admin, but not an approver here
    await approve(hass, hass_read_only_user, approval_id, "deny")
    assert statuses(approvals) == ["pending", "denied"]
    assert room["homeassistant.reload_config_entry"] == []


async def test_notification_buttons_answer_only_for_an_approver(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_read_only_user
):
    phone = async_mock_service(hass, "notify", "mobile_app_phone")
    await setup_overseer(
        hass, ollama_stub, options={**OPTIONS, "approval_notify": ["notify.mobile_app_phone"]}
    )
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    [sent] = phone
    approve_action, deny_action = (action["action"] for action in sent.data["data"]["actions"])
    assert approvals[0].data["approval_id"] not in approve_action  # the nonce, not the id
    # In Home Assistant's language, from the translations (English here).
    approval_id = approvals[0].data["approval_id"]
    assert sent.data["title"] == "Overseer: approve asset_restart?"
    assert [action["title"] for action in sent.data["data"]["actions"]] == ["Approve", "Deny"]
    assert "The overseer Overseer would like to run asset\\_restart" in sent.data["message"]  # escaped
    assert f"(approval_id {approval_id})" in sent.data["message"]

    def press(action: str, user) -> None:
        hass.bus.async_fire(
            "mobile_app_notification_action", {"action": action}, context=Context(user_id=user.id)
        )

    press(approve_action, hass_read_only_user)
    press("OVERSEER_APPROVE_" + "x" * 32, hass_admin_user)
    await hass.async_block_till_done()
    assert statuses(approvals) == ["pending"]
    press(approve_action, hass_admin_user)
    await hass.async_block_till_done()
    press(approve_action, hass_admin_user)  # a second press of the same button
    await hass.async_block_till_done()
    assert statuses(approvals) == ["pending", "approved", "executed"]
    assert len(room["homeassistant.reload_config_entry"]) == 1


async def test_an_invalid_reply_is_rejected_audited_and_asked_again_with_back_off(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.triage('{"hypotheses": "all good"}')
    await jam_the_vacuum(hass, freezer)
    [record] = triage_audit(hass)
    assert (record["tool"], record["outcome"], record["reason"]) == ("triage", "blocked", "invalid_arguments")
    for _ in range(55 // 5):
        await tick(hass, freezer, 5)
    assert len(ollama_stub.triage_requests) == 1  # not before the back-off
    for seconds in (60, 120):
        for _ in range(seconds // 5 + 1):
            await tick(hass, freezer, 5)
    assert len(ollama_stub.triage_requests) == 3
    issue = ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001")
    assert issue is not None
    for _ in range(5000 // 5):
        await tick(hass, freezer, 5)
    assert len(ollama_stub.triage_requests) == 3  # a person has it now


async def test_a_question_goes_before_a_due_triage_and_triage_is_not_starved(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.triage(reasoning(REFRESH))
    hass.states.async_set("vacuum.neato", "error", ERROR)
    # Questions keep coming: the incident opens while the first is answered, the second puts the
    # due triage off once, then triage has its flight though a question waits, then the question.
    for _ in range(4):
        say(hass, "alex", "overseer, how is the vacuum?")
        await tick(hass, freezer, 5)
    kinds = ["triage" if "format" in request else "chat" for request in ollama_stub.requests]
    # Each chat decision (SKIP) asks once more for its line, within the decision.
    assert kinds == ["chat", "chat", "chat", "chat", "triage", "chat", "chat"]


async def test_a_pending_approval_survives_a_reload_and_is_still_answered_once(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    entry = await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    approval_id = approvals[0].data["approval_id"]
    notifications = hass.data["persistent_notification"]
    notifications.clear()  # what a restart does to them

    assert await hass.config_entries.async_reload(entry.entry_id)
    await tick(hass, freezer, 5)
    assert f"overseer_approval_{approval_id}" in notifications
    assert hass.states.get("sensor.arena_pending_approvals").state == "1"
    await approve(hass, hass_admin_user, approval_id)
    assert len(room["homeassistant.reload_config_entry"]) == 1
    assert len(ollama_stub.triage_requests) == 1  # the incident was not triaged again


async def test_turning_the_overseer_off_mid_triage_leaves_the_incident_open(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    switched_off = []

    async def switched_off_while_the_model_thinks() -> None:
        await set_select(hass, "select.arena_overseer_mode", "off")
        switched_off.append(True)

    # Triage's own answer: the vacuum's error is also a world event, whose decision may take
    # the first free flight (which of the two timers fires first is Home Assistant's business).
    ollama_stub.triage(reasoning(REFRESH), before=switched_off_while_the_model_thinks)
    await jam_the_vacuum(hass, freezer)
    await tick(hass, freezer)
    assert switched_off == [True]
    # Off shows no incidents: read the room's book.
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    incident = loop.state.incidents["INC-0001"]
    assert incident.status.value == "open" and incident.timeline[-1].what == "interrupted"
    assert room["homeassistant.update_entity"] == []


async def test_a_restart_after_a_refresh_still_asks_a_person_though_the_refresh_started_a_cooldown(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(REFRESH, RESTART))
    await jam_the_vacuum(hass, freezer)
    assert len(room["homeassistant.update_entity"]) == 1
    assert statuses(approvals) == ["pending"]  # checked again by policy when it is answered


async def test_a_step_refused_for_a_cooldown_is_tried_again_once_it_is_over(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.bench", state="on"))
    say(hass, "alex", "overseer, bench light on")
    await tick(hass, freezer)
    assert len(room["light.turn_on"]) == 1  # the lights' group (the refresh's too) cools down 20 s
    ollama_stub.triage(reasoning(REFRESH))
    await jam_the_vacuum(hass, freezer)
    assert room["homeassistant.update_entity"] == []
    for _ in range(4):
        await tick(hass, freezer, 5)
    assert len(ollama_stub.triage_requests) == 2
    assert len(room["homeassistant.update_entity"]) == 1


async def test_a_deactivated_approver_cannot_approve_from_a_phone(
    hass, freezer, ollama_stub, room, hass_read_only_user
):
    phone = async_mock_service(hass, "notify", "mobile_app_phone")
    options = {
        **OPTIONS,
        "approvers": [hass_read_only_user.id],
        "approval_notify": ["notify.mobile_app_phone"],
    }
    await setup_overseer(hass, ollama_stub, options=options)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    approve_action = phone[0].data["data"]["actions"][0]["action"]
    await hass.auth.async_deactivate_user(hass_read_only_user)
    hass.bus.async_fire(
        "mobile_app_notification_action",
        {"action": approve_action},
        context=Context(user_id=hass_read_only_user.id),
    )
    await hass.async_block_till_done()
    assert statuses(approvals) == ["pending"]
    assert room["homeassistant.reload_config_entry"] == []


async def test_approvals_run_nothing_outside_control_mode(hass, freezer, ollama_stub, room, hass_admin_user):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    await set_select(hass, "select.arena_overseer_mode", "off")
    await approve(hass, hass_admin_user, approvals[0].data["approval_id"])
    assert statuses(approvals) == ["pending", "approved", "blocked"]
    assert approvals[-1].data["reason"] == "not_available"
    assert room["homeassistant.reload_config_entry"] == []


async def test_a_fault_fixed_by_hand_withdraws_its_approval_and_runs_nothing(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    await jam_the_vacuum(hass, freezer)
    hass.states.async_set("vacuum.neato", "docked", {"battery_level": 80})  # someone freed the brush
    await tick(hass, freezer, 5)
    assert statuses(approvals) == ["pending", "expired"] and approvals[-1].data["reason"] == "fault cleared"
    with pytest.raises(ServiceValidationError, match="already answered"):
        await approve(hass, hass_admin_user, approvals[0].data["approval_id"])
    assert room["homeassistant.reload_config_entry"] == []
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["status"] == "open"  # not a person's: the rules resolve it if it stays away
    assert ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001") is None


async def test_a_fault_that_clears_while_the_model_thinks_runs_no_step(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)

    def cleared_meanwhile() -> None:
        hass.states.async_set("vacuum.neato", "docked", {"battery_level": 80})
        freezer.tick(5)
        async_fire_time_changed(hass)  # the desk sees it cleared before the reply lands

    ollama_stub.reply(reasoning(REFRESH), before=cleared_meanwhile)
    await jam_the_vacuum(hass, freezer)
    assert room["homeassistant.update_entity"] == []


async def test_an_answer_while_triage_still_runs_its_steps_leaves_nothing_stuck(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")

    async def deny_while_refreshing(call):
        await approve(hass, hass_admin_user, approvals[0].data["approval_id"], "deny")

    hass.services.async_register("homeassistant", "update_entity", deny_while_refreshing)
    ollama_stub.triage(reasoning(RESTART, REFRESH))
    await jam_the_vacuum(hass, freezer)
    assert statuses(approvals) == ["pending", "denied"]
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["status"] == "verifying"  # the refresh ran: its result is checked
    for _ in range(VERIFY_AFTER // 5 + 1):
        await tick(hass, freezer, 5)
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["status"] == "needs_human"  # still jammed, nothing left to approve


async def test_a_needs_human_repair_comes_back_after_a_restart(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    ollama_stub.triage(reasoning())  # nothing safe to do
    await jam_the_vacuum(hass, freezer)
    issue_id = "incident_needs_human_room1_INC-0001"
    assert ir.async_get(hass).async_get_issue("overseer", issue_id) is not None
    await hass.config_entries.async_unload(entry.entry_id)
    ir.async_delete_issue(hass, "overseer", issue_id)  # what a restart does to repairs
    assert await hass.config_entries.async_setup(entry.entry_id)
    await tick(hass, freezer, 5)
    assert ir.async_get(hass).async_get_issue("overseer", issue_id) is not None


async def test_a_fault_that_keeps_coming_back_after_fixes_goes_to_a_person(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)

    async def fixed(call):
        hass.states.async_set("vacuum.neato", "docked", {"battery_level": 80})

    hass.services.async_register("homeassistant", "update_entity", fixed)
    ollama_stub.triage(reasoning(REFRESH))
    for _ in range(6):
        hass.states.async_set("vacuum.neato", "error", ERROR)
        for _ in range(12):  # fixed, verified and resolved within a minute, back two minutes later
            await tick(hass, freezer, 5)
        for _ in range(24):
            await tick(hass, freezer, 5)
    # Fixed the first time and after two relapses; the third relapse is a person's.
    assert len(ollama_stub.triage_requests) == 3
    assert ir.async_get(hass).async_get_issue("overseer", "incident_needs_human_room1_INC-0001") is not None


async def test_an_unreachable_model_backs_triage_off_without_spending_its_tries(
    hass, freezer, ollama_stub, room, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)

    async def fixed(call):
        hass.states.async_set("vacuum.neato", "docked", {"battery_level": 80})

    hass.services.async_register("homeassistant", "update_entity", fixed)
    ollama_stub.triage("", status=503)  # triage's flight finds the model down
    await jam_the_vacuum(hass, freezer)
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["timeline"][-1]["what"] == "model_unreachable" and incident["attempts"] == 0
    ollama_stub.triage(reasoning(REFRESH))  # back up
    for _ in range(VERIFY_AFTER // 5 + 3):
        await tick(hass, freezer, 5)
    [incident] = (await status(await hass_ws_client(hass)))["incidents"]
    assert incident["status"] == "resolved" and "rejected" not in [s["what"] for s in incident["timeline"]]


async def test_an_approval_whose_incident_a_crash_lost_is_not_asked_again(
    hass, hass_storage, freezer, ollama_stub, room, hass_admin_user
):
    # Approvals are written within a second, the incident book within minutes: a crash between
    # the two leaves a restart waiting for an incident nobody keeps any more.
    now = dt_util.utcnow().timestamp()
    orphan = Approval(
        "APR-0badc0de", "n" * 32, "INC-0009", "asset_restart", {"asset_id": "vacuum.neato"}, now, now + 600
    )
    hass_storage["overseer.room1"] = {
        "version": 1,
        "minor_version": 1,
        "key": "overseer.room1",
        "data": {"approvals": [approval_as_dict(orphan)], "incident_number": 10},
    }
    await setup_overseer(hass, ollama_stub)
    notifications = hass.data.get("persistent_notification", {})
    assert not any("APR-0badc0de" in key for key in notifications)  # nobody is asked
    assert hass.states.get("sensor.arena_pending_approvals").state == "0"
    with pytest.raises(ServiceValidationError):
        await approve(hass, hass_admin_user, "APR-0badc0de")
    assert room["homeassistant.reload_config_entry"] == []
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    lost = loop.state.approvals["APR-0badc0de"]
    assert (lost.status, lost.reason) == (ApprovalStatus.EXPIRED, INCIDENT_LOST)
