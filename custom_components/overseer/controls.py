"""The control panel: what selects, switches and services change in a room's persisted state."""

from __future__ import annotations

from collections.abc import Callable

from homeassistant.core import callback

from .core.world import SiteMode
from .models import RoomState


class ControlPanel:
    """Each change is persisted and shown at once; the executor reads it at every call."""

    def __init__(self, state: RoomState, changed: Callable[[], None]) -> None:
        """changed() persists soon and refreshes the entities and the card."""
        self._state = state
        self._changed = changed

    @callback
    def set_site_mode(self, site_mode: SiteMode) -> None:
        """Automations lock the room with this."""
        self._state.controls.site_mode = site_mode
        self._changed()

    @callback
    def set_lights_locked_on(self, locked: bool) -> None:
        """Lock or free the room lights."""
        self._state.controls.lights_locked_on = locked
        self._changed()

    @callback
    def set_dry_run(self, dry_run: bool) -> None:
        """Observe only: decisions run, nothing is executed or posted."""
        self._state.dry_run = dry_run
        self._changed()

    @callback
    def write_memory(self, slot: int, text: str) -> None:
        """Replace one memory slot (the service; the model uses memory_write)."""
        self._state.memory.write(slot, text)
        self._changed()

    @callback
    def clear_memory(self, slot: int | None) -> None:
        """Empty one memory slot, or all three."""
        self._state.memory.clear(slot)
        self._changed()
