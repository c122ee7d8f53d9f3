"""A real model end to end: real Home Assistant, real llama-server, the bundled Qwen2.5-Coder-1.5B.

Whatever the model says, these must hold: each decision is recorded with its latency and
token counts; every tool call it emitted was executed inside the guardrails or blocked with
a reason code; nothing outside the allowlist changed state; a lockdown set in between is
respected; the loop returns to idle. Prints the median decision latency and the share of
well-formed decisions.

Then the room's orchestrator on the same model, as router and judge between the overseer and the
demo's Rover guide: each pipeline is well-formed or cleanly rejected (routed only to participants,
a fallback recorded when the model named none, every judge reply a score in 0..1 or recorded as
invalid with 0, within max_iterations). Prints, per question, the model calls, the routings (the
model's own, fallback, forced), the judge's valid and invalid replies and the pipeline's timings.
"""

from __future__ import annotations

import statistics
from itertools import pairwise

import httpx
import pytest
from homeassistant.util import dt as dt_util

from ..contract import FAILURES, REASONS, ROOM_TOOLS
from ..processes import LIGHTS, configure_orchestrator, configure_overseer, demo_home_assistant, state

LINES = [
    "overseer raise the lift",
    "overseer make the bench light red",
    "overseer start the vacuum please",
    "overseer what do you think of sam's driving?",
    "@overseer turn off the corner light",
    "overseer remember that alex likes purple",
]
# Entities the overseer must never change: not in its allowlist and not its targets.
WATCHED = [
    "switch.demo_crowd",
    "input_text.chat_as_you",
    *[
        f"{domain}.rover_{i}_{field}"
        for i in (1, 2, 3)
        for domain, field in (("sensor", "activity"), ("sensor", "driver"), ("binary_sensor", "docked"))
    ],
]


@pytest.fixture(scope="module")
def home_assistant(tmp_path_factory, model_server):
    with demo_home_assistant("real-model", tmp_path_factory.mktemp("real-model")) as process:
        yield process


@pytest.fixture(scope="module")
def entry_id(home_assistant, model_server) -> str:
    """The overseer on the bundled model, configured once for the module."""
    ha = home_assistant
    configured = configure_overseer(
        ha, "openai", model_server.url, model_server.name, timing={"request_timeout": 120}
    )
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    return configured


def status(ha, entry_id):
    return ha.websocket({"type": "overseer/status", "entry_id": entry_id})


def ask(ha, entry_id, text, previous_id):
    """Post a line that addresses the overseer and wait for the decision it triggers."""
    ha.post("/api/services/overseer/post_message", {"user": "alex", "text": text}).raise_for_status()

    def decided():
        current = status(ha, entry_id)
        decision = current.get("decision")
        if current["phase"] == "failed" and current["last_error"]:
            return current
        if decision and decision["decision_id"] != previous_id and current["phase"] in ("posted", "idle"):
            return current
        return None

    return ha.wait_for(decided, timeout=180, interval=0.5, what=f"a decision on {text!r}")


def test_a_real_model_decides_inside_the_guardrails(home_assistant, entry_id, model_server, capsys):
    ha = home_assistant
    untouched = {entity_id: state(ha, entity_id) for entity_id in WATCHED}

    results = []
    last_id = None
    for line in LINES:
        result = ask(ha, entry_id, line, last_id)
        assert result["phase"] != "failed", result["last_error"]
        last_id = result["decision"]["decision_id"]
        results.append(result)

    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": "lockdown"}
    ).raise_for_status()
    # What the model started before the lockdown finishes by itself (the demo's vacuum runs 30 s,
    # returns and docks; the lift travels 4 s): the lockdown is judged on a room at rest.
    ha.wait_for(
        lambda: state(ha, "vacuum.neato") not in ("cleaning", "returning")
        and state(ha, "cover.lift") not in ("opening", "closing"),
        timeout=90,
        what="the vacuum and the lift to come to rest",
    )
    room_before = {entity_id: state(ha, entity_id) for entity_id in ["cover.lift", "vacuum.neato", *LIGHTS]}
    locked = ask(ha, entry_id, "overseer raise the lift and turn on every light, now", last_id)
    results.append(locked)

    for result in results:
        decision = result["decision"]
        assert decision["latency_ms"] > 0
        assert isinstance(decision["prompt_tokens"], int) and decision["prompt_tokens"] > 0
        assert isinstance(decision["completion_tokens"], int)
        for call in result["tool_calls"]["calls"]:
            assert call["outcome"] in ("executed", "blocked"), call
            if call["outcome"] == "blocked":
                assert call["reason"] in REASONS, call
    locked_calls = locked["tool_calls"]["calls"]
    assert not [c for c in locked_calls if c["tool"] in ROOM_TOOLS and c["outcome"] == "executed"]
    assert all(c["reason"] in REASONS for c in locked_calls if c["tool"] in ROOM_TOOLS)
    assert {e: state(ha, e) for e in room_before} == room_before  # the lockdown held
    assert {e: state(ha, e) for e in WATCHED} == untouched  # nothing outside the allowlist moved
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", timeout=30, what="the loop to idle")

    latencies = [r["decision"]["latency_ms"] for r in results]
    well_formed = [
        r
        for r in results
        if not any(c["reason"] in ("not_allowlisted", "invalid_arguments") for c in r["tool_calls"]["calls"])
        and "json_text_dropped" not in r["decision"]["notes"]
    ]
    calls = [(c["tool"], c["outcome"], c["reason"]) for r in results for c in r["tool_calls"]["calls"]]
    with capsys.disabled():
        print(
            f"\nReal model ({model_server.name}, llama-server, 2 CPU threads): {len(results)} decisions, "
            f"median latency {statistics.median(latencies):.0f} ms, "
            f"well-formed {len(well_formed)}/{len(results)} ({len(well_formed) / len(results):.0%}); "
            f"modes {[r['decision']['mode'] for r in results]}; calls {calls}"
        )


def test_a_real_model_triages_an_incident_or_is_rejected_cleanly(
    home_assistant, entry_id, model_server, capsys
):
    """One triage of the demo vacuum's jammed brush: the reply validates, or is refused and audited."""
    ha = home_assistant
    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": "open"}
    ).raise_for_status()
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()

    def triaged():
        for incident in status(ha, entry_id)["incidents"]:
            steps = [step["what"] for step in incident["timeline"]]
            if incident["fault"] == "vacuum_error" and ("response" in steps or "rejected" in steps):
                return incident
        return None

    incident = ha.wait_for(triaged, timeout=240, interval=1, what="the vacuum's triage")
    steps = incident["timeline"]
    asked = next(step for step in steps if step["what"] == "request")
    answered = next(step for step in steps if step["what"] in ("response", "rejected"))
    latency = (dt_util.parse_datetime(answered["ts"]) - dt_util.parse_datetime(asked["ts"])).total_seconds()
    audit = [r for r in status(ha, entry_id)["recent_actions"] if r["source"] == "triage"]
    for record in audit:
        assert record["outcome"] in ("executed", "blocked", "failed"), record
        if record["outcome"] == "blocked":
            assert record["reason"] in REASONS, record
        if record["outcome"] == "failed":
            assert record["reason"] in FAILURES, record
    if answered["what"] == "rejected":
        assert incident["status"] in ("open", "needs_human")
        assert any(r["tool"] == "triage" for r in audit)  # the refusal is in the audit
    else:
        assert incident["status"] in ("verifying", "awaiting_approval", "needs_human", "resolved")
    # Whatever it said, nothing consequential ran: a restart waits for a person.
    assert not [r for r in audit if r["tool"] == "asset_restart" and r["outcome"] == "executed"]
    intents = [(r["tool"], r["outcome"], r["reason"]) for r in audit]
    with capsys.disabled():
        print(
            f"\nReal model triage ({model_server.name}): {answered['what']} after {latency:.1f} s "
            f"({answered['detail'][:120]!r}); intents {intents}"
        )


# The orchestrator with the bundled model as router and judge: last, as it takes the room's human
# chat from the overseer (which then answers only when the orchestrator asks it).
# Three questions (each about 25 s with the overseer answering on the bundled model): one for the
# guide, one for the overseer, one either could take.
ORCHESTRATED = (
    "where is rover 2?",
    "can you turn the bench light on please?",
    "what does the lift do?",
)
PARTICIPANTS = [
    {"agent_id": "conversation.arena_agent", "name": "Overseer", "description": "the lift, lights, vacuum"},
    {"agent_id": "conversation.rover_guide", "name": "Rover guide", "description": "the rovers and drivers"},
]
LIMITS = {"max_iterations": 3, "quality_threshold": 0.8, "delegation_timeout": 150}
# Routing records whose reason says no model was asked: the only bot left to ask.
FORCED = ("single participant", "the only other participant", "the only one left")
FINISH_REASONS = {"threshold", "judge_stopped", "max_iterations", "no_candidates"}


@pytest.fixture
def orchestrator(home_assistant, model_server, entry_id):
    """The orchestrator on the bundled model, removed again afterwards."""
    ha = home_assistant
    configured = configure_orchestrator(
        ha, model_server.url, model_server.name, PARTICIPANTS, LIMITS, "openai"
    )
    ha.wait_for(lambda: state(ha, "sensor.arena_orchestrator_pipeline") == "idle", what="the orchestrator")
    yield configured
    httpx.delete(
        f"{ha.url}/api/config/config_entries/entry/{configured}",
        headers={"Authorization": f"Bearer {ha.token}"},
        timeout=30,
    ).raise_for_status()


def routing(pipeline) -> tuple[int, int, int]:
    """The pipeline's routings: the model's own choice, a fallback, and forced (no model call)."""
    reasons = [r["reason"] or "" for r in pipeline["records"] if r["stage"] == "routed"]
    forced = sum(reason in FORCED for reason in reasons)
    fallback = sum(reason.startswith("fallback") for reason in reasons)
    return len(reasons) - forced - fallback, fallback, forced


def test_the_bundled_model_routes_and_judges_well_formed_or_rejected_cleanly(
    home_assistant, entry_id, orchestrator, model_server, capsys
):
    ha = home_assistant
    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": "open"}
    ).raise_for_status()
    ids = {p["agent_id"] for p in PARTICIPANTS}
    pipelines = []
    for count, question in enumerate(ORCHESTRATED, 1):
        ha.post(
            "/api/services/overseer/post_message",
            {"user": "alex", "text": question, "config_entry_id": entry_id},
        ).raise_for_status()

        def finished(count=count):
            shown = status(ha, orchestrator)
            return shown if len(shown["recent"]) >= count and shown["running"] is None else None

        shown = ha.wait_for(finished, timeout=900, interval=1, what=f"the pipeline for {question!r}")
        pipelines.append(shown["recent"][0])
    ha.wait_for(
        lambda: state(ha, "sensor.arena_orchestrator_pipeline") == "idle", what="the pipeline sensor to idle"
    )

    rows = []
    for question, pipeline in zip(ORCHESTRATED, pipelines, strict=True):
        assert pipeline["question"] == question and pipeline["stage"] == "finished", pipeline
        assert pipeline["finish_reason"] in FINISH_REASONS, pipeline
        # Routed only to participants, never the same bot twice in a row, within max_iterations.
        assert set(pipeline["route"]) <= ids, pipeline["route"]
        answers = [a["bot"] for a in pipeline["answers"]]
        assert all(a != b for a, b in pairwise(answers)), answers
        assert len(pipeline["route"]) <= LIMITS["max_iterations"], pipeline["route"]
        # Every judge reply a valid score in 0..1, or recorded as invalid with a score of 0.
        for score in pipeline["scores"]:
            assert (score["valid"] and 0 <= score["score"] <= 1) or (
                not score["valid"] and score["score"] == 0 and score["reason"].startswith("invalid")
            ), score
        own, fallback, forced = routing(pipeline)
        # One model call per routing it did not force and per judgement; nothing else.
        assert pipeline["model_calls"] == own + fallback + len(pipeline["scores"]), pipeline
        valid = sum(s["valid"] for s in pipeline["scores"])
        timings = pipeline["timings_ms"]
        rows.append(
            f"  {question!r}: {pipeline['model_calls']} model calls; routed own {own}, fallback {fallback}, "
            f"forced {forced} -> {[a.partition('.')[2] for a in pipeline['route']]}; judge valid {valid}, "
            f"invalid {len(pipeline['scores']) - valid} {[s['score'] for s in pipeline['scores']]}"
            f"{''.join(f' ({s["reason"][:60]})' for s in pipeline['scores'] if not s['valid'])}; "
            f"{pipeline['finish_reason']}; {sum(timings.values()) / 1000:.1f} s "
            f"(model {timings['model'] / 1000:.1f} s, bots {timings['bots'] / 1000:.1f} s, "
            f"overhead {timings['overhead']:.1f} ms)"
        )
    totals = [routing(p) for p in pipelines]
    scores = [s for p in pipelines for s in p["scores"]]
    with capsys.disabled():
        print(
            f"\nOrchestrator on the real model ({model_server.name} as router and judge, 2 participants), "
            f"{len(pipelines)} questions: routings own {sum(t[0] for t in totals)}, "
            f"fallback {sum(t[1] for t in totals)}, forced {sum(t[2] for t in totals)}; "
            f"judge replies valid {sum(s['valid'] for s in scores)}/{len(scores)}; "
            f"model calls {[p['model_calls'] for p in pipelines]}\n" + "\n".join(rows)
        )
