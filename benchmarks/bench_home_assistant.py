"""Benchmarks inside Home Assistant, run by scripts/bench (never part of the test suite).

1. The context per decision against Home Assistant's own Assist API prompt and tool schemas
   for the same room with 50 exposed entities, built through homeassistant.helpers.llm.
2. The overseer's own overhead per decision cycle with a zero-latency model.
3. An agent's tool call through the guardrails LLM API against calling the service directly.
4. State-change ingestion throughput, against Home Assistant alone.

Prints medians and ratios; asserts nothing about time.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service
from voluptuous_openapi import convert

from custom_components.overseer.const import DOMAIN
from custom_components.overseer.core.gate import Trigger, TriggerKind
from custom_components.overseer.core.reply import ModelReply, ToolCall
from tests.ha.harness import llm_context

CYCLES = 300
CHANGES = 10_000
AGENT_CALLS = 99  # under the room's budget of 100 actions in its window


def room_states() -> dict[str, tuple[str, dict[str, Any]]]:
    """A room of 50 entities: 3 rovers of 4 entities, a lift, a vacuum, 6 lights, 30 sensors."""
    states: dict[str, tuple[str, dict[str, Any]]] = {}
    for index in (1, 2, 3):
        states[f"sensor.rover{index}_activity"] = ("driving", {"friendly_name": f"Rover {index} activity"})
        states[f"sensor.rover{index}_driver"] = ("alex", {"friendly_name": f"Rover {index} driver"})
        states[f"binary_sensor.rover{index}_docked"] = ("off", {"friendly_name": f"Rover {index} docked"})
        states[f"binary_sensor.rover{index}_charging"] = ("off", {"friendly_name": f"Rover {index} charging"})
    states["cover.lift"] = ("closed", {"friendly_name": "Lift", "supported_features": 3})
    states["vacuum.neato"] = ("docked", {"friendly_name": "Neato", "supported_features": 8212})
    for name in ("shelf", "bench", "corner", "aux1", "aux2", "window"):
        states[f"light.{name}"] = ("on", {"friendly_name": name.title(), "supported_color_modes": ["hs"]})
    for index in range(30):
        states[f"sensor.arena_{index}"] = (
            str(20 + index),
            {"friendly_name": f"Arena sensor {index}", "unit_of_measurement": "°C"},
        )
    assert len(states) == 50
    return states


def compact(value: Any) -> str:
    """JSON as the HTTP clients put it on the wire."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class InstantModel:
    """A model with no latency: answers every decision with a line and a light change."""

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.tools: list[dict[str, Any]] = []
        self.count = 0

    async def async_check(self) -> None:
        return

    async def async_decide(self, messages, tools) -> ModelReply:
        self.messages, self.tools = list(messages), list(tools)
        self.count += 1
        state = "on" if self.count % 2 else "off"
        return ModelReply(
            text=f"Line {self.count}: the bench light goes {state}.",
            tool_calls=(ToolCall("ha_set_entity", {"entity_id": "light.bench", "state": state}),),
        )


async def setup_room(hass):
    """The 50 entities, the overseer mapping them, and an instant model."""
    for entity_id, (state, attributes) in room_states().items():
        hass.states.async_set(entity_id, state, attributes)
    for domain, service in (("light", "turn_on"), ("light", "turn_off"), ("cover", "open_cover")):
        async_mock_service(hass, domain, service)
    states = room_states()
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Arena",
        data={
            "name": "Overseer",
            "room": "Arena",
            "backend": "ollama",
            "url": "http://127.0.0.1:9",
            "model": "m",
        },
        options={
            "rover_entities": [e for e in states if "rover" in e],
            "lift_cover": "cover.lift",
            "vacuum_entity": "vacuum.neato",
            "light_entities": [e for e in states if e.startswith("light.")],
            "state_entities": [e for e in states if e.startswith("sensor.arena_")],
            "cooldown_ha": 0,
            "action_budget": 100,
            "action_window": 10,
        },
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    loop = entry.runtime_data.loop
    model = InstantModel()
    # The benchmark's zero-latency model, at the provider boundary.
    loop._parts = replace(loop._parts, provider=model)
    return entry, loop, model


async def test_bench_context_against_assist(hass, socket_enabled, capsys):
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    entry, loop, model = await setup_room(hass)
    for entity_id in room_states():
        async_expose_entity(hass, "conversation", entity_id, True)
    api = await llm.async_get_api(hass, llm.LLM_API_ASSIST, llm_context("overseer_bench"))
    assist_tools = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": convert(tool.parameters, custom_serializer=api.custom_serializer),
            },
        }
        for tool in api.tools
    ]
    assist_prompt = "\n".join(
        filter(None, [getattr(llm, "BASE_PROMPT", ""), llm.DEFAULT_INSTRUCTIONS_PROMPT, api.api_prompt])
    )
    assist_chars = len(assist_prompt) + len(compact(assist_tools))

    hass.bus.async_fire("overseer_chat_message", {"user": "alex", "text": "overseer raise the lift"})
    await hass.async_block_till_done()
    await loop._async_decide(Trigger(TriggerKind.DIRECT_ADDRESS, loop.now(), "alex"))
    await hass.config_entries.async_unload(entry.entry_id)
    ours_prompt = sum(len(m["content"]) for m in model.messages)
    ours_chars = ours_prompt + len(compact(model.tools))
    with capsys.disabled():
        print(
            f"\nContext per decision, same room of 50 entities (prompt + tool schemas, ~4 chars a token):\n"
            f"  Home Assistant Assist API: {assist_chars:>7,} chars ~{assist_chars // 4:>6,} tokens "
            f"({len(assist_prompt):,} prompt + {assist_chars - len(assist_prompt):,} "
            f"for {len(assist_tools)} tools)\n"
            f"  Overseer (whole request):  {ours_chars:>7,} chars ~{ours_chars // 4:>6,} tokens "
            f"({ours_prompt:,} messages + {ours_chars - ours_prompt:,} for {len(model.tools)} tools)\n"
            f"  ratio overseer / Assist: {ours_chars / assist_chars:.2f} "
            "(accepted 0.57-0.66; must not grow for this room)"
        )


async def test_bench_overhead_per_cycle(hass, socket_enabled, capsys):
    entry, loop, model = await setup_room(hass)
    hass.bus.async_fire("overseer_chat_message", {"user": "alex", "text": "overseer raise the lift"})
    await hass.async_block_till_done()
    timings = []
    for _ in range(CYCLES):
        started = time.perf_counter()
        await loop._async_decide(Trigger(TriggerKind.MANUAL, loop.now()))
        timings.append(time.perf_counter() - started)
    await hass.config_entries.async_unload(entry.entry_id)
    timings.sort()
    with capsys.disabled():
        print(
            f"\nOverseer overhead per decision cycle, zero-latency model, 50 entities, {CYCLES} cycles "
            "(context from live state, normalise, policy re-check, a light service call, audit, events,\n"
            " entities):\n"
            f"  median {statistics.median(timings) * 1000:.2f} ms, "
            f"p90 {timings[int(0.9 * len(timings))] * 1000:.2f} ms "
            f"(target < 5 ms)"
        )


async def test_bench_guardrails_overhead_per_agent_tool_call(hass, socket_enabled, capsys):
    """An agent's light change through the guardrails API against the same service called directly."""
    entry, loop, _ = await setup_room(hass)
    api = await llm.async_get_api(hass, f"overseer-{entry.entry_id}", llm_context("overseer_bench"))
    direct, guarded, refused = [], [], []
    # Interleaved, so both sides see the same machine; under the budget (100 in its window).
    for index in range(AGENT_CALLS):
        state = "on" if index % 2 else "off"
        started = time.perf_counter()
        await hass.services.async_call("light", f"turn_{state}", {"entity_id": "light.bench"}, blocking=True)
        direct.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = await api.async_call_tool(
            llm.ToolInput(tool_name="ha_set_entity", tool_args={"entity_id": "light.bench", "state": state})
        )
        guarded.append(time.perf_counter() - started)
        assert result["outcome"] == "executed", result
    # The 100th action spends the budget and starts the lift's cooldown: what a refusal costs.
    assert (await api.async_call_tool(llm.ToolInput(tool_name="lift_up", tool_args={})))["success"]
    for _ in range(AGENT_CALLS):
        started = time.perf_counter()
        result = await api.async_call_tool(llm.ToolInput(tool_name="lift_up", tool_args={}))
        refused.append(time.perf_counter() - started)
        assert result["outcome"] == "blocked", result
    await hass.config_entries.async_unload(entry.entry_id)
    median_direct, median_guarded = statistics.median(direct) * 1000, statistics.median(guarded) * 1000
    with capsys.disabled():
        print(
            f"\nAn agent's tool call through the guardrails API ({AGENT_CALLS} light changes, "
            "interleaved with the same service called directly):\n"
            f"  direct median {median_direct:.3f} ms, through the guardrails {median_guarded:.3f} ms "
            f"(+{median_guarded - median_direct:.3f} ms: the service is a no-op here, so that is the "
            f"guardrails' own cost); a refusal {statistics.median(refused) * 1000:.3f} ms"
        )


async def test_bench_state_change_ingestion(hass, socket_enabled, capsys):
    async def burst() -> float:
        started = time.perf_counter()
        for index in range(CHANGES):
            hass.states.async_set(
                "binary_sensor.rover1_docked",
                "on" if index % 2 else "off",
                {"friendly_name": "Rover 1 docked"},
            )
        await hass.async_block_till_done()
        return time.perf_counter() - started

    for entity_id, (state, attributes) in room_states().items():
        hass.states.async_set(entity_id, state, attributes)
    alone = statistics.median([await burst() for _ in range(5)])
    entry, loop, model = await setup_room(hass)
    watched = statistics.median([await burst() for _ in range(5)])
    await hass.config_entries.async_unload(entry.entry_id)
    with capsys.disabled():
        print(
            f"\nState-change ingestion, {CHANGES:,} changes of a watched rover entity "
            "(each a world event for the gate):\n"
            f"  Home Assistant alone: {CHANGES / alone:>9,.0f} changes/s\n"
            f"  with the overseer:    {CHANGES / watched:>9,.0f} changes/s "
            "(target >= 10,000/s; the clock stops only when every change has been handled)"
        )
