"""The base entity: one service device per room, names from translations, one update signal."""

from __future__ import annotations

from homeassistant.core import callback
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity import Entity, EntityDescription

from .const import DOMAIN, status_signal
from .coordinator import OverseerCoordinator


class OverseerEntity(Entity):
    """Reads the coordinator and refreshes when it says something changed."""

    _attr_has_entity_name = True
    _attr_should_poll = False

    def __init__(self, coordinator: OverseerCoordinator, description: EntityDescription) -> None:
        """Bind to the room's coordinator and its service device."""
        self.coordinator = coordinator
        self.entity_description = description
        entry = coordinator.entry
        self._attr_unique_id = f"{entry.entry_id}_{description.key}"
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            entry_type=DeviceEntryType.SERVICE,
            manufacturer="Overseer",
            model=coordinator.settings.backend,
        )

    async def async_added_to_hass(self) -> None:
        """Follow the coordinator."""
        await super().async_added_to_hass()
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass, status_signal(self.coordinator.entry.entry_id), self._handle_coordinator_update
            )
        )

    @callback
    def _handle_coordinator_update(self) -> None:
        """Write the new state; Home Assistant drops writes that change nothing."""
        self.async_write_ha_state()
