"""End to end: a real Home Assistant process, the demo room, an Ollama-protocol server.

The overseer is configured through Home Assistant's own config-flow REST API; a chat line
addresses it, it answers on the chat bus and the lift really moves; after a lockdown set
through the REST API the same request is blocked and audited. Then Assist asks it through
Home Assistant's conversation API: the reply comes back and the light changes; under
lockdown the reply says why and nothing moves.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from awesomeversion import AwesomeVersion

from devtools.hass_process import hass_run, hass_version

from ..processes import configure_overseer, flow_step, state
from .scripted_model import BENCH_QUIP, LIFT_QUIP, MODEL, SLOW_ANSWER, SLOW_QUESTION

MANIFEST = Path(__file__).parents[2] / "custom_components" / "overseer" / "manifest.json"


@pytest.fixture(scope="module")
def overseer(home_assistant, ollama) -> str:
    """The overseer, configured once for the module's Home Assistant."""
    entry_id = configure_overseer(home_assistant, "ollama", ollama.url, MODEL)
    home_assistant.wait_for(
        lambda: state(home_assistant, "sensor.arena_loop_phase") == "idle", what="the overseer's entities"
    )
    return entry_id


def set_site_mode(ha, option: str) -> None:
    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": option}
    ).raise_for_status()
    assert state(ha, "select.arena_site_mode") == option


def assist(ha, text: str, conversation_id: str | None = None) -> str:
    """Say something to the overseer's agent through the conversation API; its spoken reply."""
    payload = {"text": text, "agent_id": "conversation.arena_agent"}
    if conversation_id:
        payload["conversation_id"] = conversation_id
    response = ha.post("/api/conversation/process", payload)
    response.raise_for_status()
    return response.json()["response"]["speech"]["plain"]["speech"]


def test_this_home_assistant_has_to_install_nothing_for_the_overseer(home_assistant, overseer):
    # Home Assistant installs a requirement it finds unmet under its package constraints (and
    # from 2026.10 could not: openai was pinned 3.x); met by what it ships, nothing happens.
    requirements = json.loads(MANIFEST.read_text())["requirements"]
    unmet = hass_run(
        "import sys; from homeassistant.util.package import is_installed; "
        "print([r for r in sys.argv[1:] if not is_installed(r)])",
        *requirements,
    )
    assert unmet == "[]", (hass_version(), unmet)


def test_address_act_answer_then_lockdown_blocks_and_audits(home_assistant, ollama, overseer):
    ha = home_assistant
    assert state(ha, "cover.lift") == "closed"

    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_said") == f"Lift is open. {LIFT_QUIP}",
        what="the reply on the chat bus",
    )
    assert state(ha, "input_text.overseer_last_action") == "lift_up executed"
    ha.wait_for(lambda: state(ha, "cover.lift") == "open", timeout=20, what="the lift to open")
    assert any(r["tools"] for r in ollama.requests), "the model was offered tools"

    # A person lowers the lift again; then an automation locks the site down.
    ha.post("/api/services/cover/close_cover", {"entity_id": "cover.lift"}).raise_for_status()
    ha.wait_for(lambda: state(ha, "cover.lift") == "closed", timeout=20, what="the lift to close")
    set_site_mode(ha, "lockdown")
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


def test_assist_asks_the_overseer_and_the_guardrails_answer(home_assistant, overseer):
    ha = home_assistant
    set_site_mode(ha, "open")
    assert state(ha, "light.bench") == "off"

    assert assist(ha, "overseer make the bench light red") == f"Bench is on (red). {BENCH_QUIP}"
    ha.wait_for(lambda: state(ha, "light.bench") == "on", timeout=10, what="the bench light to turn on")
    assert ha.state("light.bench")["attributes"]["hs_color"][0] == 0  # red

    set_site_mode(ha, "lockdown")
    lift = state(ha, "cover.lift")
    assert assist(ha, "overseer raise the lift") == "I did not raise the lift: the room is in lockdown."
    time.sleep(2)
    assert state(ha, "cover.lift") == lift


def test_a_second_message_mid_turn_is_told_the_first_is_still_being_answered(home_assistant, overseer):
    ha = home_assistant
    set_site_mode(ha, "open")
    first: list[str] = []
    asking = threading.Thread(target=lambda: first.append(assist(ha, SLOW_QUESTION, "one-talk")))
    asking.start()
    time.sleep(1.5)  # the model is thinking about the first one
    second = assist(ha, "overseer are you there?", "one-talk")
    asking.join(60)
    assert first == [SLOW_ANSWER]
    if AwesomeVersion(hass_version()) >= AwesomeVersion("2026.11.0"):
        # The conversation's chat log is busy with the first turn: said in words, not an error.
        assert second == "Still answering your last message in this conversation; ask again in a moment."
    else:  # before 2026.11 both turns run; the second is answered after the first
        assert second and second != SLOW_ANSWER


def test_a_vacuum_error_is_triaged_fixed_and_verified(home_assistant, ollama, overseer):
    ha = home_assistant
    set_site_mode(ha, "open")
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()
    assert state(ha, "vacuum.neato") == "error"
    ha.wait_for(lambda: state(ha, "sensor.arena_open_incidents") == "1", timeout=20, what="the incident")
    ha.wait_for(
        lambda: state(ha, "sensor.arena_open_incidents") == "0",
        timeout=60,
        what="the incident to be resolved",
    )
    assert state(ha, "vacuum.neato") != "error"
    [triage] = [r for r in ollama.requests if "format" in r]
    assert '"asset_kind": "vacuum"' in triage["messages"][1]["content"]
    diagnostics = ha.get(f"/api/diagnostics/config_entry/{overseer}").json()["data"]
    [incident] = diagnostics["status"]["incidents"]
    assert incident["status"] == "resolved" and incident["root_cause"] == "the brush is jammed"
    assert incident["resolution"] == "neato_send_home() ran and the fault cleared"
    assert [step["what"] for step in incident["timeline"]][:4] == ["opened", "request", "response", "intent"]


def test_reconfigured_to_the_openai_backend_it_answers_through_the_openai_client(
    home_assistant, ollama, overseer
):
    # The same server's /v1 endpoints, through the openai client this Home Assistant pins
    # (3.26 on 2026.11, on its httpx2), chosen in the reconfigure flow as a person does.
    ha = home_assistant
    result = flow_step(
        ha,
        "/api/config/config_entries/flow",
        {"handler": "overseer", "show_advanced_options": False, "entry_id": overseer},
    )
    assert result["step_id"] == "reconfigure"
    flow = f"/api/config/config_entries/flow/{result['flow_id']}"
    assert flow_step(ha, flow, {"name": "Overseer", "backend": "openai"})["step_id"] == "openai"
    assert flow_step(ha, flow, {"url": f"{ollama.url}/v1"})["step_id"] == "model"
    done = flow_step(ha, flow, {"model": MODEL})
    assert (done["type"], done["reason"]) == ("abort", "reconfigure_successful")
    # The abort comes before the reload ends, and the old loop's sensor may still read idle:
    # wait for a loaded room's status (an unloaded one reads as off, with no model) to name
    # the new backend. A room that never switches times out here.
    status = {"type": "overseer/status", "entry_id": overseer}
    ha.wait_for(
        lambda: ha.websocket(status).get("model", {}).get("backend") == "openai",
        what="the overseer reloaded on the openai backend",
    )
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="its first idle phase")

    # (The room's action budget is spent by the tests before: a line, not an action.)
    assert assist(ha, SLOW_QUESTION) == SLOW_ANSWER
    assert "update listener" not in ha.log_tail(400)  # reloaded once, by the listener
