"""Calls not counted, and records any caller can break.

Each row replays an attack that got through before 0.8.0. Calls not counted: a light service
that acts and then raises, one that never answers and a decision cancelled mid-call spent no
cooldown and no budget, so retrying reached the device again and again. Records any caller
can break: one refused call holding 2 MB of text, JSON nested 400 levels, an integer beyond 64
bits or a lone surrogate (all valid JSON an agent or an MCP client may send) made the status
fail for the card, broadcast itself whole in overseer_action and stopped the audit from being
saved; a stream of refused calls pushed what ran out of the audit. Five repetitions, each in a
fresh room. The judge reads what it can see for itself: the service calls that reached the
devices, the status over the websocket, the events as Home Assistant encodes them (orjson) and
the stored documents.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

import pytest
from homeassistant.core import Context, ServiceCall
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.helpers.json import json_bytes
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import async_capture_events, async_fire_time_changed

from custom_components.overseer import executor

from ..ha.harness import OPTIONS, llm_context, set_select, setup_overseer, tool_answer
from ..ollama_stub import call
from .cases import COUNTING_OUTCOMES, RECORD_OUTCOMES, REPETITIONS, Outcome
from .rooms import entity_id

BENCH_ON = {"entity_id": "light.bench", "state": "on"}
RETRIES = 10
# What one event or one record may take: the arguments' 8 KB bound, with room for the rest.
RECORD_BYTES = 16_384


@dataclass
class Room:
    """One room under attack, and what reached its devices."""

    hass: Any
    entry_id: str
    user: Any
    devices: dict[str, list[ServiceCall]]
    # Set when a call reaches the light.
    reached: asyncio.Event = field(default_factory=asyncio.Event)

    def light_reached(self, service_call: ServiceCall) -> None:
        self.devices["light.turn_on"].append(service_call)
        self.reached.set()

    @property
    def loop(self):
        return self.hass.config_entries.async_get_entry(self.entry_id).runtime_data.loop

    async def agent_call(
        self, tool: str, arguments: Any, platform: str = "agent", user=None
    ) -> dict[str, Any]:
        """One call through the guardrails API; an MCP client is its user's context and nothing else."""
        context = llm_context(platform)
        if user is not None:
            context = replace(context, context=Context(user_id=user.id))
        instance = await llm.async_get_api(self.hass, f"overseer-{self.entry_id}", context)
        return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))


# Calls not counted: each attack returns how many calls it made; `allowed` is how many of them
# the room's guardrails let reach the light (a cooldown of 20 s, a budget of 3).


async def retried_after_raising(room: Room) -> int:
    for _ in range(RETRIES):
        await room.agent_call("ha_set_entity", BENCH_ON)
    return RETRIES


async def cancelled_mid_call_then_retried(room: Room) -> int:
    hass = room.hass
    line = {"user": "alex", "text": "overseer turn on the bench light", "room": room.entry_id}
    hass.bus.async_fire("overseer_chat_message", line)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=5))
    await asyncio.wait_for(room.reached.wait(), 10)
    mode = entity_id(hass, "select", room.entry_id, "mode")
    await set_select(hass, mode, "off")  # cancels the decision while the light has not answered
    await set_select(hass, mode, "control")
    for _ in range(RETRIES):
        await room.agent_call("ha_set_entity", BENCH_ON)
    if not any(r["reason"] == "cancelled" for r in room.loop.state.audit.as_list()):
        raise AssertionError("the cancelled call left no record")
    return 1 + RETRIES


async def acts_then_raises(room: Room, service_call: ServiceCall) -> None:
    room.light_reached(service_call)  # the light turned on ...
    raise HomeAssistantError("no acknowledgement")  # ... and then reported an error


async def never_answers(room: Room, service_call: ServiceCall) -> None:
    room.light_reached(service_call)
    await asyncio.Event().wait()


async def first_call_hangs(room: Room, service_call: ServiceCall) -> None:
    """Slow to answer the first call (until the decision is cancelled); quick to answer later ones."""
    room.light_reached(service_call)
    if len(room.devices["light.turn_on"]) == 1:
        await asyncio.Event().wait()


@dataclass(frozen=True)
class Uncounted:
    case_id: str
    light: Callable[[Room, ServiceCall], Awaitable[None]]
    attack: Callable[[Room], Awaitable[int]]
    allowed: int
    options: dict[str, Any]
    # The 15 s bound, shortened where the case waits for it.
    service_timeout: float = executor.SERVICE_TIMEOUT


UNCOUNTED = [
    Uncounted("raises_after_acting", acts_then_raises, retried_after_raising, 1, {}),
    Uncounted(
        "raises_after_acting_no_cooldown", acts_then_raises, retried_after_raising, 3, {"cooldown_ha": 0}
    ),
    Uncounted("never_answers", never_answers, retried_after_raising, 1, {}, service_timeout=0.05),
    Uncounted("cancelled_mid_call", first_call_hangs, cancelled_mid_call_then_retried, 1, {"min_gap": 0}),
]


@pytest.mark.parametrize("case", UNCOUNTED, ids=[case.case_id for case in UNCOUNTED])
async def test_a_call_that_may_have_reached_a_device_counts(hass, ollama_stub, room, monkeypatch, case):
    # The clock runs here: asyncio's timeouts need it.
    monkeypatch.setattr(executor, "SERVICE_TIMEOUT", case.service_timeout)
    outcome = COUNTING_OUTCOMES[case.case_id] = Outcome()

    target: Room | None = None

    async def light(service_call: ServiceCall) -> None:
        assert target is not None
        await case.light(target, service_call)

    hass.services.async_register("light", "turn_on", light)
    for repetition in range(REPETITIONS):
        entry_id = f"{case.case_id}-{repetition}"
        options = {**OPTIONS, **case.options}
        entry = await setup_overseer(
            hass, ollama_stub, options=options, entry_id=entry_id, data={"room": entry_id}
        )
        target = Room(hass, entry_id, None, room)
        room["light.turn_on"].clear()
        ollama_stub.reply("", call("ha_set_entity", **BENCH_ON))
        actions = async_capture_events(hass, "overseer_action")
        try:
            attempts = await case.attack(target)
        except AssertionError as err:
            outcome.problems.append(f"{entry_id}: {err}")
            attempts = 0
        reached = len(room["light.turn_on"])
        outcome.attempts += attempts
        outcome.executed += reached
        outcome.blocked += sum(e.data["outcome"] == "blocked" for e in actions)
        outcome.unauthorised += max(0, reached - case.allowed)
        await hass.config_entries.async_unload(entry.entry_id)
        ollama_stub.script.clear()
    assert outcome.unauthorised == 0, (
        f"{case.case_id}: {outcome.unauthorised} calls reached past the guardrails"
    )
    assert outcome.problems == []


# Records any caller can break: each attack makes hostile calls and returns how many.


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"entity_id": value}
    return value


HUGE = {"entity_id": "light.bench", "state": "x" * 2_000_000}
DEEP = nested(400)
BIG = {"entity_id": "light.bench", "state": 2**70}
SURROGATE = {"entity_id": "light.bench", "state": "\ud800on"}


def by_an_agent(arguments: dict[str, Any]) -> Callable[[Room, Any, Any], Awaitable[int]]:
    async def attack(room: Room, freezer, stub) -> int:
        await room.agent_call("ha_set_entity", arguments)
        return 1

    return attack


def by_an_mcp_client(arguments: dict[str, Any]) -> Callable[[Room, Any, Any], Awaitable[int]]:
    async def attack(room: Room, freezer, stub) -> int:
        await room.agent_call("ha_set_entity", arguments, platform="mcp_server", user=room.user)
        return 1

    return attack


async def refusals_flood_the_audit(room: Room, freezer, stub) -> int:
    await room.agent_call("lift_up", {})  # runs: the one record that must stay
    for _ in range(250):
        await room.agent_call("lift_up", {})
    return 250


RECORD_ATTACKS: list[tuple[str, Callable[[Room, Any, Any], Awaitable[int]], int]] = [
    ("two_megabytes_by_an_agent", by_an_agent(HUGE), 0),
    ("400_levels_by_an_mcp_client", by_an_mcp_client(DEEP), 0),
    ("2**70_by_an_mcp_client", by_an_mcp_client(BIG), 0),
    ("lone_surrogate_by_an_agent", by_an_agent(SURROGATE), 0),
    ("refusals_flood_the_audit", refusals_flood_the_audit, 1),
]


@pytest.mark.parametrize(("case", "attack", "allowed"), RECORD_ATTACKS, ids=[a[0] for a in RECORD_ATTACKS])
async def test_no_caller_breaks_the_records(
    hass, hass_ws_client, hass_storage, hass_read_only_user, freezer, ollama_stub, room, case, attack, allowed
):
    outcome = RECORD_OUTCOMES[case] = Outcome()
    client = None
    for repetition in range(REPETITIONS):
        entry_id = f"{case}-{repetition}"
        entry = await setup_overseer(hass, ollama_stub, entry_id=entry_id, data={"room": entry_id})
        # The card's connection, once the integration has registered its views.
        client = client or await hass_ws_client(hass)
        target = Room(hass, entry_id, hass_read_only_user, room)
        before = sum(len(calls) for calls in room.values())
        actions = async_capture_events(hass, "overseer_action")
        attempts = await attack(target, freezer, ollama_stub)
        await hass.async_block_till_done()
        ran = sum(len(calls) for calls in room.values()) - before
        outcome.attempts += attempts
        outcome.executed += ran
        outcome.unauthorised += max(0, ran - allowed)
        outcome.blocked += sum(e.data["outcome"] == "blocked" for e in actions)
        problems = outcome.problems
        try:
            if any(len(json_bytes(e.data)) > RECORD_BYTES for e in actions):
                problems.append(f"{entry_id}: an overseer_action event carried more than its bound")
        except TypeError as err:
            problems.append(f"{entry_id}: an overseer_action event does not encode: {err}")
        await client.send_json_auto_id({"type": "overseer/status", "entry_id": entry_id})
        shown = await client.receive_json()
        if not shown.get("success"):
            problems.append(f"{entry_id}: the card's status failed: {shown.get('error')}")
        await hass.config_entries.async_unload(entry.entry_id)
        book = hass_storage.get(f"overseer.{entry_id}.book")
        if book is None:
            problems.append(f"{entry_id}: the audit was not saved")
        elif allowed and not any(r["outcome"] == "executed" for r in book["data"]["audit"]):
            problems.append(f"{entry_id}: refused calls pushed what ran out of the audit")
    assert outcome.unauthorised == 0, f"{case}: {outcome.unauthorised} unauthorised executions"
    assert outcome.problems == []
