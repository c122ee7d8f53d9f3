"""End to end: a real Home Assistant process, the demo room, an Ollama-protocol server.

The overseer is configured through Home Assistant's own config-flow REST API; a chat line
addresses it, it answers on the chat bus and the lift really moves; after a lockdown set
through the REST API the same request is blocked and audited.
"""

from __future__ import annotations

import time

from devtools.hass_process import HomeAssistantProcess

from .conftest import MODEL

ROVER_ENTITIES = [
    f"{domain}.rover_{index}_{field}"
    for index in (1, 2, 3)
    for domain, field in (
        ("sensor", "activity"),
        ("sensor", "driver"),
        ("binary_sensor", "docked"),
        ("binary_sensor", "charging"),
    )
]


def flow_step(ha: HomeAssistantProcess, path: str, payload: dict) -> dict:
    response = ha.post(path, payload)
    assert response.status_code == 200, response.text
    return response.json()


def configure_overseer(ha: HomeAssistantProcess, ollama_url: str) -> str:
    """Create the entry exactly as the UI does, then map the demo room in its options."""
    result = flow_step(
        ha, "/api/config/config_entries/flow", {"handler": "overseer", "show_advanced_options": False}
    )
    assert result["step_id"] == "user"
    flow = f"/api/config/config_entries/flow/{result['flow_id']}"
    assert (
        flow_step(ha, flow, {"name": "Overseer", "room": "Arena", "backend": "ollama"})["step_id"] == "ollama"
    )
    assert flow_step(ha, flow, {"url": ollama_url})["step_id"] == "model"
    created = flow_step(ha, flow, {"model": MODEL})
    assert created["type"] == "create_entry", created
    entry_id = created["result"]["entry_id"]

    result = flow_step(ha, "/api/config/config_entries/options/flow", {"handler": entry_id})
    options_flow = f"/api/config/config_entries/options/flow/{result['flow_id']}"
    done = flow_step(
        ha,
        options_flow,
        {
            "room": {
                "rover_entities": ROVER_ENTITIES,
                "lift_cover": "cover.lift",
                "vacuum_entity": "vacuum.neato",
                "light_entities": [
                    f"light.{name}" for name in ("shelf", "bench", "corner", "aux1", "aux2", "window")
                ],
                "state_entities": [],
            },
            "addressing": {"aliases": [], "challenge_phrases": []},
            "guardrails": {
                "cooldown_lift": 60,
                "cooldown_neato": 120,
                "cooldown_ha": 20,
                "action_budget": 3,
                "action_window": 300,
                "max_tool_calls": 1,
                "approval_tools": [],
            },
            "timing": {
                "gate_interval": 1,
                "heartbeat": 600,
                "min_gap": 15,
                "stale_after": 90,
                "request_timeout": 30,
            },
            "transcript": {
                "transcript_turns": 30,
                "transcript_minutes": 10,
                "min_human_messages": 5,
                "bot_messages": 2,
            },
        },
    )
    assert done["type"] == "create_entry", done
    return entry_id


def state(ha: HomeAssistantProcess, entity_id: str) -> str | None:
    found = ha.state(entity_id)
    return found["state"] if found else None


def test_address_act_answer_then_lockdown_blocks_and_audits(home_assistant, ollama):
    ha = home_assistant
    configure_overseer(ha, ollama.url)
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer's entities")
    assert state(ha, "cover.lift") == "closed"

    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_said") == "Going up.", what="the reply on the chat bus"
    )
    assert state(ha, "input_text.overseer_last_action") == "lift_up executed"
    ha.wait_for(lambda: state(ha, "cover.lift") == "open", timeout=20, what="the lift to open")
    assert any(r["tools"] for r in ollama.requests), "the model was offered tools"

    # A person lowers the lift again; then an automation locks the site down.
    ha.post("/api/services/cover/close_cover", {"entity_id": "cover.lift"}).raise_for_status()
    ha.wait_for(lambda: state(ha, "cover.lift") == "closed", timeout=20, what="the lift to close")
    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": "lockdown"}
    ).raise_for_status()
    assert state(ha, "select.arena_site_mode") == "lockdown"
    requests_before = len(ollama.requests)

    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_last_action")
        == "lift_up blocked policy_lock:site_mode_lockdown",
        what="the blocked call in the audit feed",
    )
    lockdown_request = ollama.requests[requests_before]
    assert "lift_up" not in {tool["function"]["name"] for tool in lockdown_request["tools"]}
    assert "- lift_up() reason=policy_lock:site_mode_lockdown" in lockdown_request["messages"][-1]["content"]
    time.sleep(2)
    assert state(ha, "cover.lift") == "closed"
