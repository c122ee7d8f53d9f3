"""Persistence of what the overseer must never lose, kind to a Raspberry Pi's SD card.

Two documents per room in .storage/: what must survive a crash at once (memory, the cooldown
ledger and the budget, the controls, approvals, the next incident's number) is written within
a second of a change; what may wait (the audit log and the incident book, the large part)
within five minutes. A write already booked takes every change made until it runs, so a busy room
writes each document at most once per its delay instead of rewriting everything every second.
Home Assistant writes what is still pending when it stops.

One writer per room: a room that stops writes both documents one last time and closes them, and
whatever it still tries to write is dropped (logged), so a late write from a room that was
reloaded can never overwrite what the room loaded after it wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.storage import Store

from .const import DOMAIN, LOGGER
from .room_state import RoomState

STORAGE_VERSION = 1
# Short enough that a crash loses almost nothing of what guards the room.
CRITICAL_DELAY = 1.0
# The audit and the incident book: a crash loses at most this much of their history (the
# fault rules see a fault that is still there again within seconds; approvals are not in it).
BOOK_DELAY = 300.0
# What the book document holds (RoomState.book_dict); the rest is in the room's main document.
BOOK_KEYS = ("audit", "incidents")

type Snapshot = Callable[[], dict[str, Any]]


class _Document:
    """One JSON document, written once per delay however often it changes."""

    def __init__(self, hass: HomeAssistant, key: str, delay: float) -> None:
        self.store: Store[dict[str, Any]] = Store(hass, STORAGE_VERSION, key)
        self._delay = delay
        self._booked = False
        self._closed = False

    @callback
    def schedule(self, snapshot: Snapshot) -> None:
        """Write soon, unless a write is booked already: it will take this change too."""
        if self._closed:
            self._dropped()
            return
        if self._booked:
            return
        self._booked = True

        def taken() -> dict[str, Any]:
            self._booked = False
            return snapshot()

        self.store.async_delay_save(taken, self._delay)

    async def async_save(self, data: dict[str, Any]) -> None:
        if self._closed:
            self._dropped()
            return
        self._booked = False
        await self.store.async_save(data)

    @callback
    def close(self) -> None:
        """Write nothing more: no later change, nor a delayed or final write still booked."""
        self._closed = True
        self.store.make_read_only()

    def _dropped(self) -> None:
        LOGGER.warning("Dropped a write to %s from a room that has stopped", self.store.key)


class OverseerStore:
    """The room's two documents: `overseer.<entry_id>` and `overseer.<entry_id>.book`."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """Bind to the room's storage keys."""
        self._critical = _Document(hass, f"{DOMAIN}.{entry_id}", CRITICAL_DELAY)
        self._book = _Document(hass, f"{DOMAIN}.{entry_id}.book", BOOK_DELAY)

    async def async_load(self) -> dict[str, Any]:
        """Load the persisted state as one document, or an empty one on first start.

        A room saved before the split keeps its audit and incidents in the main document: they
        are read from there until the book has been written once.
        """
        critical = await self._critical.store.async_load()
        book = await self._book.store.async_load()
        data = critical if isinstance(critical, dict) else {}
        if isinstance(book, dict):
            return {**data, **{key: book[key] for key in BOOK_KEYS if key in book}}
        if any(key in data for key in BOOK_KEYS):
            # Written before the main document drops it (a second after the first change): the
            # history must never be in neither document.
            await self._book.async_save({key: data[key] for key in BOOK_KEYS if key in data})
        return data

    @callback
    def schedule_save(self, state: RoomState) -> None:
        """Write each document soon, each with what it holds as it is when written."""
        self._critical.schedule(state.critical_dict)
        self._book.schedule(state.book_dict)

    async def async_close(self, state: RoomState) -> None:
        """Write both now, for the last time (the room is stopping: the next must not wait for it)."""
        await self._book.async_save(state.book_dict())
        await self._critical.async_save(state.critical_dict())
        self._book.close()
        self._critical.close()

    async def async_remove(self) -> None:
        """Delete both documents when the room's entry is deleted."""
        await self._critical.store.async_remove()
        await self._book.store.async_remove()
