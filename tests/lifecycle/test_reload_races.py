"""Reloads that race calls in flight: nothing that ran is lost, and a stopped room never writes.

Each case reloads the room for real while a call from one caller (another agent through the
guardrails API, an approver's answer, the overseer's own decision) is inside a service that has
not returned yet, or has the old room act or write after it stopped. A call that outlasts the
reload (a slow lift) goes on: what it came to is recorded once, in the room that loaded meanwhile,
and its caller hears the same. What ran starts its cooldown in the room that loads next; what the
new room was told (a lockdown) is what the next start reads; an approval says what ran, also
when its call was cancelled half-way.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from homeassistant.core import Context, HomeAssistant, ServiceCall
from homeassistant.exceptions import ServiceValidationError
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from custom_components.overseer.executor import SERVICE_TIMEOUT

from ..ha.harness import OPTIONS, say, set_select, setup_overseer, tick
from ..ha.test_llm_api import room_api, use
from ..ollama_stub import call

GUARDED = {**OPTIONS, "approval_tools": ["lift_up"]}
# How long, in real time, a reload gets to finish when nothing holds it back.
SETTLE_SECONDS = 0.3
# A lift that takes this long to arrive: longer than a reload waits for a call in flight (5 s),
# well inside the call's own bound (SERVICE_TIMEOUT).
LIFT_TRAVEL = 10


class HeldService:
    """A room service that acts at once and returns only when the test lets it."""

    def __init__(self, hass: HomeAssistant, domain: str, service: str) -> None:
        self.calls: list[ServiceCall] = []
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        hass.services.async_register(domain, service, self._handle)

    async def _handle(self, call: ServiceCall) -> None:
        self.calls.append(call)
        self.entered.set()
        await self.release.wait()


async def reload_while_held(hass: HomeAssistant, entry_id: str, held: HeldService) -> asyncio.Task[bool]:
    """Start a reload while held's call is in flight; give it time to finish if nothing stops it."""
    await held.entered.wait()
    reload = hass.async_create_task(hass.config_entries.async_reload(entry_id))
    # Real time: the reload reads prompts in the executor's threads.
    await hass.async_add_executor_job(time.sleep, SETTLE_SECONDS)
    return reload


async def ended(hass: HomeAssistant, task: asyncio.Task[bool]) -> bool:
    """Whether the task ends within a few seconds of real time (a reload reads files in threads)."""
    for _ in range(50):
        if task.done():
            return True
        await hass.async_add_executor_job(time.sleep, 0.1)
    return task.done()


async def ends_while_held(hass: HomeAssistant, freezer: Any, unloading: asyncio.Task[bool]) -> None:
    """The held call goes on (the lift still travels) while the reload or unload ends."""
    freezer.tick(LIFT_TRAVEL)
    assert await ended(hass, unloading), "the room waited for the call in flight to end"
    assert unloading.result()


def room_of(hass: HomeAssistant, entry_id: str = "room1") -> Any:
    return hass.config_entries.async_get_entry(entry_id).runtime_data


def audited(hass: HomeAssistant) -> list[tuple[str, str, str | None]]:
    """What the loaded room's audit holds, newest first."""
    return [(r.tool, r.outcome.value, r.reason) for r in room_of(hass).loop.state.audit.latest(20)]


async def test_an_agents_call_in_flight_during_a_reload_starts_its_cooldown_in_the_new_room(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    lift = HeldService(hass, "cover", "open_cover")
    instance = await room_api(hass)
    agent_call = hass.async_create_task(use(hass, instance, "lift_up"))

    reload = await reload_while_held(hass, entry.entry_id, lift)
    assert not reload.done(), "the unload did not wait for the call in flight"
    lift.release.set()
    assert await reload
    assert (await agent_call)["outcome"] == "executed"

    # The lift moved a moment ago: the new room's lift cooldown runs, for every lift tool.
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused.get("error")) == ("blocked", "cooldown")
    assert room["cover.close_cover"] == []
    assert [record.tool for record in room_of(hass).loop.state.audit.latest(2)] == [
        "lift_down",
        "lift_up",
    ]


async def test_a_late_write_from_the_old_room_never_overwrites_a_lockdown_set_after_the_reload(
    hass, hass_storage, freezer, ollama_stub, room, caplog
):
    entry = await setup_overseer(hass, ollama_stub)
    old = room_of(hass)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await set_select(hass, "select.arena_site_mode", "lockdown")
    await tick(hass, freezer)  # the new room has written its lockdown down
    assert hass_storage["overseer.room1"]["data"]["site_mode"] == "lockdown"

    # The old room, still held by someone (an agent's tool, an approval), acts after it stopped.
    record = await old.loop.executor.async_execute(
        "late",
        "ha_set_entity",
        {"entity_id": "light.bench", "state": "on"},
        frozenset({"ha_set_entity"}),
        False,
    )
    await tick(hass, freezer)  # its delayed write would land now
    hass.bus.async_fire("homeassistant_final_write")  # and what is still booked, at a stop
    await hass.async_block_till_done()

    assert hass_storage["overseer.room1"]["data"]["site_mode"] == "lockdown"
    assert "Dropped a write to overseer.room1 from a room that has stopped" in caplog.text
    # Nor does the stopped room act: the call is refused as one to a room that is reloading.
    assert (record.outcome.value, record.reason) == ("blocked", "not_available")
    assert room["light.turn_on"] == []
    # The next start (a reload, and a restart from what is stored) is still locked down.
    assert await hass.config_entries.async_reload(entry.entry_id)
    assert hass.states.get("select.arena_site_mode").state == "lockdown"
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert hass.states.get("select.arena_site_mode").state == "lockdown"
    refused = await use(hass, await room_api(hass), "lift_up")
    assert refused["error"] == "policy_lock:site_mode_lockdown"


async def test_an_approval_that_runs_across_a_reload_is_executed_and_its_cooldown_holds(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    entry = await setup_overseer(hass, ollama_stub, options=GUARDED)
    approvals = async_capture_events(hass, "overseer_approval")
    asked = await use(hass, await room_api(hass), "lift_up")
    approval_id = asked["approval_id"]
    lift = HeldService(hass, "cover", "open_cover")
    answer = hass.async_create_task(
        hass.services.async_call(
            "overseer",
            "approve",
            {"approval_id": approval_id},
            blocking=True,
            context=Context(user_id=hass_admin_user.id),
        )
    )

    reload = await reload_while_held(hass, entry.entry_id, lift)
    assert not reload.done(), "the unload did not wait for the approved call"
    lift.release.set()
    assert await reload
    await answer

    assert len(lift.calls) == 1
    new_room = room_of(hass)
    assert new_room.approvals.pending() == []
    approval = new_room.loop.state.approvals[approval_id]
    assert (approval.status.value, approval.reason) == ("executed", "")
    assert [e.data["status"] for e in approvals] == ["pending", "approved", "executed"]
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused.get("error")) == ("blocked", "cooldown")
    assert room["cover.close_cover"] == []


async def test_an_agents_call_that_outlasts_the_reload_is_executed_once_in_the_reloaded_room(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    lift = HeldService(hass, "cover", "open_cover")
    agent_call = hass.async_create_task(use(hass, await room_api(hass), "lift_up"))

    reload = await reload_while_held(hass, entry.entry_id, lift)
    await ends_while_held(hass, freezer, reload)
    assert not agent_call.done()
    lift.release.set()  # the lift arrives: the call returns, in its own time

    assert await agent_call == {"success": True, "tool": "lift_up", "outcome": "executed"}
    assert audited(hass) == [("lift_up", "executed", None)]
    assert [(e.data["tool"], e.data["outcome"]) for e in actions] == [("lift_up", "executed")]
    # The reloaded room holds it to the lift's cooldown and counts it in the budget.
    instance = await room_api(hass)
    refused = await use(hass, instance, "lift_down")
    assert (refused["outcome"], refused["error"]) == ("blocked", "cooldown")
    assert "actions: 1/3 used in 300s" in (await use(hass, instance, "room_state"))["state"]
    assert room["cover.close_cover"] == []
    # And writes it down: the next start reads it once.
    assert await hass.config_entries.async_reload(entry.entry_id)
    assert audited(hass) == [("lift_down", "blocked", "cooldown"), ("lift_up", "executed", None)]


async def test_an_approved_call_that_outlasts_the_reload_is_executed_in_the_reloaded_room(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    entry = await setup_overseer(hass, ollama_stub, options=GUARDED)
    approvals = async_capture_events(hass, "overseer_approval")
    approval_id = (await use(hass, await room_api(hass), "lift_up"))["approval_id"]
    lift = HeldService(hass, "cover", "open_cover")
    answer = hass.async_create_task(
        hass.services.async_call(
            "overseer",
            "approve",
            {"approval_id": approval_id},
            blocking=True,
            context=Context(user_id=hass_admin_user.id),
        )
    )

    reload = await reload_while_held(hass, entry.entry_id, lift)
    await ends_while_held(hass, freezer, reload)
    # The lift still travels: the reloaded room shows the call approved and running, not blocked.
    running = room_of(hass).loop.state.approvals[approval_id]
    assert (running.status.value, running.reason) == ("approved", "")
    lift.release.set()
    await answer

    approval = room_of(hass).loop.state.approvals[approval_id]
    assert (approval.status.value, approval.reason) == ("executed", "")
    assert [e.data["status"] for e in approvals] == ["pending", "approved", "executed"]
    assert audited(hass)[0] == ("lift_up", "executed", None)
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused.get("error")) == ("blocked", "cooldown")
    assert len(lift.calls) == 1 and room["cover.close_cover"] == []


async def test_the_overseers_own_call_is_not_cut_short_by_a_reload(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    lift = HeldService(hass, "cover", "open_cover")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer, raise the lift")
    freezer.tick(2)
    async_fire_time_changed(hass)

    # The reload cancels the decision; the lift it sent keeps going, and arrives.
    reload = await reload_while_held(hass, entry.entry_id, lift)
    await ends_while_held(hass, freezer, reload)
    lift.release.set()
    await hass.async_block_till_done()

    assert audited(hass) == [("lift_up", "executed", None)]
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused["error"]) == ("blocked", "cooldown")


async def test_a_call_that_never_returns_holds_the_reload_a_few_seconds_and_times_out_on_its_own(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    lift = HeldService(hass, "cover", "open_cover")
    agent_call = hass.async_create_task(use(hass, await room_api(hass), "lift_up"))

    reload = await reload_while_held(hass, entry.entry_id, lift)
    await ends_while_held(hass, freezer, reload)
    freezer.tick(SERVICE_TIMEOUT - LIFT_TRAVEL + 1)  # the call's own bound: no answer, audited
    assert await agent_call == {"success": False, "tool": "lift_up", "outcome": "failed", "error": "timeout"}
    assert audited(hass) == [("lift_up", "failed", "timeout")]
    refused = await use(hass, await room_api(hass), "lift_down")  # it may have moved: it counts
    assert (refused["outcome"], refused["error"]) == ("blocked", "cooldown")
    lift.release.set()


async def test_a_call_that_ends_while_no_room_is_loaded_is_kept_for_the_next_one(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    lift = HeldService(hass, "cover", "open_cover")
    agent_call = hass.async_create_task(use(hass, await room_api(hass), "lift_up"))
    await lift.entered.wait()

    await ends_while_held(
        hass, freezer, hass.async_create_task(hass.config_entries.async_unload(entry.entry_id))
    )
    lift.release.set()
    assert (await agent_call)["outcome"] == "executed"

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert audited(hass) == [("lift_up", "executed", None)]
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused["error"]) == ("blocked", "cooldown")


async def test_a_call_that_reaches_the_room_while_it_stops_is_refused_as_reloading(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    lift = HeldService(hass, "cover", "open_cover")
    instance = await room_api(hass)
    first = hass.async_create_task(use(hass, instance, "lift_up"))
    await lift.entered.wait()
    # Queued behind the first (one call at a time) when the unload begins.
    second = hass.async_create_task(use(hass, instance, "ha_set_entity", entity_id="light.bench", state="on"))

    reload = await reload_while_held(hass, entry.entry_id, lift)
    lift.release.set()
    assert await reload
    assert (await first)["outcome"] == "executed"
    refused = await second
    assert (refused["outcome"], refused["error"]) == ("blocked", "not_available")
    assert "starting again" in refused["note"]
    assert room["light.turn_on"] == []


async def test_an_approved_call_cancelled_mid_call_is_not_said_to_be_blocked(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub, options=GUARDED)
    approval_id = (await use(hass, await room_api(hass), "lift_up"))["approval_id"]
    lift = HeldService(hass, "cover", "open_cover")
    desk = room_of(hass).approvals
    answer = hass.async_create_task(desk.async_answer(approval_id, True, Context(user_id=hass_admin_user.id)))
    await lift.entered.wait()

    answer.cancel()  # the approver's connection closed, or Home Assistant stopped, mid-call
    with pytest.raises(asyncio.CancelledError):
        await answer

    # The command went out: the lift may have moved, so it is not "blocked", and it counts.
    approval = room_of(hass).loop.state.approvals[approval_id]
    assert (approval.status.value, approval.reason) == ("executed", "cancelled")
    refused = await use(hass, await room_api(hass), "lift_down")
    assert (refused["outcome"], refused.get("error")) == ("blocked", "cooldown")
    lift.release.set()


async def test_an_answer_that_reaches_a_stopped_room_leaves_the_approval_to_the_next(
    hass, freezer, ollama_stub, room, hass_admin_user
):
    entry = await setup_overseer(hass, ollama_stub, options=GUARDED)
    approval_id = (await use(hass, await room_api(hass), "lift_up"))["approval_id"]
    old = room_of(hass)
    assert await hass.config_entries.async_reload(entry.entry_id)
    admin = Context(user_id=hass_admin_user.id)

    # An answer that began before the reload (a notification button) reaches the old room.
    with pytest.raises(ServiceValidationError, match="not loaded"):
        await old.approvals.async_answer(approval_id, True, admin)
    assert room["cover.open_cover"] == []

    # Nobody's yes was spent on a room that was going away: the next room asks, and runs it once.
    assert [a.approval_id for a in room_of(hass).approvals.pending()] == [approval_id]
    await hass.services.async_call(
        "overseer", "approve", {"approval_id": approval_id}, blocking=True, context=admin
    )
    assert len(room["cover.open_cover"]) == 1
