"""Calls that outlive their room: what came of them is kept by the room of the entry loaded next.

A reload waits a few seconds for the room's calls in flight, then hands on those still running
(a slow lift) instead of cutting them short or calling them failed: each goes on under its own
bound, its cooldown and budget already in the state the stopping room writes last, and what
came of it (its audit record, the approval it ran for) is kept by the room of the same entry
loaded when it returns, or, while none is, by the next one to load.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from homeassistant.core import HomeAssistant, callback
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.approvals import Approval
from .core.audit import AuditRecord


class Records(Protocol):
    """A loaded room's audit, as a stopped room hands it a record."""

    def adopt(self, record: AuditRecord) -> None:
        """Keep the record of a call that began in the room before."""


class Approvals(Protocol):
    """A loaded room's approvals, as a stopped room hands one on."""

    def resume(self, approval: Approval) -> None:
        """Show an approved call that is still running as such."""

    def settle(self, approval: Approval, grant_seconds: float = 0, remaining: int | None = None) -> None:
        """Record what became of an approved call."""


@dataclass(frozen=True, slots=True)
class Room:
    """What a loaded room takes from the rooms of its entry that stopped."""

    records: Records
    approvals: Approvals


# One change to the room loaded now: a record kept, an approval settled.
type Change = Callable[[Room], None]

_HANDOVERS: HassKey[dict[str, Handover]] = HassKey(f"{DOMAIN}_handovers")


class Handover:
    """One entry's changes from rooms that stopped, for its room loaded now or the next one."""

    def __init__(self) -> None:
        """No room loaded yet, nothing waiting."""
        self._room: Room | None = None
        self._waiting: deque[Change] = deque()

    @callback
    def attach(self, room: Room) -> None:
        """Take a room that has loaded: it gets what waited for it, in order, then what comes later."""
        while self._waiting:
            self._waiting.popleft()(room)
        self._room = room

    @callback
    def detach(self, room: Room) -> None:
        """Let go of a room that is stopping: what its calls still do waits for the next one."""
        if self._room == room:
            self._room = None

    @callback
    def deliver(self, change: Change) -> None:
        """Apply a change to the room loaded now, or keep it for the next one to load."""
        if self._room is None:
            self._waiting.append(change)
        else:
            change(self._room)


@callback
def handover_of(hass: HomeAssistant, entry_id: str) -> Handover:
    """Return the entry's handover, the same across its reloads."""
    return hass.data.setdefault(_HANDOVERS, {}).setdefault(entry_id, Handover())


@callback
def drop_handover(hass: HomeAssistant, entry_id: str) -> None:
    """Forget the handover of an entry that was deleted."""
    hass.data.get(_HANDOVERS, {}).pop(entry_id, None)
