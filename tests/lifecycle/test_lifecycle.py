"""Restart, reload, unload and re-add, also in the middle of a decision: nothing the overseer
remembered is lost, and nothing lingers (the harness fails a test that leaves tasks or timers)."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from ..ha.harness import say, setup_overseer, status, tick
from ..ollama_stub import call


def kept(shown: dict[str, Any]) -> dict[str, Any]:
    """What the overseer remembers: memory, audit and cooldowns."""
    return {
        "memory": shown["memory"],
        "audit": [(a["tool"], a["outcome"], a["reason"], a["ts"]) for a in shown["recent_actions"]],
        "cooldown_until": {group: c["until"] for group, c in shown["cooldowns"].items()},
    }


async def remembered(hass, hass_ws_client, freezer, stub):
    """Give the overseer a memory, an audit record and a running lift cooldown."""
    entry = await setup_overseer(hass, stub)
    # After the setup: the debug card's static path cannot be added once the server runs.
    client = await hass_ws_client(hass)
    stub.reply("Up.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    await hass.services.async_call(
        "overseer", "memory_write", {"slot": 3, "text": "alex lifts"}, blocking=True
    )
    before = kept(await status(client))
    assert before["memory"] == ["", "", "alex lifts"]
    assert [a[:2] for a in before["audit"]] == [("lift_up", "executed")]
    assert before["cooldown_until"]["lift"] is not None
    return entry, client, before


async def start_held_decision(hass, freezer, stub, text="overseer lower the lift"):
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


def assert_lift_cooling(hass, shown: dict[str, Any]) -> None:
    """The lift's cooldown is still running, in the status and on its sensor."""
    lift = shown["cooldowns"]["lift"]
    until = dt_util.parse_datetime(lift["until"])
    assert lift["remaining"] > 0 and until > dt_util.utcnow(), lift
    # The sensor holds when the lift is ready again: a time in the future, not unknown or unavailable.
    state = hass.states.get("sensor.arena_lift_cooldown").state
    ready_at = dt_util.parse_datetime(state)
    assert ready_at is not None, f"the lift cooldown sensor reads {state!r}"
    assert ready_at > dt_util.utcnow() and abs((ready_at - until).total_seconds()) < 1


@pytest.mark.parametrize("action", ["reload", "unload_and_readd"])
async def test_mid_cycle_reload_or_unload_loses_nothing_and_leaves_nothing(
    hass, hass_ws_client, freezer, ollama_stub, room, action
):
    entry, client, before = await remembered(hass, hass_ws_client, freezer, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    release = await start_held_decision(hass, freezer, ollama_stub)
    assert hass.states.get("sensor.arena_loop_phase").state == "awaiting_model"
    if action == "reload":
        assert await hass.config_entries.async_reload(entry.entry_id)
    else:
        assert await hass.config_entries.async_unload(entry.entry_id)
        assert await hass.config_entries.async_setup(entry.entry_id)
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    assert actions == []  # the cancelled decision did nothing half-way
    assert len(room["cover.close_cover"]) == 0
    after = await status(client)
    assert kept(after) == before
    assert_lift_cooling(hass, after)  # the running cooldown survived
    assert after["phase"] == "idle" and after["running"] is True
    assert hass.states.get("sensor.arena_loop_phase").state == "idle"


async def test_a_restart_mid_cycle_keeps_what_was_stored(
    hass, hass_ws_client, hass_storage, freezer, ollama_stub, room
):
    entry, client, before = await remembered(hass, hass_ws_client, freezer, ollama_stub)
    release = await start_held_decision(hass, freezer, ollama_stub)
    # Home Assistant stopping unloads nothing but flushes the stores: the final write.
    hass.bus.async_fire("homeassistant_final_write")
    await hass.async_block_till_done()
    # Both documents: what guards the room, and the book (written at once, not a minute later).
    documents = ("overseer.room1", "overseer.room1.book")
    stored = {key: copy.deepcopy(hass_storage[key]["data"]) for key in documents}
    release.set()
    await hass.async_block_till_done(wait_background_tasks=True)
    # A fresh start from what the final write stored (a new loop) has all of it.
    assert await hass.config_entries.async_unload(entry.entry_id)
    for key in documents:
        hass_storage[key]["data"] = stored[key]
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    after = await status(client)
    assert kept(after) == before
    assert_lift_cooling(hass, after)  # the running cooldown survived the restart


async def test_reload_many_times_leaves_one_timer_and_one_listener(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    for _ in range(5):
        assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    say(hass, "alex", "overseer, how many of you are there?")
    await tick(hass, freezer)
    assert len(ollama_stub.decisions) == 1  # one loop listening, one gate ticking
