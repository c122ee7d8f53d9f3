"""Each shim of the compatibility layer, run on every Home Assistant leg."""

from __future__ import annotations

from awesomeversion import AwesomeVersion
from homeassistant.const import __version__ as HA_VERSION
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.overseer.compat import (
    agent_llm_apis,
    async_converse,
    conversation_agent_exists,
    conversation_busy_errors,
    tool_annotations,
    tool_result,
)

from .agents import AGENT_ID, async_setup_agent
from .harness import TOOL_RESULTS


async def test_async_converse_asks_in_a_fresh_conversation_with_keywords_only(hass, agent_flow):
    agent = await async_setup_agent(hass)
    agent.replies.append('{"chat": "hi"}')
    result = await async_converse(hass, text="hello", agent_id=AGENT_ID, extra_system_prompt="be brief")
    assert result.response.speech["plain"]["speech"] == '{"chat": "hi"}'
    [asked] = agent.inputs
    assert (asked.text, asked.extra_system_prompt, asked.conversation_id) == ("hello", "be brief", None)
    assert asked.language == hass.config.language


async def test_conversation_agent_exists(hass, agent_flow):
    assert not conversation_agent_exists(hass, AGENT_ID)  # conversation not even loaded
    await async_setup_agent(hass)
    assert conversation_agent_exists(hass, AGENT_ID)
    assert not conversation_agent_exists(hass, "conversation.nobody")


async def test_agent_llm_apis_reads_options_subentries_and_lists(hass, agent_flow):
    await async_setup_agent(hass, {"llm_hass_api": "assist"})
    assert agent_llm_apis(hass, AGENT_ID) == ["assist"], HA_VERSION
    assert agent_llm_apis(hass, "conversation.nobody") == []


async def test_agent_llm_apis_in_a_subentry(hass, agent_flow):
    await async_setup_agent(hass, subentry={"llm_hass_api": ["assist", "none"]})
    assert agent_llm_apis(hass, AGENT_ID) == ["assist"]


async def test_agent_llm_apis_for_an_agent_registered_by_entry_id(hass):
    entry = MockConfigEntry(domain="old_style_agent", options={"llm_hass_api": "assist"})
    entry.add_to_hass(hass)
    assert agent_llm_apis(hass, entry.entry_id) == ["assist"]
    bare = MockConfigEntry(domain="old_style_agent", options={})
    bare.add_to_hass(hass)
    assert agent_llm_apis(hass, bare.entry_id) == []


def test_tool_result_is_home_assistants_where_it_has_one():
    result = tool_result({"success": False, "error": "cooldown"}, error=True)
    if TOOL_RESULTS:  # 2026.10+: the error flag reaches the agent's model
        assert result == llm.ToolResult(data={"success": False, "error": "cooldown"}, error=True)
    else:
        assert result == {"success": False, "error": "cooldown"}


def test_tool_annotations_are_closed_world_where_home_assistant_has_them():
    annotations = tool_annotations(read_only=True, destructive=False, idempotent=True)
    if TOOL_RESULTS:
        assert annotations == llm.ToolAnnotations(
            read_only=True, destructive=False, idempotent=True, open_world=False
        )
    else:
        assert annotations is None


def test_a_busy_conversation_is_caught_only_where_home_assistant_raises_it():
    from homeassistant.components import conversation

    caught = conversation_busy_errors()
    if AwesomeVersion(HA_VERSION) >= AwesomeVersion("2026.11.0"):  # the release run's end-to-end test
        assert caught == (conversation.ConversationBusyError,)
    else:  # two turns of one conversation run side by side: nothing to catch
        assert caught == ()
