"""MCP clients get the room's guardrails, and a person approves what matters, from every caller.

A real Home Assistant process, its mcp_server integration set up through the config-flow REST
API to serve *Overseer guardrails (Arena)*, and a real MCP client (the `mcp` package) over HTTP
(the SSE transport, which every tested release serves) with the demo user's token. The tools are
listed with their annotations; a first lift_up runs, a second is refused with the cooldown, a
consequential call (ha_set_entity, made so by approval_tools) waits for a person. Then Assist
asks for the same change and waits too; the demo user approves both through the REST API, one
with a grant, and the MCP client's same call runs again without asking. The demo's button box
counter moves by at most its step, once per cooldown. A line in the room's chat asks for the
light change too and hears its denial there. And triage's step for a jammed vacuum (sending it
home, consequential here) waits for the same approval before the incident is fixed. Last, the
seed's topic change starts a decision in the real process when the race night turns to dinner.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from awesomeversion import AwesomeVersion
from mcp import ClientSession
from mcp.client.sse import sse_client

from devtools.hass_process import hass_version

from ..core.test_topics import DINNER, RACE
from ..processes import configure_overseer, flow_step, state
from .scripted_model import MODEL

# From 2026.10 Home Assistant's tools carry annotations and its results an error flag, which its
# MCP server passes on; 2025.4 has neither.
ANNOTATED = AwesomeVersion("2026.10.0")


def serve_over_mcp(ha, api_id: str) -> None:
    """The mcp_server entry, set up as the UI does, serving only the room's guardrails.

    2025.4 picks the API in the config flow; from 2026.10 the entry serves every API until its
    options choose some (the form shows the picker once "all" is turned off).
    """
    result = flow_step(ha, "/api/config/config_entries/flow", {"handler": "mcp_server"})
    assert result["step_id"] == "user", result
    fields = {f["name"]: f for f in result["data_schema"]}
    flow = f"/api/config/config_entries/flow/{result['flow_id']}"
    if "llm_hass_api" in fields:
        created = flow_step(ha, flow, {"llm_hass_api": api_id})
        assert created["type"] == "create_entry", created
        return
    created = flow_step(ha, flow, {})
    assert created["type"] == "create_entry", created
    options = flow_step(
        ha, "/api/config/config_entries/options/flow", {"handler": created["result"]["entry_id"]}
    )
    step = f"/api/config/config_entries/options/flow/{options['flow_id']}"
    picker = flow_step(ha, step, {"all_llm_apis": False, "require_admin": True})
    assert "llm_hass_api" in {f["name"] for f in picker["data_schema"]}, picker
    done = flow_step(ha, step, {"all_llm_apis": False, "llm_hass_api": [api_id], "require_admin": True})
    assert done["type"] == "create_entry", done


async def mcp_client(ha, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    """List the tools and make the calls in order, as an MCP client outside Home Assistant does."""
    async with (
        sse_client(f"{ha.url}/mcp_server/sse", headers={"Authorization": f"Bearer {ha.token}"}) as streams,
        ClientSession(*streams) as session,
    ):
        await session.initialize()
        listed = (await session.list_tools()).tools
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return listed, results


def answer(result: Any) -> dict[str, Any]:
    """What the client's model reads: the tool's JSON answer."""
    [content] = result.content
    return json.loads(content.text)


# The quiet gap before an unsolicited decision may follow another (the option's default).
MIN_GAP = 15
RED_BENCH = ("ha_set_entity", {"entity_id": "light.bench", "state": "red"})


@pytest.fixture(scope="module")
def overseer(home_assistant, ollama) -> str:
    """The room with consequential light changes, grants of up to 10 minutes, served over MCP."""
    ha = home_assistant
    entry_id = configure_overseer(
        ha,
        "ollama",
        ollama.url,
        MODEL,
        guardrails__approval_tools=["ha_set_entity", "neato_send_home"],
        guardrails__cooldown_ha=0,
        guardrails__action_budget=10,
        incidents__max_grant_minutes=10,
        room__counter_entity="counter.button_box",
        guardrails__counter_max_step=2,
    )
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer's entities")
    serve_over_mcp(ha, f"overseer-{entry_id}")
    return entry_id


def room_status(ha, entry_id: str) -> dict[str, Any]:
    return ha.websocket({"type": "overseer/status", "entry_id": entry_id})


def approve(ha, approval_id: str, **extra: Any) -> None:
    response = ha.post("/api/services/overseer/approve", {"approval_id": approval_id, **extra})
    assert response.status_code == 200, response.text


def test_an_mcp_client_gets_the_rooms_guardrails(home_assistant, overseer):
    ha, entry_id = home_assistant, overseer

    listed, [first] = asyncio.run(mcp_client(ha, [("lift_up", {})]))
    # Once the lift has stopped (a moving lift is refused as busy), the cooldown still holds.
    ha.wait_for(lambda: state(ha, "cover.lift") == "open", timeout=60, what="the lift to arrive")
    _, (second, consequential) = asyncio.run(mcp_client(ha, [("lift_up", {}), RED_BENCH]))

    tools = {tool.name: tool for tool in listed}
    assert {"lift_up", "lift_down", "ha_set_entity", "room_state"} <= set(tools)
    assert "chat_say" not in tools and "memory_write" not in tools  # the overseer's own
    annotated = AwesomeVersion(hass_version()) >= ANNOTATED
    if annotated:
        hints = {name: tool.annotations for name, tool in tools.items()}
        assert hints["room_state"].readOnlyHint is True
        assert hints["ha_set_entity"].destructiveHint is True  # consequential in this room
        assert hints["lift_up"].destructiveHint is False and hints["lift_up"].idempotentHint is True
        assert all(hint.openWorldHint is False for hint in hints.values())
    assert answer(first) == {"success": True, "tool": "lift_up", "outcome": "executed"}
    refused = answer(second)
    assert (refused["outcome"], refused["error"]) == ("blocked", "cooldown") and refused["retry_in_s"] > 0
    waiting = answer(consequential)
    assert waiting["outcome"] == "awaiting_approval" and waiting["approval_id"].startswith("APR-")
    assert waiting["note"] == "a person must approve this call first: nothing has run yet"
    if annotated:  # nothing that did not run reads as a success to the client's model
        assert (first.isError, second.isError, consequential.isError) == (False, True, True)
    assert state(ha, "light.bench") == "off"
    approvals = room_status(ha, entry_id)["approvals"]
    assert [(a["approval_id"], a["source"], a["status"]) for a in approvals] == [
        (waiting["approval_id"], "llm_api", "pending")
    ]


def test_assist_waits_for_a_person_and_a_grant_spares_the_mcp_client_asking_twice(home_assistant, overseer):
    ha, entry_id = home_assistant, overseer
    [from_mcp] = room_status(ha, entry_id)["approvals"]
    response = ha.post(
        "/api/conversation/process",
        {"text": "overseer make the bench light red", "agent_id": "conversation.arena_agent"},
    )
    response.raise_for_status()
    speech = response.json()["response"]["speech"]["plain"]["speech"]
    assert speech.startswith("I will set a room light (Bench, red) once a person approves it (APR-"), speech
    assert state(ha, "light.bench") == "off"
    waiting = {a["source"]: a for a in room_status(ha, entry_id)["approvals"] if a["status"] == "pending"}
    assert set(waiting) == {"llm_api", "assist"}  # two callers, two requests

    approve(ha, waiting["assist"]["approval_id"])
    ha.wait_for(lambda: state(ha, "light.bench") == "on", what="the approved light change")
    approve(ha, from_mcp["approval_id"], grant_minutes=5)
    shown = room_status(ha, entry_id)
    assert {a["source"]: a["status"] for a in shown["approvals"]} == {
        "llm_api": "executed",
        "assist": "executed",
    }
    [grant] = shown["grants"]
    assert (grant["tool"], grant["source"]) == ("ha_set_entity", "llm_api")
    # Assist's asker hears the outcome in the room's chat.
    said = [line["text"] for line in shown["chat"] if line.get("bot")]
    assert any(
        "approved ha_set_entity(entity_id=light.bench, state=red), and it ran." in text for text in said
    ), said

    _, [again] = asyncio.run(mcp_client(ha, [RED_BENCH]))
    assert answer(again) == {"success": True, "tool": "ha_set_entity", "outcome": "executed"}
    audit = room_status(ha, entry_id)["recent_actions"]
    assert audit[0]["approval"] == grant["grant_id"]


def test_the_button_box_counter_moves_within_its_step(home_assistant, overseer):
    ha = home_assistant
    _, (up, too_far, again) = asyncio.run(
        mcp_client(
            ha,
            [
                ("counter_adjust", {"delta": 2}),
                ("counter_adjust", {"delta": 3}),
                ("counter_adjust", {"delta": 1}),
            ],
        )
    )
    assert answer(up)["outcome"] == "executed"
    assert state(ha, "counter.button_box") == "2"
    assert (answer(too_far)["error"], answer(again)["error"]) == ("invalid_arguments", "cooldown")
    assert state(ha, "counter.button_box") == "2"


def test_a_line_in_the_chat_waits_for_a_person_and_hears_the_denial(home_assistant, overseer):
    ha, entry_id = home_assistant, overseer
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer make the bench light red"}
    ).raise_for_status()
    said = ha.wait_for(
        lambda: (line := state(ha, "input_text.overseer_said") or "").startswith(
            "I will set a room light (Bench, red) once"
        )
        and line,
        what="the waiting line in the room's chat",
    )
    [asked] = [a for a in room_status(ha, entry_id)["approvals"] if a["source"] == "chat"]
    assert (asked["asker"], asked["status"]) == ("alex", "pending") and asked["approval_id"] in said
    response = ha.post("/api/services/overseer/deny", {"approval_id": asked["approval_id"]})
    assert response.status_code == 200, response.text
    ha.wait_for(
        lambda: (state(ha, "input_text.overseer_said") or "").endswith(
            "denied ha_set_entity(entity_id=light.bench, state=red); nothing ran."
        ),
        what="the denial told in the room's chat",
    )
    assert state(ha, "input_text.overseer_said").startswith("alex: ")


def test_triage_asks_the_same_way_and_the_approved_step_fixes_the_incident(home_assistant, overseer):
    ha, entry_id = home_assistant, overseer
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()
    asked = ha.wait_for(
        lambda: [a for a in room_status(ha, entry_id)["approvals"] if a["source"] == "triage"],
        timeout=60,
        what="triage's approval",
    )
    [step] = asked
    assert (step["tool"], step["status"]) == ("neato_send_home", "pending")
    assert step["incident_id"].startswith("INC-")
    assert state(ha, "vacuum.neato") == "error"  # nothing ran before a person said so
    approve(ha, step["approval_id"])
    ha.wait_for(
        lambda: state(ha, "sensor.arena_open_incidents") == "0",
        timeout=60,
        what="the incident to be resolved",
    )
    assert state(ha, "vacuum.neato") != "error"


def test_the_room_changing_topic_starts_a_decision(home_assistant, overseer):
    """Seed 000's topic change, from real transcripts posted as a chat bridge would, in real time."""
    ha = home_assistant

    def post(user: str, lines: list[str]) -> None:
        for line in lines:
            ha.post("/api/services/overseer/post_message", {"user": user, "text": line}).raise_for_status()

    post("alex", RACE)
    # The race night's own decisions (an address, a dare, bursts) come and go; then a quiet gap.
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") in ("idle", "posted"), timeout=60, what="quiet")
    time.sleep(MIN_GAP + 1)
    assert state(ha, "sensor.arena_last_trigger") != "topic_change"
    post("sam", DINNER)
    ha.wait_for(
        lambda: state(ha, "sensor.arena_last_trigger") == "topic_change", timeout=30, what="the topic change"
    )
