"""End to end: the room's orchestrator in a real Home Assistant process with the demo room.

Two bots take part, as in the demo: the overseer (through its Assist agent) and the demo's
Rover guide, which answers from the rovers' states. Both entries are made through Home
Assistant's own config-flow REST API. The Ollama-protocol stub is the orchestrator's router
and judge (scripted: router requests carry a `format` schema with "agent_id", judge requests
with "score") and the overseer's model. A human line posted with overseer.post_message in
room Arena is routed, answered on the chat bus as the chosen bot, judged, and refined by the
other bot when the judge scores it low; the pipeline sensor comes back to idle.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import pytest

from devtools.hass_process import HomeAssistantProcess

from ..ollama_stub import Scripted
from ..processes import Bus, configure_orchestrator, configure_overseer, state
from .scripted_model import MODEL, worst_case_model

OVERSEER, GUIDE = "conversation.arena_agent", "conversation.rover_guide"
PARTICIPANTS = [
    {"agent_id": OVERSEER, "name": "Overseer", "description": "the lift, the lights, the vacuum, the game"},
    {"agent_id": GUIDE, "name": "Rover guide", "description": "the rovers: where, who drives, charging"},
]
SENSOR = "sensor.arena_orchestrator_pipeline"
# The model's words; the overseer's facts of the lift (and of what the question quotes) open its line.
OVERSEER_LINE = "It carries the winners, nothing more."


class RouterAndJudge:
    """The stub as the orchestrator's model: scripted routes and scores; else the overseer's model."""

    def __init__(self) -> None:
        self.routes: deque[str] = deque()
        self.scores: deque[str] = deque()

    @staticmethod
    def kind(payload: dict[str, Any]) -> str | None:
        properties = (payload.get("format") or {}).get("properties", {}) if "format" in payload else {}
        return "router" if "agent_id" in properties else "judge" if "score" in properties else None

    def __call__(self, payload: dict[str, Any]) -> Scripted | None:
        kind = self.kind(payload)
        if kind == "router":
            return Scripted(content=self.routes.popleft() if self.routes else "")
        if kind == "judge":
            return Scripted(content=self.scores.popleft() if self.scores else "")
        # The overseer, asked by the orchestrator to improve an answer about the lift.
        if any("what does the lift do?" in m["content"] for m in payload["messages"][2:]):
            return Scripted(content=OVERSEER_LINE)
        return worst_case_model(payload)


def judge(score: float, proceed: bool, reason: str) -> str:
    return json.dumps({"score": score, "continue": proceed, "reason": reason})


@pytest.fixture(scope="module")
def room(home_assistant, ollama) -> tuple[str, str, RouterAndJudge]:
    """The overseer and the orchestrator of room Arena, made through the config flow once."""
    ha = home_assistant
    model = RouterAndJudge()
    ollama.responder = model
    overseer = configure_overseer(ha, "ollama", ollama.url, MODEL)
    orchestrator = configure_orchestrator(ha, ollama.url, MODEL, PARTICIPANTS)
    ha.wait_for(lambda: state(ha, SENSOR) == "idle", what="the orchestrator's pipeline sensor")
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    return overseer, orchestrator, model


def status(ha: HomeAssistantProcess, orchestrator: str) -> dict[str, Any]:
    """The orchestrator's status object (schema overseer.orchestrator)."""
    return ha.websocket({"type": "overseer/status", "entry_id": orchestrator})


def ask(ha: HomeAssistantProcess, room: tuple[str, str, RouterAndJudge], text: str) -> dict[str, Any]:
    """A human line in room Arena (the overseer's entry names the room); the status once its
    pipeline has finished and the pipeline sensor is back to idle."""
    overseer, orchestrator, _ = room
    before = len(status(ha, orchestrator)["recent"])
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": text, "config_entry_id": overseer}
    ).raise_for_status()

    def done() -> dict[str, Any] | None:
        shown = status(ha, orchestrator)
        return shown if len(shown["recent"]) > before and shown["running"] is None else None

    shown = ha.wait_for(done, timeout=60, interval=0.3, what=f"the pipeline for {text!r} to finish")
    ha.wait_for(lambda: state(ha, SENSOR) == "idle", what="the pipeline sensor back to idle")
    return shown


def test_a_question_is_routed_to_the_guide_answered_as_it_and_scored(home_assistant, ollama, room):
    ha = home_assistant
    model = room[2]
    model.routes.append(json.dumps({"agent_id": GUIDE}))
    model.scores.append(judge(0.9, False, "says where rover 2 is"))
    before = len(ollama.requests)
    ignored = status(ha, room[1])["ignored"]

    with Bus(ha, "overseer_chat_message", "overseer_pipeline") as bus:
        # The crowd's chatter names no bot and asks nothing: no pipeline, no model call.
        ha.post(
            "/api/services/overseer/post_message",
            {"user": "sam", "text": "go go go", "config_entry_id": room[0]},
        ).raise_for_status()
        shown = ask(ha, room, "where is rover 2?")

    assert bus.bot_lines() == [("Rover guide", "Rover 2 is on its dock, charging.")]
    [line] = bus.bot_events()
    [human] = [e["data"] for e in bus.events if e["data"].get("user") == "alex"]
    assert shown["ignored"] == ignored + 1 and len(shown["recent"]) == 1
    assert line["room"] == human["room"] == "arena"  # the room's key, as the overseer posts it
    assert bus.stages() == [("routed", GUIDE), ("answered", GUIDE), ("evaluated", GUIDE), ("finished", None)]
    done = shown["recent"][0]
    assert line["pipeline_id"] == done["pipeline_id"]
    assert done["route"] == [GUIDE] and done["finish_reason"] == "threshold"
    assert done["scores"] == [
        {"score": 0.9, "continue": False, "reason": "says where rover 2 is", "valid": True}
    ]
    assert done["model_calls"] == 2 and done["timings_ms"]["overhead"] >= 0
    # Two calls, the router's then the judge's; the overseer, taking part, decided nothing by itself.
    asked = ollama.requests[before:]
    assert [RouterAndJudge.kind(r) for r in asked] == ["router", "judge"]
    assert asked[0]["format"]["properties"]["agent_id"]["enum"] == [OVERSEER, GUIDE]
    assert "Rover guide. the rovers: where, who drives, charging" in asked[0]["messages"][0]["content"]
    assert state(ha, "input_text.overseer_said") == "Rover 2 is on its dock, charging."  # the demo's mirror


def test_a_low_score_is_refined_by_the_overseer_with_the_first_answer_as_context(
    home_assistant, ollama, room
):
    ha = home_assistant
    model = room[2]
    model.routes.append(json.dumps({"agent_id": GUIDE}))
    model.scores.append(judge(0.2, True, "only about the rovers"))
    before = len(ollama.requests)

    with Bus(ha, "overseer_chat_message", "overseer_pipeline") as bus:
        shown = ask(ha, room, "what does the lift do? and where is rover 2?")

    lines = bus.bot_lines()
    assert [user for user, _ in lines] == ["Rover guide", "Overseer"]
    assert lines[0][1] == "Rover 2 is on its dock, charging."
    # Posted once, by the overseer itself: the lift's fact first, then the model's words.
    assert lines[1][0] == "Overseer" and lines[1][1].startswith("Lift is closed.")
    assert lines[1][1].endswith(OVERSEER_LINE)
    assert bus.stages() == [
        ("routed", GUIDE),
        ("answered", GUIDE),
        ("evaluated", GUIDE),
        ("routed", OVERSEER),
        ("answered", OVERSEER),
        ("finished", None),
    ]
    done = shown["recent"][0]
    # Each bot answers a question once: after the overseer nobody is left, so it is not judged.
    assert done["route"] == [GUIDE, OVERSEER] and done["finish_reason"] == "no_candidates"
    assert [s["score"] for s in done["scores"]] == [0.2]
    # Two participants: the refinement can only go to the other one, so no second routing call.
    asked = ollama.requests[before:]
    assert [RouterAndJudge.kind(r) for r in asked] == ["router", "judge", None]
    assert done["model_calls"] == 2
    # The overseer was given the question and, quoted, the guide's answer.
    task = "\n".join(m["content"] for m in asked[2]["messages"][2:])
    assert "what does the lift do?" in task and "Rover 2 is on its dock, charging." in task
    assert state(ha, "input_text.overseer_said") == lines[1][1]
