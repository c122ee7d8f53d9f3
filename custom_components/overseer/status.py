"""The status objects of the contract: one schema per mode, never one shared object."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from homeassistant.util import dt as dt_util

from .const import BACKEND_CONVERSATION, RECENT_ACTIONS, Outcome, OverseerMode
from .core.policy import availability

if TYPE_CHECKING:
    from .coordinator import Cycle, OverseerCoordinator

SCHEMA_CONTROL = "overseer.v2"
SCHEMA_COMMENTARY = "overseer.commentary"
SCHEMA_OFF = "overseer.off"


def _iso(ts: float | None) -> str | None:
    """Epoch seconds as an ISO timestamp for the frontend."""
    return dt_util.utc_from_timestamp(ts).isoformat() if ts else None


def _trigger(cycle: Cycle | None) -> dict[str, Any] | None:
    """The last trigger: why the last decision ran."""
    if cycle is None:
        return None
    trigger = cycle.trigger
    return {
        "kind": trigger.kind.value,
        "detail": trigger.detail,
        "since": _iso(trigger.since),
        "coalesced": [kind.value for kind in trigger.coalesced],
        "decision_id": cycle.decision_id,
    }


def _decision(cycle: Cycle | None) -> dict[str, Any] | None:
    """The normalised decision with its cost."""
    if cycle is None or cycle.decision is None:
        return None
    decision, reply = cycle.decision, cycle.reply
    return {
        "decision_id": cycle.decision_id,
        "mode": decision.mode.value,
        "chat": decision.chat,
        "notes": list(decision.notes),
        "stale": cycle.stale,
        "latency_ms": round((cycle.latency or 0) * 1000),
        "prompt_tokens": reply.prompt_tokens if reply else None,
        "completion_tokens": reply.completion_tokens if reply else None,
    }


def _tool_calls(cycle: Cycle | None) -> dict[str, Any]:
    """Attempted, executed and blocked calls of the last decision, with reasons."""
    actions = cycle.actions if cycle else []
    outcomes = Counter(action["outcome"] for action in actions)
    return {
        "attempted": len(actions),
        "executed": outcomes[Outcome.EXECUTED],
        "blocked": outcomes[Outcome.BLOCKED],
        "failed": outcomes[Outcome.FAILED],
        "dry_run": outcomes[Outcome.DRY_RUN],
        "calls": [
            {"tool": a["tool"], "arguments": a["arguments"], "outcome": a["outcome"], "reason": a["reason"]}
            for a in actions
        ],
    }


def _common(coordinator: OverseerCoordinator, schema: str) -> dict[str, Any]:
    """Fields every schema has."""
    state = coordinator.state
    return {
        "schema": schema,
        "entry_id": coordinator.entry.entry_id,
        "name": coordinator.settings.name,
        "room": coordinator.settings.room,
        "title": coordinator.entry.title,
        "mode": state.mode.value,
        "enabled": state.mode is not OverseerMode.OFF,
        "running": coordinator.running,
    }


def _model(coordinator: OverseerCoordinator) -> dict[str, Any]:
    """Which model answers, and whether it does."""
    settings = coordinator.settings
    return {
        "backend": settings.backend,
        "model": settings.agent_id if settings.backend == BACKEND_CONVERSATION else settings.model,
        "health": coordinator.model_health,
        "detail": coordinator.model_detail,
    }


def build_status(coordinator: OverseerCoordinator) -> dict[str, Any]:
    """The status object for the mode the room is in."""
    state = coordinator.state
    cycle = coordinator.last
    if state.mode is OverseerMode.OFF:
        return _common(coordinator, SCHEMA_OFF)
    metrics = coordinator.metrics.snapshot(coordinator.now())
    if state.mode is OverseerMode.COMMENTARY:
        return {
            **_common(coordinator, SCHEMA_COMMENTARY),
            "phase": coordinator.phase.value,
            "model": _model(coordinator),
            "last_trigger": _trigger(cycle),
            "last_comment": cycle.decision.chat if cycle and cycle.decision else None,
            "model_output": cycle.reply.raw if cycle and cycle.reply else None,
            "metrics": {
                key: metrics[key]
                for key in (
                    "llm_calls_per_minute",
                    "llm_latency_avg_s",
                    "chat_per_minute",
                    "repeated_line_rate",
                )
            },
            "last_error": coordinator.last_error,
        }
    now = coordinator.now()
    ledger, limits = state.ledger, coordinator.settings.limits
    tools = availability(coordinator.world(), ledger, limits, now)
    return {
        **_common(coordinator, SCHEMA_CONTROL),
        "dry_run": state.dry_run,
        "site_mode": state.controls.site_mode.value,
        "lights_locked_on": state.controls.lights_locked_on,
        "phase": coordinator.phase.value,
        "model": _model(coordinator),
        "last_trigger": _trigger(cycle),
        "state_update": cycle.state_update if cycle else None,
        "model_input": (
            {
                "messages": cycle.model_input.messages,
                "characters": cycle.model_input.characters,
                "estimated_tokens": cycle.model_input.estimated_tokens,
            }
            if cycle and cycle.model_input
            else None
        ),
        "model_output": cycle.reply.raw if cycle and cycle.reply else None,
        "decision": _decision(cycle),
        "tool_calls": _tool_calls(cycle),
        "available_tools": list(tools.available),
        "blocked_tools": [
            {"tool": name, "reason": block.reason.value, "remaining": block.remaining}
            for name, block in tools.blocked
        ],
        "cooldowns": {
            group: {
                "remaining": ledger.remaining(group, now),
                "until": _iso(ledger.cooldown_until.get(group)),
            }
            for group in ("lift", "neato", "ha")
        },
        "budget": {
            "used": sum(1 for t in ledger.executed_at if t > now - limits.action_window),
            "limit": limits.action_budget,
            "window_s": int(limits.action_window),
        },
        "recent_actions": [
            {**record, "ts": _iso(record.get("ts"))} for record in state.audit.latest(RECENT_ACTIONS)
        ],
        "metrics": metrics,
        "memory": list(state.memory.slots),
        "last_error": coordinator.last_error,
    }
