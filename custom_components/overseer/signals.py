"""How a room's parts say that something changed: persisted soon, and the entities and card told."""

from __future__ import annotations

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .const import status_signal
from .room_state import RoomState
from .store import OverseerStore


class RoomSignals:
    """One room's change signal, shared by its loop, its desks and its controls."""

    def __init__(self, hass: HomeAssistant, entry_id: str, store: OverseerStore, state: RoomState) -> None:
        """Bind to the room's store and the state it persists."""
        self._hass = hass
        self._entry_id = entry_id
        self._store = store
        self._state = state
        # Set once the room writes its state down for the last time: a change after it is lost.
        self.closed = False

    @callback
    def changed(self) -> None:
        """Handle a state change: persist it soon and tell the entities and the card."""
        self._store.schedule_save(self._state)
        self.notify()

    @callback
    def notify(self) -> None:
        """Something shown changed (nothing to persist): entities and status subscribers follow."""
        async_dispatcher_send(self._hass, status_signal(self._entry_id))

    async def async_close(self) -> None:
        """Write everything down now, for the last time: the room is stopping and hands it on."""
        self.closed = True
        await self._store.async_close(self._state)
