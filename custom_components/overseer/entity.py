"""The base entity: one service device per room, names from translations, one update signal."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity import Entity, EntityDescription

from .const import DOMAIN, status_signal
from .coordinator import OverseerCoordinator
from .core.world import World


class ConditionalDescription(Protocol):
    """An entity description that says whether the room has what its entity is about."""

    # Read-only, as the frozen descriptions have them.
    @property
    def key(self) -> str:
        """The entity's key."""

    @property
    def exists_fn(self) -> Callable[[World], bool]:
        """Whether the room has what the entity is about."""


@callback
def existing[D: ConditionalDescription](
    hass: HomeAssistant, coordinator: OverseerCoordinator, platform: str, descriptions: Iterable[D]
) -> list[D]:
    """The descriptions whose entity makes sense in this room.

    The others' entities, left from an earlier configuration, leave the entity registry.
    """
    world = coordinator.world()
    entry = coordinator.entry
    registry = er.async_get(hass)
    kept = []
    for description in descriptions:
        if description.exists_fn(world):
            kept.append(description)
        elif entity_id := registry.async_get_entity_id(
            platform, DOMAIN, f"{entry.entry_id}_{description.key}"
        ):
            registry.async_remove(entity_id)
    return kept


def room_device(coordinator: OverseerCoordinator) -> DeviceInfo:
    """The room's service device, which every entity of the room belongs to."""
    entry = coordinator.entry
    return DeviceInfo(
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        entry_type=DeviceEntryType.SERVICE,
        manufacturer="Overseer",
        model=coordinator.settings.backend,
    )


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
        self._attr_device_info = room_device(coordinator)

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
