"""The status objects of the contract: a frozen snapshot of a room, rendered per schema.

take_snapshot reads the room once; render turns a snapshot into the schema's plain JSON.
The schemas never share one object. What the card would otherwise have to know of the server
comes with it: the loop's phases in order, each approval's call as people read it, and the
model health's banner in the reader's language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from homeassistant.util import dt as dt_util

from .const import BACKEND_CONVERSATION, CONF_ROOM, RECENT_ACTIONS, OverseerMode, Phase
from .core.accounts import Phrase
from .core.approvals import Approval, Grant, approval_as_dict, grant_as_dict
from .core.audit import Outcome
from .core.context import CHAT_LINE_CHARS, ChatLine, InputSummary
from .core.decision import Decision
from .core.gate import MissedWorldEvent, Trigger, WorldEvent
from .core.incidents import ACTIVE, Incident, incident_as_dict, number_of
from .core.policy import Availability, Ledger, Limits, availability, configured_groups, configured_tools
from .core.reply import ModelReply, Spent
from .core.tools import TOOLS, CooldownGroup, call_text, tools_in
from .core.world import SiteMode, World
from .health import Health
from .orchestrator import Orchestrator, Run
from .runtime import OverseerRuntimeData

SCHEMA_CONTROL = "overseer.v2"
SCHEMA_COMMENTARY = "overseer.commentary"
SCHEMA_OFF = "overseer.off"
SCHEMA_ORCHESTRATOR = "overseer.orchestrator"
# Chat lines the card's live tail shows.
CHAT_TAIL = 20
# Closed incidents shown beside the open ones.
RECENT_INCIDENTS = 10
COMMENTARY_METRICS = (
    "llm_calls_per_minute",
    "llm_latency_avg_s",
    "chat_per_minute",
    "repeated_line_rate",
    "missed_world_events",
)
# The loop's phases in the order a cycle goes through them, for the card's phase strip.
PHASES = [phase.value for phase in Phase]
# Model healths that need no banner: it answers, or nothing has been asked yet.
QUIET_HEALTH = frozenset({Health.OK.value, Health.UNKNOWN.value})


@dataclass(frozen=True, slots=True)
class LastDecision:
    """The last decision as it stood when the snapshot was taken."""

    decision_id: str
    trigger: Trigger
    state_update: str
    model_input: InputSummary | None
    reply: ModelReply | None
    decision: Decision | None
    latency: float | None
    stale: bool
    actions: tuple[Mapping[str, Any], ...]
    transcript: tuple[ChatLine, ...]
    # After calls: each one's result as the model read it, and what it answered then.
    tool_results: tuple[str, ...] = ()
    line_reply: ModelReply | None = None
    spent: Spent | None = None


@dataclass(frozen=True, slots=True)
class StatusSnapshot:
    """Everything a status object shows, read at one instant."""

    entry_id: str
    title: str
    name: str
    room: str
    backend: str
    model: str
    mode: OverseerMode
    running: bool
    phase: str
    health: str
    health_detail: str | None
    dry_run: bool
    site_mode: SiteMode
    lights_locked_on: bool
    last: LastDecision | None
    tools: Availability
    configured: tuple[str, ...]
    groups: tuple[CooldownGroup, ...]
    ledger: Ledger
    limits: Limits
    now: float
    metrics: Mapping[str, Any]
    recent_actions: tuple[Mapping[str, Any], ...]
    memory: tuple[str, ...]
    last_error: str | None
    # The newest lines of the room's chat, whatever the model saw.
    chat_tail: tuple[ChatLine, ...]
    # Open incidents and the newest closed ones, newest first.
    incidents: tuple[Incident, ...]
    # Pending approvals and the newest answered ones, newest first.
    approvals: tuple[Approval, ...]
    # Grants still running, oldest first, and the longest the room allows (0: grants off).
    grants: tuple[Grant, ...]
    max_grant_minutes: int
    # World events waiting for the room, oldest first, and the last ones missed, newest first.
    world_waiting: tuple[WorldEvent, ...] = ()
    world_missed: tuple[MissedWorldEvent, ...] = ()


def take_snapshot(room: OverseerRuntimeData, phrase: Phrase | None = None) -> StatusSnapshot:
    """Read the room once; phrase words the model's failure (the reader's language), else as it came."""
    loop, health = room.loop, room.health
    settings, state, cycle = loop.settings, loop.state, loop.last
    now = loop.now()
    # Only the control view shows the room's tools; the other views need not read the room.
    world = loop.world() if state.mode is OverseerMode.CONTROL else World()
    last = None
    if cycle is not None:
        last = LastDecision(
            cycle.decision_id,
            cycle.trigger,
            cycle.state_update,
            cycle.model_input,
            cycle.reply,
            cycle.decision,
            cycle.latency,
            cycle.stale,
            tuple(action.as_dict() for action in cycle.actions),
            cycle.transcript,
            cycle.tool_results,
            cycle.line_reply,
            cycle.spent,
        )
    return StatusSnapshot(
        entry_id=loop.entry.entry_id,
        title=loop.entry.title,
        name=settings.name,
        room=settings.room,
        backend=settings.backend,
        model=settings.agent_id if settings.backend == BACKEND_CONVERSATION else settings.model,
        mode=state.mode,
        running=loop.running,
        phase=loop.phase.value,
        health=health.health.value,
        health_detail=health.error.worded(phrase) if phrase and health.error else health.detail,
        dry_run=state.dry_run,
        site_mode=state.controls.site_mode,
        lights_locked_on=state.controls.lights_locked_on,
        last=last,
        tools=availability(world, state.ledger, settings.limits, now),
        configured=configured_tools(world),
        groups=configured_groups(world),
        ledger=state.ledger,
        limits=settings.limits,
        now=now,
        metrics=loop.metrics.snapshot(now),
        recent_actions=tuple(record.as_dict() for record in state.audit.latest(RECENT_ACTIONS)),
        memory=tuple(state.memory.slots),
        last_error=loop.last_error,
        chat_tail=tuple(loop.inputs.transcript)[-CHAT_TAIL:],
        incidents=_shown_incidents(state.incidents.values()),
        approvals=tuple(
            sorted(state.approvals.values(), key=lambda approval: approval.created, reverse=True)
        ),
        grants=tuple(room.approvals.grants()),
        max_grant_minutes=settings.max_grant_minutes,
        world_waiting=loop.gate.waiting_world_events,
        world_missed=loop.gate.missed_world_events,
    )


def _shown_incidents(incidents: Iterable[Incident]) -> tuple[Incident, ...]:
    """Every active incident and the newest closed ones, newest first."""
    newest = sorted(incidents, key=lambda incident: number_of(incident.incident_id), reverse=True)
    closed = [incident for incident in newest if incident.status not in ACTIVE][:RECENT_INCIDENTS]
    return tuple(incident for incident in newest if incident.status in ACTIVE or incident in closed)


def _incident(incident: Incident) -> dict[str, Any]:
    """One incident for the card, its times as ISO timestamps."""
    shown = incident_as_dict(incident)
    for key in ("opened", "since", "cleared_at", "closed_at", "retry_at", "verify_at"):
        shown[key] = _iso(shown[key])
    shown["timeline"] = [{**step, "ts": _iso(step["ts"])} for step in shown["timeline"]]
    return shown


def _iso(ts: float | None) -> str | None:
    """Epoch seconds as an ISO timestamp for the frontend."""
    return dt_util.utc_from_timestamp(ts).isoformat() if ts else None


def _trigger(last: LastDecision | None) -> dict[str, Any] | None:
    """Return the last trigger: why the last decision ran."""
    if last is None:
        return None
    trigger = last.trigger
    return {
        "kind": trigger.kind.value,
        "detail": trigger.detail,
        "since": _iso(trigger.since),
        "coalesced": [kind.value for kind in trigger.coalesced],
        "decision_id": last.decision_id,
    }


def _world_events(snapshot: StatusSnapshot) -> dict[str, Any]:
    """World events still waiting for the room, and the last ones missed with why (lane_full, stale)."""
    return {
        "waiting": [{"detail": event.detail, "since": _iso(event.since)} for event in snapshot.world_waiting],
        "missed": [
            {
                "detail": missed.event.detail,
                "since": _iso(missed.event.since),
                "missed_at": _iso(missed.at),
                "reason": missed.reason.value,
            }
            for missed in snapshot.world_missed
        ],
    }


def _decision(last: LastDecision | None) -> dict[str, Any] | None:
    """Return the normalised decision with its cost."""
    if last is None or last.decision is None:
        return None
    decision, reply = last.decision, last.reply
    return {
        "decision_id": last.decision_id,
        "mode": decision.mode.value,
        "chat": decision.chat,
        "notes": list(decision.notes),
        "stale": last.stale,
        "latency_ms": round((last.latency or 0) * 1000),
        "prompt_tokens": reply.prompt_tokens if reply else None,
        "completion_tokens": reply.completion_tokens if reply else None,
        # Every request of the decision (the first, after calls, a true line), summed.
        "spent": last.spent.as_dict() if last.spent else None,
    }


def _tool_calls(last: LastDecision | None) -> dict[str, Any]:
    """Return the attempted, executed and blocked calls of the last decision, with reasons."""
    actions = last.actions if last else ()
    outcomes = Counter(action["outcome"] for action in actions)
    return {
        "attempted": len(actions),
        "executed": outcomes[Outcome.EXECUTED],
        "blocked": outcomes[Outcome.BLOCKED],
        "failed": outcomes[Outcome.FAILED],
        "dry_run": outcomes[Outcome.DRY_RUN],
        "calls": [
            {
                "tool": a["tool"],
                "arguments": a["arguments"],
                "outcome": a["outcome"],
                "reason": a["reason"],
                # A cut copy of the arguments says so, beside them.
                **({"truncated": True} if a.get("truncated") else {}),
            }
            for a in actions
        ],
    }


def _common(snapshot: StatusSnapshot, schema: str) -> dict[str, Any]:
    """Fields every schema has."""
    return {
        "schema": schema,
        "entry_id": snapshot.entry_id,
        "name": snapshot.name,
        "room": snapshot.room,
        "title": snapshot.title,
        "mode": snapshot.mode.value,
        "enabled": snapshot.mode is not OverseerMode.OFF,
        "running": snapshot.running,
    }


def _model(snapshot: StatusSnapshot, phrase: Phrase | None) -> dict[str, Any]:
    """Which model answers, and whether it does: health_text is the banner's words, if it needs one."""
    return {
        "backend": snapshot.backend,
        "model": snapshot.model,
        "health": snapshot.health,
        "detail": snapshot.health_detail,
        "health_text": (
            phrase(f"health_{snapshot.health}")
            if phrase is not None and snapshot.health not in QUIET_HEALTH
            else None
        ),
    }


def _chat(lines: tuple[ChatLine, ...]) -> list[dict[str, Any]]:
    """Chat lines for the card: who said what, when, and whether a bot or the overseer said it."""
    return [
        {
            "user": line.user,
            "text": line.text[:CHAT_LINE_CHARS],
            "bot": line.bot,
            "own": line.own,
            "ts": _iso(line.ts),
        }
        for line in lines
    ]


def _cooldown(snapshot: StatusSnapshot, group: CooldownGroup) -> dict[str, Any]:
    """Seconds left on a group's cooldown and when it ends."""
    return {
        "remaining": snapshot.ledger.remaining(group, snapshot.now),
        "until": _iso(snapshot.ledger.cooldown_until.get(group)),
    }


def _approval(approval: Approval) -> dict[str, Any]:
    """One approval for the card, its call written as in notifications and the timeline."""
    return {
        **approval_as_dict(approval, with_nonce=False),
        "created": _iso(approval.created),
        "expires": _iso(approval.expires),
        "call": call_text(approval.tool, approval.arguments),
    }


def _grant(grant: Grant) -> dict[str, Any]:
    """One grant for the card, its call written as for approvals."""
    return {
        **grant_as_dict(grant),
        "created": _iso(grant.created),
        "expires": _iso(grant.expires),
        "call": call_text(grant.tool, grant.arguments),
    }


def render(snapshot: StatusSnapshot, phrase: Phrase | None = None) -> dict[str, Any]:
    """Render the status object for the mode the room is in; phrase words the health banner (none without)."""
    if snapshot.mode is OverseerMode.OFF:
        return _common(snapshot, SCHEMA_OFF)
    last = snapshot.last
    reply = last.reply if last else None
    if snapshot.mode is OverseerMode.COMMENTARY:
        return {
            **_common(snapshot, SCHEMA_COMMENTARY),
            "phase": snapshot.phase,
            "phases": PHASES,
            "model": _model(snapshot, phrase),
            "last_trigger": _trigger(last),
            "last_comment": last.decision.chat if last and last.decision else None,
            "model_output": reply.raw if reply else None,
            "metrics": {key: snapshot.metrics[key] for key in COMMENTARY_METRICS},
            "last_error": snapshot.last_error,
        }
    ledger, limits, now = snapshot.ledger, snapshot.limits, snapshot.now
    input_summary = last.model_input if last else None
    return {
        **_common(snapshot, SCHEMA_CONTROL),
        "dry_run": snapshot.dry_run,
        "site_mode": snapshot.site_mode.value,
        "lights_locked_on": snapshot.lights_locked_on,
        "phase": snapshot.phase,
        "phases": PHASES,
        "model": _model(snapshot, phrase),
        "last_trigger": _trigger(last),
        "state_update": last.state_update if last else None,
        "model_input": (
            {
                "messages": input_summary.messages,
                "characters": input_summary.characters,
                "estimated_tokens": input_summary.estimated_tokens,
            }
            if input_summary
            else None
        ),
        "model_output": reply.raw if reply else None,
        # Seed 000's step 7: what each call returned, read by the model before its line.
        "tool_results": list(last.tool_results) if last else [],
        "line_output": last.line_reply.raw if last and last.line_reply else None,
        "transcript": _chat(last.transcript) if last else [],
        "chat": _chat(snapshot.chat_tail),
        "decision": _decision(last),
        "tool_calls": _tool_calls(last),
        "available_tools": list(snapshot.tools.available),
        "blocked_tools": [
            {"tool": name, "reason": block.reason.value, "remaining": block.remaining}
            for name, block in snapshot.tools.blocked
        ],
        "tools": {
            name: {
                "group": group.value if (group := TOOLS[name].group) else None,
                "safety": limits.safety(name).value,
            }
            for name in snapshot.configured
        },
        "groups": [
            {
                "group": group.value,
                "tools": [name for name in tools_in(group) if name in snapshot.configured],
                "cooldown_s": int(limits.cooldown(group)),
                **_cooldown(snapshot, group),
            }
            for group in snapshot.groups
        ],
        "cooldowns": {group.value: _cooldown(snapshot, group) for group in snapshot.groups},
        "budget": {
            "used": len(ledger.spent(now, limits)),
            "limit": limits.action_budget,
            "window_s": int(limits.action_window),
        },
        "recent_actions": [{**record, "ts": _iso(record.get("ts"))} for record in snapshot.recent_actions],
        "metrics": dict(snapshot.metrics),
        "world_events": _world_events(snapshot),
        "memory": list(snapshot.memory),
        "incidents": [_incident(incident) for incident in snapshot.incidents],
        "approvals": [_approval(approval) for approval in snapshot.approvals],
        "grants": [_grant(grant) for grant in snapshot.grants],
        "max_grant_minutes": snapshot.max_grant_minutes,
        "last_error": snapshot.last_error,
    }


def build_status(room: OverseerRuntimeData, phrase: Phrase | None = None) -> dict[str, Any]:
    """Build the room's status object now, its health banner worded by phrase (the reader's language)."""
    return render(take_snapshot(room, phrase), phrase)


def orchestrator_status(orchestrator: Orchestrator) -> dict[str, Any]:
    """Build the status object of a room's orchestrator, schema overseer.orchestrator."""
    entry, settings, limits = orchestrator.entry, orchestrator.settings, orchestrator.limits
    return {
        "schema": SCHEMA_ORCHESTRATOR,
        "entry_id": entry.entry_id,
        "title": entry.title,
        # The room as the person wrote it, not its folded key.
        "room": str(entry.data.get(CONF_ROOM, settings.room)),
        "model": {"backend": settings.backend, "model": settings.model or settings.agent_id},
        "participants": [
            {"agent_id": p.agent_id, "name": p.name, "description": p.description}
            for p in orchestrator.participants
        ],
        "limits": {
            "max_iterations": limits.max_iterations,
            "quality_threshold": limits.quality_threshold,
            "delegation_timeout": limits.delegation_timeout,
        },
        "progress": orchestrator.progress(),
        "queued": len(orchestrator.queue.lines),
        # Lines not queued because the queue was full of other people's questions.
        "turned_away": orchestrator.queue.turned_away,
        # Human lines that named no bot and asked nothing, since the orchestrator started.
        "ignored": orchestrator.ignored,
        "running": _run(orchestrator.current) if orchestrator.current else None,
        "recent": [_run(run) for run in orchestrator.recent],
    }


def _run(run: Run) -> dict[str, Any]:
    """One pipeline: who asked what, the route, every answer with its score, how it ended, timings."""
    pipeline = run.pipeline
    return {
        "pipeline_id": pipeline.pipeline_id,
        "question": pipeline.question,
        "truncated": pipeline.truncated,
        "asker": pipeline.asker,
        "stage": pipeline.stage.value,
        # Where it is, for the card to say in the reader's language what the progress sensor says.
        "iteration": pipeline.iteration,
        "max_iterations": pipeline.limits.max_iterations,
        "current": pipeline.current,
        "route": list(pipeline.asked),
        "answers": [{"bot": a.agent_id, "text": a.text} for a in pipeline.answers],
        "scores": [
            {"score": s.score, "continue": s.proceed, "reason": s.reason, "valid": s.valid}
            for s in pipeline.scores
        ],
        "records": [
            {"stage": r.stage, "iteration": r.iteration, "bot": r.bot, "score": r.score, "reason": r.reason}
            for r in pipeline.records
        ],
        "finish_reason": pipeline.finish_reason or None,
        "model_calls": run.calls,
        "timings_ms": {
            "model": round(run.model_seconds * 1000, 2),
            "bots": round(run.bot_seconds * 1000, 2),
            "overhead": run.overhead_ms,
        },
        "finished": run.ended_at,
    }
