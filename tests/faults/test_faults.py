"""Fault injection on the model server: the loop survives, never stacks calls, backs off,
raises and clears its repair, and recovers, whatever the server does."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import pytest
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN

from ..ha.harness import OPTIONS, say, setup_overseer, tick
from ..ollama_stub import Scripted, call

ISSUE = "model_unreachable_room1"
GATE_INTERVAL = 2  # seconds, the default
MAX_BACKOFF = 300
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


async def status(hass, hass_ws_client) -> dict[str, Any]:
    """The room's status object, as the debug card reads it (a fresh connection: the clock jumps)."""
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status", "entry_id": "room1"})
    response = await client.receive_json()
    assert response["success"], response
    return response["result"]


def phase(hass) -> str:
    return hass.states.get("sensor.arena_loop_phase").state


def backoff(failures: int) -> int:
    """Seconds the loop waits after its n-th failure in a row: gate_interval * 2**n, capped."""
    return min(GATE_INTERVAL * 2**failures, MAX_BACKOFF)


@pytest.mark.parametrize(
    "kind",
    ["http_500", "http_503", "truncated_json", "malformed_json", "wrong_shape", "cut_connection", "timeout"],
)
async def test_a_faulty_server_fails_decisions_raises_a_repair_then_recovers(
    hass, hass_ws_client, freezer, ollama_stub, room, kind
):
    await setup_overseer(hass, ollama_stub)
    changes = async_capture_events(hass, "state_changed")
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.responder = lambda payload: faulty(kind, freezer)
    say(hass, "alex", "overseer, are you well?")
    repair_after_attempt = []
    for _ in range(120):
        before = len(ollama_stub.requests)
        await tick(hass, freezer, seconds=1)
        if len(ollama_stub.requests) > before:
            repair_after_attempt.append(ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is not None)
        if len(ollama_stub.requests) >= 4:
            break
    assert len(ollama_stub.requests) == 4, "the loop stopped asking"
    assert phase(hass) == "failed"
    failed = await status(hass, hass_ws_client)
    assert failed["phase"] == "failed" and failed["last_error"], failed["last_error"]
    assert failed["metrics"]["llm_failures"] == 4
    # One failure is not an outage: the repair comes with the third failure in a row, not before.
    assert repair_after_attempt == [False, False, True, True]
    # Back-off: no attempt inside it, and the next one soon after it ends (within two gate ticks).
    # A timeout also cost the 61 s the server sat on the request.
    spent = 61 if kind == "timeout" else 0
    gaps = [round(b - a) - spent for a, b in pairwise(ollama_stub.request_times)]
    for failures, gap in enumerate(gaps, start=1):
        assert backoff(failures) <= gap <= backoff(failures) + 2 * GATE_INTERVAL, (failures, gaps)

    ollama_stub.responder = None
    ollama_stub.reply("Better now.")
    for _ in range(60):
        await tick(hass, freezer, seconds=2)
        if not ollama_stub.script:
            break
    await tick(hass, freezer)
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is None
    recovered = await status(hass, hass_ws_client)
    assert recovered["last_error"] is None and recovered["model"]["health"] == "ok"
    assert len(ollama_stub.requests) == 5
    said = [e.data["text"] for e in chat if e.data.get("bot")]
    # The question was kept through the outage and answered, however late: a late reply to
    # someone who asked is still a reply (even after four 61 s timeouts).
    assert said == ["Better now."]
    assert decisions[-1].data["stale"] is False
    assert [d.data["trigger"] for d in decisions] == ["direct_address"]
    assert ollama_stub.most_in_flight == 1
    assert_valid_phase_walk(["idle", *phases(changes)])


async def test_huge_outputs_are_bounded(hass, hass_ws_client, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply(
        "blah " * 200_000, *[call("ha_set_entity", entity_id="light.bench", state="on")] * 5_000
    )
    say(hass, "alex", "overseer turn on the bench light")
    await tick(hass, freezer)
    [line] = [e.data["text"] for e in chat if e.data.get("bot")]
    # The overseer's fact of the one call that ran; the model's words, written beside 31 calls that
    # did not run, are not posted (a quip stands only beside calls that all ran).
    assert line == "Bench is on. I did not set a room light (Bench): only one action runs per decision."
    assert len(actions) == 32  # a bounded number of calls is even looked at
    assert sum(e.data["outcome"] == "executed" for e in actions) == 1
    assert len(room["light.turn_on"]) == 1
    shown = await status(hass, hass_ws_client)
    assert shown["model_output"].startswith("blah blah") and len(shown["model_output"]) <= 4000
    assert shown["tool_calls"]["attempted"] == 32
    assert phase(hass) == "posted"


async def test_a_model_that_calls_tools_in_a_loop_is_held_by_cooldowns_and_budget(
    hass, freezer, ollama_stub, room
):
    limits = {"cooldown_lift": 60, "action_budget": 3, "action_window": 300, "max_tool_calls": 1}
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, **limits})
    actions = async_capture_events(hass, "overseer_action")
    tools = ["lift_up", "neato_start", "ha_set_entity", "lift_down", "neato_locate"]
    ollama_stub.responder = lambda payload: Scripted(
        tool_calls=[
            call(t, **({"entity_id": "light.bench", "state": "on"} if t == "ha_set_entity" else {}))
            for t in tools
        ]
    )
    # Ten minutes, asked once a minute: each answer wants lift_up first (one call per decision).
    for minute in range(10):
        say(hass, "alex", f"overseer, raise the lift, {minute}")
        for _ in range(30):
            await tick(hass, freezer)
    assert len(ollama_stub.requests) >= 10
    assert ollama_stub.most_in_flight == 1
    executed = [e for e in actions if e.data["outcome"] == "executed"]
    assert {e.data["tool"] for e in executed} == {"lift_up"}
    assert len(room["cover.open_cover"]) == len(executed)
    times = [e.time_fired.timestamp() for e in executed]
    # Never faster than the lift's cooldown, never more than the budget in any window.
    assert all(b - a >= limits["cooldown_lift"] for a, b in pairwise(times)), times
    for start in times:
        in_window = [t for t in times if start <= t < start + limits["action_window"]]
        assert len(in_window) <= limits["action_budget"], times
    # And the loop is held, not stopped: the budget is spent again in the second window.
    # Asked every 60 s for 600 s, the budget (3 per 300 s) is what limits it: exactly 6.
    assert len(executed) == 2 * limits["action_budget"], times
    blocked = Counter(e.data["reason"] for e in actions if e.data["outcome"] == "blocked")
    # Each answer has a call, so no decision asks the model twice.
    assert len(ollama_stub.requests) == len(ollama_stub.decisions)
    assert blocked["rate_limit"] >= 1
    assert blocked["max_tool_calls"] == 4 * len(ollama_stub.decisions)


async def test_comments_slower_than_stale_after_are_dropped_and_counted_replies_are_not(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    # The model may take up to 120 s, but a comment older than 90 s no longer fits the room.
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "request_timeout": 120, "stale_after": 90})
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.responder = lambda payload: Scripted(content="Too late.", before=lambda: freezer.tick(95))
    for state in ("on", "off", "on"):  # a rover docking and undocking: unsolicited world events
        hass.states.async_set("binary_sensor.rover1_docked", state, {"friendly_name": "rover1 docked"})
        await hass.async_block_till_done()
        await tick(hass, freezer)
    assert [d.data["trigger"] for d in decisions] == ["world_event"] * 3
    assert [d.data.get("stale_reason") for d in decisions] == ["too_late"] * 3
    assert [e.data for e in chat if e.data.get("bot")] == []
    shown = await status(hass, hass_ws_client)
    assert shown["metrics"]["stale_rate"] == 1.0 and shown["metrics"]["llm_calls"] == 3
    assert shown["metrics"]["stale_by_reason"] == {"too_late": 3}
    # Someone who asks gets the reply, however slow the model was.
    say(hass, "alex", "overseer are you there?")
    await tick(hass, freezer)
    assert [e.data["text"] for e in chat if e.data.get("bot")] == ["Too late."]
    assert shown["phase"] in ("idle", "posted")
