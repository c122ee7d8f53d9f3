"""The demo room as a newcomer meets it: the crowd on, the bundled model answering.

The demo integration (config/custom_components/overseer_demo) sets the overseer up exactly as
`scripts/develop` does, pointed at the real SmolLM2-135M, but without the room's orchestrator:
this is the overseer answering the room by itself. Simulated time runs fast while the
overseer waits for nothing and at the real pace while the model thinks, so the crowd and the
rovers go on during every answer as they do in the demo. Someone asks the overseer something
every half minute. Each question must get its own answer (a posted line, or the asked-for
action), in order, by the time the room settles. Printed: the share of questions answered by
the model's own line, how often the overseer spoke unprompted, the stale rate and why.

Not asserted: an unprompted line. The 135M model mostly echoes the prompt's last message
("blocked_tools: ...") once the transcript fills, which the chat rules rightly drop; it speaks
unprompted in few runs (see the README's figures).
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
from devtools.tiny_model import MODEL_ALIAS, TinyModelServer

from ..ha.harness import load_demo, status

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
QUESTION_EVERY = 30.0
FIRST_QUESTION = 10.0
# Seconds of simulated time per step while the overseer waits for nothing, and of real time
# (simulated alongside) while the model thinks.
IDLE_STEP = 1.0
THINKING_STEP = 0.25
NAME = "Overseer"


@dataclass(frozen=True)
class Line:
    """One line on the chat bus, at its simulated second."""

    at: float
    user: str
    text: str
    bot: bool
    decision_id: str | None


def fallback_pattern() -> re.Pattern[str]:
    """The built-in fallback line, whoever asked, as the translations give it."""
    translations = json.loads((REPO / "custom_components/overseer/translations/en.json").read_text())
    before, after = translations["exceptions"]["no_answer"]["message"].split("{user}")
    return re.compile(f"{re.escape(before)}.*{re.escape(after)}")


async def set_up_demo(hass: HomeAssistant, tiny_model: TinyModelServer, monkeypatch) -> None:
    """The demo room, its overseer pointed at the tiny model, and the crowd on."""
    assert await async_setup_component(hass, "homeassistant", {})  # as in every real Home Assistant
    await load_demo(
        hass,
        monkeypatch,
        OVERSEER_DEMO_BACKEND="openai",
        OVERSEER_DEMO_URL=tiny_model.url,
        OVERSEER_DEMO_MODEL=MODEL_ALIAS,
        # The overseer alone: with the demo's orchestrator, the router would hand some of these
        # questions to the Rover guide (test_real_model_end_to_end has the orchestrator).
        OVERSEER_DEMO_ORCHESTRATOR="0",
    )
    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.demo_crowd"}, blocking=True)


async def test_the_demo_room_answers_every_question_with_the_bundled_model(
    hass: HomeAssistant,
    hass_ws_client,
    freezer: FrozenDateTimeFactory,
    tiny_model: TinyModelServer,
    monkeypatch,
    capsys,
) -> None:
    await set_up_demo(hass, tiny_model, monkeypatch)
    clock = 0.0
    lines: list[Line] = []
    decisions: dict[str, dict] = {}
    executed: dict[str, float] = {}

    @callback
    def heard(event: Event) -> None:
        data = event.data
        lines.append(Line(clock, data["user"], data["text"], data.get("bot", False), data.get("decision_id")))

    @callback
    def decided(event: Event) -> None:
        decisions[event.data["decision_id"]] = dict(event.data)

    @callback
    def acted(event: Event) -> None:
        if event.data["outcome"] == "executed":
            executed.setdefault(event.data["decision_id"], clock)

    hass.bus.async_listen("overseer_chat_message", heard)
    hass.bus.async_listen("overseer_decision", decided)
    hass.bus.async_listen("overseer_action", acted)

    def phase() -> str:
        return hass.states.get("sensor.arena_loop_phase").state

    asked: list[float] = []
    # After the last question, time for it to be asked again and answered.
    end = FIRST_QUESTION + QUESTION_EVERY * len(QUESTIONS) + QUESTION_EVERY
    while clock < end or phase() not in (Phase.IDLE, Phase.POSTED):
        if len(asked) < len(QUESTIONS) and clock >= FIRST_QUESTION + QUESTION_EVERY * len(asked):
            hass.bus.async_fire(
                "overseer_chat_message", {"user": "alex", "text": QUESTIONS[len(asked)], "bot": False}
            )
            asked.append(clock)
        thinking = phase() in (Phase.AWAITING_MODEL, Phase.TOOL_EXEC)
        step = THINKING_STEP if thinking else IDLE_STEP
        # Real seconds pass only while the model thinks (the frozen clock also holds the
        # event loop's, so the wait is a thread's).
        await hass.async_add_executor_job(time.sleep, step if thinking else 0.01)
        clock += step
        freezer.tick(step)
        async_fire_time_changed(hass)
        assert clock < end + 600, "the overseer never settled after the last question"

    own = [line for line in lines if line.bot and line.user == NAME]
    # Each decision for a direct address that answered (a line, or the asked-for action), once,
    # in order; each question takes the first answer not yet taken that came after it.
    fallback = fallback_pattern()
    answers: dict[str, tuple[float, bool]] = {}
    for line in own:
        if decisions.get(line.decision_id, {}).get("trigger") == "direct_address":
            answers.setdefault(line.decision_id, (line.at, not fallback.fullmatch(line.text)))
    model_lines = [line.text[:50] for line in own if not fallback.fullmatch(line.text)]
    for decision_id, at in executed.items():
        if decisions.get(decision_id, {}).get("trigger") == "direct_address":
            answers.setdefault(decision_id, (at, False))
    pending = sorted(answers.values())
    unanswered, by_model = [], 0
    for question, at in zip(QUESTIONS, asked, strict=True):
        taken = next((answer for answer in pending if answer[0] >= at), None)
        if taken is None:
            unanswered.append(question)
            continue
        pending.remove(taken)
        by_model += taken[1]

    unsolicited = [
        line for line in own if decisions.get(line.decision_id, {}).get("trigger") != "direct_address"
    ]
    entry = hass.config_entries.async_entries("overseer")[0]
    metrics = (await status(await hass_ws_client(hass), entry.entry_id))["metrics"]
    stale = Counter(d["stale"] for d in decisions.values())
    with capsys.disabled():
        print(
            f"\nDemo room, bundled model, {clock / 60:.1f} simulated minutes: {len(decisions)} decisions "
            f"(median latency {statistics.median(d['latency_ms'] for d in decisions.values()):.0f} ms), "
            f"{len(QUESTIONS)} questions: {by_model} answered by the model's own line "
            f"({by_model / len(QUESTIONS):.0%}), unanswered {len(unanswered)}; "
            f"overseer lines {len(own)}, unsolicited {len(unsolicited)}; "
            f"stale {stale[True]}/{len(decisions)} ({stale[True] / len(decisions):.0%}) "
            f"by reason {metrics['stale_by_reason']}; addressed {metrics['addressed']}; "
            f"the model's lines: {model_lines}"
        )
    assert not unanswered, f"asked and never answered: {unanswered}"
