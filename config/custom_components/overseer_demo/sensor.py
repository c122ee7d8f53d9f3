"""Rover activity and driver."""

from __future__ import annotations

from homeassistant.components.sensor import SensorEntity

from .const import ROVERS
from .entity import DemoEntity


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """One activity and one driver sensor per rover."""
    room = entry.runtime_data
    async_add_entities(
        RoverSensor(room, rover, field) for rover in ROVERS for field in ("activity", "driver")
    )


class RoverSensor(DemoEntity, SensorEntity):
    """What a rover is doing, or who drives it."""

    def __init__(self, room, rover: str, field: str) -> None:
        super().__init__(room, rover, field, field.capitalize())
        self._rover = rover
        self._field = field

    @property
    def available(self) -> bool:
        return self.room.rovers[self._rover].online

    @property
    def native_value(self) -> str:
        return getattr(self.room.rovers[self._rover], self._field)
