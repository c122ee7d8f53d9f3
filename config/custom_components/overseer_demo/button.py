"""Demo faults to try the overseer's incidents: a jammed vacuum, a rover off the network."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from homeassistant.components.button import ButtonEntity
from homeassistant.core import callback
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.helpers.event import async_call_later

from .const import SIGNAL_ROOM
from .entity import DemoEntity

# Longer than the overseer's two-minute grace period, so an incident opens, then clears.
OFFLINE_FOR = timedelta(minutes=3)


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """One fault button on the vacuum, one on Rover 2."""
    room = entry.runtime_data
    async_add_entities([JamBrush(room), DropRover(room, "Rover 2")])


class JamBrush(DemoEntity, ButtonEntity):
    """The vacuum stops with "Brush stuck" until it is started or sent home."""

    def __init__(self, room) -> None:
        super().__init__(room, "Neato", "jam_brush", "Jam the brush")

    async def async_press(self) -> None:
        self.room.vacuum.jam()


class DropRover(DemoEntity, ButtonEntity):
    """The rover goes off the network for three minutes."""

    def __init__(self, room, rover: str) -> None:
        super().__init__(room, rover, "drop_off", "Drop off the network")
        self._rover = rover
        self._back = None

    async def async_press(self) -> None:
        self.room.rovers[self._rover].online = False
        async_dispatcher_send(self.hass, SIGNAL_ROOM)
        if self._back:
            self._back()
        self._back = async_call_later(self.hass, OFFLINE_FOR, self._reconnect)

    @callback
    def _reconnect(self, _: Any) -> None:
        self._back = None
        self.room.rovers[self._rover].online = True
        async_dispatcher_send(self.hass, SIGNAL_ROOM)

    async def async_will_remove_from_hass(self) -> None:
        if self._back:
            self._back()
