"""The conversation-agent backend: a JSON decision in plain text, same normaliser, same guardrails."""

from __future__ import annotations

from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_capture_events

from custom_components.overseer.const import DOMAIN

from .agents import AGENT_ID, async_setup_agent
from .harness import OPTIONS, say, tick


async def setup_with_agent(hass, agent_options=None, agent_id=AGENT_ID, subentry=None):
    agent = await async_setup_agent(hass, agent_options, subentry)
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Arena",
        entry_id="room1",
        unique_id="arena",
        data={"name": "Overseer", "room": "Arena", "backend": "conversation", "agent_id": agent_id},
        options=OPTIONS,
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return agent, entry


async def test_json_decision_goes_through_the_same_guardrails(hass, freezer, room, agent_flow):
    agent, _ = await setup_with_agent(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    agent.replies.append(
        '```json\n{"chat": "Lights for the brave.", "tool_calls": ['
        '{"name": "ha_set_entity", "arguments": {"entity_id": "light.bench", "state": "on"}},'
        '{"name": "ha_set_entity", "arguments": {"entity_id": "lock.front_door", "state": "off"}}]}\n```'
    )
    say(hass, "alex", "overseer turn on the bench light")
    await tick(hass, freezer)
    # One request: the line after the calls is the overseer's, not the agent's.
    [asked] = agent.inputs
    assert asked.conversation_id is None  # a fresh conversation every time
    assert asked.extra_system_prompt.startswith("You are Overseer,")
    assert "Answer with one JSON object" in asked.extra_system_prompt
    assert asked.text.startswith("STATE_UPDATE")
    assert "alex: overseer turn on the bench light" in asked.text
    assert [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in actions] == [
        ("ha_set_entity", "blocked", "not_allowlisted"),
        ("ha_set_entity", "executed", None),
    ]
    assert room["light.turn_on"][0].data == {"entity_id": "light.bench"}
    # Its words were written before a call was refused: the room hears the facts alone.
    assert [e.data["text"] for e in chat if e.data.get("bot")] == ["Bench is on."]


async def test_prose_replies_are_chat_and_a_skip_to_someone_is_asked_once_more(
    hass, freezer, room, agent_flow
):
    agent, _ = await setup_with_agent(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    agent.replies.extend(["The past remembers.", '{"chat": "", "tool_calls": []}', "Ask me later."])
    for _ in range(2):
        say(hass, "alex", "overseer talk")
        await tick(hass, freezer, seconds=20)
    assert [e.data["text"] for e in chat if e.data.get("bot")] == ["The past remembers.", "Ask me later."]
    assert len(agent.inputs) == 3
    assert agent.inputs[2].text.rstrip().endswith("an answer, an opinion or a verdict.")


async def test_an_agent_with_a_control_api_raises_a_repair(hass, room, agent_flow):
    await setup_with_agent(hass, {"llm_hass_api": "assist"})
    issue = ir.async_get(hass).async_get_issue(DOMAIN, "agent_can_control_room1")
    assert issue is not None and issue.translation_placeholders["apis"] == "assist"


async def test_an_agent_in_a_subentry_with_control_apis_raises_a_repair(hass, room, agent_flow):
    # Since 2025.7 agents live in config subentries and llm_hass_api is a list.
    await setup_with_agent(hass, {"llm_hass_api": "none"}, subentry={"llm_hass_api": ["assist", "my_api"]})
    issue = ir.async_get(hass).async_get_issue(DOMAIN, "agent_can_control_room1")
    assert issue is not None and issue.translation_placeholders["apis"] == "assist, my_api"


async def test_an_agent_in_a_subentry_without_a_control_api_raises_none(hass, room, agent_flow):
    await setup_with_agent(hass, subentry={"prompt": "be nice"})
    assert ir.async_get(hass).async_get_issue(DOMAIN, "agent_can_control_room1") is None


async def test_an_agent_held_by_overseer_guardrails_only_raises_none(hass, room, agent_flow):
    await setup_with_agent(hass, subentry={"llm_hass_api": ["overseer-lab"]})
    assert ir.async_get(hass).async_get_issue(DOMAIN, "agent_can_control_room1") is None


async def test_an_agent_without_a_control_api_raises_none(hass, room, agent_flow):
    await setup_with_agent(hass, {"llm_hass_api": "none"})
    assert ir.async_get(hass).async_get_issue(DOMAIN, "agent_can_control_room1") is None


async def test_an_agent_that_disappeared_fails_the_decision(hass, freezer, room, agent_flow):
    _, entry = await setup_with_agent(hass, agent_id="conversation.removed_agent")
    say(hass, "alex", "overseer?")
    await tick(hass, freezer)
    assert hass.states.get("sensor.arena_loop_phase").state == "failed"
    assert entry.runtime_data.loop.last_error.startswith("CannotConnect")
