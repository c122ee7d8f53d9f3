"""The orchestrator's own cost, run by scripts/bench (never part of the test suite).

Pipelines through two or three instant scripted bots, the Ollama-protocol stub (on loopback) as
router and judge: model calls per question for 1, 2 and 3 participants, and the orchestrator's
own overhead per pipeline (its wall time less the time spent waiting for the model and the
bots). Prints medians; asserts nothing about time.
"""

from __future__ import annotations

import statistics

from tests.ha.agents import agent_flow, async_setup_agents  # noqa: F401 - a fixture
from tests.ha.fixtures import ollama_stub  # noqa: F401 - a fixture
from tests.ha.harness import say
from tests.ha.test_orchestrator import EXPERT, HELPER, PARTICIPANTS, judge, model, setup_orchestrator

PIPELINES = 60
THIRD = "conversation.judge_friend"


async def _pipelines(hass, stub, participants, scores) -> tuple[list[int], list[float]]:
    """PIPELINES questions; the model calls and the overhead (ms) of each."""
    entry = await setup_orchestrator(hass, stub, participants=participants)
    orchestrator = entry.runtime_data.orchestrator
    calls, overheads = [], []
    for index in range(PIPELINES):
        model(stub, ['{"agent_id": "conversation.helper"}'] * 3, list(scores))
        say(hass, "alex", f"question {index}?", room="Arena")
        await hass.async_block_till_done(wait_background_tasks=True)
        run = orchestrator.recent[0]
        calls.append(run.calls)
        overheads.append(run.overhead_ms)
    await hass.config_entries.async_remove(entry.entry_id)
    return calls, overheads


async def test_bench_orchestrator(hass, agent_flow, ollama_stub, capsys):  # noqa: F811 - fixtures
    bots = await async_setup_agents(hass, HELPER, EXPERT, THIRD)
    for bot in bots.values():
        bot.replies.extend(["an answer"] * (PIPELINES * 4))
    third = {"agent_id": THIRD, "name": "friend", "description": "a second opinion"}
    rows = []
    for label, scores in (("good at once", [judge(0.9)]), ("refined until the limit", [judge(0.1)] * 3)):
        for participants in (PARTICIPANTS[:1], PARTICIPANTS, [*PARTICIPANTS, third]):
            calls, overheads = await _pipelines(hass, ollama_stub, participants, scores)
            rows.append((label, len(participants), statistics.median(calls), statistics.median(overheads)))
    with capsys.disabled():
        print(f"\nOrchestrator, {PIPELINES} pipelines per row, instant bots, the model stub on loopback:")
        for label, count, calls, overhead in rows:
            print(
                f"  {label:<24} {count} participant(s): {calls:g} model calls, "
                f"overhead {overhead:.2f} ms median"
            )
