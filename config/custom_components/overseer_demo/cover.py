"""The lift: a cover that takes a few seconds to move."""

from __future__ import annotations

from typing import Any

from homeassistant.components.cover import CoverDeviceClass, CoverEntity, CoverEntityFeature
from homeassistant.core import callback
from homeassistant.helpers.event import async_call_later

from .entity import DemoEntity

TRAVEL_SECONDS = 4


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """The lift."""
    async_add_entities([Lift(entry.runtime_data)])


class Lift(DemoEntity, CoverEntity):
    """Opening means going up; it is busy while it moves."""

    _attr_device_class = CoverDeviceClass.GATE
    _attr_supported_features = CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE

    def __init__(self, room) -> None:
        super().__init__(room, "Lift", "lift", None)
        self._attr_is_closed = True
        self._attr_is_opening = False
        self._attr_is_closing = False
        self._arrive = None

    async def async_open_cover(self, **kwargs: Any) -> None:
        self._move(opening=True)

    async def async_close_cover(self, **kwargs: Any) -> None:
        self._move(opening=False)

    def _move(self, opening: bool) -> None:
        if self._arrive:
            self._arrive()
        self._attr_is_opening, self._attr_is_closing = opening, not opening
        self.async_write_ha_state()

        @callback
        def arrive(_: Any) -> None:
            self._arrive = None
            self._attr_is_opening = self._attr_is_closing = False
            self._attr_is_closed = not opening
            self.async_write_ha_state()

        self._arrive = async_call_later(self.hass, TRAVEL_SECONDS, arrive)

    async def async_will_remove_from_hass(self) -> None:
        if self._arrive:
            self._arrive()
