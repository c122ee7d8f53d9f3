"""The OpenAI-compatible backend: config flow, decisions and failures, against a real server."""

from __future__ import annotations

import json

import pytest
from homeassistant import config_entries
from homeassistant.data_entry_flow import FlowResultType
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN
from custom_components.overseer.diagnostics import async_get_config_entry_diagnostics
from custom_components.overseer.providers import BadResponse, CannotConnect, InvalidAuth, ModelNotFound
from custom_components.overseer.providers.openai import OpenAIProvider

from ..ollama_stub import Scripted, call
from .harness import MODEL, say, setup_overseer, tick


async def test_flow_tests_the_server_and_the_key_before_saving(hass, ollama_stub):
    ollama_stub.api_key = "sk-local"
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "room": "Arena", "backend": "openai"}
    )
    assert result["step_id"] == "openai"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"url": "http://127.0.0.1:9/v1"}
    )
    assert result["errors"] == {"base": "cannot_connect"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"url": f"{ollama_stub.url}/api"}
    )
    assert result["errors"] == {"base": "cannot_connect"}  # not an OpenAI-compatible base URL
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"url": f"{ollama_stub.url}/v1", "api_key": "wrong"}
    )
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"url": f"{ollama_stub.url}/v1/", "api_key": " sk-local "}
    )
    assert result["step_id"] == "model"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": "gpt-9"})
    assert result["errors"] == {"model": "model_not_found"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        "name": "Overseer",
        "room": "Arena",
        "backend": "openai",
        "url": f"{ollama_stub.url}/v1",
        "api_key": "sk-local",
        "model": MODEL,
    }


async def test_reconfigure_from_openai_to_ollama_drops_the_key(hass, ollama_stub, room):
    entry = await setup_overseer(
        hass, ollama_stub, data={"backend": "openai", "url": f"{ollama_stub.url}/v1", "api_key": "k"}
    )
    ollama_stub.api_key = "k"
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "backend": "ollama"}
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["reason"] == "reconfigure_successful"
    assert "api_key" not in entry.data and entry.data["backend"] == "ollama"
    await hass.async_block_till_done()


async def test_decisions_use_the_same_tools_normaliser_and_metrics(hass, freezer, ollama_stub, room):
    ollama_stub.api_key = "sk-local"
    entry = await setup_overseer(
        hass, ollama_stub, data={"backend": "openai", "url": f"{ollama_stub.url}/v1", "api_key": "sk-local"}
    )
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    decided = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply(
        "Lights for the brave.", call("ha_set_entity", entity_id="light.bench", state="gold"), call("lift_up")
    )
    say(hass, "alex", "overseer, turn on the bench light, raise the lift")
    await tick(hass, freezer)
    request = ollama_stub.requests[0]
    assert {tool["function"]["name"] for tool in request["tools"]} == {
        "chat_say",
        "lift_up",
        "lift_down",
        "neato_start",
        "neato_send_home",
        "neato_locate",
        "ha_set_entity",
        "memory_read",
        "memory_write",
    }
    assert request["tool_choice"] == "auto" and request["max_tokens"] == 256
    assert [m["role"] for m in request["messages"]][:2] == ["system", "user"]
    assert [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in actions] == [
        ("lift_up", "blocked", "max_tool_calls"),
        ("ha_set_entity", "executed", None),
    ]
    assert room["light.turn_on"][0].data == {"entity_id": "light.bench", "color_name": "gold"}
    # The overseer states what ran; the model's words, written beside a call that did not run, are not posted.
    [line] = [e.data for e in chat if e.data.get("bot")]
    assert line["text"] == "Bench is on (gold). I did not raise the lift: only one action runs per decision."
    assert line["facts"] == [
        {
            "entity_id": "light.bench",
            "state": "on",
            "colour": "gold",
            "deed": "colour:gold",
            "outcome": "executed",
        },
        {
            "entity_id": "cover.lift",
            "state": "closed",
            "deed": "open",
            "outcome": "blocked",
            "reason": "max_tool_calls",
        },
    ]
    decision = entry.runtime_data.loop.last
    assert (decision.reply.prompt_tokens, decision.reply.completion_tokens) == (321, 12)
    assert decision.reply.cached_tokens == 300
    # One request: the decision's calls came with it, and the line is the overseer's.
    spent = {"requests": 1, "prompt_tokens": 321, "cached_tokens": 300, "new_tokens": 21}
    assert decision.spent.as_dict() == {**spent, "completion_tokens": 12, "unreported": 0}
    assert {key: decided[0].data[key] for key in spent} == spent
    assert decision.latency is not None
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    assert "sk-local" not in repr(diagnostics)


@pytest.mark.parametrize(
    ("scripted", "error"),
    [
        (Scripted(status=500), BadResponse),
        (Scripted(status=401), InvalidAuth),
        (Scripted(status=429), BadResponse),
        (Scripted(body='{"choices": []}'), BadResponse),
        (Scripted(body='{"id": "x", "choices": [{"message": '), BadResponse),
    ],
)
async def test_server_failures_are_model_errors(hass, ollama_stub, scripted, error):
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    ollama_stub.script.append(scripted)
    with pytest.raises(error):
        await provider.async_decide([{"role": "user", "content": "hi"}], [])


async def test_wrong_key_missing_model_and_dead_server(hass, ollama_stub):
    ollama_stub.api_key = "right"
    with pytest.raises(InvalidAuth):
        await OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "wrong", 5).async_decide(
            [{"role": "user", "content": "hi"}], []
        )
    with pytest.raises(ModelNotFound):
        await OpenAIProvider(hass, f"{ollama_stub.url}/v1", "nope", "right", 5).async_check()
    with pytest.raises(CannotConnect):
        await OpenAIProvider(hass, "http://127.0.0.1:9/v1", MODEL, "", 5).async_decide(
            [{"role": "user", "content": "hi"}], []
        )


async def test_asked_again_for_the_call_its_answer_must_be_a_call(hass, freezer, ollama_stub, room):
    # The bundled model, asked again in words, promised again or wrote on to the token limit; held
    # to a call of one of its tools, it calls the lift or says its why through chat_say.
    await setup_overseer(hass, ollama_stub, data={"backend": "openai", "url": f"{ollama_stub.url}/v1"})
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed(json.dumps({"name": "lift_up", "arguments": {}}))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert len(room["cover.open_cover"]) == 1
    first, again = ollama_stub.requests
    assert "call lift_up()" in again["messages"][-1]["content"]
    assert first["tool_choice"] == "auto" and "response_format" not in first
    assert again["tool_choice"] == "required"
    # The asked call or a line: no other tool (memory_write needs no asking) stands in for it.
    schema = again["response_format"]["json_schema"]["schema"]
    assert sorted(call["properties"]["name"]["const"] for call in schema["anyOf"]) == ["chat_say", "lift_up"]
    assert again["tools"] == first["tools"]  # the same prompt: the server's cache serves it


async def test_a_server_that_refuses_a_request_held_to_a_call_is_asked_as_usual_from_then_on(
    hass, ollama_stub
):
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    refusal = '{"error": "Cannot use custom grammar constraints with tools."}'
    ollama_stub.script.append(Scripted(body=refusal, status=400))
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.reply("", call("lift_up"))
    tools = [{"type": "function", "function": {"name": "lift_up", "parameters": {"type": "object"}}}]
    for _ in range(2):
        reply = await provider.async_decide(
            [{"role": "user", "content": "up"}], tools, must_call=("lift_up",)
        )
        assert [tool_call.name for tool_call in reply.tool_calls] == ["lift_up"]
    refused, *asked = ollama_stub.requests
    assert refused["tool_choice"] == "required" and "response_format" in refused
    assert [(request["tool_choice"], "response_format" in request) for request in asked] == [
        ("auto", False)
    ] * 2
    # A busy server is no reason to ask differently for good.
    ollama_stub.script.append(Scripted(status=503))
    with pytest.raises(BadResponse):
        await OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5).async_decide(
            [{"role": "user", "content": "up"}], tools, must_call=("lift_up",)
        )


async def test_asked_for_the_line_its_answer_must_be_a_line(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, data={"backend": "openai", "url": f"{ollama_stub.url}/v1"})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed(json.dumps({"name": "chat_say", "arguments": {"text": "The bold side. Always."}}))
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    assert [event.data["text"] for event in chat if event.data.get("bot")] == ["The bold side. Always."]
    first, owed = ollama_stub.requests
    assert owed["tool_choice"] == "required"
    schema = owed["response_format"]["json_schema"]["schema"]
    assert [call["properties"]["name"]["const"] for call in schema["anyOf"]] == ["chat_say"]
    assert owed["tools"] == first["tools"]
