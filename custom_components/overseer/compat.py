"""Every Home Assistant API that moved between the versions we support, feature-detected.

Tested versions run from 2025.4 to 2026.11; nothing here compares version strings.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API, EVENT_COMPONENT_LOADED
from homeassistant.core import Context, Event, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType

# The schema library, as `vol`: import it from here. Home Assistant 2026.10 (our newest leg)
# validates with probatio and installs it as `voluptuous` at run time, so there
# `voluptuous.Schema is probatio.Schema`; the real voluptuous package stays installed beside it.
# mypy would read that package, whose types Home Assistant's signatures no longer take, so on the
# newest leg it reads probatio. mypy tells only Python's version apart, so that stands in for Home
# Assistant's (the newest leg is the one on Python 3.14). At run time `vol` is always voluptuous.
if TYPE_CHECKING and sys.version_info >= (3, 14):
    import probatio as vol
else:
    import voluptuous as vol

# vol is re-exported (mypy's strict settings re-export no import implicitly).
__all__ = ["vol"]


async def async_converse(
    hass: HomeAssistant,
    *,
    text: str,
    agent_id: str,
    extra_system_prompt: str | None = None,
    context: Context | None = None,
) -> Any:
    """Ask a conversation agent once, in a fresh conversation (under context, else a new one).

    Keyword arguments only: ConversationInput grew parameters (satellite_id by 2026.2)
    that async_converse fills in itself.
    """
    from homeassistant.components import conversation

    return await conversation.async_converse(
        hass=hass,
        text=text,
        conversation_id=None,
        context=context or Context(),
        language=hass.config.language,
        agent_id=agent_id,
        extra_system_prompt=extra_system_prompt,
    )


def conversation_agent_exists(hass: HomeAssistant, agent_id: str) -> bool:
    """Return whether a conversation agent with this id is loaded right now."""
    if "conversation" not in hass.config.components:
        return False
    from homeassistant.components.conversation.agent_manager import async_get_agent

    return async_get_agent(hass, agent_id) is not None


def _api_ids(value: Any) -> list[str]:
    """Return the API ids: llm_hass_api was one id before 2025.7 and a list of ids since."""
    values = value if isinstance(value, list | tuple) else [value]
    return [str(v) for v in values if v and str(v).lower() != "none"]


def agent_llm_apis(hass: HomeAssistant, agent_id: str) -> list[str]:
    """Return the control APIs (for example Assist) a conversation agent may call on its own.

    Agents live in config entry options before 2025.7 and in config subentries since.
    """
    entity = er.async_get(hass).async_get(agent_id)
    entry_id = entity.config_entry_id if entity else agent_id
    entry = hass.config_entries.async_get_entry(entry_id) if entry_id else None
    if entry is None:
        return []
    sources: list[Mapping[str, Any]] = []
    subentry_id = getattr(entity, "config_subentry_id", None)
    subentries = getattr(entry, "subentries", None) or {}
    if subentry_id and subentry_id in subentries:
        sources.append(subentries[subentry_id].data)
    sources += [entry.options, entry.data]
    for source in sources:
        if CONF_LLM_HASS_API in source:
            return _api_ids(source[CONF_LLM_HASS_API])
    return []


async def async_register_frontend_module(
    hass: HomeAssistant, url_path: str, folder: str, module: str, version: str
) -> None:
    """Serve a folder of JavaScript modules and have every dashboard load one, with no resource step.

    The folder is served under url_path/version, so a module's relative imports carry the
    version too and browsers fetch every file anew after an update (and may cache each for
    long until then). If the frontend is not loaded yet (it may load after us), the module is
    added when it is.
    """
    # Defined in http/server.py from 2026 and imported into http (not re-exported) for the old path.
    from homeassistant.components.http import StaticPathConfig  # type: ignore[attr-defined,unused-ignore]

    base = f"{url_path}/{version}"
    await hass.http.async_register_static_paths([StaticPathConfig(base, folder, cache_headers=True)])
    module_url = f"{base}/{module}"

    @callback
    def add_module() -> None:
        from homeassistant.components import frontend

        frontend.add_extra_js_url(hass, module_url)

    if "frontend" in hass.config.components:
        add_module()
        return

    @callback
    def is_frontend(event_data: Mapping[str, Any]) -> bool:
        return event_data.get("component") == "frontend"

    @callback
    def frontend_loaded(_: Event) -> None:
        add_module()
        unsubscribe()

    unsubscribe = hass.bus.async_listen(EVENT_COMPONENT_LOADED, frontend_loaded, event_filter=is_frontend)


def chat_log_trace(
    agent_id: str, calls: Sequence[tuple[str, str, Mapping[str, Any], JsonObjectType, bool]]
) -> list[Any]:
    """Return what a decision's calls were, for Assist's chat log: (id, tool, arguments, result, error) each.

    From 2025.7 a chat log takes tool calls its agent ran itself ("external") and their results;
    before, it takes none, and the trace is the audit's alone.
    """
    if not calls or "external" not in {field.name for field in fields(llm.ToolInput)}:
        return []
    asked = conversation.AssistantContent(
        agent_id=agent_id,
        tool_calls=[
            # 2025.4 has no external calls and never gets here.
            llm.ToolInput(  # type: ignore[call-arg,unused-ignore]
                tool_name=tool, tool_args=dict(arguments), id=call_id, external=True
            )
            for call_id, tool, arguments, _, _ in calls
        ],
    )
    # From 2026.10 a result is an llm.ToolResult in `result`; before, the plain dict in `tool_result`.
    kind = (
        "result"
        if "result" in {field.name for field in fields(conversation.ToolResultContent)}
        else "tool_result"
    )
    results = [
        conversation.ToolResultContent(
            agent_id=agent_id, tool_call_id=call_id, tool_name=tool, **{kind: tool_result(data, error)}
        )
        for call_id, tool, _, data, error in calls
    ]
    return [asked, *results]


def tool_result(data: JsonObjectType, error: bool) -> Any:
    """Return what an LLM tool returns: llm.ToolResult from 2026.10, the plain dict before.

    From 2026.10 a dict is deprecated, and core's agents tell their model `"error": true` only
    from a ToolResult.
    """
    if hasattr(llm, "ToolResult"):
        return llm.ToolResult(data=data, error=error)
    return data


def tool_annotations(*, read_only: bool, destructive: bool, idempotent: bool) -> Any:
    """Return how a tool behaves, for agents and MCP clients: llm.ToolAnnotations from 2026.10, else None.

    Our tools act inside this Home Assistant only, never the world outside it.
    """
    if not hasattr(llm, "ToolAnnotations"):
        return None
    return llm.ToolAnnotations(
        read_only=read_only, destructive=destructive, idempotent=idempotent, open_world=False
    )


def conversation_busy_errors() -> tuple[type[Exception], ...]:
    """Return what a second message to a conversation mid-turn raises: ConversationBusyError from 2026.11.

    Before, the turns simply ran side by side.
    """
    from homeassistant.components import conversation

    busy = getattr(conversation, "ConversationBusyError", None)
    return (busy,) if busy is not None else ()
