"""Services: post a chat line, trigger a decision, write or clear memory.

Every field is checked here, before anything happens, so bad input gets a translated
ServiceValidationError and changes nothing.
"""

from __future__ import annotations

from typing import Any

import voluptuous as vol
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, callback
from homeassistant.exceptions import ServiceValidationError

from .const import (
    ATTR_CONFIG_ENTRY_ID,
    DOMAIN,
    EVENT_CHAT_MESSAGE,
    SERVICE_MEMORY_CLEAR,
    SERVICE_MEMORY_WRITE,
    SERVICE_POST_MESSAGE,
    SERVICE_TRIGGER,
)
from .coordinator import OverseerCoordinator
from .core.tools import ArgumentError, parse_slot

FIELDS = {
    SERVICE_POST_MESSAGE: {"user", "text", "bot", ATTR_CONFIG_ENTRY_ID},
    SERVICE_TRIGGER: {ATTR_CONFIG_ENTRY_ID},
    SERVICE_MEMORY_WRITE: {"slot", "text", ATTR_CONFIG_ENTRY_ID},
    SERVICE_MEMORY_CLEAR: {"slot", ATTR_CONFIG_ENTRY_ID},
}


def _invalid(key: str, **placeholders: str) -> ServiceValidationError:
    """A translated validation error."""
    return ServiceValidationError(
        translation_domain=DOMAIN, translation_key=key, translation_placeholders=placeholders or None
    )


def _text(call: ServiceCall, field: str) -> str:
    """A required, non-empty string field."""
    value = call.data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise _invalid("empty_field", field=field)
    return value


def _slot(call: ServiceCall) -> int:
    """A memory slot 1-3 (numbers as strings are fine, as the UI may send them)."""
    value = call.data.get("slot")
    try:
        return parse_slot(value)
    except ArgumentError as err:
        raise _invalid("invalid_slot", slot=str(value)[:20]) from err


def _coordinators(hass: HomeAssistant, call: ServiceCall, single: bool) -> list[OverseerCoordinator]:
    """The rooms a call is for: the one named, or every loaded one."""
    entry_id = call.data.get(ATTR_CONFIG_ENTRY_ID)
    if entry_id is not None:
        entry = hass.config_entries.async_get_entry(str(entry_id))
        if entry is None or entry.domain != DOMAIN:
            raise _invalid("entry_not_found", entry_id=str(entry_id)[:60])
        if entry.state is not ConfigEntryState.LOADED:
            raise _invalid("entry_not_loaded", name=entry.title)
        return [entry.runtime_data.coordinator]
    loaded = [entry.runtime_data.coordinator for entry in hass.config_entries.async_loaded_entries(DOMAIN)]
    if not loaded:
        raise _invalid("no_loaded_entries")
    if single and len(loaded) > 1:
        raise _invalid("entry_required")
    return loaded


def _check_fields(call: ServiceCall) -> None:
    """Refuse fields the service does not have, rather than ignoring a typo."""
    unknown = set(call.data) - FIELDS[call.service]
    if unknown:
        raise _invalid("unknown_field", field=", ".join(sorted(map(str, unknown)))[:100])


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the overseer's services."""

    async def post_message(call: ServiceCall) -> None:
        _check_fields(call)
        user, text = _text(call, "user"), _text(call, "text")
        bot = call.data.get("bot", False)
        if not isinstance(bot, bool):
            raise _invalid("invalid_bot")
        data: dict[str, Any] = {"user": user, "text": text, "bot": bot}
        if call.data.get(ATTR_CONFIG_ENTRY_ID) is not None:
            data["room"] = _coordinators(hass, call, single=True)[0].settings.room
        hass.bus.async_fire(EVENT_CHAT_MESSAGE, data, context=call.context)

    async def trigger(call: ServiceCall) -> None:
        _check_fields(call)
        for coordinator in _coordinators(hass, call, single=False):
            coordinator.request_decision()

    async def memory_write(call: ServiceCall) -> None:
        _check_fields(call)
        slot, text = _slot(call), _text(call, "text")
        _coordinators(hass, call, single=True)[0].write_memory(slot, text)

    async def memory_clear(call: ServiceCall) -> None:
        _check_fields(call)
        slot = _slot(call) if call.data.get("slot") is not None else None
        _coordinators(hass, call, single=True)[0].clear_memory(slot)

    # No voluptuous schemas: their errors are not translated; every field is checked above.
    permissive = vol.Schema(dict, extra=vol.ALLOW_EXTRA)
    for name, handler in (
        (SERVICE_POST_MESSAGE, post_message),
        (SERVICE_TRIGGER, trigger),
        (SERVICE_MEMORY_WRITE, memory_write),
        (SERVICE_MEMORY_CLEAR, memory_clear),
    ):
        hass.services.async_register(DOMAIN, name, handler, schema=permissive)
