"""Plain words for what a decision did, in the overseer's own sentences.

For someone who asked through Assist and got no line, and for the room when a call waits for a
person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .audit import AuditRecord, Outcome
from .tools import Refusal

# A phrase by translation key, with its placeholders filled in.
Phrase = Callable[..., str]


def reason_key(reason: str | None) -> str:
    """The translation key of a refusal's plain words ("reason_cooldown", ...)."""
    try:
        return f"reason_{Refusal(str(reason)).name.lower()}"
    except ValueError:
        return "reason_failed"


def describe_actions(records: Iterable[AuditRecord], phrase: Phrase) -> str | None:
    """One sentence per attempted call, from its audit record; None when nothing was attempted."""
    sentences = []
    for record in records:
        tool = record.tool
        if record.outcome is Outcome.EXECUTED:
            sentences.append(phrase("reply_executed", tool=tool))
        elif record.outcome is Outcome.DRY_RUN:
            sentences.append(phrase("reply_dry_run", tool=tool))
        elif record.outcome is Outcome.AWAITING_APPROVAL:
            sentences.append(phrase("reply_awaiting_approval", tool=tool, approval_id=record.approval or ""))
        else:
            because = phrase(reason_key(record.reason), seconds=record.remaining_s or 0)
            sentences.append(phrase("reply_refused", tool=tool, reason=because))
    return " ".join(sentences) or None
