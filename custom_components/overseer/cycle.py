"""One decision: context → model → normalise → execute → post."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeassistant.core import HomeAssistant

from .chat import post_line, set_typing
from .const import EVENT_DECISION, OverseerMode, Phase
from .core.context import (
    ChatLine,
    InputSummary,
    build_messages,
    render_state_update,
    select_transcript,
    summarise,
)
from .core.decision import NOTE_REPEAT_DROPPED, Decision, normalise
from .core.gate import Trigger
from .core.metrics import Metrics
from .core.policy import Availability, availability, configured_tools, tool_schemas, vocabulary
from .core.reply import ModelReply
from .core.world import World, material_state
from .executor import Executor
from .models import RoomState
from .providers import Provider
from .settings import Settings


@dataclass
class Cycle:
    """What one decision saw, asked, got and did: the debug card's main subject."""

    decision_id: str
    trigger: Trigger
    mode: OverseerMode
    state_update: str = ""
    model_input: InputSummary | None = None
    # The bounded transcript the model read, for the card's chat panel.
    transcript: tuple[ChatLine, ...] = ()
    tools: Availability = field(default_factory=lambda: Availability((), ()))
    reply: ModelReply | None = None
    decision: Decision | None = None
    latency: float | None = None
    stale: bool = False
    actions: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CycleParts:
    """What a decision works with: the room's settings, state, model and the shell's hooks."""

    hass: HomeAssistant
    settings: Settings
    state: RoomState
    provider: Provider
    prompts: dict[OverseerMode, str]
    executor: Executor
    metrics: Metrics
    world: Callable[[], World]
    now: Callable[[], float]
    set_phase: Callable[[Phase], None]
    # The model answered: whatever happens next, it is healthy again.
    model_answered: Callable[[], None]


async def async_run_cycle(parts: CycleParts, cycle: Cycle, transcript: Sequence[ChatLine]) -> None:
    """gate_check → awaiting_model → tool_exec → posted/idle; a model failure raises ModelError."""
    settings, state = parts.settings, parts.state
    parts.set_phase(Phase.GATE_CHECK)
    started = parts.now()
    world = parts.world()
    before = material_state(world)
    control = cycle.mode is OverseerMode.CONTROL
    if control:
        cycle.tools = availability(world, state.ledger, settings.limits, started)
    cycle.state_update = render_state_update(
        world, cycle.trigger.kind.value, state.ledger, settings.limits, started
    )
    lines = select_transcript(transcript, started, settings.bounds)
    cycle.transcript = tuple(lines)
    messages = build_messages(
        parts.prompts[cycle.mode], settings.name, cycle.state_update, lines, cycle.tools
    )
    cycle.model_input = summarise(messages)
    schemas = tool_schemas(cycle.tools.available, world, settings.limits)
    parts.set_phase(Phase.AWAITING_MODEL)
    set_typing(parts.hass, settings.room, settings.name, True)
    clock = time.monotonic()
    try:
        reply = await parts.provider.async_decide(messages, schemas)
    finally:
        cycle.latency = time.monotonic() - clock
        set_typing(parts.hass, settings.room, settings.name, False)
    cycle.reply = reply
    parts.model_answered()
    recent_bot = [line.text for line in transcript if line.own][-max(settings.bounds.bot_messages, 2) :]
    cycle.decision = decision = normalise(
        reply,
        name=settings.name,
        known_tools=configured_tools(world) if control else (),
        vocabulary=vocabulary(world, settings.limits, include_missing=True),
        recent_bot_lines=recent_bot,
        rules=settings.rules,
    )
    finished = parts.now()
    cycle.stale = (
        finished - cycle.trigger.since > settings.stale_after or material_state(parts.world()) != before
    )
    parts.metrics.record_decision(finished, cycle.latency, decision.mode.value, cycle.stale)
    await _async_execute(parts, cycle, decision)
    if NOTE_REPEAT_DROPPED in decision.notes:
        parts.metrics.record_chat(finished, repeated=True)
    posted = bool(decision.chat) and not cycle.stale and not state.dry_run
    if posted:
        parts.metrics.record_chat(finished, repeated=False)
        post_line(parts.hass, settings.room, settings.name, decision.chat or "", cycle.decision_id)
    parts.hass.bus.async_fire(
        EVENT_DECISION,
        {
            "decision_id": cycle.decision_id,
            "trigger": cycle.trigger.kind.value,
            "mode": decision.mode.value,
            "latency_ms": round(cycle.latency * 1000),
            "stale": cycle.stale,
        },
    )
    parts.set_phase(Phase.POSTED if posted else Phase.IDLE)


async def _async_execute(parts: CycleParts, cycle: Cycle, decision: Decision) -> None:
    """Audit what the normaliser refused, then run each intent through the guarded executor."""
    parts.set_phase(Phase.TOOL_EXEC)
    offered = frozenset(cycle.tools.available)
    for rejection in decision.rejections:
        cycle.actions.append(parts.executor.record_rejection(cycle.decision_id, rejection))
    for intent in decision.intents:
        cycle.actions.append(
            await parts.executor.async_execute(
                cycle.decision_id, intent.name, intent.arguments, offered, parts.state.dry_run
            )
        )
