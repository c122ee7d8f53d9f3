"""The incident desk: the room's assets checked against the fault rules, one ticket per fault.

Every few seconds the desk reads each asset (the lift, the vacuum, each rover, each light and
the extra asset entities) from Home Assistant, lets the pure rules name the faults and the
incident book match them to incidents, and tells automations on `overseer_incident`.
Incidents are persisted with the room's state; the book keeps every active incident and the
newest closed ones.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.helpers.start import async_at_started

from .const import EVENT_INCIDENT
from .core.faults import (
    ACTIVE,
    UNSURE,
    Asset,
    AssetKind,
    Change,
    Fault,
    FaultCode,
    FaultRules,
    Incident,
    Reading,
    detect,
    number_of,
    prune,
    reconcile,
)
from .core.world import World
from .models import RoomState
from .settings import Settings

CHECK_EVERY = timedelta(seconds=5)
KEEP_CLOSED = 50
# The attributes the fault rules read; nothing else of an asset's state is kept.
READ_ATTRIBUTES = ("battery_level", "status", "error", "device_class")


class IncidentDesk:
    """Checks the room's assets and keeps its incidents."""

    def __init__(
        self,
        hass: HomeAssistant,
        settings: Settings,
        state: RoomState,
        world: Callable[[], World],
        now: Callable[[], float],
        changed: Callable[[], None],
    ) -> None:
        """Share the room's persisted state; changed() persists it and refreshes the entities."""
        self._hass = hass
        self._settings = settings
        self._state = state
        self._world = world
        self._now = now
        self._changed = changed
        self._rules = FaultRules()
        # An asset with no state at all has been missing at least since the desk started.
        self._started = now()

    @callback
    def async_track(self) -> CALLBACK_TYPE:
        """Check every few seconds once Home Assistant has started; returns the stopper.

        Before it has started, assets are still loading and would read as offline.
        """
        stoppers: list[CALLBACK_TYPE] = []

        @callback
        def start(_: HomeAssistant) -> None:
            self.check()
            stoppers.append(
                async_track_time_interval(
                    self._hass, self.check, CHECK_EVERY, name="overseer incidents", cancel_on_shutdown=True
                )
            )

        stoppers.append(async_at_started(self._hass, start))

        @callback
        def stop() -> None:
            for stopper in stoppers:
                stopper()

        return stop

    @property
    def active(self) -> list[Incident]:
        """The incidents still being handled, oldest first."""
        return sorted(
            (i for i in self._state.incidents.values() if i.status in ACTIVE),
            key=lambda i: number_of(i.incident_id),
        )

    def summaries(self) -> tuple[str, ...]:
        """One line per active incident, for the chat loop's STATE_UPDATE."""
        return tuple(incident.summary() for incident in self.active)

    @callback
    def check(self, _: datetime | None = None) -> None:
        """Run the rules over every asset and record what changed."""
        now = self._now()
        assets = self._assets()
        verdicts = {asset.asset_id: detect(asset, self._rules, now) for asset in assets}
        faults = [verdict for verdict in verdicts.values() if isinstance(verdict, Fault)]
        # An asset offline (for a while, or just now) cannot show that its other faults cleared.
        unsure = {
            asset_id
            for asset_id, verdict in verdicts.items()
            if verdict is UNSURE or (isinstance(verdict, Fault) and verdict.code is FaultCode.UNAVAILABLE)
        }
        state = self._state
        book, changes, state.incident_number = reconcile(
            state.incidents, faults, self._rules, now, state.incident_number, unsure, set(verdicts)
        )
        before = state.incidents
        state.incidents = prune(book, KEEP_CLOSED)
        for change in changes:
            self._tell(change)
        if changes or state.incidents != before:
            self._changed()

    def _tell(self, change: Change) -> None:
        incident = change.incident
        event: dict[str, Any] = {
            "incident_id": incident.incident_id,
            "asset_id": incident.asset_id,
            "status": incident.status.value,
            "fault": incident.code.value,
        }
        if change.what not in ("opened", "reopened"):
            event["reason"] = change.what  # cleared, returned, resolved
        self._hass.bus.async_fire(EVENT_INCIDENT, event)

    def _assets(self) -> list[Asset]:
        """The room's assets as Home Assistant reports them now."""
        world = self._world()
        assets = []
        if world.lift and world.lift.cover:
            assets.append(self._asset(world.lift.cover.entity_id, AssetKind.LIFT))
        if world.vacuum:
            assets.append(self._asset(world.vacuum.entity_id, AssetKind.VACUUM))
        for rover in world.rovers:
            readings = tuple(self._reading(entity.entity_id) for _, entity in rover.fields)
            assets.append(Asset(rover.name, AssetKind.ROVER, readings))
        assets.extend(self._asset(light.entity_id, AssetKind.LIGHT) for light in world.lights)
        assets.extend(self._asset(entity_id, AssetKind.ENTITY) for entity_id in self._settings.asset_entities)
        return assets

    def _asset(self, entity_id: str, kind: AssetKind) -> Asset:
        return Asset(entity_id, kind, (self._reading(entity_id),))

    def _reading(self, entity_id: str) -> Reading:
        found = self._hass.states.get(entity_id)
        if found is None:
            return Reading(entity_id, "unavailable", self._started)
        attributes = {key: found.attributes[key] for key in READ_ATTRIBUTES if key in found.attributes}
        if "error" not in attributes and found.state == "error" and "status" in attributes:
            attributes["error"] = attributes["status"]
        return Reading(entity_id, found.state, found.last_changed.timestamp(), attributes)
