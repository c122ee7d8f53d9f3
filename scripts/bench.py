"""Benchmarks of the pure core: gate tick, context build, prompt size.

Run with scripts/bench. Prints medians over repeated runs; compare ratios, not absolutes,
since shared machines are noisy.
"""

from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "custom_components" / "overseer"))

from core.context import (
    ChatLine,
    TranscriptBounds,
    build_messages,
    render_state_update,
    select_transcript,
    summarise,
)
from core.gate import Gate, GateConfig
from core.policy import Ledger, Limits, availability
from core.world import Entity, Lift, Role, Rover, RoverField, World, world_event

PROMPT = (Path(__file__).resolve().parents[1] / "custom_components/overseer/prompts/system.md").read_text()
WATCHED = 200
NOW = 1_000_000.0


def room() -> World:
    """A room with 200 watched entities: rovers, lift, vacuum, lights and extras."""
    rovers = tuple(
        Rover(
            f"rover{r}",
            tuple(
                (field, Entity(f"sensor.rover{r}_{field.value}", field.value, state))
                for field, state in (
                    (RoverField.ACTIVITY, "driving"),
                    (RoverField.DRIVER, f"driver{r}"),
                    (RoverField.DOCKED, "off"),
                    (RoverField.CHARGING, "off"),
                )
            ),
        )
        for r in range(1, 4)
    )
    lights = tuple(Entity(f"light.l{i}", f"light {i}", "on", "purple") for i in range(6))
    used = 3 * 4 + 1 + 1 + len(lights)
    extras = tuple(Entity(f"sensor.extra{i}", f"extra sensor {i}", f"{i}.5") for i in range(WATCHED - used))
    return World(
        local_time="2026-05-02T22:14:10-04:00",
        rovers=rovers,
        lift=Lift(cover=Entity("cover.lift", "lift", "closed")),
        vacuum=Entity("vacuum.neato", "neato", "docked"),
        lights=lights,
        extras=extras,
        active_people=("alex", "sam"),
    )


def transcript(count: int) -> list[ChatLine]:
    """count chat lines one second apart, every sixth from the overseer."""
    return [
        ChatLine("Overseer", f"quip number {i}", True, NOW - count + i, own=True)
        if i % 6 == 5
        else ChatLine(f"user{i % 7}", f"message {i} about the rovers and the lift", False, NOW - count + i)
        for i in range(count)
    ]


def median_us(statement, number: int, repeat: int = 15) -> float:
    """Median microseconds per call over repeat runs of number calls."""
    runs = timeit.repeat(statement, number=number, repeat=repeat)
    return statistics.median(runs) / number * 1e6


def main() -> None:
    """Print the figures docs/development/figures.md quotes."""
    world = room()
    ledger = Ledger().after_execution("neato_start", NOW - 30, Limits())
    limits = Limits()
    bounds = TranscriptBounds()

    gate = Gate(GateConfig(min_gap=0), now=NOW)
    gate.observe_chat("alex", "hello", bot=False, now=NOW)
    tick_us = median_us(lambda: gate.tick(NOW + 1), number=20_000)

    def ingest_change() -> None:
        event = world_event(Role.ROVER, RoverField.DOCKED, "off", "on")
        if event:
            gate.observe_world(event, "rover1", NOW)

    ingest_us = median_us(ingest_change, number=20_000)
    address_us = median_us(lambda: gate.observe_chat("alex", "overseer raise the lift", False, NOW), 20_000)

    print(f"Overseer core bench ({WATCHED} watched entities; medians of 15 runs)")
    print(f"gate tick:                {tick_us:8.2f} µs   (target < 200 µs)")
    print(f"state change ingest:      {ingest_us:8.2f} µs   (~{1e6 / ingest_us:,.0f} changes/s)")
    print(f"chat line ingest:         {address_us:8.2f} µs")
    print()
    print(
        f"{'transcript':>12} {'context build':>15} {'prompt chars':>13} {'est. tokens':>12} {'messages':>9}"
    )
    results = {}
    for count in (10, 1_000, 100_000):
        lines = transcript(count)

        def build(lines=lines):
            chosen = select_transcript(lines, NOW, bounds)
            state = render_state_update(world, "chat_burst", ledger, limits, NOW)
            return build_messages(PROMPT, "Overseer", state, chosen, availability(world, ledger, limits, NOW))

        build_us = median_us(build, number=200)
        summary = summarise(build())
        results[count] = (build_us, summary.characters)
        print(
            f"{count:>12,} {build_us / 1000:>12.3f} ms {summary.characters:>13,} "
            f"{summary.estimated_tokens:>12,} {summary.messages:>9}"
        )
    time_ratio = results[100_000][0] / results[1_000][0]
    size_ratio = results[100_000][1] / results[1_000][1]
    print()
    print(f"100 000 vs 1 000 messages: time x{time_ratio:.2f}, size x{size_ratio:.2f} (target within 20%)")


if __name__ == "__main__":
    main()
