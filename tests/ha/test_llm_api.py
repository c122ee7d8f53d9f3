"""The guardrails as an LLM API: other agents' tool calls run through the overseer's executor."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest
from homeassistant.core import Context
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, TOOL_RESULTS, llm_context, set_select, setup_overseer, tool_answer

API_ID = "overseer-room1"
# The harness room's tools that act on it, in the registry's order.
ROOM_TOOL_NAMES = ["lift_up", "lift_down", "neato_start", "neato_send_home", "neato_locate", "ha_set_entity"]
# What an agent is offered: those, and the read-only room_state.
OFFERED = [*ROOM_TOOL_NAMES, "room_state"]


async def room_api(hass) -> llm.APIInstance:
    return await llm.async_get_api(hass, API_ID, llm_context("ollama"))


async def use(hass, instance: llm.APIInstance, tool: str, **arguments: Any) -> dict[str, Any]:
    return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))


async def test_each_room_registers_its_api_with_the_room_tools_only(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    [api] = [api for api in llm.async_get_apis(hass) if api.id == API_ID]
    assert api.name == "Overseer guardrails (Arena)"

    instance = await room_api(hass)
    # The room's actions and a read of the room; chat and memory stay the overseer's own.
    assert [tool.name for tool in instance.tools] == OFFERED
    assert all(tool.integration == "overseer" and tool.title for tool in instance.tools)
    assert "STATE_UPDATE" in instance.api_prompt
    assert "available_tools:\n- lift_up()" in instance.api_prompt
    [ha_set_entity] = [tool for tool in instance.tools if tool.name == "ha_set_entity"]
    entity_schema = ha_set_entity.parameters.schema
    assert {str(key) for key in entity_schema} == {"entity_id", "state"}

    await hass.config_entries.async_unload(entry.entry_id)
    assert API_ID not in [api.id for api in llm.async_get_apis(hass)]


async def test_a_call_runs_once_then_is_refused_with_the_seconds_to_wait(hass, ollama_stub, room, caplog):
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    instance = await room_api(hass)

    assert await use(hass, instance, "lift_up") == {"success": True, "tool": "lift_up", "outcome": "executed"}
    refused = await use(hass, instance, "lift_up")

    assert refused == {
        "success": False,
        "tool": "lift_up",
        "outcome": "blocked",
        "error": "cooldown",
        "retry_in_s": 60,
    }
    assert len(room["cover.open_cover"]) == 1
    assert [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in actions] == [
        ("lift_up", "executed", None),
        ("lift_up", "blocked", "cooldown"),
    ]
    assert all(e.data["decision_id"].startswith("ollama-") for e in actions)
    # The blocked tool now shows as blocked to the next agent that asks.
    assert "lift_up() reason=cooldown remaining=60s" in (await room_api(hass)).api_prompt
    # Nothing 2026.10+ reports as deprecated: untagged tools, plain dict results.
    assert "without an integration" not in caplog.text and "ToolResult" not in caplog.text


@pytest.mark.parametrize(
    ("tool", "arguments", "error"),
    [
        ("ha_set_entity", {"entity_id": "lock.front_door", "state": "off"}, "not_allowlisted"),
        ("ha_set_entity", {"entity_id": "light.bench", "state": "plaid"}, "invalid_arguments"),
        ("ha_set_entity", {"entity_id": "light.bench"}, "invalid_arguments"),
        ("ha_set_entity", "light.bench", "invalid_arguments"),
        ("lift_up", {"height": 3}, "invalid_arguments"),
    ],
)
async def test_bad_calls_are_refused_as_data_and_change_nothing(
    hass, ollama_stub, room, tool, arguments, error
):
    await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    result = tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))
    assert result["success"] is False and result["error"] == error
    assert all(not calls for calls in room.values())


async def test_locks_and_dry_run_hold_for_other_agents(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    await set_select(hass, "select.arena_site_mode", "lockdown")
    assert (await use(hass, instance, "lift_up"))["error"] == "policy_lock:site_mode_lockdown"

    await set_select(hass, "select.arena_site_mode", "open")
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.arena_dry_run"}, blocking=True)
    dry = await use(hass, instance, "ha_set_entity", entity_id="light.bench", state="red")
    assert dry["outcome"] == "dry_run" and dry["success"] is False
    assert all(not calls for calls in room.values())


async def test_a_core_agent_given_the_api_is_held_to_the_cooldown(hass, ollama_stub, room, hass_admin_user):
    """Home Assistant's own Ollama agent, its model scripted by the stub, asks for the lift twice."""
    await setup_overseer(hass, ollama_stub)
    agent = MockConfigEntry(
        domain="ollama",
        title="House agent",
        data={"url": ollama_stub.url, "model": "qwen2.5:7b"},
        options={"llm_hass_api": API_ID, "prompt": "You run the house."},
    )
    agent.add_to_hass(hass)
    assert await hass.config_entries.async_setup(agent.entry_id)
    await hass.async_block_till_done()
    actions = async_capture_events(hass, "overseer_action")

    replies = []
    for _ in range(2):
        ollama_stub.reply("", call("lift_up"))
        ollama_stub.after_calls("Asked for the lift.")  # the agent's request with the tool result
        result = await hass.services.async_call(
            "conversation",
            "process",
            {"text": "raise the lift", "agent_id": "conversation.house_agent"},
            blocking=True,
            return_response=True,
            context=Context(user_id=hass_admin_user.id),
        )
        replies.append(result["response"]["speech"]["plain"]["speech"])

    assert replies == ["Asked for the lift.", "Asked for the lift."]
    assert len(room["cover.open_cover"]) == 1
    assert [(e.data["outcome"], e.data.get("reason")) for e in actions] == [
        ("executed", None),
        ("blocked", "cooldown"),
    ]
    # What the agent's model read back after each call: from 2026.10 core's agents wrap a tool's
    # answer as {"data": ..., "error": bool}, and a refusal must read "error": true there.
    tool_results = [
        json.loads(message["content"])
        for request in ollama_stub.requests
        for message in request["messages"]
        if message["role"] == "tool"
    ]
    if TOOL_RESULTS:
        assert [result["error"] for result in tool_results] == [False, True]
        tool_results = [result["data"] for result in tool_results]
    assert tool_results[0]["outcome"] == "executed"
    assert tool_results[-1]["error"] == "cooldown" and tool_results[-1]["retry_in_s"] > 0
    # The agent was offered exactly the room's tools, under their own names.
    offered = [tool["function"]["name"] for tool in ollama_stub.requests[0]["tools"]]
    assert offered == OFFERED


async def test_parallel_calls_each_see_the_cooldown_and_budget_the_others_spent(hass, ollama_stub, room):
    """Agents send several tool calls in one message and Home Assistant runs them at once."""
    await setup_overseer(hass, ollama_stub)
    release = asyncio.Event()

    async def slow_cover(call) -> None:
        await release.wait()  # a real device takes its time

    hass.services.async_register("cover", "open_cover", slow_cover)
    hass.services.async_register("cover", "close_cover", slow_cover)
    instance = await room_api(hass)
    calls = [
        hass.async_create_task(use(hass, instance, tool))
        for tool in ("lift_up", "lift_up", "lift_down", "neato_locate", "neato_start")
    ]
    await asyncio.sleep(0.05)
    release.set()
    results = await asyncio.gather(*calls)

    executed = [r["tool"] for r in results if r["outcome"] == "executed"]
    assert executed == ["lift_up", "neato_locate"]  # one per group; the vacuum's cooldown holds
    assert sorted(r["error"] for r in results if r["outcome"] == "blocked") == ["cooldown"] * 3


async def test_an_instance_kept_across_a_reload_reaches_the_reloaded_room(hass, ollama_stub, room):
    """From 2026.11 a conversation keeps its first turn's instance, and the room may reload meanwhile."""
    entry = await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()

    assert (await use(hass, instance, "lift_up"))["outcome"] == "executed"
    assert len(room["cover.open_cover"]) == 1
    # Held to the reloaded room's guardrails: its ledger has the call now.
    assert (await use(hass, await room_api(hass), "lift_up"))["error"] == "cooldown"
    assert "cooldowns: lift=60s" in (await use(hass, instance, "room_state"))["state"]


async def test_an_instance_kept_after_the_room_is_unloaded_says_to_start_again(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    assert await hass.config_entries.async_unload(entry.entry_id)

    for tool in ("lift_up", "room_state"):
        stale = await use(hass, instance, tool)
        assert stale["success"] is False and stale["error"] == "not_available"
        assert "start a new conversation" in stale["note"]
    assert room["cover.open_cover"] == []


async def test_an_instance_used_while_the_room_reloads_says_to_try_again_shortly(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    reloading = hass.async_create_task(hass.config_entries.async_reload(entry.entry_id))
    answer = await use(hass, instance, "lift_up")
    assert (answer["error"], answer["note"]) == (
        "not_available",
        "this room's overseer is starting again: try again in a few seconds",
    )
    assert await reloading
    assert (await use(hass, instance, "lift_up"))["outcome"] == "executed"  # and then it works


async def test_room_state_reads_the_room_now_while_the_prompt_keeps_its_first_turn(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    instance = await room_api(hass)
    await use(hass, instance, "lift_up")
    await set_select(hass, "select.arena_site_mode", "lockdown")

    assert "available_tools:\n- lift_up()" in instance.api_prompt  # as it was when asked
    assert "a call's result is what holds now" in instance.api_prompt
    now = (await use(hass, instance, "room_state"))["state"]
    assert now.startswith("STATE_UPDATE\n") and "site_mode: lockdown" in now
    assert "available_tools:\n- none" in now
    assert "- lift_up() reason=policy_lock:site_mode_lockdown" in now
    assert (await use(hass, instance, "lift_down"))["error"] == "policy_lock:site_mode_lockdown"


async def test_tools_carry_annotations_from_the_registry_and_the_policy(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "approval_tools": ["lift_down"]})
    tools = {tool.name: tool for tool in (await room_api(hass)).tools}
    assert (tools["lift_up"].title, tools["room_state"].title) == ("Raise the lift", "Read the room")
    if not TOOL_RESULTS:  # before 2026.10 tools had no annotations
        assert all(tool.annotations is None for tool in tools.values())
        return
    shown = {
        name: (tool.annotations.read_only, tool.annotations.destructive, tool.annotations.idempotent)
        for name, tool in tools.items()
    }
    assert shown["room_state"] == (True, False, True)
    assert shown["lift_up"] == (False, False, True)
    assert shown["lift_down"] == (False, True, True)  # consequential here: approval_tools
    assert shown["neato_locate"] == (False, False, False)  # it beeps again every time
    assert not any(tool.annotations.open_world for tool in tools.values())  # only this Home Assistant


async def test_in_commentary_mode_the_prompt_shows_every_tool_blocked(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    await set_select(hass, "select.arena_overseer_mode", "commentary")
    instance = await room_api(hass)
    assert "available_tools:\n- none" in instance.api_prompt
    assert "- lift_up() reason=not_available" in instance.api_prompt
    assert (await use(hass, instance, "lift_up"))["error"] == "not_available"


async def test_an_agents_call_runs_as_the_agents_user(hass, ollama_stub, room, hass_admin_user):
    await setup_overseer(hass, ollama_stub)
    context = Context(user_id=hass_admin_user.id)
    instance = await llm.async_get_api(hass, API_ID, replace(llm_context("ollama"), context=context))
    await use(hass, instance, "lift_up")
    assert room["cover.open_cover"][0].context.user_id == hass_admin_user.id


async def test_beside_assist_the_tools_keep_their_guardrails(hass, ollama_stub, room):
    """Home Assistant 2025.4 gives an agent one API; 2026.2 merges several, prefixing tool names."""
    await setup_overseer(hass, ollama_stub)
    both = [llm.LLM_API_ASSIST, API_ID]
    if not hasattr(llm, "MergedAPI"):
        with pytest.raises((TypeError, HomeAssistantError)):
            await llm.async_get_api(hass, both, llm_context("ollama"))
        return
    merged = await llm.async_get_api(hass, both, llm_context("ollama"))
    # Prefixed with the API's name until 2026.10; from 2026.11 only on a name collision.
    [lift_up] = [tool.name for tool in merged.tools if tool.name.rpartition("__")[2] == "lift_up"]
    assert lift_up in ("lift_up", "overseer-guardrails-arena__lift_up")
    first = await use(hass, merged, lift_up)
    second = await use(hass, merged, lift_up)
    assert (first["outcome"], second.get("error")) == ("executed", "cooldown")
