"""Fault detection: a deterministic rule table per asset kind, and one incident per open fault.

No model is involved here. The shell hands in what each asset reports (state, a few chosen
attributes, since when), the rules name the fault and the checks that failed, and the book
keeps one incident per asset and fault: a fault that clears and comes back within the reopen
window (flapping) reopens the same incident instead of opening another.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .text import one_line
from .world import MISSING_STATES, AssetKind, RoverField, rover_field

UNAVAILABLE = "unavailable"


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
        value: Any = reading.attributes.get("battery_level")
        if value is None and reading.attributes.get("device_class") == "battery":
            value = reading.state
        try:
            levels.append(float(value))
        except (TypeError, ValueError):
            continue
    return min(levels, default=None)


def _is_on(readings: Iterable[Reading], wanted: RoverField) -> bool | None:
    """Whether the rover's docked/charging entity is on, None when it has none."""
    for reading in readings:
        if (
            rover_field(reading.entity_id, reading.entity_id) is wanted
            and reading.state not in MISSING_STATES
        ):
            return reading.state == "on"
    return None


class Unsure:
    """An asset whose state cannot be judged now (offline for less than the grace period)."""


UNSURE = Unsure()


def detect(asset: Asset, rules: FaultRules, now: float) -> Fault | Unsure | None:
    """The asset's fault now, by the first rule that fails; None when every check passes.

    UNSURE while it has been offline for less than the grace period: its incidents stay as they
    are. Offline is `unavailable` (`unknown` is a normal state for many entities); a rover is
    offline when all of its entities are.
    """
    readings = asset.readings
    missing = [r for r in readings if r.state == UNAVAILABLE]
    if missing and (asset.kind is not AssetKind.ROVER or len(missing) == len(readings)):
        since = min(r.since for r in missing)
        if now - since < rules.unavailable_grace:
            return UNSURE
        checks = {f"{r.entity_id} available": r.state != UNAVAILABLE for r in readings}
        return Fault(asset.asset_id, asset.kind, FaultCode.UNAVAILABLE, since, checks)
    readings = tuple(r for r in readings if r.state not in MISSING_STATES) or readings
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
        away = main.state not in ("docked", "charging", "returning")
        if battery is not None and battery < rules.battery_low and away:
            checks = {"battery above threshold": False, "docked": False}
            return Fault(
                asset.asset_id, asset.kind, FaultCode.BATTERY_LOW, main.since, checks, f"{battery:g}%"
            )
    moving = main.state in ("opening", "closing")
    if asset.kind is AssetKind.LIFT and moving and now - main.since >= rules.lift_stuck_after:
        checks = {f"finishes {main.state} in time": False}
        return Fault(asset.asset_id, asset.kind, FaultCode.LIFT_STUCK, main.since, checks, main.state)
    if asset.kind is AssetKind.ROVER and battery is not None and battery < rules.battery_low:
        docked, charging = _is_on(readings, RoverField.DOCKED), _is_on(readings, RoverField.CHARGING)
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


# Every status but resolved: the incident is still open (the sensor counts it, the book keeps it).
ACTIVE = frozenset(status for status in IncidentStatus if status is not IncidentStatus.RESOLVED)
# The resolution of an incident whose asset left the options: no evidence about any fault.
ASSET_GONE = "the asset is no longer watched"


def number_of(incident_id: str) -> int:
    """The number in an incident id, for ordering (INC-10000 comes after INC-9999)."""
    digits = incident_id[4:]
    return int(digits) if incident_id.startswith("INC-") and digits.isdigit() else 0


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
        """The incident with one more step in its (bounded) timeline."""
        return replace(self, timeline=(*self.timeline, Step(ts, what, detail))[-TIMELINE_SIZE:])

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
LATEST_TS = 4_102_444_800  # 2100-01-01
_INCIDENT_ID = re.compile(r"INC-\d{1,9}")


def stored_time(value: Any) -> float:
    """A stored timestamp: a number (not text, not a boolean), finite, from 1970 to 2100."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"not a timestamp: {value!r}")
    number = float(value)
    if not math.isfinite(number) or not 0 <= number <= LATEST_TS:
        raise ValueError(f"not a timestamp: {value!r}")
    return number


def _count(value: Any) -> int:
    """A stored counter, bounded."""
    return max(0, min(int(value or 0), 1_000_000))


def _stored_text(value: Any) -> str:
    return one_line(str(value or ""), STORED_TEXT)


def incident_from_dict(data: Any) -> Incident | None:
    """An incident back from the store; None for anything malformed."""
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
            Step(stored_time(s["ts"]), _stored_text(s["what"]), _stored_text(s.get("detail")))
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


def prune(incidents: Mapping[str, Incident], keep_closed: int) -> dict[str, Incident]:
    """Every open incident and the newest resolved ones: bounded whatever the history."""
    closed = sorted(
        (i for i in incidents.values() if i.status not in ACTIVE), key=lambda i: number_of(i.incident_id)
    )
    dropped = {i.incident_id for i in closed[: max(0, len(closed) - keep_closed)]}
    return {key: incident for key, incident in incidents.items() if key not in dropped}
