"""Diagnostics: configuration and status, with credentials and prompt text redacted."""

from __future__ import annotations

from typing import Any, cast

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import HomeAssistant

from .runtime import OverseerRuntimeData, RoomConfigEntry, orchestrator_of
from .status import build_status, orchestrator_status

# Credentials, and everything that quotes the prompt, the chat or the memory.
TO_REDACT = {
    CONF_API_KEY,
    CONF_URL,
    "state_update",
    "model_output",
    "memory",
    "chat",
    "transcript",
    "arguments",
    "detail",
    # A pipeline's question and its answers.
    "question",
    "asker",
    "text",
    # Who answered an approval.
    "decided_by",
    "decided_name",
}


async def async_get_config_entry_diagnostics(hass: HomeAssistant, entry: RoomConfigEntry) -> dict[str, Any]:
    """Return what a maintainer needs to see how a room behaves, without what was said in it."""
    settings = {"data": async_redact_data(dict(entry.data), TO_REDACT), "options": dict(entry.options)}
    if entry.state is not ConfigEntryState.LOADED:  # its settings are all there is
        return {"entry": settings}
    if (orchestrator := orchestrator_of(entry)) is not None:
        # The orchestration log: routes, scores, reasons and timings; what people said redacted.
        return {"entry": settings, "status": async_redact_data(orchestrator_status(orchestrator), TO_REDACT)}
    data = cast(OverseerRuntimeData, entry.runtime_data)
    loop = data.loop
    return {
        "entry": settings,
        "status": async_redact_data(build_status(data), TO_REDACT),
        "audit_records": len(loop.state.audit),
        "transcript_lines": len(loop.inputs.transcript),
    }
