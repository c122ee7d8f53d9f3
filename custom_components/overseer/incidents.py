"""The incident desk: the room's assets checked against the fault rules, one ticket per fault.

Every few seconds the desk reads each asset (the lift, the vacuum, each rover, each light and
the extra asset entities) from Home Assistant, lets the pure rules name the faults and the
incident book match them to incidents, verifies what triage ran, and tells automations on
`overseer_incident`. An incident that needs a person is a repair issue until it is resolved.
Incidents are persisted with the room's state; the book keeps every active incident and the
newest closed ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.helpers.start import async_at_started

from .approvals import ApprovalDesk
from .const import DOMAIN, ISSUE_INCIDENT_NEEDS_HUMAN, OverseerMode
from .core.accounts import Phrase
from .core.approvals import Approval, ApprovalStatus, decided, pending
from .core.faults import UNSURE, Asset, Fault, FaultCode, FaultRules, Reading, detect
from .core.incidents import ACTIVE, Incident, IncidentStatus, prune_incidents, reconcile
from .core.text import markdown_plain
from .core.tools import call_text
from .core.triage import (
    due,
    executed,
    goes_first,
    nothing_to_approve,
    relapsed,
    verified,
)
from .core.world import World
from .events import fire_incident
from .room_state import RoomState
from .settings import Settings

CHECK_EVERY = timedelta(seconds=5)
KEEP_CLOSED = 50
# Why an approval whose incident the book lost in a crash was not asked again.
INCIDENT_LOST = "its incident was not kept across a restart"
# The attributes the fault rules read; nothing else of an asset's state is kept.
READ_ATTRIBUTES = ("battery_level", "status", "error", "device_class")


class IncidentDesk:
    """Checks the room's assets, keeps its incidents and says when one is triage's turn."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry_id: str,
        settings: Settings,
        state: RoomState,
        world: Callable[[], World],
        now: Callable[[], float],
        changed: Callable[[], None],
        approvals: ApprovalDesk,
        phrase: Phrase,
    ) -> None:
        """Share the room's persisted state; changed() persists it and refreshes the entities.

        phrase words what the repair of an incident that needs a person says in words of ours
        (the fault, nothing tried, no safe step), in the room's language like its notifications:
        a repair's placeholders are fixed when it is raised.
        """
        self._hass = hass
        self._phrase = phrase
        self._entry_id = entry_id
        self._settings = settings
        self._state = state
        self._world = world
        self._now = now
        self._changed = changed
        self._rules = FaultRules()
        # An asset with no state at all has been missing at least since the desk started.
        self._started = now()
        # A due triage put off once for someone waiting for an answer goes next.
        self._deferred = False
        self._approvals = approvals
        for incident in list(state.incidents.values()):
            if incident.status is IncidentStatus.TRIAGING:  # Home Assistant stopped mid-call
                back = replace(incident, status=IncidentStatus.OPEN).noted(now(), "interrupted", "restart")
                state.incidents[incident.incident_id] = back
        # The approvals are written within a second, the incident book within minutes: after a
        # crash an approval may wait for an incident the book no longer has. Nobody is asked to
        # approve a step that nothing would verify; a fault still there opens a new incident.
        for approval in pending(state.approvals.values()):
            if approval.incident_id and approval.incident_id not in state.incidents:
                lost = decided(approval, ApprovalStatus.EXPIRED, now(), reason=INCIDENT_LOST)
                state.approvals[approval.approval_id] = lost

    @callback
    def async_track(self) -> CALLBACK_TYPE:
        """Check every few seconds once Home Assistant has started; returns the stopper.

        Before it has started, assets are still loading and would read as offline.
        """
        stoppers: list[CALLBACK_TYPE] = [
            self._approvals.async_listen(),
            self._approvals.async_on_decided(self._approval_decided),
        ]

        @callback
        def start(_: HomeAssistant) -> None:
            # Repairs do not survive a restart the way incidents do.
            for incident in self._state.incidents.values():
                self._sync_repair(incident)
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

    def take_triage(self, now: float, addressed_pending: bool) -> str | None:
        """Take the incident to triage in the free flight, if one is due and it is triage's turn.

        Triage acts on the room: only the control overseer runs it.
        """
        if self._state.mode is not OverseerMode.CONTROL:
            return None
        incident = due(self._state.incidents.values(), now)
        if incident is None:
            self._deferred = False
            return None
        if not goes_first(addressed_pending, self._deferred):
            self._deferred = True
            return None
        self._deferred = False
        return incident.incident_id

    @callback
    def check(self, _: datetime | None = None) -> None:
        """Run the rules over every asset, record what changed and verify what ran."""
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
        state.incidents = prune_incidents(book, KEEP_CLOSED)
        for change in changes:
            self._tell(change.incident, None if change.what in ("opened", "reopened") else change.what)
            if change.what == "cleared":  # a person fixed it: a restart now would hit a healthy device
                for approval in self._approvals.pending(change.incident.incident_id):
                    self._approvals.expire(approval.approval_id, "fault cleared")
            elif change.what == "reopened" and (escalated := relapsed(change.incident, now)) is not None:
                self.put(escalated)
        self._approvals.expire_overdue()
        for incident in list(state.incidents.values()):
            pending = bool(self._approvals.pending(incident.incident_id))
            checked = verified(incident, now, pending)
            if checked is None and not pending:  # an approval answered, expired or lost elsewhere
                checked = nothing_to_approve(incident, now)
            if checked is not None:
                self.put(checked)
        if changes or state.incidents != before:
            self._changed()

    def put(self, incident: Incident) -> None:
        """Store a changed incident and tell automations, the repairs and the entities."""
        self._state.incidents[incident.incident_id] = incident
        self._tell(incident, incident.timeline[-1].what if incident.timeline else None)
        self._changed()

    def _approval_decided(self, approval: Approval) -> None:
        """Move an incident on when its approval was answered, expired or ran."""
        incident = self._state.incidents.get(approval.incident_id)
        if incident is None or incident.status not in ACTIVE:
            return
        now = self._now()
        who = f" by {approval.decided_name or approval.decided_by}" if approval.decided_by else ""
        why = f" ({approval.reason})" if approval.reason else ""
        incident = incident.noted(
            now, "approval", f"{approval.approval_id} {approval.status.value}{who}{why}"
        )
        if approval.status is ApprovalStatus.EXECUTED:
            call = call_text(approval.tool, approval.arguments)
            incident = executed(incident, [call], now, self._settings.verify_after)
        elif not self._approvals.pending(incident.incident_id):
            incident = nothing_to_approve(incident, now) or incident
        self.put(incident)

    def _tell(self, incident: Incident, reason: str | None) -> None:
        """Fire the contract's event, and keep the incident's repair issue in step with its status."""
        fire_incident(self._hass, incident, reason)
        if incident.status is IncidentStatus.RESOLVED:
            for approval in self._approvals.pending(incident.incident_id):
                self._approvals.expire(approval.approval_id, "incident resolved")
        self._sync_repair(incident)

    def _sync_repair(self, incident: Incident) -> None:
        issue_id = f"{ISSUE_INCIDENT_NEEDS_HUMAN}_{self._entry_id}_{incident.incident_id}"
        if incident.status is not IncidentStatus.NEEDS_HUMAN:
            ir.async_delete_issue(self._hass, DOMAIN, issue_id)
            return
        ir.async_create_issue(
            self._hass,
            DOMAIN,
            issue_id,
            is_fixable=False,
            severity=ir.IssueSeverity.WARNING,
            translation_key=ISSUE_INCIDENT_NEEDS_HUMAN,
            # Device and model words, shown as markdown: escaped.
            translation_placeholders={
                "name": self._settings.name,
                "incident_id": incident.incident_id,
                "asset": markdown_plain(incident.asset_id),
                "fault": markdown_plain(self._fault_words(incident)),
                "tried": markdown_plain(", ".join(incident.tried)) or self._phrase("incident_nothing_tried"),
                "action": markdown_plain(incident.recommended) or self._phrase("incident_nothing_safe"),
            },
        )

    def _fault_words(self, incident: Incident) -> str:
        """Return the fault in the room's words, then what the device said: "a vacuum error (Brush stuck)"."""
        words = self._phrase(f"fault_{incident.code.value}")
        return f"{words} ({incident.fault.detail})" if incident.fault.detail else words

    def _assets(self) -> list[Asset]:
        """Return the room's assets as Home Assistant reports them now."""
        return [
            Asset(asset_id, kind, tuple(self._reading(entity_id) for entity_id in entity_ids))
            for asset_id, (kind, entity_ids) in self._world().assets().items()
        ]

    def _reading(self, entity_id: str) -> Reading:
        found = self._hass.states.get(entity_id)
        if found is None:
            return Reading(entity_id, "unavailable", self._started)
        attributes = {key: found.attributes[key] for key in READ_ATTRIBUTES if key in found.attributes}
        if "error" not in attributes and found.state == "error" and "status" in attributes:
            attributes["error"] = attributes["status"]
        return Reading(entity_id, found.state, found.last_changed.timestamp(), attributes)
