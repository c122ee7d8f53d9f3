"""Rover docked and charging."""

from __future__ import annotations

from homeassistant.components.binary_sensor import BinarySensorDeviceClass, BinarySensorEntity

from .const import ROVERS
from .entity import DemoEntity


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """Docked and charging per rover."""
    room = entry.runtime_data
    async_add_entities(RoverFlag(room, rover, field) for rover in ROVERS for field in ("docked", "charging"))


class RoverFlag(DemoEntity, BinarySensorEntity):
    """Whether a rover sits on its dock, or charges."""

    def __init__(self, room, rover: str, field: str) -> None:
        super().__init__(room, rover, field, field.capitalize())
        self._rover = rover
        self._field = field
        if field == "charging":
            self._attr_device_class = BinarySensorDeviceClass.BATTERY_CHARGING

    @property
    def available(self) -> bool:
        return self.room.rovers[self._rover].online

    @property
    def is_on(self) -> bool:
        return getattr(self.room.rovers[self._rover], self._field)
