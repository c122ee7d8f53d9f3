"""Six colour lights."""

from __future__ import annotations

from typing import Any

from homeassistant.components.light import ATTR_HS_COLOR, ColorMode, LightEntity

from .const import LIGHTS
from .entity import DemoEntity


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """The room's lights."""
    async_add_entities(DemoLight(entry.runtime_data, name) for name in LIGHTS)


class DemoLight(DemoEntity, LightEntity):
    """An HS colour light; the overseer's colour names arrive as hs_color."""

    _attr_color_mode = ColorMode.HS
    _attr_supported_color_modes = {ColorMode.HS}  # noqa: RUF012 - Home Assistant's own pattern

    def __init__(self, room, name: str) -> None:
        super().__init__(room, name, "light", None)
        self._attr_is_on = name in ("Shelf", "Corner", "Aux2")
        self._attr_hs_color = (280.0, 100.0)

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        if ATTR_HS_COLOR in kwargs:
            self._attr_hs_color = kwargs[ATTR_HS_COLOR]
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()
