"""What a loaded entry holds, by its kind: a room's overseer, or the room's orchestrator.

An entry's kind is read in one place (is_orchestrator); code that serves overseers only asks
overseer_data for the overseer's parts and gets None for an orchestrator or an unloaded entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from homeassistant.config_entries import ConfigEntry, ConfigEntryState

from .approvals import ApprovalDesk
from .const import CONF_KIND, KIND_ORCHESTRATOR
from .health import ModelHealthCoordinator
from .incidents import IncidentDesk
from .loop import OverseerLoop
from .orchestrator import Orchestrator
from .triage import Triage


@dataclass
class OverseerRuntimeData:
    """What a loaded overseer entry holds: its loop and the parts built beside it.

    The loop drives the others (starts and stops them, gives triage its turn in the single
    flight); readers take each part from here.
    """

    loop: OverseerLoop
    health: ModelHealthCoordinator
    incidents: IncidentDesk
    approvals: ApprovalDesk
    triage: Triage


@dataclass
class OrchestratorRuntimeData:
    """What a loaded orchestrator entry holds."""

    orchestrator: Orchestrator


type OverseerConfigEntry = ConfigEntry[OverseerRuntimeData]
type OrchestratorConfigEntry = ConfigEntry[OrchestratorRuntimeData]
# Either kind, as Home Assistant hands an entry of this domain to setup, platforms and diagnostics.
type RoomConfigEntry = ConfigEntry[OverseerRuntimeData | OrchestratorRuntimeData]


def is_orchestrator(entry: ConfigEntry) -> bool:
    """Return whether the entry is a room's orchestrator, not an overseer.

    The contract: kind absent = overseer.
    """
    return entry.data.get(CONF_KIND) == KIND_ORCHESTRATOR


def orchestrator_of(entry: RoomConfigEntry) -> Orchestrator | None:
    """Return the orchestrator an orchestrator entry holds (from before its platforms load); else None."""
    return cast(OrchestratorRuntimeData, entry.runtime_data).orchestrator if is_orchestrator(entry) else None


def overseer_data(entry: ConfigEntry) -> OverseerRuntimeData | None:
    """Return a loaded overseer's parts; None for an orchestrator or an entry that is not loaded."""
    if is_orchestrator(entry) or entry.state is not ConfigEntryState.LOADED:
        return None
    data: OverseerRuntimeData = entry.runtime_data
    return data
