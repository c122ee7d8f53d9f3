"""Diagnostics: configuration and status, with credentials and prompt text redacted."""

from __future__ import annotations

from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import HomeAssistant

from .coordinator import OverseerConfigEntry
from .orchestrator import OrchestratorRuntimeData
from .status import build_status

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


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: OverseerConfigEntry
) -> dict[str, Any]:
    """What a maintainer needs to see how a room behaves, without what was said in it."""
    if isinstance(entry.runtime_data, OrchestratorRuntimeData):
        # The orchestration log: routes, scores, reasons and timings; what people said redacted.
        return {
            "entry": {"data": async_redact_data(dict(entry.data), TO_REDACT), "options": dict(entry.options)},
            "status": async_redact_data(entry.runtime_data.orchestrator.status(), TO_REDACT),
        }
    coordinator = entry.runtime_data.coordinator
    return {
        "entry": {
            "data": async_redact_data(dict(entry.data), TO_REDACT),
            "options": dict(entry.options),
        },
        "status": async_redact_data(build_status(coordinator), TO_REDACT),
        "audit_records": len(coordinator.state.audit),
        "transcript_lines": len(coordinator.inputs.transcript),
    }
