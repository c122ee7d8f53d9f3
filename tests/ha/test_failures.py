"""A model that is down, slow or talking garbage: the loop fails visibly, backs off and recovers."""

from __future__ import annotations

import asyncio
from itertools import pairwise

import pytest
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN
from custom_components.overseer.core.reply import ToolCall
from custom_components.overseer.providers import CannotConnect, ModelTimeout
from custom_components.overseer.providers.ollama import OllamaProvider

from ..ollama_stub import Scripted, call
from .harness import MODEL, say, setup_overseer, status, tick

ISSUE = "model_unreachable_room1"
GATE_INTERVAL = 2  # seconds, the default
BACKOFF = GATE_INTERVAL  # the n-th failure in a row waits BACKOFF * 2**n seconds


def attempts(changes) -> list[float]:
    """When the loop called the model: each time its phase sensor went to awaiting_model."""
    return [
        e.time_fired.timestamp()
        for e in changes
        if e.data["entity_id"] == "sensor.arena_loop_phase" and e.data["new_state"].state == "awaiting_model"
    ]


def repair_raised(hass) -> bool:
    return ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is not None


async def test_model_down_backs_off_raises_a_repair_and_recovers(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    changes = async_capture_events(hass, "state_changed")
    port = ollama_stub.port
    await ollama_stub.stop()  # connection refused from now on

    say(hass, "alex", "overseer are you there?")
    await tick(hass, freezer)
    assert hass.states.get("sensor.arena_loop_phase").state == "failed"
    shown = await status(client)
    assert shown["model"]["health"] == "unreachable" and "connect" in shown["last_error"].lower()
    assert not repair_raised(hass)  # one failure is not an outage

    # Back-off doubles: 4 s, 8 s, 16 s ... no attempt is made inside it; the third failure
    # in a row raises the repair.
    raised = [False]
    for _ in range(40):
        before = len(attempts(changes))
        await tick(hass, freezer, seconds=1)
        if len(attempts(changes)) > before:
            raised.append(repair_raised(hass))
    gaps = [round(b - a) for a, b in pairwise(attempts(changes))]
    assert len(gaps) == 3, gaps  # 4 + 8 + 16 s fit in 40 s; the next would come 32 s later
    for failures, gap in enumerate(gaps, start=1):
        assert BACKOFF * 2**failures <= gap <= BACKOFF * 2**failures + 2 * GATE_INTERVAL, gaps
    assert raised == [False, False, True, True]
    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE)
    assert issue.translation_key == "model_unreachable" and issue.translation_placeholders["name"] == "Arena"
    shown = await status(client)
    assert shown["phase"] == "failed" and shown["metrics"]["llm_failures"] == 4
    assert hass.states.get("sensor.arena_model_latency").state == "unavailable"  # no model to measure

    await ollama_stub.start(port)
    ollama_stub.reply("I was never gone.")
    for _ in range(40):
        await tick(hass, freezer, seconds=2)
        if ollama_stub.requests:
            break
    # The question was kept through the outage and answered while still fresh (< stale_after).
    assert [e.data["text"] for e in chat if e.data.get("bot")] == ["I was never gone."]
    assert "alex: overseer are you there?" in [m["content"] for m in ollama_stub.requests[0]["messages"]]
    assert not repair_raised(hass)
    shown = await status(client)
    assert shown["last_error"] is None and shown["model"]["health"] == "ok"
    assert shown["phase"] == "posted"
    assert hass.states.get("sensor.arena_model_latency").state not in ("unavailable", "unknown")

    # The failures were forgotten: the next outage starts again from one failure and 4 s.
    await ollama_stub.stop()
    changes.clear()
    say(hass, "alex", "overseer still there?")
    for _ in range(6):
        await tick(hass, freezer, seconds=1)
    first, second = attempts(changes)
    assert not repair_raised(hass)
    assert BACKOFF * 2 <= round(second - first) <= BACKOFF * 2 + 2 * GATE_INTERVAL


@pytest.mark.parametrize(
    ("scripted", "detail"),
    [
        (Scripted(status=500), "BadResponse: HTTP 500"),
        (Scripted(body='{"model": "x", "message": {"role": "assist'), "BadResponse: JSONDecodeError"),
        (Scripted(body="<html>proxy error</html>"), "BadResponse: JSONDecodeError"),
        (
            Scripted(body='{"message": {"role": "assistant", "content": 7, "tool_calls": "no"}}'),
            "BadResponse: ValidationError",
        ),
    ],
    ids=["http_500", "truncated", "html", "wrong_types"],
)
async def test_garbage_from_the_server_fails_the_decision_not_the_loop(
    hass, hass_ws_client, freezer, ollama_stub, room, scripted, detail
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    ollama_stub.script.append(scripted)
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    assert hass.states.get("sensor.arena_loop_phase").state == "failed"
    shown = await status(client)
    # The server answers, but not with a model reply: an error, not an unreachable model.
    assert shown["model"]["health"] == "error" and shown["last_error"], shown
    assert shown["last_error"].startswith(detail)
    ollama_stub.reply("Fine now.")
    await tick(hass, freezer, seconds=5)
    assert hass.states.get("sensor.arena_loop_phase").state == "posted"
    shown = await status(client)
    assert shown["last_error"] is None and shown["model"]["health"] == "ok"


async def test_a_model_removed_from_the_server_is_reported_as_such(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub, data={"model": "gone:latest"})
    client = await hass_ws_client(hass)
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    shown = await status(client)
    assert shown["model"]["health"] == "model_not_found" and "gone:latest" in shown["last_error"]
    assert shown["phase"] == "failed"


async def test_hallucinated_and_looping_tool_calls_are_refused_and_audited(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", *[call("lift_up")] * 100, call("open_pod_bay_doors"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    outcomes = [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]
    assert outcomes.count(("lift_up", "executed", None)) == 1
    assert len(room["cover.open_cover"]) == 1
    assert len(outcomes) == 32  # a bounded number of calls is even looked at
    assert all(reason == "max_tool_calls" for _, outcome, reason in outcomes if outcome == "blocked")


async def test_provider_timeout_and_connection_errors_are_model_errors(hass, ollama_stub):
    provider = OllamaProvider(ollama_stub.url, MODEL, timeout=0.2)
    ollama_stub.script.append(Scripted(content="late", before=lambda: asyncio.sleep(1)))
    with pytest.raises(ModelTimeout):
        await provider.async_decide([{"role": "user", "content": "hi"}], [])
    dead = OllamaProvider("http://127.0.0.1:9", MODEL, timeout=2)
    with pytest.raises(CannotConnect):
        await dead.async_decide([{"role": "user", "content": "hi"}], [])
    await asyncio.sleep(1)  # let the stub finish the abandoned request before it stops


async def test_provider_records_token_counts(hass, ollama_stub):
    provider = OllamaProvider(ollama_stub.url, MODEL, timeout=5)
    ollama_stub.reply("hello", call("lift_up"))
    reply = await provider.async_decide([{"role": "user", "content": "hi"}], [])
    assert (reply.prompt_tokens, reply.completion_tokens) == (321, 12)
    assert reply.tool_calls == (ToolCall("lift_up", {}),)
    assert reply.raw.startswith("hello\n[")
