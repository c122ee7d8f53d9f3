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
from .core.world import World
from .loop import OverseerLoop


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
    hass: HomeAssistant, loop: OverseerLoop, platform: str, descriptions: Iterable[D]
) -> list[D]:
    """Return the descriptions whose entity makes sense in this room.

    The others' entities, left from an earlier configuration, leave the entity registry.
    """
    world = loop.world()
    entry = loop.entry
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


def room_device(loop: OverseerLoop) -> DeviceInfo:
    """Return the room's service device, which every entity of the room belongs to."""
    entry = loop.entry
    return DeviceInfo(
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        entry_type=DeviceEntryType.SERVICE,
        manufacturer="Overseer",
        model=loop.settings.backend,
    )


class OverseerEntity(Entity):
    """Reads the loop and refreshes when it says something changed."""

    _attr_has_entity_name = True
    _attr_should_poll = False

    def __init__(self, loop: OverseerLoop, description: EntityDescription) -> None:
        """Bind to the room's loop and its service device."""
        self.loop = loop
        self.entity_description = description
        entry = loop.entry
        self._attr_unique_id = f"{entry.entry_id}_{description.key}"
        self._attr_device_info = room_device(loop)

    async def async_added_to_hass(self) -> None:
        """Follow the loop."""
        await super().async_added_to_hass()
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass, status_signal(self.loop.entry.entry_id), self._handle_loop_update
            )
        )

    @callback
    def _handle_loop_update(self) -> None:
        """Write the new state; Home Assistant drops writes that change nothing."""
        self.async_write_ha_state()
