"""Triage as plain functions: which incident is due, what a reply leads to, and verification.

The shell asks the model and runs what policy allows; these functions only say how an
incident moves: open → triaging → verifying / awaiting_approval / needs_human, and from
verifying to resolved once the rules no longer see the fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from .incidents import Incident, IncidentStatus, number_of
from .reasoning import ReasoningResponse
from .text import one_line
from .tools import Refusal, Safety

# Rejected replies before a person is asked instead; the wait doubles each time.
MAX_ATTEMPTS = 3
RETRY_AFTER = 60.0
RETRY_AT_MOST = 1800.0
TRIED_KEPT = 5
# Fixed and back again this often: a person looks at it.
MAX_RELAPSES = 3
NOTE_CHARS = 200
# The timeline's note when no step was safe; the repair says it in the room's language itself.
NOTHING_SAFE = "nothing safe to do"
# Refusals that waiting cures: the incident is asked about again once they are over.
WAITING = frozenset({Refusal.COOLDOWN, Refusal.RATE_LIMIT, Refusal.BUSY})
SOONEST_RETRY = 5.0


class IntentResult(StrEnum):
    """What became of one tool intent."""

    EXECUTED = "executed"
    AWAITING_APPROVAL = "awaiting_approval"
    BLOCKED = "blocked"
    FAILED = "failed"
    DRY_RUN = "dry_run"


@dataclass(frozen=True, slots=True)
class IntentOutcome:
    """One intent as policy and the executor left it: a call like asset_refresh(rover2), and why."""

    call: str
    result: IntentResult
    reason: str = ""
    # Seconds until a waiting refusal is over, when policy said.
    wait_s: int | None = None


def asks_a_person(reason: str, policy: Safety, claimed: Safety) -> bool:
    """Return whether a consequential step goes to a person.

    It does when only approval, or only waiting, stands in its way.

    Policy checks it again when the person answers, so a cooldown now is no reason not to ask.
    """
    if reason == Refusal.NEEDS_APPROVAL:
        return True
    return reason in WAITING and Safety.CONSEQUENTIAL in (policy, claimed)


def due(incidents: Iterable[Incident], now: float) -> Incident | None:
    """Return the oldest incident waiting for triage: open, its fault still there, its back-off over."""
    waiting = [
        incident
        for incident in incidents
        if incident.status is IncidentStatus.OPEN
        and incident.cleared_at is None
        and incident.attempts < MAX_ATTEMPTS
        and incident.retry_at <= now
    ]
    return min(waiting, key=lambda incident: number_of(incident.incident_id), default=None)


def goes_first(addressed_pending: bool, deferred_once: bool) -> bool:
    """Triage takes the single flight unless someone is waiting for an answer.

    A direct address may put a due triage off once; the next free flight is the triage's, so
    neither starves the other.
    """
    return not addressed_pending or deferred_once


def started(incident: Incident, now: float, request_note: str) -> Incident:
    """Mark the incident as being asked of the model."""
    return replace(incident, status=IncidentStatus.TRIAGING).noted(now, "request", request_note)


def rejected(incident: Incident, now: float, reason: str) -> Incident:
    """Handle a reply that was not a ReasoningResponse (or a failed model): ask again later, or a person."""
    noted = incident.noted(now, "rejected", one_line(reason, NOTE_CHARS))
    wait = min(RETRY_AFTER * 2**incident.attempts, RETRY_AT_MOST)
    return _later(noted, now, wait, f"no usable triage after {incident.attempts + 1} tries")


def triaged(
    incident: Incident,
    response: ReasoningResponse,
    outcomes: Sequence[IntentOutcome],
    now: float,
    verify_after: float,
    approvals_pending: bool,
) -> Incident:
    """Take a valid reply whose intents went through policy: verify, wait for a person, or ask one.

    approvals_pending is the approval book now: one may have been triaged while the intents ran
    (and if it ran its step, the incident is verifying already).
    """
    leading = max(response.hypotheses, key=lambda hypothesis: hypothesis.confidence, default=None)
    note = f"{leading.fault} ({leading.confidence:.2f})" if leading else "no hypothesis"
    incident = replace(
        incident,
        diagnosis=one_line(leading.fault if leading else "", NOTE_CHARS),
        recommended=one_line(response.recommended_action, NOTE_CHARS),
    ).noted(now, "response", one_line(note, NOTE_CHARS))
    for outcome in outcomes:
        detail = f"{outcome.call}: {outcome.result.value}" + (
            f" ({outcome.reason})" if outcome.reason else ""
        )
        incident = incident.noted(now, "intent", one_line(detail, NOTE_CHARS))
    ran = [outcome.call for outcome in outcomes if outcome.result is IntentResult.EXECUTED]
    if ran:
        return executed(incident, ran, now, verify_after)
    if incident.status is IncidentStatus.VERIFYING:
        return incident
    if approvals_pending:
        return replace(incident, status=IncidentStatus.AWAITING_APPROVAL)
    waits = [
        outcome.wait_s or 0
        for outcome in outcomes
        if outcome.result is IntentResult.BLOCKED and outcome.reason in WAITING
    ]
    if waits:
        return held_off(incident, now, max(*waits, SOONEST_RETRY))
    return to_human(incident, now, incident.recommended or NOTHING_SAFE)


def held_off(incident: Incident, now: float, wait: float) -> Incident:
    """Its steps were refused only for now (a cooldown, the budget, a busy device): ask again then.

    Counted like a rejected reply, so a room that stays busy hands the incident to a person.
    """
    return _later(incident, now, wait, f"its steps were refused {incident.attempts + 1} times")


def _later(incident: Incident, now: float, wait: float, why: str) -> Incident:
    """One try spent: open again after wait, or, with the last try spent, a person's."""
    attempts = incident.attempts + 1
    if attempts >= MAX_ATTEMPTS:
        return to_human(replace(incident, attempts=attempts), now, why)
    return replace(incident, status=IncidentStatus.OPEN, attempts=attempts, retry_at=now + wait)


def executed(incident: Incident, calls: Sequence[str], now: float, verify_after: float) -> Incident:
    """Note calls that ran for the incident: the rules are asked again after verify_after."""
    tried = (*incident.tried, *calls)[-TRIED_KEPT:]
    return replace(incident, status=IncidentStatus.VERIFYING, tried=tried, verify_at=now + verify_after)


def verified(incident: Incident, now: float, approvals_pending: bool) -> Incident | None:
    """Return a verifying incident whose time has come, judged by the rules' latest verdict; else None."""
    if (
        incident.status is not IncidentStatus.VERIFYING
        or incident.verify_at is None
        or now < incident.verify_at
    ):
        return None
    tried = ", ".join(incident.tried) or "nothing"
    if incident.cleared_at is not None:
        return replace(
            incident,
            status=IncidentStatus.RESOLVED,
            root_cause=incident.diagnosis or incident.code.value,
            resolution=one_line(f"{tried} ran and the fault cleared", NOTE_CHARS),
            closed_at=now,
            verify_at=None,
        ).noted(now, "verified", "the fault cleared")
    still = replace(incident, verify_at=None).noted(now, "verified", "the fault is still there")
    if approvals_pending:
        return replace(still, status=IncidentStatus.AWAITING_APPROVAL)
    return to_human(still, now, incident.recommended or f"still faulty after {tried}")


def unreachable(incident: Incident, now: float, wait: float, why: str) -> Incident:
    """Handle a model that could not be asked: ask again after the room's back-off; no attempt is spent."""
    return replace(incident, status=IncidentStatus.OPEN, retry_at=now + wait).noted(
        now, "model_unreachable", one_line(why, NOTE_CHARS)
    )


def moot(incident: Incident, now: float) -> Incident:
    """Handle a fault that cleared while the model thought: nothing runs.

    The rules resolve it if it stays away.
    """
    return replace(incident, status=IncidentStatus.OPEN).noted(now, "response", "the fault cleared meanwhile")


def interrupted(
    incident: Incident, now: float, ran: Sequence[str], approvals_pending: bool, verify_after: float
) -> Incident:
    """Triage stopped half-way (a mode flip, an unload): keep what ran and what waits for a person."""
    incident = incident.noted(now, "interrupted")
    if ran:
        return executed(incident, ran, now, verify_after)
    if approvals_pending:
        return replace(incident, status=IncidentStatus.AWAITING_APPROVAL)
    return replace(incident, status=IncidentStatus.OPEN)


def nothing_to_approve(incident: Incident, now: float) -> Incident | None:
    """Handle an incident awaiting approval with no approval left: a person, unless its fault is gone."""
    if incident.status is not IncidentStatus.AWAITING_APPROVAL:
        return None
    if incident.cleared_at is not None:
        return replace(incident, status=IncidentStatus.OPEN).noted(now, "cleared", "nothing left to approve")
    return to_human(incident, now, incident.recommended or NOTHING_SAFE)


def relapsed(incident: Incident, now: float) -> Incident | None:
    """Hand a fault that keeps coming back after fixes to a person to look at, not another refresh."""
    if incident.status is IncidentStatus.OPEN and incident.reopened >= MAX_RELAPSES and incident.tried:
        return to_human(
            incident, now, f"it came back {incident.reopened} times after {', '.join(incident.tried)}"
        )
    return None


def to_human(incident: Incident, now: float, why: str) -> Incident:
    """Nothing more the overseer can safely do: a person takes over."""
    return replace(incident, status=IncidentStatus.NEEDS_HUMAN, verify_at=None).noted(
        now, "needs_human", one_line(why, NOTE_CHARS)
    )
