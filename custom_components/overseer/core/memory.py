"""The overseer's tiny explicit memory: exactly three slots of one short line each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .text import one_line
from .tools import MEMORY_LINE_CHARS, MEMORY_SLOTS


class Memory:
    """Three one-line slots; writing replaces a slot, nothing ever grows."""

    def __init__(self, slots: Sequence[Any] = ()) -> None:
        """Start from persisted slots, ignoring anything that is not a line of text."""
        clean = [
            one_line(s, MEMORY_LINE_CHARS) if isinstance(s, str) else "" for s in list(slots)[:MEMORY_SLOTS]
        ]
        self._slots = clean + [""] * (MEMORY_SLOTS - len(clean))

    @property
    def slots(self) -> tuple[str, ...]:
        """The three slots, empty strings for empty slots."""
        return tuple(self._slots)

    def write(self, slot: int, text: str) -> str:
        """Replace one slot (1-3) with one bounded line; returns what was stored."""
        if not 1 <= slot <= MEMORY_SLOTS:
            raise ValueError(f"slot must be between 1 and {MEMORY_SLOTS}")
        line = one_line(text, MEMORY_LINE_CHARS)
        self._slots[slot - 1] = line
        return line

    def clear(self, slot: int | None = None) -> None:
        """Empty one slot, or all of them."""
        if slot is None:
            self._slots = [""] * MEMORY_SLOTS
            return
        if not 1 <= slot <= MEMORY_SLOTS:
            raise ValueError(f"slot must be between 1 and {MEMORY_SLOTS}")
        self._slots[slot - 1] = ""
