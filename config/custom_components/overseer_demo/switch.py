"""The crowd: when on, simulated people chat and drive."""

from __future__ import annotations

from typing import Any

from homeassistant.components.switch import SwitchEntity

from .entity import DemoEntity


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """The crowd switch."""
    async_add_entities([Crowd(entry.runtime_data)])


class Crowd(DemoEntity, SwitchEntity):
    """A simulated crowd in the chat."""

    def __init__(self, room) -> None:
        super().__init__(room, "Demo crowd", "crowd", None)

    @property
    def is_on(self) -> bool:
        return self.room.crowd

    async def async_turn_on(self, **kwargs: Any) -> None:
        self.room.crowd = True
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self.room.crowd = False
        self.async_write_ha_state()
