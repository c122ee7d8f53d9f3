"""Records no caller can break: what the audit, the status, the events and the store keep.

Each caller (the model through the chat loop, another agent through the guardrails LLM API,
an MCP client through the same API as its Home Assistant user) sends 2 MB of text, 400 levels
of nesting and a 2**70 integer, all valid JSON. Each call is refused (invalid_arguments), its
record keeps a cut copy marked truncated, and the status the card reads, every overseer_action
event and the stored audit still encode as Home Assistant encodes them (orjson: at most 255
levels, 64-bit integers).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from homeassistant.core import Context
from homeassistant.helpers import llm
from homeassistant.helpers.json import json_bytes
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import llm_context, say, setup_overseer, status, tick, tool_answer

API_ID = "overseer-room1"
BOOK_KEY = "overseer.room1.book"
# Far below what was sent, and what the bounds allow (8 KB of arguments) with room to spare.
RECORD_BYTES = 16_384


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"entity_id": value}
    return value


HOSTILE: list[dict[str, Any]] = [
    {"entity_id": "light.bench", "state": "x" * 2_000_000},
    nested(400),
    {"entity_id": "light.bench", "state": 2**70},
]


async def by_the_model(hass, freezer, ollama_stub, user) -> None:
    ollama_stub.reply("", *(call("ha_set_entity", **arguments) for arguments in HOSTILE))
    say(hass, "alex", "overseer bench light")
    await tick(hass, freezer)


async def through_the_api(hass, context: llm.LLMContext) -> None:
    instance = await llm.async_get_api(hass, API_ID, context)
    for arguments in HOSTILE:
        answer = tool_answer(
            await instance.async_call_tool(llm.ToolInput(tool_name="ha_set_entity", tool_args=arguments))
        )
        assert answer["error"] == "invalid_arguments", answer


async def by_another_agent(hass, freezer, ollama_stub, user) -> None:
    await through_the_api(hass, llm_context("ollama"))


async def by_an_mcp_client(hass, freezer, ollama_stub, user) -> None:
    # Home Assistant's MCP server hands the API its client's user, and nothing else of it.
    await through_the_api(hass, replace(llm_context("mcp_server"), context=Context(user_id=user.id)))


@pytest.mark.parametrize("send", [by_the_model, by_another_agent, by_an_mcp_client])
async def test_what_any_caller_sends_leaves_status_events_and_store_valid(
    hass, hass_ws_client, hass_storage, hass_read_only_user, freezer, ollama_stub, room, send
):
    entry = await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    actions = async_capture_events(hass, "overseer_action")

    await send(hass, freezer, ollama_stub, hass_read_only_user)
    await hass.async_block_till_done()

    assert all(not calls for calls in room.values())
    assert [(e.data["outcome"], e.data["reason"], e.data["truncated"]) for e in actions] == [
        ("blocked", "invalid_arguments", True)
    ] * len(HOSTILE)
    assert all(len(json_bytes(e.data)) < RECORD_BYTES for e in actions)

    shown = await status(client)  # the websocket encodes it with orjson, as for the card
    recent = shown["recent_actions"][: len(HOSTILE)]
    assert [(r["reason"], r["truncated"]) for r in recent] == [("invalid_arguments", True)] * len(HOSTILE)
    assert len(json_bytes(shown)) < 200_000

    await hass.config_entries.async_unload(entry.entry_id)  # the last write of both documents
    stored = hass_storage[BOOK_KEY]["data"]["audit"]
    assert [(r["reason"], r["truncated"]) for r in stored] == [("invalid_arguments", True)] * len(HOSTILE)


async def test_a_hand_edited_audit_cannot_break_the_status(
    hass, hass_ws_client, hass_storage, ollama_stub, room
):
    record = {"ts": 1.0, "decision_id": "d1", "tool": "lift_up", "outcome": "blocked", "reason": "cooldown"}
    hass_storage[BOOK_KEY] = {
        "version": 1,
        "minor_version": 1,
        "key": BOOK_KEY,
        "data": {"audit": [{**record, "arguments": nested(400)}, {**record, "arguments": {"n": 2**70}}]},
    }
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)

    shown = await status(client)

    assert [r["truncated"] for r in shown["recent_actions"]] == [True, True]


async def test_a_stream_of_refused_calls_does_not_push_what_ran_out_of_the_audit(
    hass, hass_ws_client, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    instance = await llm.async_get_api(hass, API_ID, llm_context("ollama"))

    async def use(tool: str, **arguments: Any) -> dict[str, Any]:
        return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))

    assert (await use("lift_up"))["outcome"] == "executed"
    for _ in range(250):
        assert (await use("lift_up"))["error"] == "cooldown"

    audit = entry.runtime_data.loop.state.audit.as_list()
    assert [r["tool"] for r in audit if r["outcome"] == "executed"] == ["lift_up"]
    assert len(audit) == 1 + 200
