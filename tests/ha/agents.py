"""A scripted LLM conversation agent, set up the way a real agent integration is."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Literal

import pytest
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry, ConfigFlow
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_config_flow,
    mock_integration,
    mock_platform,
)

AGENT_DOMAIN = "scripted_llm"
AGENT_ID = "conversation.scripted_llm"
SUBENTRY_ID = "agent_subentry"


class AgentFlow(ConfigFlow):
    """The agent integration's (unused) config flow; entries are added directly."""

    VERSION = 1


class ScriptedAgent(conversation.ConversationEntity):
    """Answers each conversation with the next scripted reply and records what it was asked."""

    _attr_has_entity_name = True
    _attr_name = None

    def __init__(self, entry: ConfigEntry, entity_id: str = AGENT_ID) -> None:
        self._attr_unique_id = f"{entry.entry_id}_{entity_id}"
        self.entity_id = entity_id
        self.replies: deque[str] = deque()
        self.inputs: list[conversation.ConversationInput] = []
        # Seconds it takes to answer (a bot that is slow, or never answers in time).
        self.delay = 0.0
        # What the bot does in the house before it answers, under the context it was asked in
        # (as an LLM agent's tools run); each deed's outcome: "done" or the exception's name.
        self.deeds: list[Callable[[conversation.ConversationInput], Awaitable[Any]]] = []
        self.outcomes: list[str] = []

    @property
    def supported_languages(self) -> Literal["*"]:
        return "*"

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        self.inputs.append(user_input)
        for deed in self.deeds:
            try:
                await deed(user_input)
            except Exception as err:  # a refusal is what the tests look for
                self.outcomes.append(type(err).__name__)
            else:
                self.outcomes.append("done")
        if self.delay:
            await asyncio.sleep(self.delay)
        response = intent.IntentResponse(language=user_input.language)
        response.async_set_speech(self.replies.popleft() if self.replies else '{"chat": ""}')
        return conversation.ConversationResult(response=response, conversation_id=user_input.conversation_id)


@pytest.fixture
def agent_flow() -> Iterator[None]:
    """Register the agent integration's config flow for one test."""
    with mock_config_flow(AGENT_DOMAIN, AgentFlow):
        yield


async def async_setup_agent(
    hass: HomeAssistant, options: dict[str, Any] | None = None, subentry: dict[str, Any] | None = None
) -> ScriptedAgent:
    """Load conversation and an agent integration whose entry carries the given options.

    With subentry, the agent lives in a config subentry with that data, as agents do since
    Home Assistant 2025.7. Tests that call this use the agent_flow fixture.
    """
    return (await _async_setup(hass, options, subentry, (AGENT_ID,)))[0]


async def _async_setup(
    hass: HomeAssistant,
    options: dict[str, Any] | None,
    subentry: dict[str, Any] | None,
    entity_ids: tuple[str, ...],
) -> list[ScriptedAgent]:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    agents: list[ScriptedAgent] = []

    async def setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
        await hass.config_entries.async_forward_entry_setups(entry, ["conversation"])
        return True

    async def setup_platform(hass: HomeAssistant, entry: ConfigEntry, add: AddEntitiesCallback) -> None:
        agents.extend(ScriptedAgent(entry, entity_id) for entity_id in entity_ids)
        if subentry is None:
            add(agents)
        else:
            add(agents, config_subentry_id=SUBENTRY_ID)

    mock_integration(hass, MockModule(AGENT_DOMAIN, async_setup_entry=setup_entry))
    mock_platform(hass, f"{AGENT_DOMAIN}.conversation", MockPlatform(async_setup_entry=setup_platform))
    mock_platform(hass, f"{AGENT_DOMAIN}.config_flow", None)
    subentries = [
        {
            "data": subentry,
            "subentry_id": SUBENTRY_ID,
            "subentry_type": "conversation",
            "title": "Agent",
            "unique_id": None,
        }
    ]
    entry = MockConfigEntry(
        domain=AGENT_DOMAIN, options=options or {}, subentries_data=subentries if subentry else None
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return agents


async def async_setup_agents(hass: HomeAssistant, *entity_ids: str) -> dict[str, ScriptedAgent]:
    """Several scripted agents in one agent integration's entry, by entity id."""
    return {agent.entity_id: agent for agent in await _async_setup(hass, None, None, entity_ids)}
