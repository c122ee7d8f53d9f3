"""The incident book: one incident per asset and open fault, from opening to close, and its stored form.

Fed with what core/faults.py detects: a fault that clears and comes back within the reopen
window (flapping) reopens the same incident instead of opening another; what is read back from
the store is checked, since the store may have been edited or written by a bug.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .faults import Fault, FaultCode, FaultRules
from .text import one_line, stored_time
from .world import AssetKind


class IncidentStatus(StrEnum):
    """An incident's place in its lifecycle, as the contract names it."""

    OPEN = "open"
    TRIAGING = "triaging"
    AWAITING_APPROVAL = "awaiting_approval"
    VERIFYING = "verifying"
    RESOLVED = "resolved"
    NEEDS_HUMAN = "needs_human"


SELF_CLEARED = "cleared by itself"
# Steps kept in one incident's timeline, newest last.
TIMELINE_SIZE = 30


@dataclass(frozen=True, slots=True)
class TimelineStep:
    """One line of an incident's timeline."""

    ts: float
    what: str
    detail: str = ""


# Every status but resolved: the incident is still open (the sensor counts it, the book keeps it).
ACTIVE = frozenset(status for status in IncidentStatus if status is not IncidentStatus.RESOLVED)
# The resolution of an incident whose asset left the options: no evidence about any fault.
ASSET_GONE = "the asset is no longer watched"


def number_of(incident_id: str) -> int:
    """Return the number in an incident id, for ordering (INC-10000 comes after INC-9999)."""
    digits = incident_id[4:]
    return int(digits) if incident_id.startswith("INC-") and digits.isdigit() else 0


def active_incidents(book: Mapping[str, Incident]) -> list[Incident]:
    """Return the incidents still being handled, oldest first."""
    return sorted((i for i in book.values() if i.status in ACTIVE), key=lambda i: number_of(i.incident_id))


@dataclass(frozen=True, slots=True)
class Incident:
    """One fault of one asset, from opening to close."""

    incident_id: str
    asset_id: str
    kind: AssetKind
    code: FaultCode
    status: IncidentStatus
    opened: float
    # The latest reading of the fault, for the request and the card.
    fault: Fault
    # When the fault was last seen cleared (None while it holds).
    cleared_at: float | None = None
    reopened: int = 0
    timeline: tuple[TimelineStep, ...] = ()
    # Filled in when it is resolved: evidence for the next incident of this asset or kind.
    root_cause: str = ""
    resolution: str = ""
    closed_at: float | None = None
    # Triage: replies rejected so far, and when to ask again.
    attempts: int = 0
    retry_at: float = 0.0
    # The model's leading hypothesis, what it said a person should do, and the calls that ran.
    diagnosis: str = ""
    recommended: str = ""
    tried: tuple[str, ...] = ()
    # When the rules are run again after a call ran.
    verify_at: float | None = None

    def noted(self, ts: float, what: str, detail: str = "") -> Incident:
        """Return the incident with one more step in its (bounded) timeline."""
        return replace(self, timeline=(*self.timeline, TimelineStep(ts, what, detail))[-TIMELINE_SIZE:])

    def summary(self) -> str:
        """One line for the chat loop's STATE_UPDATE."""
        detail = f" ({self.fault.detail})" if self.fault.detail else ""
        return f"{self.incident_id} {self.status.value}: {self.asset_id} {self.code.value}{detail}"


@dataclass(frozen=True, slots=True)
class Change:
    """What one reconciliation did to an incident, for events and the timeline."""

    incident: Incident
    what: str  # opened, reopened, cleared


def reconcile(
    incidents: Mapping[str, Incident],
    faults: Iterable[Fault],
    rules: FaultRules,
    now: float,
    next_number: int,
    unsure: Collection[str] = (),
    watched: Collection[str] | None = None,
) -> tuple[dict[str, Incident], list[Change], int]:
    """Match the faults seen now to incidents: the incidents by id, what changed, the next number.

    One fault of one asset is one incident: while it holds nothing new opens, whatever the
    incident's status, and its latest reading is kept; one that clears and comes back while the
    incident is open, or within the reopen window after it was resolved, is the same incident.
    An open incident whose fault has stayed away for the window is resolved as cleared by itself.
    Assets in unsure are not judged now; incidents of assets no longer watched are closed.
    """
    book = dict(incidents)
    changes: list[Change] = []
    latest = {(i.asset_id, i.code): i for i in sorted(book.values(), key=lambda i: number_of(i.incident_id))}
    seen = set()
    for fault in faults:
        key = (fault.asset_id, fault.code)
        seen.add(key)
        current = latest.get(key)
        if current is not None and current.cleared_at is None:
            if current.fault != fault:  # the reading moved on: a new error text, a lower battery
                book[current.incident_id] = latest[key] = replace(current, fault=fault)
            continue
        if current is not None and current.status in ACTIVE:
            back = replace(current, cleared_at=None, fault=fault).noted(now, "returned", _checks_text(fault))
            book[back.incident_id] = latest[key] = back
            changes.append(Change(back, "returned"))
            continue
        closed = current.closed_at if current is not None else None
        if (
            current is not None
            and current.resolution != ASSET_GONE
            and closed is not None
            and now - closed <= rules.reopen_window
        ):
            reopened = replace(
                current,
                status=IncidentStatus.OPEN,
                fault=fault,
                cleared_at=None,
                closed_at=None,
                root_cause="",
                resolution="",
                reopened=current.reopened + 1,
                attempts=0,
                retry_at=0.0,
                verify_at=None,
            ).noted(now, "reopened", _checks_text(fault))
            book[reopened.incident_id] = latest[key] = reopened
            changes.append(Change(reopened, "reopened"))
            continue
        incident = Incident(
            f"INC-{next_number:04d}", fault.asset_id, fault.kind, fault.code, IncidentStatus.OPEN, now, fault
        ).noted(now, "opened", _checks_text(fault))
        next_number += 1
        book[incident.incident_id] = latest[key] = incident
        changes.append(Change(incident, "opened"))
    for incident in latest.values():
        key = (incident.asset_id, incident.code)
        if key in seen or incident.status not in ACTIVE or incident.asset_id in unsure:
            continue
        if watched is not None and incident.asset_id not in watched:
            gone = replace(
                incident, status=IncidentStatus.RESOLVED, resolution=ASSET_GONE, closed_at=now
            ).noted(now, "resolved", ASSET_GONE)
            book[gone.incident_id] = gone
            changes.append(Change(gone, "resolved"))
        elif incident.cleared_at is None:
            book[incident.incident_id] = cleared = replace(incident, cleared_at=now).noted(now, "cleared")
            changes.append(Change(cleared, "cleared"))
        elif now - incident.cleared_at >= rules.reopen_window:
            resolved = replace(
                incident,
                status=IncidentStatus.RESOLVED,
                root_cause=incident.code.value,
                resolution=SELF_CLEARED,
                closed_at=now,
            ).noted(now, "resolved", SELF_CLEARED)
            book[resolved.incident_id] = resolved
            changes.append(Change(resolved, "resolved"))
    return book, changes, next_number


def _checks_text(fault: Fault) -> str:
    """Describe the failed checks in a few words, for the timeline."""
    failed = ", ".join(check for check, passed in fault.checks.items() if not passed)
    return "; ".join(part for part in (f"failed: {failed}" if failed else "", fault.detail) if part)


def incident_as_dict(incident: Incident) -> dict[str, Any]:
    """Plain JSON for the store, the status object and diagnostics."""
    fault = incident.fault
    return {
        "incident_id": incident.incident_id,
        "asset_id": incident.asset_id,
        "kind": incident.kind.value,
        "fault": incident.code.value,
        "status": incident.status.value,
        "opened": incident.opened,
        "since": fault.since,
        "checks": dict(fault.checks),
        "detail": fault.detail,
        "cleared_at": incident.cleared_at,
        "closed_at": incident.closed_at,
        "reopened": incident.reopened,
        "timeline": [{"ts": s.ts, "what": s.what, "detail": s.detail} for s in incident.timeline],
        "root_cause": incident.root_cause,
        "resolution": incident.resolution,
        "attempts": incident.attempts,
        "retry_at": incident.retry_at,
        "diagnosis": incident.diagnosis,
        "recommended": incident.recommended,
        "tried": list(incident.tried),
        "verify_at": incident.verify_at,
    }


# Bounds on what is read back from the store: it may have been edited, or written by a bug.
STORED_TEXT = 200
STORED_CHECKS = 20
STORED_TRIED = 5
_INCIDENT_ID = re.compile(r"INC-\d{1,9}")


def _count(value: Any) -> int:
    """Return a stored counter, bounded."""
    return max(0, min(int(value or 0), 1_000_000))


def _stored_text(value: Any) -> str:
    return one_line(str(value or ""), STORED_TEXT)


def incident_from_dict(data: Any) -> Incident | None:
    """Return an incident back from the store; None for anything malformed."""
    try:
        incident_id = str(data["incident_id"])
        if not _INCIDENT_ID.fullmatch(incident_id):
            raise ValueError(incident_id)
        kind, code = AssetKind(data["kind"]), FaultCode(data["fault"])
        checks = dict(data.get("checks") or {})
        fault = Fault(
            _stored_text(data["asset_id"]),
            kind,
            code,
            stored_time(data["since"]),
            {_stored_text(k): v is True for k, v in list(checks.items())[:STORED_CHECKS]},
            _stored_text(data.get("detail")),
        )
        cleared, closed, verify = data.get("cleared_at"), data.get("closed_at"), data.get("verify_at")
        steps = tuple(
            TimelineStep(stored_time(s["ts"]), _stored_text(s["what"]), _stored_text(s.get("detail")))
            for s in list(data.get("timeline") or ())[-TIMELINE_SIZE:]
        )
        return Incident(
            incident_id,
            fault.asset_id,
            kind,
            code,
            IncidentStatus(data["status"]),
            stored_time(data["opened"]),
            fault,
            None if cleared is None else stored_time(cleared),
            _count(data.get("reopened")),
            steps,
            _stored_text(data.get("root_cause")),
            _stored_text(data.get("resolution")),
            None if closed is None else stored_time(closed),
            _count(data.get("attempts")),
            stored_time(data.get("retry_at") or 0),
            _stored_text(data.get("diagnosis")),
            _stored_text(data.get("recommended")),
            tuple(_stored_text(item) for item in list(data.get("tried") or ())[:STORED_TRIED]),
            None if verify is None else stored_time(verify),
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        return None


def without_duplicates(incidents: Iterable[Incident]) -> dict[str, Incident]:
    """By id, with only the newest open incident of each asset and fault (a store may hold more)."""
    kept: dict[str, Incident] = {}
    newest_open: dict[tuple[str, FaultCode], Incident] = {}
    for incident in sorted(incidents, key=lambda i: number_of(i.incident_id)):
        if incident.status in ACTIVE:
            if (older := newest_open.get((incident.asset_id, incident.code))) is not None:
                kept.pop(older.incident_id)
            newest_open[(incident.asset_id, incident.code)] = incident
        kept[incident.incident_id] = incident
    return kept


def next_incident_number(incidents: Iterable[str]) -> int:
    """One past the highest number among incident ids: ids are never reused."""
    return max((number_of(key) for key in incidents), default=0) + 1


def prune_incidents(incidents: Mapping[str, Incident], keep_closed: int) -> dict[str, Incident]:
    """Every open incident and the newest resolved ones: bounded whatever the history."""
    closed = sorted(
        (i for i in incidents.values() if i.status not in ACTIVE), key=lambda i: number_of(i.incident_id)
    )
    dropped = {i.incident_id for i in closed[: max(0, len(closed) - keep_closed)]}
    return {key: incident for key, incident in incidents.items() if key not in dropped}
