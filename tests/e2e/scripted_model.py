"""The scripted model the real-process tests talk to: a worst case that obeys whoever asks."""

from __future__ import annotations

from ..ollama_stub import Scripted, call

MODEL = "llama3.2:latest"


def worst_case_model(payload: dict) -> Scripted | None:
    """Obeys whoever addressed it last: raises the lift when asked, whatever the rules say."""
    messages = payload["messages"]
    addressed = "trigger: direct_address" in messages[1]["content"]
    humans = [m["content"] for m in messages if m["role"] == "user" and ": " in m["content"]]
    if addressed and humans and humans[-1].endswith("overseer raise the lift"):
        return Scripted(content="Going up.", tool_calls=[call("lift_up")])
    if addressed and humans and humans[-1].endswith("overseer make the bench light red"):
        return Scripted(
            content="Red it is.", tool_calls=[call("ha_set_entity", entity_id="light.bench", state="red")]
        )
    return None
