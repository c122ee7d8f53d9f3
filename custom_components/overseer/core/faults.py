"""Fault detection: a deterministic rule table per asset kind, and one incident per open fault.

No model is involved here. The shell hands in what each asset reports (state, a few chosen
attributes, since when), the rules name the fault and the checks that failed, and the book
keeps one incident per asset and fault: a fault that clears and comes back within the reopen
window (flapping) reopens the same incident instead of opening another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .world import MISSING_STATES


class AssetKind(StrEnum):
    """What an asset is, which decides the rules it is checked against."""

    LIFT = "lift"
    VACUUM = "vacuum"
    ROVER = "rover"
    LIGHT = "light"
    ENTITY = "entity"


class FaultCode(StrEnum):
    """The faults the rules can name."""

    UNAVAILABLE = "unavailable"
    VACUUM_ERROR = "vacuum_error"
    VACUUM_STUCK_RETURNING = "vacuum_stuck_returning"
    BATTERY_LOW = "battery_low"
    LIFT_STUCK = "lift_stuck"
    ROVER_STRANDED = "rover_stranded"
    PROBLEM_REPORTED = "problem_reported"


@dataclass(frozen=True, slots=True)
class Reading:
    """One entity of an asset as Home Assistant reports it now."""

    entity_id: str
    state: str
    # When the state last changed, in wall-clock seconds.
    since: float
    # The few attributes the rules read (battery_level, error, device_class).
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Asset:
    """A thing that can fail: one entity, or a rover's several."""

    asset_id: str
    kind: AssetKind
    readings: tuple[Reading, ...]


@dataclass(frozen=True, slots=True)
class FaultRules:
    """The thresholds of the rule table, in seconds and percent."""

    unavailable_grace: float = 120.0
    lift_stuck_after: float = 60.0
    vacuum_returning_after: float = 900.0
    battery_low: float = 15.0
    # A fault that comes back this soon after clearing reopens its incident.
    reopen_window: float = 600.0


@dataclass(frozen=True, slots=True)
class Fault:
    """A rule that fails now: which, since when, and the checks behind it (True = passed)."""

    asset_id: str
    kind: AssetKind
    code: FaultCode
    since: float
    checks: Mapping[str, bool]
    detail: str = ""


def _battery(readings: Iterable[Reading]) -> float | None:
    """The lowest battery level any reading reports, as a number."""
    levels = []
    for reading in readings:
        value = reading.attributes.get("battery_level")
        if value is None and reading.attributes.get("device_class") == "battery":
            value = reading.state
        try:
            levels.append(float(value))
        except (TypeError, ValueError):
            continue
    return min(levels, default=None)


def _is_on(readings: Iterable[Reading], word: str) -> bool | None:
    """Whether the rover's docked/charging entity is on, None when it has none."""
    for reading in readings:
        if word in reading.entity_id and reading.state not in MISSING_STATES:
            return reading.state == "on"
    return None


def detect(asset: Asset, rules: FaultRules, now: float) -> Fault | None:
    """The asset's fault now, by the first rule that fails, or None when every check passes."""
    readings = asset.readings
    missing = [r for r in readings if r.state in MISSING_STATES]
    if missing:
        since = max(r.since for r in missing)
        if now - since >= rules.unavailable_grace:
            checks = {f"{r.entity_id} available": r.state not in MISSING_STATES for r in readings}
            return Fault(asset.asset_id, asset.kind, FaultCode.UNAVAILABLE, since, checks)
        return None  # within the grace period: a blip, not a fault yet
    main = readings[0]
    battery = _battery(readings)
    if asset.kind is AssetKind.VACUUM:
        if main.state == "error":
            detail = str(main.attributes.get("error") or "")[:120]
            return Fault(
                asset.asset_id, asset.kind, FaultCode.VACUUM_ERROR, main.since, {"no error": False}, detail
            )
        if main.state == "returning" and now - main.since >= rules.vacuum_returning_after:
            checks = {"reaches the dock in time": False}
            return Fault(asset.asset_id, asset.kind, FaultCode.VACUUM_STUCK_RETURNING, main.since, checks)
        if battery is not None and battery < rules.battery_low and main.state not in ("docked", "charging"):
            checks = {"battery above threshold": False, "docked": False}
            return Fault(
                asset.asset_id, asset.kind, FaultCode.BATTERY_LOW, main.since, checks, f"{battery:g}%"
            )
    moving = main.state in ("opening", "closing")
    if asset.kind is AssetKind.LIFT and moving and now - main.since >= rules.lift_stuck_after:
        checks = {f"finishes {main.state} in time": False}
        return Fault(asset.asset_id, asset.kind, FaultCode.LIFT_STUCK, main.since, checks, main.state)
    if asset.kind is AssetKind.ROVER and battery is not None and battery < rules.battery_low:
        docked, charging = _is_on(readings, "docked"), _is_on(readings, "charging")
        if docked is False and charging is not True:
            since = max(r.since for r in readings)
            checks = {"battery above threshold": False, "docked": False, "charging": bool(charging)}
            return Fault(asset.asset_id, asset.kind, FaultCode.ROVER_STRANDED, since, checks, f"{battery:g}%")
    if asset.kind is AssetKind.ENTITY:
        if main.attributes.get("device_class") == "problem" and main.state == "on":
            return Fault(
                asset.asset_id, asset.kind, FaultCode.PROBLEM_REPORTED, main.since, {"no problem": False}
            )
        if battery is not None and battery < rules.battery_low:
            checks = {"battery above threshold": False}
            return Fault(
                asset.asset_id, asset.kind, FaultCode.BATTERY_LOW, main.since, checks, f"{battery:g}%"
            )
    return None


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
class Step:
    """One line of an incident's timeline."""

    ts: float
    what: str
    detail: str = ""


ACTIVE = frozenset(
    {IncidentStatus.OPEN, IncidentStatus.TRIAGING, IncidentStatus.AWAITING_APPROVAL, IncidentStatus.VERIFYING}
)


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
    timeline: tuple[Step, ...] = ()
    # Filled in when it is resolved: evidence for the next incident of this asset or kind.
    root_cause: str = ""
    resolution: str = ""

    def noted(self, ts: float, what: str, detail: str = "") -> Incident:
        """The incident with one more step in its (bounded) timeline."""
        return replace(self, timeline=(*self.timeline, Step(ts, what, detail))[-TIMELINE_SIZE:])

    def summary(self) -> str:
        """One line for the chat loop's STATE_UPDATE."""
        detail = f" ({self.fault.detail})" if self.fault.detail else ""
        return f"{self.incident_id} {self.asset_id} {self.code.value}{detail}: {self.status.value}"


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
) -> tuple[dict[str, Incident], list[Change], int]:
    """Match the faults seen now to incidents: the incidents by id, what changed, the next number.

    One fault of one asset is one incident: while it holds nothing new opens, whatever the
    incident's status; one that clears and comes back within the reopen window (flapping) is the
    same incident again. An active incident whose fault has stayed away for the window is
    resolved as cleared by itself.
    """
    book = dict(incidents)
    changes: list[Change] = []
    latest = {(i.asset_id, i.code): i for i in sorted(book.values(), key=lambda i: i.incident_id)}
    seen = set()
    for fault in faults:
        key = (fault.asset_id, fault.code)
        seen.add(key)
        current = latest.get(key)
        if current is not None and current.cleared_at is None:
            continue
        if current is not None and current.status in ACTIVE:
            book[current.incident_id] = replace(current, cleared_at=None, fault=fault)
            continue
        if current is not None and now - (current.cleared_at or now) <= rules.reopen_window:
            reopened = replace(
                current,
                status=IncidentStatus.OPEN,
                fault=fault,
                cleared_at=None,
                reopened=current.reopened + 1,
            )
            book[reopened.incident_id] = reopened
            changes.append(Change(reopened, "reopened"))
            continue
        incident = Incident(
            f"INC-{next_number:04d}", fault.asset_id, fault.kind, fault.code, IncidentStatus.OPEN, now, fault
        ).noted(now, "opened", _checks_text(fault))
        next_number += 1
        book[incident.incident_id] = latest[key] = incident
        changes.append(Change(incident, "opened"))
    for incident in latest.values():
        if (incident.asset_id, incident.code) in seen:
            continue
        if incident.cleared_at is None:
            book[incident.incident_id] = cleared = replace(incident, cleared_at=now).noted(now, "cleared")
            if incident.status in ACTIVE:
                changes.append(Change(cleared, "cleared"))
        elif incident.status in ACTIVE and now - incident.cleared_at >= rules.reopen_window:
            resolved = replace(
                incident,
                status=IncidentStatus.RESOLVED,
                root_cause=incident.code.value,
                resolution=SELF_CLEARED,
            )
            book[incident.incident_id] = resolved = resolved.noted(now, "resolved", SELF_CLEARED)
            changes.append(Change(resolved, "resolved"))
    return book, changes, next_number


def _checks_text(fault: Fault) -> str:
    """The failed checks in a few words, for the timeline."""
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
        "reopened": incident.reopened,
        "timeline": [{"ts": s.ts, "what": s.what, "detail": s.detail} for s in incident.timeline],
        "root_cause": incident.root_cause,
        "resolution": incident.resolution,
    }


def incident_from_dict(data: Any) -> Incident | None:
    """An incident back from the store; None for anything malformed."""
    try:
        kind, code = AssetKind(data["kind"]), FaultCode(data["fault"])
        fault = Fault(
            str(data["asset_id"]),
            kind,
            code,
            float(data["since"]),
            {str(k): bool(v) for k, v in dict(data.get("checks") or {}).items()},
            str(data.get("detail") or ""),
        )
        cleared = data.get("cleared_at")
        steps = tuple(
            Step(float(s["ts"]), str(s["what"]), str(s.get("detail") or ""))
            for s in list(data.get("timeline") or ())[-TIMELINE_SIZE:]
        )
        return Incident(
            str(data["incident_id"]),
            fault.asset_id,
            kind,
            code,
            IncidentStatus(data["status"]),
            float(data["opened"]),
            fault,
            None if cleared is None else float(cleared),
            int(data.get("reopened") or 0),
            steps,
            str(data.get("root_cause") or ""),
            str(data.get("resolution") or ""),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def next_incident_number(incidents: Iterable[str]) -> int:
    """One past the highest number among incident ids: ids are never reused."""
    numbers = [int(key[4:]) for key in incidents if key.startswith("INC-") and key[4:].isdigit()]
    return max(numbers, default=0) + 1


def prune(incidents: Mapping[str, Incident], keep_closed: int) -> dict[str, Incident]:
    """Every active incident and the newest closed ones: the book stays bounded whatever the history."""
    closed = sorted((i for i in incidents.values() if i.status not in ACTIVE), key=lambda i: i.incident_id)
    dropped = {i.incident_id for i in closed[: max(0, len(closed) - keep_closed)]}
    return {key: incident for key, incident in incidents.items() if key not in dropped}
