"""Fault injection on the model server: the loop survives, never stacks calls, backs off,
raises and clears its repair, and recovers, whatever the server does."""

from __future__ import annotations

from itertools import pairwise

import pytest
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN

from ..ha.conftest import OPTIONS, say, setup_overseer, tick
from ..ollama_stub import Scripted, call

ISSUE = "model_unreachable_room1"
# The loop's phase machine: where each phase may go next.
NEXT = {
    "idle": {"gate_check"},
    "gate_check": {"awaiting_model"},
    "awaiting_model": {"tool_exec", "failed"},
    "tool_exec": {"posted", "idle"},
    "posted": {"idle", "gate_check"},
    "failed": {"gate_check", "idle"},
}


def faulty(kind: str, freezer) -> Scripted:
    """One faulty answer."""
    if kind == "timeout":
        # The clock jumps past the request timeout while the server sits on the request.
        return Scripted(content="late", before=lambda: freezer.tick(61))
    return {
        "http_500": Scripted(status=500),
        "http_503": Scripted(status=503),
        "truncated_json": Scripted(body='{"model": "x", "message": {"role": "assistant", "content": "Hal'),
        "malformed_json": Scripted(body="{'single': 'quotes'} <html>"),
        "wrong_shape": Scripted(body='{"message": "not an object", "done": "maybe"}'),
        "cut_connection": Scripted(cut_connection=True),
    }[kind]


def phases(events) -> list[str]:
    return [e.data["new_state"].state for e in events if e.data["entity_id"] == "sensor.arena_loop_phase"]


def assert_valid_phase_walk(walk: list[str]) -> None:
    for before, after in pairwise(walk):
        assert after in NEXT[before], f"{before} -> {after} in {walk}"


@pytest.mark.parametrize(
    "kind",
    ["http_500", "http_503", "truncated_json", "malformed_json", "wrong_shape", "cut_connection", "timeout"],
)
async def test_a_faulty_server_fails_decisions_raises_a_repair_then_recovers(
    hass, freezer, ollama_stub, room, kind
):
    await setup_overseer(hass, ollama_stub)
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    changes = async_capture_events(hass, "state_changed")
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.responder = lambda payload: faulty(kind, freezer)
    say(hass, "alex", "overseer, are you well?")
    request_times = []
    for _ in range(120):
        before = len(ollama_stub.requests)
        await tick(hass, freezer, seconds=1)
        if len(ollama_stub.requests) > before:
            request_times.append(coordinator.now())
        if len(request_times) >= 4:
            break
    assert coordinator.phase.value == "failed"
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is not None
    gaps = [round(b - a) for a, b in pairwise(request_times)]
    assert gaps == sorted(gaps) and gaps[-1] > gaps[0], f"back-off should grow: {gaps}"

    ollama_stub.responder = None
    ollama_stub.reply("Better now.")
    for _ in range(60):
        await tick(hass, freezer, seconds=2)
        if not ollama_stub.script:
            break
    await tick(hass, freezer)
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is None
    assert coordinator.last_error is None
    said = [e.data["text"] for e in chat if e.data.get("bot")]
    if kind == "timeout":
        assert said == []  # each timeout cost 61 s: the kept question is stale by now, so not answered late
        assert decisions[-1].data["stale"] is True
    else:
        assert said == ["Better now."]  # the question was kept through the outage
    assert decisions[-1].data["trigger"] == "direct_address"
    assert ollama_stub.most_in_flight == 1
    assert_valid_phase_walk(["idle", *phases(changes)])


async def test_huge_outputs_are_bounded(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply(
        "blah " * 200_000, *[call("ha_set_entity", entity_id="light.bench", state="on")] * 5_000
    )
    say(hass, "alex", "overseer talk a lot")
    await tick(hass, freezer)
    [line] = [e.data["text"] for e in chat if e.data.get("bot")]
    assert len(line) <= 280
    assert len(actions) == 32  # a bounded number of calls is even looked at
    assert sum(e.data["outcome"] == "executed" for e in actions) == 1
    assert len(coordinator.last.reply.raw) <= 4000
    assert coordinator.phase.value == "posted"


async def test_a_model_that_calls_tools_in_a_loop_is_held_by_cooldowns_and_budget(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    tools = ["lift_up", "neato_start", "ha_set_entity", "lift_down", "neato_locate"]
    ollama_stub.responder = lambda payload: Scripted(
        tool_calls=[
            call(t, **({"entity_id": "light.bench", "state": "on"} if t == "ha_set_entity" else {}))
            for t in tools
        ]
    )
    for minute in range(10):
        say(hass, "alex", f"overseer again {minute}")
        for _ in range(30):
            await tick(hass, freezer)
    executed = [e.data["tool"] for e in actions if e.data["outcome"] == "executed"]
    assert len(ollama_stub.requests) >= 10
    # Budget: 3 per 300 s; ten minutes of asking buys at most two windows' worth.
    assert len(executed) <= 6, executed
    assert ollama_stub.most_in_flight == 1


async def test_answers_slower_than_stale_after_are_dropped_and_counted(hass, freezer, ollama_stub, room):
    # The model may take up to 120 s, but an answer older than 90 s no longer fits the room.
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "request_timeout": 120, "stale_after": 90})
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.responder = lambda payload: Scripted(content="Too late.", before=lambda: freezer.tick(95))
    for i in range(3):
        say(hass, "alex", f"overseer {i}?")
        await tick(hass, freezer)
    assert [e.data for e in chat if e.data.get("bot")] == []
    assert coordinator.metrics.snapshot(coordinator.now())["stale_rate"] == 1.0
    assert coordinator.phase.value in ("idle", "posted")
