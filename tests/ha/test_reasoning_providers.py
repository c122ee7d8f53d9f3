"""A triage question through each backend: JSON held to the ReasoningResponse schema, no tools."""

from __future__ import annotations

import json

import pytest
from homeassistant.setup import async_setup_component

from custom_components.overseer.core.reasoning import RESPONSE_SCHEMA, parse_response
from custom_components.overseer.providers import BadResponse
from custom_components.overseer.providers.agent import AgentProvider
from custom_components.overseer.providers.ollama import OllamaProvider
from custom_components.overseer.providers.openai import OpenAIProvider

from .agents import AGENT_ID, async_setup_agent
from .harness import MODEL

MESSAGES = [
    {"role": "system", "content": "You are the fault triage step."},
    {"role": "user", "content": json.dumps({"asset_id": "vacuum.neato", "asset_kind": "vacuum"})},
]
ANSWER = json.dumps(
    {
        "hypotheses": [{"fault": "brush_jammed", "confidence": 0.6, "reasoning": "error says brush"}],
        "tool_intents": [{"name": "asset_refresh", "arguments": {"asset_id": "vacuum.neato"}}],
        "recommended_action": "Clear the brush",
        "confidence": 0.6,
        "safety_class": "reversible",
    }
)


async def test_ollama_holds_the_answer_to_the_schema_with_format(hass, ollama_stub):
    ollama_stub.reply(ANSWER)
    text = await OllamaProvider(ollama_stub.url, MODEL, timeout=5).async_reason(MESSAGES, RESPONSE_SCHEMA)
    assert parse_response(text).recommended_action == "Clear the brush"
    [request] = ollama_stub.requests
    assert request["format"] == RESPONSE_SCHEMA
    assert "tools" not in request or not request["tools"]


async def test_an_openai_compatible_server_gets_the_schema_as_response_format(hass, ollama_stub):
    ollama_stub.reply(ANSWER)
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    assert parse_response(await provider.async_reason(MESSAGES, RESPONSE_SCHEMA)).confidence == 0.6
    [request] = ollama_stub.requests
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reasoning_response", "schema": RESPONSE_SCHEMA},
    }
    assert "tools" not in request


async def test_a_conversation_agent_is_told_the_schema_in_plain_text(hass, agent_flow):
    agent = await async_setup_agent(hass)
    assert await async_setup_component(hass, "conversation", {})
    agent.replies.append(ANSWER)
    text = await AgentProvider(hass, AGENT_ID).async_reason(MESSAGES, RESPONSE_SCHEMA)
    assert parse_response(text).safety_class.value == "reversible"
    [asked] = agent.inputs
    assert json.dumps(RESPONSE_SCHEMA) in asked.extra_system_prompt
    assert asked.text == MESSAGES[1]["content"]


async def test_a_failing_server_is_a_typed_error_for_triage_too(hass, ollama_stub):
    ollama_stub.reply(status=500)
    with pytest.raises(BadResponse):
        await OllamaProvider(ollama_stub.url, MODEL, timeout=5).async_reason(MESSAGES, RESPONSE_SCHEMA)


# How llama-cpp-python's server refuses OpenAI's json_schema spelling.
VALIDATION_ERROR = json.dumps(
    {
        "error": {
            "message": "1 validation error: response_format.type: Input should be 'text' or 'json_object'"
        }
    }
)


async def test_a_server_that_refuses_openai_spelling_is_asked_in_llama_cpp_python_spelling(hass, ollama_stub):
    ollama_stub.reply(status=500, body=VALIDATION_ERROR)
    ollama_stub.reply(ANSWER)
    ollama_stub.reply(ANSWER)
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    for _ in range(2):
        assert parse_response(await provider.async_reason(MESSAGES, RESPONSE_SCHEMA)).confidence == 0.6
    formats = [request["response_format"] for request in ollama_stub.requests]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1]["schema"] == RESPONSE_SCHEMA


async def test_a_server_that_refuses_both_spellings_is_a_typed_error_after_two_requests(hass, ollama_stub):
    ollama_stub.reply(status=500, body=VALIDATION_ERROR)
    ollama_stub.reply(status=500, body=VALIDATION_ERROR)
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    with pytest.raises(BadResponse):
        await provider.async_reason(MESSAGES, RESPONSE_SCHEMA)
    assert len(ollama_stub.requests) == 2


async def test_a_busy_server_is_not_asked_in_another_spelling(hass, ollama_stub):
    ollama_stub.reply(status=503)
    ollama_stub.reply(ANSWER)
    provider = OpenAIProvider(hass, f"{ollama_stub.url}/v1", MODEL, "", timeout=5)
    with pytest.raises(BadResponse):
        await provider.async_reason(MESSAGES, RESPONSE_SCHEMA)
    assert parse_response(await provider.async_reason(MESSAGES, RESPONSE_SCHEMA)).confidence == 0.6
    assert [r["response_format"]["type"] for r in ollama_stub.requests] == ["json_schema", "json_schema"]
