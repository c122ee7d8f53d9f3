"""Restart, reload, unload and re-add, also in the middle of a decision: nothing the overseer
remembered is lost, and nothing lingers (the harness fails a test that leaves tasks or timers)."""

from __future__ import annotations

import asyncio

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from ..ha.harness import say, setup_overseer, tick
from ..ollama_stub import call


async def remembered(hass, freezer, stub):
    """Give the overseer a memory, an audit record and a running lift cooldown."""
    entry = await setup_overseer(hass, stub)
    stub.reply("Up.", call("lift_up"))
    say(hass, "alex", "overseer lift")
    await tick(hass, freezer)
    await hass.services.async_call(
        "overseer", "memory_write", {"slot": 3, "text": "alex lifts"}, blocking=True
    )
    coordinator = entry.runtime_data.coordinator
    return entry, {
        "memory": coordinator.state.memory.slots,
        "audit": coordinator.state.audit.as_list(),
        "cooldown_until": dict(coordinator.state.ledger.cooldown_until),
    }


def current(entry):
    coordinator = entry.runtime_data.coordinator
    return {
        "memory": coordinator.state.memory.slots,
        "audit": coordinator.state.audit.as_list(),
        "cooldown_until": dict(coordinator.state.ledger.cooldown_until),
    }


async def start_held_decision(hass, freezer, stub, text="overseer lower it"):
    """A decision that is waiting for the model when the test acts."""
    entered, release = asyncio.Event(), asyncio.Event()

    async def hold():
        entered.set()
        await release.wait()

    stub.reply("Down.", call("lift_down"), before=hold)
    say(hass, "alex", text)
    freezer.tick(2)
    async_fire_time_changed(hass)
    await entered.wait()
    return release


@pytest.mark.parametrize("action", ["reload", "unload_and_readd"])
async def test_mid_cycle_reload_or_unload_loses_nothing_and_leaves_nothing(
    hass, freezer, ollama_stub, room, action
):
    entry, before = await remembered(hass, freezer, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    release = await start_held_decision(hass, freezer, ollama_stub)
    assert entry.runtime_data.coordinator.phase.value == "awaiting_model"
    if action == "reload":
        assert await hass.config_entries.async_reload(entry.entry_id)
    else:
        assert await hass.config_entries.async_unload(entry.entry_id)
        assert await hass.config_entries.async_setup(entry.entry_id)
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    assert actions == []  # the cancelled decision did nothing half-way
    assert current(entry) == before
    assert hass.states.get("sensor.arena_lift_cooldown").state != "0"
    assert entry.runtime_data.coordinator.phase.value == "idle"


async def test_a_restart_mid_cycle_keeps_what_was_stored(hass, hass_storage, freezer, ollama_stub, room):
    entry, before = await remembered(hass, freezer, ollama_stub)
    release = await start_held_decision(hass, freezer, ollama_stub)
    # Home Assistant stopping unloads nothing but flushes the stores: the final write.
    hass.bus.async_fire("homeassistant_final_write")
    await hass.async_block_till_done()
    stored = hass_storage["overseer.room1"]["data"]
    assert stored["memory"] == list(before["memory"])
    assert [r["tool"] for r in stored["audit"]] == [r["tool"] for r in before["audit"]]
    assert stored["ledger"]["cooldown_until"] == before["cooldown_until"]
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    # A fresh start from that storage (a new coordinator) has all of it.
    assert await hass.config_entries.async_unload(entry.entry_id)
    hass_storage["overseer.room1"]["data"] = stored
    assert await hass.config_entries.async_setup(entry.entry_id)
    assert current(entry)["memory"] == before["memory"]
    assert current(entry)["cooldown_until"] == before["cooldown_until"]


async def test_reload_many_times_leaves_one_timer_and_one_listener(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    for _ in range(5):
        assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    say(hass, "alex", "overseer, how many of you are there?")
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1  # one coordinator listening, one gate ticking
