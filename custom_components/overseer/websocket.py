"""Websocket API for the debug card: the status object now, and on every change (admin only).

Both commands take an optional `language` (the card sends the user's): the status object's
health banner, and a refusal's message, are worded in it, in Home Assistant's language without
it, in English where our translations have none. A refusal also carries its translation key and
placeholders, as Home Assistant's own errors do, for a frontend to word it itself.
"""

from __future__ import annotations

from typing import Any

from homeassistant.components import websocket_api
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.const import ERR_NOT_FOUND
from homeassistant.components.websocket_api.decorators import async_response, require_admin, websocket_command
from homeassistant.components.websocket_api.messages import event_message
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect

from .compat import vol
from .const import DOMAIN, LANGUAGE_TAG, status_signal
from .core.accounts import Phrase
from .phrases import async_phrases
from .runtime import orchestrator_of
from .status import SCHEMA_OFF, build_status, orchestrator_status

COMMAND_SCHEMA: dict[vol.Marker | str, Any] = {vol.Required("entry_id"): str, vol.Optional("language"): str}
# The services' refusal for the same mistake, so both read alike.
ENTRY_NOT_FOUND = "entry_not_found"


async def _async_phrase(hass: HomeAssistant, msg: dict[str, Any]) -> Phrase:
    """Return the phrases in the language the card asked for, or Home Assistant's."""
    language = msg.get("language")
    return await async_phrases(hass, language if language and LANGUAGE_TAG.fullmatch(language) else None)


def _not_found(connection: ActiveConnection, msg: dict[str, Any], phrase: Phrase) -> None:
    """Refuse a command for an entry id that is no overseer's."""
    placeholders = {"entry_id": str(msg["entry_id"])[:60]}
    connection.send_error(
        msg["id"],
        ERR_NOT_FOUND,
        phrase(ENTRY_NOT_FOUND, **placeholders),
        translation_key=ENTRY_NOT_FOUND,
        translation_domain=DOMAIN,
        translation_placeholders=placeholders,
    )


def _status(hass: HomeAssistant, entry_id: str, phrase: Phrase) -> dict[str, Any] | None:
    """Return the room's status; an entry that exists but is not loaded reads as off and not running."""
    entry = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN:
        return None
    if entry.state is ConfigEntryState.LOADED:
        if (orchestrator := orchestrator_of(entry)) is not None:
            return orchestrator_status(orchestrator)
        return build_status(entry.runtime_data, phrase)
    return {
        "schema": SCHEMA_OFF,
        "entry_id": entry_id,
        "name": entry.title,
        "enabled": False,
        "running": False,
    }


@callback
def async_register_websocket(hass: HomeAssistant) -> None:
    """Register the overseer's websocket commands."""
    websocket_api.async_register_command(hass, ws_status)
    websocket_api.async_register_command(hass, ws_subscribe)


@require_admin
@websocket_command({vol.Required("type"): "overseer/status", **COMMAND_SCHEMA})
@async_response
async def ws_status(hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]) -> None:
    """Answer with the status object once."""
    phrase = await _async_phrase(hass, msg)
    status = _status(hass, msg["entry_id"], phrase)
    if status is None:
        _not_found(connection, msg, phrase)
        return
    connection.send_result(msg["id"], status)


@require_admin
@websocket_command({vol.Required("type"): "overseer/status/subscribe", **COMMAND_SCHEMA})
@async_response
async def ws_subscribe(hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]) -> None:
    """Send the status now and again whenever it changes; survives reloads of the entry."""
    entry_id = msg["entry_id"]
    # Loaded once: every push is then worded without waiting for anything.
    phrase = await _async_phrase(hass, msg)
    first = _status(hass, entry_id, phrase)
    if first is None:
        _not_found(connection, msg, phrase)
        return
    last: dict[str, Any] = {}

    @callback
    def push() -> None:
        nonlocal last
        status = _status(hass, entry_id, phrase)
        if status is not None and status != last:
            last = status
            connection.send_message(event_message(msg["id"], status))

    connection.subscriptions[msg["id"]] = async_dispatcher_connect(hass, status_signal(entry_id), push)
    connection.send_result(msg["id"])
    push()
