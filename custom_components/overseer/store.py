"""Persistence of what the overseer must never lose: memory, audit, cooldowns, locks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers.storage import Store

from .const import DOMAIN

STORAGE_VERSION = 1
# Short enough that a crash loses almost nothing, long enough to batch a busy cycle.
SAVE_DELAY = 1.0


class OverseerStore:
    """One JSON document per room in .storage/, written shortly after every change."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """Bind to the room's storage key."""
        self._store: Store[dict[str, Any]] = Store(hass, STORAGE_VERSION, f"{DOMAIN}.{entry_id}")

    async def async_load(self) -> dict[str, Any]:
        """The persisted document, or an empty one on first start."""
        data = await self._store.async_load()
        return data if isinstance(data, dict) else {}

    def schedule_save(self, snapshot: Callable[[], dict[str, Any]]) -> None:
        """Write soon; Home Assistant flushes pending writes on shutdown."""
        self._store.async_delay_save(snapshot, SAVE_DELAY)

    async def async_save(self, data: dict[str, Any]) -> None:
        """Write now (unload and reload must not wait for the delay)."""
        await self._store.async_save(data)

    async def async_remove(self) -> None:
        """Delete the document when the room's entry is deleted."""
        await self._store.async_remove()
