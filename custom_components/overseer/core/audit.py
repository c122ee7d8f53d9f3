"""The bounded audit log of every attempted, blocked, executed, failed or dry-run call."""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from itertools import islice
from operator import itemgetter
from typing import Any

from .arguments import bounded_arguments

# Records kept of calls that may have reached a device, and as many again of the rest.
AUDIT_SIZE = 200


class Outcome(StrEnum):
    """How an attempted tool call ended (the contract's overseer_action outcomes)."""

    EXECUTED = "executed"
    BLOCKED = "blocked"
    FAILED = "failed"
    DRY_RUN = "dry_run"
    # A person is asked first: nothing ran yet.
    AWAITING_APPROVAL = "awaiting_approval"


# Calls handed to Home Assistant: whatever came back, the device may have acted.
REACHING = frozenset({Outcome.EXECUTED, Outcome.FAILED})


class Failure(StrEnum):
    """Why a call handed to Home Assistant failed (the contract's reasons for outcome failed)."""

    ERROR = "error"
    TIMEOUT = "timeout"
    # The decision was cancelled while it waited for the call: a mode flip, an unload.
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One attempted call, as the audit keeps it.

    reason is a contract reason code for a refusal or a failure; remaining_s how long
    waiting helps; source who asked (the overseer, an agent, triage); approval, for a call a
    person was asked about, which approval let it run; truncated, that arguments is a cut copy
    of what was sent (see arguments.py).
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
    truncated: bool = False

    @property
    def ran(self) -> bool:
        """Something really happened in the room."""
        return self.outcome is Outcome.EXECUTED

    @property
    def may_have_reached(self) -> bool:
        """The call was handed to Home Assistant: it counts, whether or not it came back well."""
        return self.outcome in REACHING

    def as_dict(self) -> dict[str, Any]:
        """Return the stored form (and the status object's): plain JSON, the outcome as its string.

        truncated is there only for a cut copy, beside its arguments.
        """
        stored = {**asdict(self), "outcome": self.outcome.value}
        if not self.truncated:
            del stored["truncated"]
        return stored

    @classmethod
    def from_dict(cls, data: Any) -> AuditRecord | None:
        """Return a stored record, or None for anything that is not one (a hand-edited store).

        Its arguments are bounded again: a store edited by hand must not break the status either.
        """
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
        arguments = bounded_arguments(data.get("arguments"))
        return cls(
            ts=float(ts),
            decision_id=str(data.get("decision_id") or ""),
            tool=tool,
            arguments=arguments.value,
            outcome=outcome,
            reason=_text_or_none(data.get("reason")),
            remaining_s=remaining if isinstance(remaining, int) and not isinstance(remaining, bool) else None,
            source=_text_or_none(data.get("source")),
            approval=_text_or_none(data.get("approval")),
            truncated=arguments.truncated or data.get("truncated") is True,
        )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class AuditLog:
    """Two rings of records read as one, in the order they came.

    Calls that may have reached a device (executed, failed) have a ring of their own: however
    many calls are refused, what ran stays in the audit.
    """

    def __init__(self, records: Iterable[Any] = (), size: int = AUDIT_SIZE) -> None:
        """Start from persisted records, keeping only well-formed ones; size bounds each ring."""
        self._reaching: deque[tuple[int, AuditRecord]] = deque(maxlen=size)
        self._others: deque[tuple[int, AuditRecord]] = deque(maxlen=size)
        self._added = 0
        for data in records:
            if (record := AuditRecord.from_dict(data)) is not None:
                self.add(record)

    def add(self, record: AuditRecord) -> AuditRecord:
        """Append one record to its ring; that ring's oldest goes when it is full."""
        ring = self._reaching if record.may_have_reached else self._others
        ring.append((self._added, record))
        self._added += 1
        return record

    def latest(self, count: int) -> list[AuditRecord]:
        """Return the newest records, newest first."""
        newest_first = heapq.merge(
            reversed(self._reaching), reversed(self._others), key=itemgetter(0), reverse=True
        )
        return [record for _, record in islice(newest_first, max(count, 0))]

    def as_list(self) -> list[dict[str, Any]]:
        """Every record, oldest first, for persistence."""
        oldest_first = heapq.merge(self._reaching, self._others, key=itemgetter(0))
        return [record.as_dict() for _, record in oldest_first]

    def __len__(self) -> int:
        """How many records are held."""
        return len(self._reaching) + len(self._others)
