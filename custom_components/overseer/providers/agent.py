"""Home Assistant conversation-agent backend: a JSON decision asked for in plain text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from ..compat import async_converse, conversation_agent_exists
from ..core.reply import ModelReply
from . import BadResponse, CannotConnect
from .wire import json_decision_reply

JSON_INSTRUCTIONS = (
    "Answer with one JSON object and nothing else: "
    '{"chat": "<one short line, or empty to stay silent>", '
    '"tool_calls": [{"name": "<an available tool>", "arguments": {}}]}. '
    "Use only tools listed under available_tools. "
    'To SKIP, answer {"chat": "", "tool_calls": []}. '
    "Never use any other tool or control API yourself."
)


def render_text(
    messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]], instructions: str
) -> tuple[str, str]:
    """(system prompt, user text): the same messages, flattened for a text-only agent."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    body = "\n".join(_as_text(m) for m in messages if m["role"] != "system")
    if not tools:
        return f"{system}\n\n{instructions}", body
    schemas = json.dumps([tool["function"] for tool in tools], separators=(",", ":"))
    return f"{system}\n\n{instructions}\nTool schemas: {schemas}", body


def _as_text(message: Mapping[str, Any]) -> str:
    """Return one message as the agent reads it: a tool turn's calls and results as JSON lines."""
    if message.get("tool_calls"):
        calls = [call["function"] for call in message["tool_calls"]]
        return "your tool_calls: " + json.dumps(calls, ensure_ascii=False)
    if message["role"] == "tool":
        return f"tool result: {message['content']}"
    return str(message["content"])


class AgentProvider:
    """Asks an HA conversation agent; whatever it says goes through the same normaliser."""

    def __init__(self, hass: HomeAssistant, agent_id: str) -> None:
        """Remember which agent to ask."""
        self._hass = hass
        self._agent_id = agent_id

    async def async_check(self) -> None:
        """Check that the agent is loaded."""
        if not conversation_agent_exists(self._hass, self._agent_id):
            raise CannotConnect(
                f"conversation agent {self._agent_id} is not loaded",
                "model_agent_not_loaded",
                agent=self._agent_id,
            )

    async def async_decide(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        must_call: Sequence[str] = (),
    ) -> ModelReply:
        """One fresh conversation per decision, so nothing accumulates in the agent.

        An agent answers in words: must_call cannot be held.
        """
        system, text = render_text(messages, tools, JSON_INSTRUCTIONS)
        speech = await self._async_ask(text, system)
        return json_decision_reply(speech)

    async def async_reason(self, messages: Sequence[dict[str, Any]], schema: dict[str, Any]) -> str:
        """Ask the agent, which has no structured output: the schema goes into its instructions as text."""
        instructions = (
            "Never call a tool or control anything yourself: you only propose. "
            f"Answer with one JSON object only, following this JSON schema: {json.dumps(schema)}"
        )
        system, text = render_text(messages, (), instructions)
        return await self._async_ask(text, system)

    async def _async_ask(self, text: str, system: str) -> str:
        """One fresh conversation, so nothing accumulates in the agent; its spoken answer."""
        try:
            result = await async_converse(
                self._hass, text=text, agent_id=self._agent_id, extra_system_prompt=system
            )
        except (HomeAssistantError, ValueError) as err:
            raise CannotConnect(str(err)) from err
        response = result.response
        speech = str(response.speech.get("plain", {}).get("speech", ""))
        if getattr(response.response_type, "value", "") == "error":
            raise BadResponse(speech)
        return speech
