"""The bounded audit log of every attempted, blocked, executed, failed or dry-run call."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

AUDIT_SIZE = 200


class Outcome(StrEnum):
    """How an attempted tool call ended (the contract's overseer_action outcomes)."""

    EXECUTED = "executed"
    BLOCKED = "blocked"
    FAILED = "failed"
    DRY_RUN = "dry_run"
    # A person is asked first: nothing ran yet.
    AWAITING_APPROVAL = "awaiting_approval"


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One attempted call, as the audit keeps it.

    reason is a contract reason code for a refusal (or the error's class for a failure);
    remaining_s how long waiting helps; source who asked (the overseer, an agent, triage);
    approval, for a call a person was asked about, which approval let it run.
    """

    ts: float
    decision_id: str
    tool: str
    arguments: Any
    outcome: Outcome
    reason: str | None = None
    remaining_s: int | None = None
    source: str | None = None
    approval: str | None = None

    @property
    def ran(self) -> bool:
        """Something really happened in the room."""
        return self.outcome is Outcome.EXECUTED

    def as_dict(self) -> dict[str, Any]:
        """The stored form (and the status object's): plain JSON, the outcome as its string."""
        return {**asdict(self), "outcome": self.outcome.value}

    @classmethod
    def from_dict(cls, data: Any) -> AuditRecord | None:
        """A stored record, or None for anything that is not one (a hand-edited store)."""
        if not isinstance(data, Mapping):
            return None
        try:
            outcome = Outcome(str(data.get("outcome")))
        except ValueError:
            return None
        tool, ts = data.get("tool"), data.get("ts")
        if not isinstance(tool, str) or isinstance(ts, bool) or not isinstance(ts, int | float):
            return None
        remaining = data.get("remaining_s")
        return cls(
            ts=float(ts),
            decision_id=str(data.get("decision_id") or ""),
            tool=tool,
            arguments=data.get("arguments"),
            outcome=outcome,
            reason=_text_or_none(data.get("reason")),
            remaining_s=remaining if isinstance(remaining, int) and not isinstance(remaining, bool) else None,
            source=_text_or_none(data.get("source")),
            approval=_text_or_none(data.get("approval")),
        )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class AuditLog:
    """A ring buffer of records; the oldest record goes when a new one comes."""

    def __init__(self, records: Iterable[Any] = (), size: int = AUDIT_SIZE) -> None:
        """Start from persisted records, keeping only well-formed ones."""
        self._records: deque[AuditRecord] = deque(maxlen=size)
        for data in records:
            if (record := AuditRecord.from_dict(data)) is not None:
                self._records.append(record)

    def add(self, record: AuditRecord) -> AuditRecord:
        """Append one record."""
        self._records.append(record)
        return record

    def latest(self, count: int) -> list[AuditRecord]:
        """The newest records, newest first."""
        return [self._records[-i] for i in range(1, min(count, len(self._records)) + 1)]

    def as_list(self) -> list[dict[str, Any]]:
        """Every record, oldest first, for persistence."""
        return [record.as_dict() for record in self._records]

    def __len__(self) -> int:
        """How many records are held."""
        return len(self._records)
