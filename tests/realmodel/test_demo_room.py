"""The demo room as a newcomer meets it: the crowd on, the bundled model answering.

The demo integration (config/custom_components/overseer_demo) sets the overseer up exactly as
`scripts/develop` does, pointed at the bundled Qwen2.5-Coder-1.5B, but without the room's
orchestrator: this is the overseer answering the room by itself. Simulated time runs fast while
the overseer waits for nothing and at the real pace while the model thinks, so the crowd and the
rovers go on during every answer as they do in the demo. Someone asks the overseer something,
and asks the next half a minute later once it was answered. Asserted, as shares (never
timings): every question gets its own answer (a posted line, or the asked-for action), in
order; at least OWN_LINE_SHARE of them in the model's own sensible line (not the fallback, not
JSON or a call, not an echo of the prompt, not the question said back; the line that follows an
action counts); and UNPROMPTED_LINES lines of its own spoken unprompted. Printed: those shares,
the questions answered by the asked-for action alone, the tool calls' well-formed share and
refusals, the median latency, and the server's tokens/s and prompt-cache reuse where it reports
them; every decision's question, reply and outcome go to test-output/demo_room-decisions.jsonl.
`scripts/bench --model URL` runs this check against any model.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from freezegun.api import FrozenDateTimeFactory
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.overseer.const import Phase
from custom_components.overseer.core.context import after_calls_cue, closing_cue
from custom_components.overseer.core.gate import Trigger, TriggerKind
from custom_components.overseer.cycle import Cycle
from devtools.bundled_model import server_counters

from ..ha.harness import load_demo, status
from ..processes import OUTPUT
from .conftest import ModelEndpoint

REPO = Path(__file__).parents[2]
QUESTIONS = (
    "overseer, you there?",
    "overseer who is winning",
    "overseer raise the lift",
    "@overseer what do you think of rover 2",
    "overseer make the bench light blue",
    "overseer, say something to the crowd",
    "overseer is the vacuum running?",
    "overseer lower the lift please",
    "overseer, pick a side",
    "hey overseer, rate that last lap",
    "overseer what is the score",
    "overseer turn the corner light off",
)
# What a person asking these wants done: doing it answers them, line or not.
ASKED_FOR = {
    "overseer raise the lift": "lift_up",
    "overseer make the bench light blue": "ha_set_entity",
    "overseer lower the lift please": "lift_down",
    "overseer turn the corner light off": "ha_set_entity",
}
# Who asks them: a newcomer, not one of the demo's crowd (alex, sam, jo, kim), who address the
# overseer too and are answered in decisions of their own.
ASKER = "robin"
QUESTION_EVERY = 30.0
# And never before they read the answer, or, answered by an action alone, before the line that
# follows it had its time.
READ_ANSWER = 10.0
LINE_AFTER_ACTION = 60.0
# The overseer always answers whoever addresses it (the fallback line after a second try): a
# question still waiting after this long of simulated time is a hang, not a slow model.
NEVER_ANSWERED = 600.0
FIRST_QUESTION = 10.0
# Seconds of simulated time per step while the overseer waits for nothing, and of real time
# (simulated alongside) while the model thinks.
IDLE_STEP = 1.0
THINKING_STEP = 0.25
NAME = "Overseer"
# The goal, asserted: 0.8 of the questions answered in its own line and a line unprompted every
# run. Since 0.7.2 (opinions are answers, the demo reads only the people) Qwen2.5-Coder-1.5B on
# two cores answered 12 of 12 in its own line in each of its runs, and spoke unprompted 0-3
# times (0 once, before the demo stopped showing it its own lines to copy).
OWN_LINE_SHARE = 0.8
UNPROMPTED_LINES = 1
# What a line that is not the overseer's own words looks like: the prompt's blocks and tool
# signatures, a call written as text, an assistant's stock refusal.
NOT_OWN_WORDS = re.compile(
    r"available[ _]tools|blocked[ _]tools|STATE_UPDATE|\breason=|\bcooldowns?:|site_mode|"
    r"\b[a-z]+_[a-z_]+\b|<tool_call>|\{\s*\"|```|(can.t|unable to) assist|as an ai\b",
    re.IGNORECASE,
)
ECHO_WORDS = 5
# Every decision of the last run, asked and answered, one JSON object a line.
TRACE = OUTPUT / "demo_room-decisions.jsonl"


@dataclass(frozen=True)
class Line:
    """One line on the chat bus, at its simulated second."""

    at: float
    user: str
    text: str
    bot: bool
    decision_id: str | None


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def prompt_runs() -> set[tuple[str, ...]]:
    """Every run of ECHO_WORDS words in the system prompt and the closing cues: a line holding one
    repeats the prompt."""
    cues = [
        closing_cue(Trigger(TriggerKind.DIRECT_ADDRESS, 0.0, ASKER), NAME, can_act=True) or "",
        closing_cue(Trigger(TriggerKind.CHAT_BURST, 0.0, ASKER), NAME, can_act=True) or "",
        # After calls, the request asks for the line knowing their results.
        after_calls_cue(Trigger(TriggerKind.DIRECT_ADDRESS, 0.0, ASKER), NAME, ran=True),
        after_calls_cue(Trigger(TriggerKind.DIRECT_ADDRESS, 0.0, ASKER), NAME, ran=False),
    ]
    runs: set[tuple[str, ...]] = set()
    for text in [(REPO / "custom_components/overseer/prompts/system.md").read_text(), *cues]:
        said = words(text)
        runs |= {tuple(said[i : i + ECHO_WORDS]) for i in range(len(said) - ECHO_WORDS + 1)}
    # And each word of the cue to a question alone: a line of those words only, in any order, says
    # it back ("An opinion, an answer or a verdict.").
    runs |= {(word,) for word in words(cues[0].rpartition("\n")[2])}
    return runs


def own_words(text: str, fallback: re.Pattern[str], echoes: set[tuple[str, ...]]) -> bool:
    """A line in the overseer's own words: not the fallback, not JSON or a call, not the prompt again."""
    if fallback.fullmatch(text) or NOT_OWN_WORDS.search(text):
        return False
    said = words(text)
    if len(said) >= 3 and all((word,) in echoes for word in said):
        return False
    return bool(said) and not any(
        tuple(said[i : i + ECHO_WORDS]) in echoes for i in range(len(said) - ECHO_WORDS + 1)
    )


def repeats_question(text: str, question: str) -> bool:
    """The line only says the question back ("Alex: Who is winning?"), perhaps to whoever asked:
    its words in the question's order ("The vacuum is running." answers "is the vacuum running?")."""
    said = words(text)
    if said and text.partition(":")[1] and " " not in text.partition(":")[0].strip():
        said = words(text.partition(":")[2])  # the addressee's label is no word of the answer
    asked = iter(words(question))
    return bool(said) and all(word in asked for word in said)


def fallback_pattern() -> re.Pattern[str]:
    """The overseer's own sentences for an asker the model did not answer, as the translations give
    them: the fallback line, and what was tried and why."""
    phrases = json.loads((REPO / "custom_components/overseer/translations/en.json").read_text())["exceptions"]
    return re.compile(
        "|".join(
            ".*".join(map(re.escape, re.split(r"\{\w+\}", phrases[key]["message"])))
            for key in ("no_answer", "answer_refused")
        )
    )


async def set_up_demo(hass: HomeAssistant, model: ModelEndpoint, monkeypatch) -> None:
    """The demo room, its overseer pointed at the model, and the crowd on."""
    assert await async_setup_component(hass, "homeassistant", {})  # as in every real Home Assistant
    await load_demo(
        hass,
        monkeypatch,
        OVERSEER_DEMO_BACKEND=model.backend,
        OVERSEER_DEMO_URL=model.url,
        OVERSEER_DEMO_MODEL=model.name,
        # The overseer alone: with the demo's orchestrator, the router would hand some of these
        # questions to the Rover guide (test_real_model_end_to_end has the orchestrator).
        OVERSEER_DEMO_ORCHESTRATOR="0",
    )
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.demo_crowd"}, blocking=True)


async def test_the_demo_room_answers_every_question_with_the_bundled_model(
    hass: HomeAssistant,
    hass_ws_client,
    freezer: FrozenDateTimeFactory,
    model_server: ModelEndpoint,
    monkeypatch,
    capsys,
) -> None:
    await set_up_demo(hass, model_server, monkeypatch)
    counters_before = server_counters(model_server.metrics_url)
    clock = 0.0
    lines: list[Line] = []
    decisions: dict[str, dict] = {}
    # The tools each decision ran.
    executed: dict[str, list[str]] = {}
    calls: list[tuple[str, str | None]] = []

    @callback
    def heard(event: Event) -> None:
        data = event.data
        lines.append(Line(clock, data["user"], data["text"], data.get("bot", False), data.get("decision_id")))

    entry = hass.config_entries.async_entries("overseer")[0]
    traces: list[dict] = []

    # The question each decision answering someone answered, by asker and words (the crowd
    # addresses the overseer too; a question put back or followed up is answered again).
    questions: dict[str, tuple[str, str]] = {}

    @callback
    def decided(event: Event) -> None:
        decisions[event.data["decision_id"]] = dict(event.data)
        traces.append(decision := trace(entry.runtime_data.loop.last, clock))
        if decision.get("trigger") == "direct_address":
            questions[decision["decision_id"]] = (decision["asker"], decision["question"])

    @callback
    def acted(event: Event) -> None:
        calls.append((event.data["outcome"], event.data.get("reason")))
        if event.data["outcome"] == "executed":
            executed.setdefault(event.data["decision_id"], []).append(event.data["tool"])

    hass.bus.async_listen("overseer_chat_message", heard)
    hass.bus.async_listen("overseer_decision", decided)
    hass.bus.async_listen("overseer_action", acted)

    def phase() -> str:
        return hass.states.get("sensor.arena_loop_phase").state

    asked: list[float] = []

    def answers(question: str) -> tuple[list[str], list[str]]:
        """The lines posted and the tools run by the decisions answering the asker's question.

        Only those count: a line the crowd prompted, or an answer to a crowd member, is no answer.
        """
        ids = {decision_id for decision_id, asked in questions.items() if asked == (ASKER, question)}
        said = [line.text for line in lines if line.bot and line.user == NAME and line.decision_id in ids]
        return said, [tool for decision_id in ids for tool in executed.get(decision_id, [])]

    def answered(question: str) -> bool:
        said, ran = answers(question)
        return bool(said or ran)

    # When each question was first answered, and first answered in a line.
    answered_at: dict[str, float] = {}
    spoken_at: dict[str, float] = {}

    def heard_out(question: str) -> bool:
        """The asker read the answer, or, answered by an action alone, waited a while for the line
        that follows it (new words would take its place)."""
        said, ran = answers(question)
        if question not in answered_at and (said or ran):
            answered_at[question] = clock
        if question not in spoken_at and said:
            spoken_at[question] = clock
        if question in spoken_at:
            return clock >= spoken_at[question] + READ_ANSWER
        return question in answered_at and clock >= answered_at[question] + LINE_AFTER_ACTION

    def next_question_due() -> bool:
        """A person asks again half a minute after their last question, once they heard it out.

        A 1.5B model takes 10-30 s an answer, twice that when it is asked again.
        """
        if len(asked) == len(QUESTIONS):
            return False
        if not asked:
            return clock >= FIRST_QUESTION
        return heard_out(QUESTIONS[len(asked) - 1]) and clock >= asked[-1] + QUESTION_EVERY

    end = None
    last_heard_out = False
    try:
        while (
            end is None
            or clock < end
            or phase() not in (Phase.IDLE, Phase.POSTED)
            # The last question too has its time for the line after an action.
            or not last_heard_out
        ):
            if next_question_due():
                hass.bus.async_fire(
                    "overseer_chat_message", {"user": ASKER, "text": QUESTIONS[len(asked)], "bot": False}
                )
                asked.append(clock)
                if len(asked) == len(QUESTIONS):
                    # After the last question, time for the room to settle (a question asked again
                    # waits between its two decisions, idle: the loop holds on until it is answered).
                    end = clock + 2 * QUESTION_EVERY
            thinking = phase() in (Phase.AWAITING_MODEL, Phase.TOOL_EXEC)
            step = THINKING_STEP if thinking else IDLE_STEP
            # Real seconds pass only while the model thinks (the frozen clock also holds the
            # event loop's, so the wait is a thread's).
            await hass.async_add_executor_job(time.sleep, step if thinking else 0.01)
            clock += step
            # Stamped as it happens, like every other answer.
            last_heard_out = len(asked) == len(QUESTIONS) and heard_out(QUESTIONS[-1])
            freezer.tick(step)
            async_fire_time_changed(hass)
            settling = end is None or clock < end + NEVER_ANSWERED
            assert settling, "the room never settled after the last question"
            assert not asked or answered(QUESTIONS[len(asked) - 1]) or clock < asked[-1] + NEVER_ANSWERED, (
                f"never answered: {QUESTIONS[len(asked) - 1]!r}"
            )
    finally:
        # Also when the loop fails: the trace is what tells why.
        OUTPUT.mkdir(exist_ok=True)
        TRACE.write_text("".join(json.dumps(item) + "\n" for item in traces))

    own = [line for line in lines if line.bot and line.user == NAME]
    # Each question is answered by its own line (also one that followed the asked-for action),
    # else by the action it asked for.
    fallback, echoes = fallback_pattern(), prompt_runs()
    unanswered, by_model, by_action, echoed = [], 0, 0, []
    for question in QUESTIONS:
        said, ran = answers(question)
        if not said and not ran:
            unanswered.append(question)
            continue
        own_lines = [text for text in said if own_words(text, fallback, echoes)]
        echoed += [text for text in own_lines if repeats_question(text, question)]
        if any(not repeats_question(text, question) for text in own_lines):
            by_model += 1
        elif ASKED_FOR.get(question) in ran:
            by_action += 1

    unprompted = [
        line.text
        for line in own
        if line.decision_id not in questions and own_words(line.text, fallback, echoes)
    ]
    not_own = [line.text[:60] for line in own if not own_words(line.text, fallback, echoes)]
    malformed = sum(reason in MALFORMED for _, reason in calls)
    refused = sum(outcome == "blocked" and reason not in MALFORMED for outcome, reason in calls)
    metrics = (await status(await hass_ws_client(hass), entry.entry_id))["metrics"]
    stale = Counter(d["stale"] for d in decisions.values())
    median_s = statistics.median(d["latency_ms"] for d in decisions.values()) / 1000
    well_formed = 1 - malformed / len(calls) if calls else 1
    said = [line.text[:60] for line in own if own_words(line.text, fallback, echoes)]
    with capsys.disabled():
        print(
            f"\nDemo room, {model_server.name}, {clock / 60:.1f} simulated minutes: "
            f"{len(decisions)} decisions (median latency {median_s:.1f} s); "
            f"{len(QUESTIONS)} questions: {by_model} answered by the model's own line "
            f"({by_model / len(QUESTIONS):.0%}), {by_action} more by doing what was asked "
            f"({(by_model + by_action) / len(QUESTIONS):.0%} by the model itself), "
            f"the question said back {echoed}, "
            f"unanswered {len(unanswered)}; "
            f"unprompted lines {len(unprompted)}; tool calls {len(calls)}, well-formed "
            f"{well_formed:.0%}, refused by policy {refused}; "
            f"lines claiming an action that did not run, dropped {metrics['unbacked_claims']}; "
            f"{server_figures(counters_before, server_counters(model_server.metrics_url))}; "
            f"stale {stale[True]}/{len(decisions)} by reason {metrics['stale_by_reason']}; "
            f"the model's own lines: {said}; lines not its own: {not_own}"
        )
    assert not unanswered, f"asked and never answered: {unanswered}"
    assert by_model >= OWN_LINE_SHARE * len(QUESTIONS), (
        f"{by_model} of {len(QUESTIONS)} questions answered in the model's own words; "
        f"lines not its own: {not_own}"
    )
    assert len(unprompted) >= UNPROMPTED_LINES, "the overseer never spoke unprompted"


def trace(cycle: Cycle | None, at: float) -> dict:
    """What one decision was asked and answered, for whoever reads a run's misses."""
    if cycle is None:
        return {}
    reply, decision = cycle.reply, cycle.decision
    return {
        "at": at,
        "decision_id": cycle.decision_id,
        "trigger": cycle.trigger.kind.value,
        "asker": cycle.trigger.detail,
        "attempt": cycle.trigger.attempt,
        "question": cycle.trigger.question,
        "reply": reply.text if reply else None,
        "calls": [[call.name, call.arguments] for call in reply.tool_calls] if reply else [],
        "chat": decision.chat if decision else None,
        "notes": list(decision.notes) if decision else [],
        "actions": [[record.tool, record.outcome.value] for record in cycle.actions],
        "stale": cycle.stale_reason.value if cycle.stale_reason else None,
    }


# A call the registry could not take as written: a name it does not have, or arguments it refuses.
MALFORMED = frozenset({"invalid_arguments", "not_allowlisted"})


def server_figures(before: dict[str, float] | None, after: dict[str, float] | None) -> str:
    """Tokens per second and prompt-cache reuse over the run, from the server's own counters."""
    if before is None or after is None:
        return "tokens/s and cache reuse not reported by this server"
    spent = {name: after.get(name, 0) - before.get(name, 0) for name in after}
    processed, cached = spent.get("prompt_tokens_total", 0), spent.get("prompt_tokens_cached_total", 0)
    prompt_rate = processed / seconds if (seconds := spent.get("prompt_seconds_total")) else 0
    generated = spent.get("tokens_predicted_total", 0)
    generated_rate = generated / seconds if (seconds := spent.get("tokens_predicted_seconds_total")) else 0
    reuse = cached / (cached + processed) if cached + processed else 0
    return (
        f"prompt {prompt_rate:.0f} tokens/s, generated {generated_rate:.1f} tokens/s, "
        f"{reuse:.0%} of prompt tokens reused from the cache"
    )
