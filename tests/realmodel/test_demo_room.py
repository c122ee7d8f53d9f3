"""The demo a newcomer meets, measured: `scripts/develop`'s room in a real Home Assistant process.

As scripts/develop ships it: the demo integration sets up the overseer and the room's
orchestrator with the Rover guide on the bundled model, and the "Demo crowd" switch is turned
on, as a newcomer would. A newcomer (robin) posts questions on the chat bus, the next once the
last was answered; they are drawn, by a printed seed, from the held-out part of the question
bank (tests/realmodel/demo_questions.py; prompts and rules are tuned on its other part). The
judge (demo_judge.py) reads the devices' states itself and matches lines to questions by their
pipeline.

Asserted per run, what the design guarantees: every question answered; no wrong action
(another device moved, or the opposite of what was asked); no line the room contradicts (its
facts read against the states, its words by the judge's table) and no model words naming a
device; no invented answer to what the room cannot see; no bot answering one question twice
(or the fallback and a line); no help-desk stock line; the overseer heard unprompted at least
once in every UNPROMPTED_EVERY seconds of the busy room. Printed, and asserted only with
OVERSEER_DEMO_GOALS=1 (the shares a small model's luck moves): at least ACTIONS_DONE of the
action requests no guardrail blocked end with the action done; at least OWN_LINE_SHARE answered
with the model's own words posted, in the asker's language. Printed too: the share of the
model's lines posted and why the others were held back, the share of lines in the seed's
voice, each question's wait in the orchestrator's queue and its time to the first accepted
line, the decisions' median latency and the model server's rates and cache reuse. Every event
of the run goes to test-output/demo_room-run.jsonl.

OVERSEER_DEMO_SEED fixes the draw (else the run's time picks it); OVERSEER_DEMO_QUESTIONS the
number drawn (12); OVERSEER_DEMO_PART=tuning draws from the tuning part, for tuning.
`scripts/bench --model URL` runs this check against any model.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from devtools.bundled_model import server_counters
from devtools.hass_process import HomeAssistantProcess, prepare_config

from ..processes import OUTPUT, Bus
from .conftest import ModelEndpoint
from .demo_judge import LIFT, LIGHTS, VACUUM, Asked, Call, Line, Reading, Room, Verdict, judge
from .demo_questions import (
    HELD_OUT,
    TUNING,
    Kind,
    Question,
    Want,
    draw,
    in_seed_voice,
    spoken_language,
    stock_phrase,
)

REPO = Path(__file__).parents[2]
ASKER = "robin"
OVERSEER, GUIDE = "Overseer", "Rover guide"
ORCHESTRATOR_ENTRY = "overseer_demo_arena_orchestrator"
OVERSEER_ENTRY = "overseer_demo_arena"
DEVICES = (LIFT, VACUUM, *LIGHTS)
# A newcomer reads the answer, then asks the next; never sooner than this after the last question.
READ_ANSWER = 10.0
QUESTION_EVERY = 45.0
# Still unanswered after this long (queue included), a question is a hang, not a slow model.
NEVER_ANSWERED = 600.0
SETTLE = 120.0
# The goals, asserted.
OWN_LINE_SHARE = 0.8
ACTIONS_DONE = 2 / 3
UNPROMPTED_EVERY = 600.0
# The crowd's lines that ask for something, and what (overseer_demo/__init__.py CROWD_LINES).
CROWD_WANTS = {"overseer, raise the lift!": (Want(LIFT, "open"),)}
TRACE = OUTPUT / "demo_room-run.jsonl"


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


@pytest.fixture(scope="module")
def demo(tmp_path_factory, model_server: ModelEndpoint) -> Iterator[HomeAssistantProcess]:
    """The demo as scripts/develop starts it, on the bundled model (or the one scripts/bench names)."""
    folder = tmp_path_factory.mktemp("demo")
    process = HomeAssistantProcess(
        prepare_config(folder / "config"),
        env={
            "OVERSEER_DEMO_BACKEND": model_server.backend,
            "OVERSEER_DEMO_URL": model_server.url,
            "OVERSEER_DEMO_MODEL": model_server.name,
        },
    )
    try:
        process.start()
        process.login()
        process.wait_for(
            lambda: (process.state("sensor.arena_loop_phase") or {}).get("state") == "idle",
            timeout=120,
            what="the overseer",
        )
        process.wait_for(
            lambda: process.state("sensor.arena_orchestrator_pipeline") is not None,
            timeout=60,
            what="the orchestrator",
        )
        yield process
    finally:
        process.stop()
        OUTPUT.mkdir(exist_ok=True)
        (OUTPUT / "demo_room-home-assistant.log").write_text(process.log_tail(2000))


# The overseer's own sentences, said where the model gave no usable line: none is the model's.
OWN_SENTENCES = (
    "no_answer",
    "answer_refused",
    "answer_blocked",
    "answer_state",
    "reply_executed",
    "reply_dry_run",
    "reply_refused",
    "reply_awaiting_approval",
)


def fallback_pattern() -> re.Pattern[str]:
    """The overseer's own sentences for an asker the model did not answer, as the translations give them.

    One line may hold several ("Done: raise the lift. Done: start the vacuum.").
    """
    found = []
    for language in ("en", "es"):
        phrases = json.loads((REPO / f"custom_components/overseer/translations/{language}.json").read_text())
        found += [
            ".*".join(map(re.escape, re.split(r"\{\w+\}", phrases["exceptions"][key]["message"])))
            for key in OWN_SENTENCES
        ]
    return re.compile(f"(?:{'|'.join(found)})(?: (?:{'|'.join(found)}))*")


def the_draw() -> tuple[int, list[Question], str]:
    seed = int(os.environ.get("OVERSEER_DEMO_SEED") or time.time() % 100_000)
    part_name = os.environ.get("OVERSEER_DEMO_PART", "held_out")
    part = TUNING if part_name == "tuning" else HELD_OUT
    return seed, draw(part, int(os.environ.get("OVERSEER_DEMO_QUESTIONS", "12")), seed), part_name


class Watch:
    """The run as the judge sees it: lines, pipelines, decisions and the devices' readings."""

    def __init__(self, ha: HomeAssistantProcess, bus: Bus, began: float) -> None:
        self.ha, self.bus, self.began = ha, bus, began
        self.room = Room()
        for entity_id in DEVICES:
            found = ha.state(entity_id)
            if found:
                self.room.add(entity_id, Reading(0.0, found["state"], found["attributes"]))
        self.read = 0
        self.lines: list[Line] = []
        self.stages: dict[str, list[tuple[float, str]]] = {}
        self.decisions: dict[str, dict[str, Any]] = {}
        self.calls: list[Call] = []
        # Pipelines by id: their question and asker, and when the status first showed them running.
        self.pipelines: dict[str, dict[str, Any]] = {}
        # Each cooldown sensor as it changed: (when, until when its group cools down).
        self.cooldowns: dict[str, list[tuple[float, float]]] = {}
        for sensor in set(COOLDOWN_OF.values()):
            self.cool(sensor, 0.0, (ha.state(sensor) or {}).get("state", ""))
        budget = ha.websocket({"type": "overseer/status", "entry_id": OVERSEER_ENTRY})["budget"]
        self.budget: tuple[int, float] = (budget["limit"], budget["window_s"])

    def now(self) -> float:
        return time.time() - self.began

    def cool(self, sensor: str, at: float, state: str) -> None:
        """Note a cooldown sensor's state: the time its group is ready again (else ready now)."""
        ready = datetime.fromisoformat(state).timestamp() - self.began if state[:1].isdigit() else at
        self.cooldowns.setdefault(sensor, []).append((at, ready))

    def take(self) -> None:
        """Read what the bus heard since the last look, and the orchestrator's pipelines."""
        events = self.bus.events[self.read :]
        self.read += len(events)
        for event in events:
            at = seconds(event["time_fired"]) - self.began
            data, kind = event["data"], event["event_type"]
            if kind == "state_changed" and data["entity_id"] in DEVICES and data.get("new_state"):
                new = data["new_state"]
                self.room.add(data["entity_id"], Reading(at, new["state"], new["attributes"]))
            elif (
                kind == "state_changed"
                and data["entity_id"] in COOLDOWN_OF.values()
                and data.get("new_state")
            ):
                self.cool(data["entity_id"], at, data["new_state"]["state"])
            elif kind == "overseer_chat_message":
                self.lines.append(
                    Line(
                        at,
                        data["user"],
                        data["text"],
                        data.get("bot", False),
                        data.get("decision_id"),
                        data.get("pipeline_id"),
                        tuple(data.get("facts") or ()),
                        data.get("quip") or "",
                    )
                )
            elif kind == "overseer_pipeline":
                self.stages.setdefault(data["pipeline_id"], []).append((at, data["stage"]))
            elif kind == "overseer_decision":
                self.decisions[data["decision_id"]] = {**data, "at": at}
            elif kind == "overseer_action":
                self.calls.append(
                    Call(at, data["decision_id"], data["tool"], data["outcome"], data.get("reason"))
                )
        shown = self.ha.websocket({"type": "overseer/status", "entry_id": ORCHESTRATOR_ENTRY})
        for run in [shown["running"], *shown["recent"]] if shown["running"] else shown["recent"]:
            seen = self.pipelines.setdefault(
                run["pipeline_id"], {"question": run["question"], "asker": run["asker"], "seen": self.now()}
            )
            seen["stage"] = run["stage"]
            seen["route"] = run["route"]

    def pipeline_of(self, asked: Asked) -> str | None:
        """The pipeline of a question: its words, perhaps folded into a line queued before it."""
        for pipeline_id, seen in self.pipelines.items():
            if asked.question.text in seen["question"] and seen["seen"] >= asked.at - 1:
                return pipeline_id
        return None

    def finished(self, pipeline_id: str) -> float | None:
        return next((at for at, stage in self.stages.get(pipeline_id, []) if stage == "finished"), None)

    def asked_at(self, pipeline_id: str) -> Asked:
        """An Asked for a pipeline the check did not ask (the crowd's): its question and its window."""
        seen = self.pipelines[pipeline_id]
        wants = tuple(
            want for line, wanted in CROWD_WANTS.items() if line in seen["question"] for want in wanted
        )
        question = Question(seen["question"], "en", Kind.OPINION, wants)
        asked = Asked(question, seen["seen"], pipeline_id)
        self.fill(asked)
        return asked

    def fill(self, asked: Asked) -> None:
        stages = self.stages.get(asked.pipeline_id or "", [])
        asked.routed_at = self.pipelines.get(asked.pipeline_id or "", {}).get("seen")
        asked.finished_at = next((at for at, stage in stages if stage == "finished"), None)
        asked.route = tuple(self.pipelines.get(asked.pipeline_id or "", {}).get("route", ()))


def test_the_demo_as_a_newcomer_meets_it(
    demo: HomeAssistantProcess, model_server: ModelEndpoint, capsys
) -> None:
    ha = demo
    seed, questions, part = the_draw()
    counters_before = server_counters(model_server.metrics_url)
    fallback = fallback_pattern()
    asked: list[Asked] = []
    types = (
        "overseer_chat_message",
        "overseer_pipeline",
        "overseer_decision",
        "overseer_action",
        "state_changed",
    )
    with Bus(ha, *types) as bus:
        watch = Watch(ha, bus, time.time())
        ha.post("/api/services/switch/turn_on", {"entity_id": "switch.demo_crowd"}).raise_for_status()
        crowd_on = watch.now()
        try:
            for question in questions:
                if asked:
                    last = asked[-1]
                    while watch.now() < max(last.at + QUESTION_EVERY, (last.finished_at or 0) + READ_ANSWER):
                        time.sleep(1)
                        watch.take()
                ha.post(
                    "/api/events/overseer_chat_message", {"user": ASKER, "text": question.text, "bot": False}
                ).raise_for_status()
                current = Asked(question, watch.now())
                asked.append(current)
                while watch.now() < current.at + NEVER_ANSWERED:
                    time.sleep(1)
                    watch.take()
                    current.pipeline_id = current.pipeline_id or watch.pipeline_of(current)
                    if current.pipeline_id and (done := watch.finished(current.pipeline_id)) is not None:
                        current.finished_at = done
                        break
                else:
                    break  # a hang: the questions after it would only wait behind it
            settle_until = watch.now() + SETTLE
            while watch.now() < settle_until:
                time.sleep(2)
                watch.take()
                shown = ha.websocket({"type": "overseer/status", "entry_id": ORCHESTRATOR_ENTRY})
                if shown["running"] is None and not shown["queued"]:
                    break
            ended = watch.now()
        finally:
            OUTPUT.mkdir(exist_ok=True)
            TRACE.write_text("".join(json.dumps(event) + "\n" for event in bus.events))

    def is_fallback(text: str) -> bool:
        return bool(fallback.fullmatch(text))

    for item in asked:
        watch.fill(item)
    moves = watch.room.moves(watch.calls)

    def judged(item: Asked) -> Verdict:
        return judge(
            item,
            watch.lines,
            watch.room,
            moves,
            is_fallback,
            stock_phrase,
            spoken_language,
            frozenset({GUIDE}),
        )

    verdicts = [judged(item) for item in asked]
    ours = {item.pipeline_id for item in asked}
    crowd = [
        judged(watch.asked_at(pipeline_id)) for pipeline_id in watch.pipelines if pipeline_id not in ours
    ]
    every = verdicts + crowd
    # Every move is some call's: a device that moved with no call before it moved behind the audit.
    unexplained = [str(move) for move in moves if move.decision_id is None and not move.by_itself]
    answering = {line.decision_id for line in watch.lines if line.pipeline_id}
    # Moves of the overseer's own moments, which no one asked for (printed).
    unasked = [str(move) for move in moves if move.decision_id and move.decision_id not in answering]
    # The overseer's lines no one's question asked for: its heartbeat's and the world's moments.
    unprompted = [
        line
        for line in watch.lines
        if line.bot
        and line.user == OVERSEER
        and not line.pipeline_id
        and watch.decisions.get(line.decision_id or "", {}).get("trigger") != "direct_address"
    ]
    moments = [crowd_on, *(line.at for line in unprompted), ended]
    longest_quiet = max(b - a for a, b in itertools.pairwise(moments))
    actions = [v for v in verdicts if v.done is not None and not blocked(v, watch)]
    done = sum(bool(v.done) for v in actions)
    own = sum(v.own_line and v.right_language for v in verdicts)
    overseer_lines = [line for line in watch.lines if line.bot and line.user == OVERSEER]
    voiced = sum(in_seed_voice(line.text) for line in overseer_lines)
    rates = server_rates(counters_before, server_counters(model_server.metrics_url))
    report = [
        f"\nDemo check ({part} part, seed {seed}, {len(questions)} questions, {model_server.name}, "
        f"{ended / 60:.1f} min, crowd on): {own}/{len(verdicts)} answered in a line of their own in the "
        f"asker's language ({own / len(verdicts):.0%}); actions done {done}/{len(actions)}; "
        f"wrong actions {sum(len(v.wrong_actions) for v in every)}; false lines "
        f"{sum(len(v.false_lines) for v in every)}; double answers {sum(len(v.doubles) for v in every)}; "
        f"stock lines {sum(len(v.stock) for v in every)}; unprompted overseer lines {len(unprompted)} "
        f"(longest quiet {longest_quiet:.0f} s); in the seed's voice {voiced}/{len(overseer_lines)}; "
        f"invented answers {sum(len(v.inventions) for v in verdicts)}; {len(crowd)} crowd pipelines; "
        f"{quip_figures(list(watch.decisions.values()))}; "
        f"{cost_figures(rates, list(watch.decisions.values()))}"
    ]
    for verdict in verdicts:
        report.append(row(verdict, watch, rates))
    report.append(f"Moves of the overseer's own moments: {unasked}")
    report.append("Unprompted: " + " | ".join(f"{line.at:.0f}s {line.text[:60]!r}" for line in unprompted))
    report.append(
        "Crowd: "
        + " | ".join(
            f"{v.asked.question.text[:30]!r} -> {[line.text[:50] for line in v.answers]}"
            for v in crowd
            if v.wrong_actions or v.false_lines or v.doubles
        )
    )
    with capsys.disabled():
        print("\n".join(report))

    problems = {
        "unanswered": [
            v.asked.question.text for v in verdicts if v.asked.finished_at is None or not v.answers
        ],
        "invented answers": [(v.asked.question.text, v.inventions) for v in verdicts if v.inventions],
        "wrong actions": [(v.asked.question.text, v.wrong_actions) for v in every if v.wrong_actions],
        "moves no call explains": unexplained,
        "false lines": [(v.asked.question.text, v.false_lines) for v in every if v.false_lines],
        "double answers": [(v.asked.question.text, v.doubles) for v in every if v.doubles],
        "stock lines": [(v.asked.question.text, v.stock) for v in every if v.stock],
    }
    # What the design guarantees is asserted on every draw; the shares a small model's luck moves
    # are printed, and asserted only where the goals are checked (OVERSEER_DEMO_GOALS=1).
    assert not any(problems.values()), {key: value for key, value in problems.items() if value}
    if os.environ.get("OVERSEER_DEMO_GOALS") == "1":
        assert not actions or done >= ACTIONS_DONE * len(actions), f"actions done {done} of {len(actions)}"
        assert own >= OWN_LINE_SHARE * len(verdicts), f"{own} of {len(verdicts)} answered in their own line"
    assert longest_quiet <= UNPROMPTED_EVERY, (
        f"the overseer was quiet for {longest_quiet:.0f} s of a busy room"
    )


# The overseer's cooldown sensor for each device's group (the demo's entry: sensor.arena_*_cooldown).
COOLDOWN_OF = {
    LIFT: "sensor.arena_lift_cooldown",
    VACUUM: "sensor.arena_vacuum_cooldown",
    **dict.fromkeys(LIGHTS, "sensor.arena_lights_cooldown"),
}
# What a guardrail refuses whatever the model does: a cooldown, a lock, the budget, a person's approval.
GUARDRAILS = re.compile(r"cooldown|busy|rate_limit|policy_lock:.*|needs_approval")


def quip_figures(decisions: list[dict[str, Any]]) -> str:
    """The share of the model's lines posted after the facts, and why the others were held back."""
    written = [decision for decision in decisions if decision.get("quip")]
    posted = sum(decision["quip"] == "posted" for decision in written)
    why = Counter(reason for decision in written for reason in decision.get("quip_dropped") or ())
    share = f"{posted}/{len(written)} ({posted / len(written):.0%})" if written else "0/0"
    return f"model lines posted {share}, sentences held back {dict(why)}"


def blocked(verdict: Verdict, watch: Watch) -> bool:
    """A guardrail held the asked-for act back: the persona may say so instead.

    A call of a decision answering it was refused by one; or, when such a decision began, the
    room showed one: the device's cooldown sensor in the future, or the overseer's action budget
    spent (its executed and failed calls in the window, the limit and window its status shows).
    Shown the call as blocked, the model calls nothing, so no refusal is on the bus.
    """
    decisions = {line.decision_id for line in verdict.answers if line.decision_id}
    if any(
        call.decision_id in decisions
        and call.outcome == "blocked"
        and GUARDRAILS.fullmatch(call.reason or "")
        for call in watch.calls
    ):
        return True
    limit, window = watch.budget
    for decision_id in decisions:
        decision = watch.decisions.get(decision_id)
        if decision is None:
            continue
        began = decision["at"] - decision["latency_ms"] / 1000
        spent = [
            c for c in watch.calls if c.outcome in ("executed", "failed") and began - window < c.at < began
        ]
        if len(spent) >= limit:
            return True
        for want in verdict.asked.question.wants:
            shown = [
                ready for at, ready in watch.cooldowns.get(COOLDOWN_OF[want.entity_id], []) if at <= began
            ]
            if shown and shown[-1] > began:
                return True
    return False


def row(verdict: Verdict, watch: Watch, rates: Rates | None) -> str:
    """One question's line in the report: its wait in the queue, and to the first line it accepts.

    The clock stops at the first accepted line (the fallback, a false or stock line and the
    guide's scripted one do not stop it), printed beside the floor of the decisions that
    answered: their new prompt and generated tokens at the server's rates.
    """
    asked = verdict.asked
    waited = (asked.routed_at - asked.at) if asked.routed_at is not None else None
    first = next((line.at - asked.at for line in verdict.accepted), None)
    answering = dict.fromkeys(line.decision_id for line in verdict.answers if line.decision_id)
    floors = [
        rates.floor(watch.decisions[decision_id])
        for decision_id in answering
        if rates is not None and decision_id in watch.decisions
    ]
    floor = f"{sum(f for f in floors if f is not None):.0f} s" if floors else "?"
    marks = [
        "action done" if verdict.done else "action NOT done" if verdict.done is False else "",
        "" if verdict.own_line else "no own line",
        "" if verdict.right_language else "wrong language",
        *verdict.wrong_actions,
        *verdict.false_lines,
        *verdict.doubles,
        *verdict.inventions,
        *verdict.stock,
    ]
    return (
        f"  [{asked.question.language} {asked.question.kind.name.lower()}] {asked.question.text!r}: "
        f"queue {waited if waited is None else round(waited)} s, first accepted line "
        f"{first if first is None else round(first)} s (floor of its decisions {floor}), "
        f"route {list(asked.route)}; "
        f"{[f'{line.user}: {line.text[:70]}' for line in verdict.answers]} {[m for m in marks if m]}"
    )


@dataclass(frozen=True)
class Rates:
    """The model server over the run, from its own counters: tokens per second and cache reuse."""

    prompt: float
    generated: float
    reused: float

    def floor(self, decision: dict[str, Any]) -> float | None:
        """The least a decision could take here: its new prompt and generated tokens at these rates."""
        if "new_tokens" not in decision or not self.prompt or not self.generated:
            return None
        return decision["new_tokens"] / self.prompt + decision["completion_tokens"] / self.generated


def server_rates(before: dict[str, float] | None, after: dict[str, float] | None) -> Rates | None:
    """The server's rates over the run; None from a server that keeps no counters."""
    if before is None or after is None:
        return None
    spent = {name: after.get(name, 0) - before.get(name, 0) for name in after}
    processed, cached = spent.get("prompt_tokens_total", 0), spent.get("prompt_tokens_cached_total", 0)
    prompt_rate = processed / spent_s if (spent_s := spent.get("prompt_seconds_total")) else 0
    generated = spent.get("tokens_predicted_total", 0)
    generated_rate = generated / spent_s if (spent_s := spent.get("tokens_predicted_seconds_total")) else 0
    return Rates(prompt_rate, generated_rate, cached / (cached + processed) if cached + processed else 0)


def cost_figures(rates: Rates | None, decisions: list[dict[str, Any]]) -> str:
    """The overseer's decisions against the floor this machine allows, and the server's rates."""
    latencies = [d["latency_ms"] / 1000 for d in decisions]
    median = statistics.median(latencies) if latencies else 0
    if rates is None:
        return f"decisions {len(decisions)}, median {median:.1f} s (the server reports no rates)"
    floors = [floor for d in decisions if (floor := rates.floor(d)) is not None]
    prompt = [d["prompt_tokens"] for d in decisions if "prompt_tokens" in d]
    new = [d["new_tokens"] for d in decisions if "new_tokens" in d]
    return (
        f"decisions {len(decisions)}, median {median:.1f} s against a floor of "
        f"{statistics.median(floors) if floors else 0:.1f} s (its new prompt tokens at "
        f"{rates.prompt:.0f} tokens/s and generated ones at {rates.generated:.1f} tokens/s); median "
        f"prompt {statistics.median(prompt) if prompt else 0:.0f} tokens, "
        f"{statistics.median(new) if new else 0:.0f} of them new; server-wide "
        f"{rates.reused:.0%} of prompt tokens reused from the cache"
    )
