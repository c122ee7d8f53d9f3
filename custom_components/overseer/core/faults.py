"""Fault detection: a deterministic rule table per asset kind (the book of incidents is core/incidents.py).

No model is involved here. The shell hands in what each asset reports (state, a few chosen
attributes, since when) and the rules name the fault and the checks that failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

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
    """Return the lowest battery level any reading reports, as a number."""
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
    """Return the asset's fault now, by the first rule that fails; None when every check passes.

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
