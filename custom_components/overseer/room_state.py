"""The room state that survives restarts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .const import OverseerMode
from .core.approvals import (
    KEEP_DECIDED,
    MAX_GRANTS,
    MAX_PENDING,
    Approval,
    Grant,
    approval_as_dict,
    approval_from_dict,
    grant_as_dict,
    grant_from_dict,
)
from .core.audit import AuditLog
from .core.incidents import (
    Incident,
    incident_as_dict,
    incident_from_dict,
    next_incident_number,
    without_duplicates,
)
from .core.memory import Memory
from .core.policy import Ledger
from .core.world import SiteMode
from .room import Controls

KEPT_APPROVALS = MAX_PENDING + KEEP_DECIDED


def _enum[E: (SiteMode, OverseerMode)](kind: type[E], value: Any, default: E) -> E:
    """Return a persisted enum value, or the default when it is unknown."""
    try:
        return kind(value)
    except ValueError:
        return default


@dataclass
class RoomState:
    """Everything a user set or the overseer remembered; persisted, never reset."""

    memory: Memory = field(default_factory=Memory)
    audit: AuditLog = field(default_factory=AuditLog)
    ledger: Ledger = field(default_factory=Ledger)
    controls: Controls = field(default_factory=Controls)
    mode: OverseerMode = OverseerMode.CONTROL
    dry_run: bool = False
    incidents: dict[str, Incident] = field(default_factory=dict)
    # The number the next incident gets: ids are never reused.
    incident_number: int = 1
    approvals: dict[str, Approval] = field(default_factory=dict)
    grants: dict[str, Grant] = field(default_factory=dict)

    def critical_dict(self) -> dict[str, Any]:
        """Plain JSON of what must survive a crash at once: what guards the room and what it remembers."""
        return {
            "memory": list(self.memory.slots),
            "ledger": self.ledger.as_dict(),
            "site_mode": self.controls.site_mode.value,
            "lights_locked_on": self.controls.lights_locked_on,
            "mode": self.mode.value,
            "dry_run": self.dry_run,
            "incident_number": self.incident_number,
            "approvals": [approval_as_dict(approval) for approval in self.approvals.values()],
            "grants": [grant_as_dict(grant) for grant in self.grants.values()],
        }

    def book_dict(self) -> dict[str, Any]:
        """Plain JSON of the history that may wait a little: the audit log and the incident book."""
        return {
            "audit": self.audit.as_list(),
            "incidents": [incident_as_dict(incident) for incident in self.incidents.values()],
        }

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON of the whole state (from_dict reads it back)."""
        return {**self.critical_dict(), **self.book_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoomState:
        """Rebuild from the store; anything malformed falls back to its default."""
        memory = data.get("memory")
        audit = data.get("audit")
        stored = data.get("incidents")
        incidents = [incident_from_dict(item) for item in (stored if isinstance(stored, list) else ())]
        kept = without_duplicates(incident for incident in incidents if incident is not None)
        number = data.get("incident_number")
        stored_approvals = data.get("approvals")
        approvals = [
            approval_from_dict(item)
            for item in (stored_approvals if isinstance(stored_approvals, list) else ())[:KEPT_APPROVALS]
        ]
        stored_grants = data.get("grants")
        grants = [
            grant_from_dict(item)
            for item in (stored_grants if isinstance(stored_grants, list) else ())[:MAX_GRANTS]
        ]
        return cls(
            memory=Memory(memory if isinstance(memory, list) else ()),
            audit=AuditLog(audit if isinstance(audit, list) else ()),
            ledger=Ledger.from_dict(data.get("ledger")),
            controls=Controls(
                site_mode=_enum(SiteMode, data.get("site_mode"), SiteMode.OPEN),
                lights_locked_on=data.get("lights_locked_on") is True,
            ),
            mode=_enum(OverseerMode, data.get("mode"), OverseerMode.CONTROL),
            dry_run=data.get("dry_run") is True,
            incidents=kept,
            incident_number=max(number if isinstance(number, int) else 1, next_incident_number(kept)),
            approvals={approval.approval_id: approval for approval in approvals if approval is not None},
            grants={grant.grant_id: grant for grant in grants if grant is not None},
        )
