"""What a call's caller reads back: the guardrails API's agents and the overseer's own model alike.

Anything but an executed call is an error to the caller (a dry run or a call waiting for a
person included: nothing ran), so its model does not tell anyone that it happened.
"""

from __future__ import annotations

from typing import Any

from .audit import AuditRecord, Outcome

AWAITING_NOTE = "a person must approve this call first: nothing has run yet"
DRY_RUN_NOTE = "dry run is on: the call was recorded, nothing was executed"


def call_result(record: AuditRecord, state: str = "") -> tuple[dict[str, Any], bool]:
    """Return what happened to a call, or why not and when to try again, and whether it is an error.

    state: its device's state as the call left it ("lift: opening"), when the caller may see it.
    """
    result: dict[str, Any] = {"success": record.ran, "tool": record.tool, "outcome": record.outcome.value}
    if record.ran:
        return result | ({"state": state} if state else {}), False
    if record.outcome is Outcome.AWAITING_APPROVAL:
        # Nothing to mend or retry: a person answers, and the outcome is announced then.
        result |= {"approval_id": record.approval, "note": AWAITING_NOTE}
    elif record.outcome is Outcome.DRY_RUN:
        result["note"] = DRY_RUN_NOTE
    else:
        result["error"] = record.reason or record.outcome.value
        if record.remaining_s:
            result["retry_in_s"] = record.remaining_s
    return result | ({"state": state} if state else {}), True
