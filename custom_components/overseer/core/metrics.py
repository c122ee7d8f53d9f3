"""Decision metrics over a bounded time window: cost stays flat however long it runs."""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

METRICS_WINDOW = 600.0
METRICS_SIZE = 1024


@dataclass(frozen=True, slots=True)
class _DecisionSample:
    ts: float
    latency: float
    mode: str
    stale_reason: str | None
    failed: bool


class AddressOutcome(StrEnum):
    """How a decision for someone who asked ended."""

    MODEL_LINE = "model_line"  # the model's own words were posted (after the overseer's facts)
    ACTED = "acted"  # the overseer's facts alone answered: what its calls did, the states asked of
    FALLBACK = "fallback"  # still nothing: the honest fallback line was posted


@dataclass(frozen=True, slots=True)
class _AddressSample:
    ts: float
    outcome: AddressOutcome


@dataclass(frozen=True, slots=True)
class _ActionSample:
    ts: float
    tool: str
    outcome: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class _ChatSample:
    ts: float
    repeated: bool


@dataclass(frozen=True, slots=True)
class _ClaimSample:
    ts: float


class Metrics:
    """Ring buffers of recent samples and the figures the seed asks to track."""

    def __init__(self, started: float, window: float = METRICS_WINDOW, size: int = METRICS_SIZE) -> None:
        """Count from started; samples older than window no longer count."""
        self._started = started
        self._window = window
        self._decisions: deque[_DecisionSample] = deque(maxlen=size)
        self._actions: deque[_ActionSample] = deque(maxlen=size)
        self._chats: deque[_ChatSample] = deque(maxlen=size)
        self._addresses: deque[_AddressSample] = deque(maxlen=size)
        self._unbacked: deque[_ClaimSample] = deque(maxlen=size)
        self._false: deque[_ClaimSample] = deque(maxlen=size)
        self._missed: deque[_ClaimSample] = deque(maxlen=size)

    def record_decision(self, ts: float, latency: float, mode: str, stale_reason: str | None = None) -> None:
        """One model call that produced a decision, and why its line was judged stale, if it was."""
        self._add(self._decisions, _DecisionSample(ts, latency, mode, stale_reason, False))

    def record_failure(self, ts: float, latency: float) -> None:
        """One model call that failed."""
        self._add(self._decisions, _DecisionSample(ts, latency, "", None, True))

    def record_address(self, ts: float, outcome: AddressOutcome) -> None:
        """How one decision for someone who asked ended."""
        self._add(self._addresses, _AddressSample(ts, outcome))

    def record_action(self, ts: float, tool: str, outcome: str, reason: str | None = None) -> None:
        """One attempted tool call and how it ended."""
        self._add(self._actions, _ActionSample(ts, tool, outcome, reason))

    def record_chat(self, ts: float, repeated: bool) -> None:
        """One chat line the model proposed: posted, or dropped as a repeat."""
        self._add(self._chats, _ChatSample(ts, repeated))

    def record_unbacked_claim(self, ts: float) -> None:
        """One model line held back: written before its calls' results, beside a call that did not run."""
        self._add(self._unbacked, _ClaimSample(ts))

    def record_false_statement(self, ts: float) -> None:
        """One model line not posted as written: a sentence of it spoke of the room's devices."""
        self._add(self._false, _ClaimSample(ts))

    def record_missed_world_event(self, ts: float) -> None:
        """One world event no decision answered (its lane was full, or the room never free in time)."""
        self._add(self._missed, _ClaimSample(ts))

    def _add[S: _DecisionSample | _ActionSample | _ChatSample | _AddressSample | _ClaimSample](
        self, samples: deque[S], sample: S
    ) -> None:
        """Append, dropping samples that left the window: memory follows the window, not uptime."""
        samples.append(sample)
        while samples[0].ts <= sample.ts - self._window:
            samples.popleft()

    def snapshot(self, now: float) -> dict[str, Any]:
        """Return the current figures; rates are per minute over the window (or uptime if shorter)."""
        since = now - self._window
        minutes = max(min(self._window, now - self._started), 60.0) / 60.0
        decisions = [d for d in self._decisions if d.ts > since]
        answered = [d for d in decisions if not d.failed]
        actions = [a for a in self._actions if a.ts > since]
        chats = [c for c in self._chats if c.ts > since]
        blocked = [a for a in actions if a.outcome == "blocked"]
        modes = Counter(d.mode for d in answered)
        stale = Counter(d.stale_reason for d in answered if d.stale_reason)
        addresses = Counter(a.outcome.value for a in self._addresses if a.ts > since)
        ended = sum(addresses.values())
        return {
            "window_s": int(self._window),
            "llm_calls": len(decisions),
            "llm_calls_per_minute": round(len(decisions) / minutes, 2),
            "llm_failures": len(decisions) - len(answered),
            "llm_latency_avg_s": round(sum(d.latency for d in decisions) / len(decisions), 3)
            if decisions
            else None,
            "decisions_by_mode": dict(modes),
            "skip_ratio": _ratio(modes["SKIP"], len(answered)),
            "act_ratio": _ratio(len(answered) - modes["SKIP"], len(answered)),
            "stale_rate": _ratio(sum(stale.values()), len(answered)),
            "stale_by_reason": dict(stale),
            "addressed": dict(addresses),
            "addressed_answered_by_model": _ratio(addresses[AddressOutcome.MODEL_LINE], ended),
            "tool_calls": len(actions),
            "blocked_rate": _ratio(len(blocked), len(actions)),
            "blocked_by_reason": dict(Counter(a.reason or "" for a in blocked)),
            "executed_by_tool": dict(Counter(a.tool for a in actions if a.outcome == "executed")),
            "chat_per_minute": round(sum(not c.repeated for c in chats) / minutes, 2),
            "repeated_line_rate": _ratio(sum(c.repeated for c in chats), len(chats)),
            "unbacked_claims": sum(claim.ts > since for claim in self._unbacked),
            "false_statements": sum(claim.ts > since for claim in self._false),
            "missed_world_events": sum(missed.ts > since for missed in self._missed),
        }


def _ratio(part: int, whole: int) -> float | None:
    """part/whole rounded, or None when there is nothing to divide."""
    return round(part / whole, 3) if whole else None
