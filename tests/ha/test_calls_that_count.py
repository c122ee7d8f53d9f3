"""Every call that may have reached a device counts: failed, timed out or cancelled mid-call.

A service that raises after it was called (a light that turns on, then reports an error), one
that never answers, and a decision cancelled while it waits all spend the group's cooldown
and the action budget, and each is audited as failed with the contract's reason.
"""

from __future__ import annotations

import asyncio
from itertools import pairwise

from homeassistant.core import ServiceCall
from homeassistant.exceptions import HomeAssistantError
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from custom_components.overseer import executor

from ..contract import FAILURES
from ..ollama_stub import call
from .harness import ready_in, say, set_select, setup_overseer
from .test_llm_api import room_api, use

BENCH_ON = {"entity_id": "light.bench", "state": "on"}
COOLDOWN_HA = 20  # seconds, the default
BUDGET = 3  # actions in 300 s, the default


def outcomes(events) -> list[tuple[str, str, str | None]]:
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


async def test_a_light_that_acts_then_raises_is_reached_once_a_cooldown_and_within_the_budget(
    hass, freezer, ollama_stub, room
):
    reached: list[float] = []

    async def acts_then_raises(service_call: ServiceCall) -> None:
        reached.append(executor_now(hass))  # the light turned on ...
        raise HomeAssistantError("bench light: no acknowledgement")  # ... and then said it failed

    hass.services.async_register("light", "turn_on", acts_then_raises)
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    instance = await room_api(hass)

    # An agent retries every 4 s for two minutes: six cooldowns' worth.
    answers = []
    for _ in range(30):
        answers.append(await use(hass, instance, "ha_set_entity", **BENCH_ON))
        freezer.tick(4)

    assert len(reached) == BUDGET, reached
    assert all(later - earlier >= COOLDOWN_HA for earlier, later in pairwise(reached))
    seen = outcomes(actions)
    assert seen.count(("ha_set_entity", "failed", "error")) == BUDGET
    assert {reason for _, outcome, reason in seen if outcome == "failed"} <= FAILURES
    assert {reason for _, outcome, reason in seen if outcome == "blocked"} == {"cooldown", "rate_limit"}
    # The agent reads what happened: failed, with the contract's reason, never executed.
    assert answers[0] == {"success": False, "tool": "ha_set_entity", "outcome": "failed", "error": "error"}


async def test_a_call_that_never_answers_times_out_as_failed_and_starts_the_cooldown(
    hass, ollama_stub, room, monkeypatch
):
    # No frozen clock here: asyncio's timeouts run on the loop's clock, which freezing stops.
    monkeypatch.setattr(executor, "SERVICE_TIMEOUT", 0.05)  # the 15 s bound, shortened for the test
    reached: list[dict] = []

    async def hangs(service_call: ServiceCall) -> None:
        reached.append(dict(service_call.data))
        await asyncio.Event().wait()

    hass.services.async_register("light", "turn_on", hangs)
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    instance = await room_api(hass)

    timed_out = await use(hass, instance, "ha_set_entity", **BENCH_ON)
    again = await use(hass, instance, "ha_set_entity", **BENCH_ON)

    assert timed_out["outcome"] == "failed" and timed_out["error"] == "timeout"
    # The clock runs in this test: a second may have passed since the call.
    assert again["error"] == "cooldown" and COOLDOWN_HA - 1 <= again["retry_in_s"] <= COOLDOWN_HA
    assert len(reached) == 1
    assert outcomes(actions) == [
        ("ha_set_entity", "failed", "timeout"),
        ("ha_set_entity", "blocked", "cooldown"),
    ]
    await hass.async_block_till_done()
    assert COOLDOWN_HA - 1 <= ready_in(hass, "sensor.arena_lights_cooldown") <= COOLDOWN_HA


async def test_a_decision_cancelled_mid_call_is_audited_with_what_was_sent_and_counts(
    hass, freezer, ollama_stub, room
):
    called = asyncio.Event()

    async def slow_light(service_call: ServiceCall) -> None:
        called.set()
        await asyncio.Event().wait()

    hass.services.async_register("light", "turn_on", slow_light)
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("ha_set_entity", **BENCH_ON))
    say(hass, "alex", "overseer bench light on")
    freezer.tick(2)
    async_fire_time_changed(hass)
    await asyncio.wait_for(called.wait(), 10)

    # Someone turns the overseer off while the light has not answered: the decision is cancelled.
    await set_select(hass, "select.arena_overseer_mode", "off")
    await hass.async_block_till_done()

    [cancelled] = [e.data for e in actions]
    assert cancelled == {
        "decision_id": cancelled["decision_id"],
        "tool": "ha_set_entity",
        "arguments": BENCH_ON,
        "outcome": "failed",
        "reason": "cancelled",
    }
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    assert [r["reason"] for r in loop.state.audit.as_list()] == ["cancelled"]
    assert ready_in(hass, "sensor.arena_lights_cooldown") == COOLDOWN_HA


def executor_now(hass) -> float:
    """The room's clock, as the executor reads it."""
    return hass.config_entries.async_get_entry("room1").runtime_data.loop.now()
