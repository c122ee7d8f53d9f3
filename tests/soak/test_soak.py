"""One simulated hour of a busy room in fast time (after a half-hour warm-up).

Reports LLM calls per hour against a naive agent called on every message, the direct-address
response rate (must be 100%), the memory the overseer holds from the first to the last ten
minutes (must stay flat) and executions beyond the budget (must be zero).
"""

from __future__ import annotations

import random
import sys
from collections import deque
from dataclasses import fields, is_dataclass
from typing import Any

from homeassistant.core import callback

from ..ha.harness import OPTIONS, setup_overseer, tick
from ..ollama_stub import Scripted, call
from .crowd import ANSWERS, CHATTER, PEOPLE

# Long enough for every bounded buffer to reach its cap (the audit log's 200 records take the
# longest): from then on, what the overseer holds must not grow with uptime.
WARM_UP = 2 * 3600
HOUR = 3600
TICK = 2
BUDGET, WINDOW = 3, 300


def held_bytes(root: Any) -> int:
    """Bytes held by an object graph: containers, dataclasses and plain objects, each counted once."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple | set | frozenset | deque):
            stack += list(item)
        elif is_dataclass(item):
            stack += [getattr(item, f.name) for f in fields(item)]
        elif hasattr(item, "__dict__"):
            stack += list(vars(item).values())
    return total


def overseer_state(loop) -> tuple:
    """What the overseer keeps between decisions (its buffers, clocks and memory)."""
    return (
        loop.inputs.transcript,
        loop.state,
        loop.metrics,
        loop.gate,
        loop.last,
    )


async def test_one_busy_hour(hass, freezer, ollama_stub, room, capsys):
    rng = random.Random(60)
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "cooldown_lift": 30, "cooldown_ha": 10})
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    replies = answers = 0

    def model(payload):
        """A fast model that answers every address in new words and sometimes acts."""
        nonlocal replies, answers
        replies += 1
        if "trigger: direct_address" in payload["messages"][-1]["content"]:
            answers += 1
            return Scripted(content=ANSWERS[answers % len(ANSWERS)], tool_calls=[call("lift_up")])
        if rng.random() < 0.4:
            state = rng.choice(["on", "off", "red", "blue"])
            return Scripted(
                tool_calls=[call("ha_set_entity", entity_id="light.bench", state=state), call("neato_locate")]
            )
        return Scripted(content="SKIP")

    ollama_stub.responder = model
    executed_at: list[float] = []
    answered: list[float] = []
    hass.bus.async_listen(
        "overseer_action",
        callback(lambda e: executed_at.append(loop.now()) if e.data["outcome"] == "executed" else None),
    )
    hass.bus.async_listen(
        "overseer_chat_message",
        callback(lambda e: answered.append(loop.now()) if e.data.get("bot") else None),
    )

    steps = (WARM_UP + HOUR) // TICK
    hour_start = WARM_UP // TICK
    address_steps = set(rng.sample(range(hour_start + 30, steps - 60), 20))
    addresses: list[float] = []
    human_messages = rover_events = 0
    calls_before_hour = 0
    first: list[int] = []
    last: list[int] = []
    for step in range(steps):
        now = loop.now()
        in_hour = step >= hour_start
        if step == hour_start:
            calls_before_hour, executed_at[:] = replies, []
        for _ in range(rng.choice((0, 0, 1, 1, 1, 2))):  # about 20 human lines a minute
            hass.bus.async_fire(
                "overseer_chat_message", {"user": rng.choice(PEOPLE), "text": rng.choice(CHATTER)}
            )
            human_messages += in_hour
        if step in address_steps:
            hass.bus.async_fire(
                "overseer_chat_message", {"user": rng.choice(PEOPLE), "text": "overseer, you there?"}
            )
            human_messages += 1
            addresses.append(now)
        if step % 60 == 0:  # a rover docks or leaves every two minutes
            hass.states.async_set(
                "binary_sensor.rover1_docked",
                "on" if (step // 60) % 2 else "off",
                {"friendly_name": "rover1 docked"},
            )
            rover_events += in_hour
        await tick(hass, freezer, seconds=TICK)
        if len(ollama_stub.requests) > 20:
            ollama_stub.requests.clear()  # the stub's own log, not the overseer's
        minute = (step - hour_start) * TICK / 60
        if step % 30 == 0 and 0 <= minute < 10:
            first.append(held_bytes(overseer_state(loop)))
        if step % 30 == 0 and minute >= 50:
            last.append(held_bytes(overseer_state(loop)))

    calls = replies - calls_before_hour
    responded = sum(any(t <= a <= t + 90 for a in answered) for t in addresses)
    most_in_window = max((sum(1 for t in executed_at if s <= t < s + WINDOW) for s in executed_at), default=0)
    first_kb, last_kb = sum(first) / len(first) / 1024, sum(last) / len(last) / 1024
    with capsys.disabled():
        print(
            f"\nSoak, one simulated hour (after a {WARM_UP // 3600} h warm-up): "
            f"{human_messages} human messages, {len(addresses)} direct addresses, "
            f"{rover_events} rover events; "
            f"LLM calls {calls} vs {human_messages} for a naive agent called on every message "
            f"(x{human_messages / calls:.1f} fewer); "
            f"direct addresses answered {responded}/{len(addresses)}; "
            f"executions {len(executed_at)}, most in any {WINDOW} s window {most_in_window} "
            f"(budget {BUDGET}); "
            f"overseer-held memory first 10 min {first_kb:.0f} KiB, last 10 min {last_kb:.0f} KiB "
            f"(x{last_kb / first_kb:.2f})"
        )
    assert human_messages >= 600 and len(addresses) == 20
    assert responded == len(addresses)
    assert most_in_window <= BUDGET
    assert calls < human_messages / 2
    assert 0.8 < last_kb / first_kb < 1.2
