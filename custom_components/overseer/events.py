"""The contract's events, one function each: every payload is built here and nowhere else.

Automations and bridges rely on these names and fields (the README's "Automations" section
points here); a test fires each and compares its fields with the contract's. The contract's
fields are always sent; optional ones are left out rather than sent empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from homeassistant.core import Context, HomeAssistant

from .const import (
    EVENT_ACTION,
    EVENT_APPROVAL,
    EVENT_CHAT_MESSAGE,
    EVENT_CHAT_TYPING,
    EVENT_DECISION,
    EVENT_INCIDENT,
    EVENT_PIPELINE,
    INCOMING_TEXT_CHARS,
    USER_NAME_CHARS,
)
from .core.approvals import Approval
from .core.audit import AuditRecord
from .core.incidents import Incident
from .core.pipeline import Record
from .core.reply import Spent


def _fire(
    hass: HomeAssistant,
    event_type: str,
    payload: dict[str, Any],
    optional: dict[str, Any],
    context: Context | None = None,
) -> None:
    """Fire the event: the payload as it is, and the optional fields that have a value."""
    present = {key: value for key, value in optional.items() if value is not None}
    hass.bus.async_fire(event_type, {**payload, **present}, context=context)


def fire_chat_message(
    hass: HomeAssistant,
    *,
    user: str,
    text: str,
    bot: bool,
    room: str | None = None,
    decision_id: str | None = None,
    pipeline_id: str | None = None,
    fixed: bool = False,
    context: Context | None = None,
    facts: Sequence[Mapping[str, Any]] | None = None,
    quip: str | None = None,
) -> None:
    """overseer_chat_message: a human's line (room omitted: every overseer hears it) or a bot's.

    The overseer's own lines carry their decision_id and the facts they state (a list, empty for
    a line that states none), and the model's words in them as quip (the line's end); an
    orchestrated bot's its pipeline_id; a line with no words of the model's carries fixed: true.
    Cut to what a room reads of a line, so no caller broadcasts megabytes to every listener.
    """
    data: dict[str, Any] = {"user": user[:USER_NAME_CHARS], "text": text[:INCOMING_TEXT_CHARS], "bot": bot}
    if facts is not None:
        data["facts"] = [dict(fact) for fact in facts]
    _fire(
        hass,
        EVENT_CHAT_MESSAGE,
        data,
        {
            "room": room,
            "decision_id": decision_id,
            "pipeline_id": pipeline_id,
            "fixed": fixed or None,
            "quip": quip or None,
        },
        context,
    )


def fire_chat_typing(hass: HomeAssistant, *, room: str, user: str, typing: bool) -> None:
    """overseer_chat_typing: the overseer is (no longer) writing."""
    _fire(hass, EVENT_CHAT_TYPING, {"room": room, "user": user, "bot": True, "typing": typing}, {})


def fire_decision(
    hass: HomeAssistant,
    *,
    decision_id: str,
    trigger: str,
    mode: str,
    latency_ms: int,
    stale: bool,
    stale_reason: str | None = None,
    spent: Spent | None = None,
    quip: str | None = None,
    quip_dropped: Sequence[str] = (),
) -> None:
    """overseer_decision: one decision ended (stale_reason says why a stale one was held back).

    spent: its requests' tokens (prompt, of them cached, generated), where the server said.
    quip: what came of the model's own words: "posted", "dropped" (quip_dropped says why, one
    reason a sentence), or None when it wrote none.
    """
    _fire(
        hass,
        EVENT_DECISION,
        {
            "decision_id": decision_id,
            "trigger": trigger,
            "mode": mode,
            "latency_ms": latency_ms,
            "stale": stale,
        },
        {
            "stale_reason": stale_reason,
            **(spent.as_dict() if spent and spent.requests else {}),
            "quip": quip,
            "quip_dropped": list(quip_dropped) or None,
        },
    )


def fire_action(hass: HomeAssistant, record: AuditRecord) -> None:
    """overseer_action: one attempted call and how it ended; a cut copy of its arguments says so."""
    _fire(
        hass,
        EVENT_ACTION,
        {
            "decision_id": record.decision_id,
            "tool": record.tool,
            "arguments": record.arguments,
            "outcome": record.outcome.value,
        },
        {"reason": record.reason or None, "truncated": record.truncated or None},
    )


def fire_incident(hass: HomeAssistant, incident: Incident, reason: str | None) -> None:
    """overseer_incident: an incident opened or changed status."""
    _fire(
        hass,
        EVENT_INCIDENT,
        {
            "incident_id": incident.incident_id,
            "asset_id": incident.asset_id,
            "status": incident.status.value,
        },
        {"fault": incident.code.value, "reason": reason or None},
    )


def fire_approval(hass: HomeAssistant, approval: Approval) -> None:
    """overseer_approval: a call waits for a person, or what became of it."""
    _fire(
        hass,
        EVENT_APPROVAL,
        {
            "approval_id": approval.approval_id,
            "tool": approval.tool,
            "arguments": dict(approval.arguments),
            "status": approval.status.value,
            "source": approval.source.value,
        },
        {"incident_id": approval.incident_id or None, "reason": approval.reason or None},
    )


def fire_pipeline(hass: HomeAssistant, pipeline_id: str, record: Record) -> None:
    """overseer_pipeline: one stage of an orchestrated question."""
    _fire(
        hass,
        EVENT_PIPELINE,
        {
            "pipeline_id": pipeline_id,
            "stage": record.stage,
            "iteration": record.iteration,
        },
        {"bot": record.bot, "score": record.score, "reason": record.reason or None},
    )
