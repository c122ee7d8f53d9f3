"""End to end: a real Home Assistant process, the demo room, an Ollama-protocol server.

The overseer is configured through Home Assistant's own config-flow REST API; a chat line
addresses it, it answers on the chat bus and the lift really moves; after a lockdown set
through the REST API the same request is blocked and audited.
"""

from __future__ import annotations

import time

from ..processes import configure_overseer, state
from .scripted_model import MODEL


def test_address_act_answer_then_lockdown_blocks_and_audits(home_assistant, ollama):
    ha = home_assistant
    configure_overseer(ha, "ollama", ollama.url, MODEL)
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
