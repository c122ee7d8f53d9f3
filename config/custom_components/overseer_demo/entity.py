"""Base entity of the demo room: follows the simulated room."""

from __future__ import annotations

from homeassistant.core import callback
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity import Entity

from .const import DOMAIN, SIGNAL_ROOM


class DemoEntity(Entity):
    """An entity of one demo device."""

    _attr_should_poll = False
    _attr_has_entity_name = True

    def __init__(self, room, device: str, key: str, name: str | None) -> None:
        """Name the entity within its device."""
        self.room = room
        self._attr_name = name
        self._attr_unique_id = f"{device}_{key}".lower().replace(" ", "_")
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, device)}, name=device, manufacturer="Overseer demo"
        )

    async def async_added_to_hass(self) -> None:
        """Refresh whenever the simulated room changes."""
        self.async_on_remove(async_dispatcher_connect(self.hass, SIGNAL_ROOM, self._changed))

    @callback
    def _changed(self) -> None:
        self.async_write_ha_state()
