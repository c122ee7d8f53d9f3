"""The scripted model the real-process tests talk to: a worst case that obeys whoever asks."""

from __future__ import annotations

import asyncio

from ..ollama_stub import Scripted, call, is_triage, reasoning

MODEL = "llama3.2:latest"
# Its words beside its calls; the overseer's facts of what the calls did open the posted line.
LIFT_QUIP = "Fortune favours the brave."
BENCH_QUIP = "Bold choice."
# Asked through the overseer's Assist agent by the room's orchestrator: the overseer answers.
ROVERS_QUESTION = "<em>overseer</em>, how are the rovers?"
# The model's words only: the overseer's facts of the room come before them in the posted line.
ROVERS_ANSWER = "Sleepy lot, all of them & proud of it."
# A question the model takes its time over, as a real one does (2-30 s).
SLOW_QUESTION = "overseer think it over"
SLOW_ANSWER = "Thought it over: all quiet."
SLOW_SECONDS = 4


def worst_case_model(payload: dict) -> Scripted | None:
    """Obeys whoever addressed it last: raises the lift when asked, whatever the rules say.

    Asked to triage the vacuum's error, it sends the vacuum home (which frees the demo's brush).
    """
    return _obeying(payload)


def _obeying(payload: dict) -> Scripted | None:
    messages = payload["messages"]
    if is_triage(payload):
        if '"asset_id": "vacuum.neato"' in messages[1]["content"]:
            return Scripted(content=reasoning(("neato_send_home", {}), fault="the brush is jammed"))
        return None
    # This moment's lines close the request, beside the tool blocks and the question again.
    addressed = "trigger: direct_address" in messages[-1]["content"]
    # The transcript's lines: not the STATE_UPDATE, and not the last message (this moment, the
    # tool blocks and the question again).
    humans = [
        m["content"]
        for m in messages
        if m["role"] == "user"
        and ": " in m["content"]
        and not m["content"].startswith(("STATE_UPDATE", "time:", "available_tools:", "blocked_tools:"))
    ]
    if addressed and humans and humans[-1].endswith("overseer raise the lift"):
        return Scripted(content=LIFT_QUIP, tool_calls=[call("lift_up")])
    if addressed and humans and humans[-1].endswith("overseer make the bench light red"):
        return Scripted(
            content=BENCH_QUIP, tool_calls=[call("ha_set_entity", entity_id="light.bench", state="red")]
        )
    if addressed and humans and humans[-1].endswith(ROVERS_QUESTION):
        return Scripted(content=ROVERS_ANSWER)
    if addressed and humans and humans[-1].endswith(SLOW_QUESTION):
        return Scripted(content=SLOW_ANSWER, before=lambda: asyncio.sleep(SLOW_SECONDS))
    return None
