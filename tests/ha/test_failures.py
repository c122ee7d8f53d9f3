"""A model that is down, slow or talking garbage: the loop fails visibly, backs off and recovers."""

from __future__ import annotations

import asyncio

import pytest
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN
from custom_components.overseer.providers import ModelError
from custom_components.overseer.providers.ollama import OllamaProvider

from ..ollama_stub import Scripted, call
from .harness import MODEL, say, setup_overseer, tick

ISSUE = "model_unreachable_room1"


async def test_model_down_backs_off_raises_a_repair_and_recovers(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    chat = async_capture_events(hass, "overseer_chat_message")
    port = ollama_stub.port
    await ollama_stub.stop()  # connection refused from now on

    say(hass, "alex", "overseer are you there?")
    await tick(hass, freezer)
    assert hass.states.get("sensor.arena_loop_phase").state == "failed"
    assert coordinator.last_error.startswith("cannot_connect")
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is None  # one failure is not an outage

    # Back-off doubles: 4 s, 8 s, 16 s ... no attempt is made inside it.
    failures_seen = []
    for _ in range(40):
        await tick(hass, freezer, seconds=1)
        failures_seen.append(coordinator._failures)
    assert failures_seen.count(1) >= 3 and max(failures_seen) >= 3
    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE)
    assert issue is not None and issue.translation_key == "model_unreachable"
    assert issue.translation_placeholders["name"] == "Arena"

    await ollama_stub.start(port)
    ollama_stub.reply("I was never gone.")
    for _ in range(40):
        await tick(hass, freezer, seconds=2)
        if ollama_stub.requests:
            break
    # The question was kept through the outage and answered while still fresh (< stale_after).
    assert [e.data["text"] for e in chat if e.data.get("bot")] == ["I was never gone."]
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE) is None
    assert coordinator.last_error is None and coordinator._failures == 0
    assert "alex: overseer are you there?" in [m["content"] for m in ollama_stub.requests[0]["messages"]]


@pytest.mark.parametrize(
    ("scripted", "kind"),
    [
        (Scripted(status=500), "bad_response"),
        (Scripted(body='{"model": "x", "message": {"role": "assist'), "bad_response"),
        (Scripted(body="<html>proxy error</html>"), "bad_response"),
        (
            Scripted(body='{"message": {"role": "assistant", "content": 7, "tool_calls": "no"}}'),
            "bad_response",
        ),
    ],
)
async def test_garbage_from_the_server_fails_the_decision_not_the_loop(
    hass, freezer, ollama_stub, room, scripted, kind
):
    await setup_overseer(hass, ollama_stub)
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    ollama_stub.script.append(scripted)
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    assert hass.states.get("sensor.arena_loop_phase").state == "failed"
    assert coordinator.last_error.startswith(kind)
    ollama_stub.reply("Fine now.")
    await tick(hass, freezer, seconds=5)
    assert hass.states.get("sensor.arena_loop_phase").state == "posted"


async def test_a_model_removed_from_the_server_is_reported_as_such(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, data={"model": "gone:latest"})
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.coordinator
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    assert coordinator.last_error.startswith("model_not_found")


async def test_hallucinated_and_looping_tool_calls_are_refused_and_audited(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", *[call("lift_up")] * 100, call("open_pod_bay_doors"))
    say(hass, "alex", "overseer loop")
    await tick(hass, freezer)
    outcomes = [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]
    assert outcomes.count(("lift_up", "executed", None)) == 1
    assert len(room["cover.open_cover"]) == 1
    assert len(outcomes) == 32  # a bounded number of calls is even looked at
    assert all(reason == "max_tool_calls" for _, outcome, reason in outcomes if outcome == "blocked")


async def test_provider_timeout_and_connection_errors_are_model_errors(hass, ollama_stub):
    provider = OllamaProvider(ollama_stub.url, MODEL, timeout=0.2)
    ollama_stub.script.append(Scripted(content="late", before=lambda: asyncio.sleep(1)))
    with pytest.raises(ModelError) as err:
        await provider.async_decide([{"role": "user", "content": "hi"}], [])
    assert err.value.kind == "timeout"
    dead = OllamaProvider("http://127.0.0.1:9", MODEL, timeout=2)
    with pytest.raises(ModelError) as err:
        await dead.async_decide([{"role": "user", "content": "hi"}], [])
    assert err.value.kind == "cannot_connect"
    await asyncio.sleep(1)  # let the stub finish the abandoned request before it stops


async def test_provider_records_token_counts(hass, ollama_stub):
    provider = OllamaProvider(ollama_stub.url, MODEL, timeout=5)
    ollama_stub.reply("hello", call("lift_up"))
    reply = await provider.async_decide([{"role": "user", "content": "hi"}], [])
    assert (reply.prompt_tokens, reply.completion_tokens) == (321, 12)
    assert reply.tool_calls == [{"name": "lift_up", "arguments": {}}]
    assert reply.raw.startswith("hello\n[")
