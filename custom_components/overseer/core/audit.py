"""The bounded audit log of every attempted, blocked, executed, failed or dry-run call."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

AUDIT_SIZE = 200
# approval: for calls a person was asked about, what became of the asking (approved, expired, ...).
_FIELDS = ("ts", "decision_id", "tool", "arguments", "outcome", "reason", "remaining_s", "source", "approval")


class AuditLog:
    """A ring buffer of plain records; the oldest record goes when a new one comes."""

    def __init__(self, records: Iterable[Any] = (), size: int = AUDIT_SIZE) -> None:
        """Start from persisted records, keeping only well-formed ones."""
        self._records: deque[dict[str, Any]] = deque(maxlen=size)
        for record in records:
            if isinstance(record, Mapping) and {"tool", "outcome"} <= record.keys():
                self._records.append({key: record.get(key) for key in _FIELDS})

    def add(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Append one record and return the stored form."""
        stored = {key: record.get(key) for key in _FIELDS}
        self._records.append(stored)
        return stored

    def latest(self, count: int) -> list[dict[str, Any]]:
        """The newest records, newest first."""
        return [self._records[-i] for i in range(1, min(count, len(self._records)) + 1)]

    def as_list(self) -> list[dict[str, Any]]:
        """Every record, oldest first, for persistence."""
        return list(self._records)

    def __len__(self) -> int:
        """How many records are held."""
        return len(self._records)
