"""Which rooms are orchestrated, and by whom: an overseer taking part leaves human chat to it."""

from __future__ import annotations

from collections import OrderedDict

from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er

from .const import DOMAIN

ROSTER = f"{DOMAIN}_orchestrated_rooms"
DISPATCHES = f"{DOMAIN}_orchestrator_dispatches"
# Tasks handed out and not yet forgotten: only the newest are kept.
KEEP_DISPATCHES = 50


@callback
def register_room(hass: HomeAssistant, room: str, agent_ids: frozenset[str]) -> CALLBACK_TYPE:
    """An orchestrator takes the room's human lines for these agents; returns the unregister."""
    rooms: dict[str, frozenset[str]] = hass.data.setdefault(ROSTER, {})
    rooms[room] = agent_ids

    @callback
    def unregister() -> None:
        if rooms.get(room) is agent_ids:
            del rooms[room]

    return unregister


@callback
def takes_part(hass: HomeAssistant, room: str, agent_id: str | None) -> bool:
    """The agent answers this room's human lines only when the orchestrator asks it."""
    return agent_id is not None and agent_id in hass.data.get(ROSTER, {}).get(room, frozenset())


@callback
def note_dispatch(hass: HomeAssistant, context: Context, asker: str) -> None:
    """The orchestrator hands a task out under this context, for a question this person asked."""
    dispatches: OrderedDict[str, str] = hass.data.setdefault(DISPATCHES, OrderedDict())
    dispatches[context.id] = asker
    while len(dispatches) > KEEP_DISPATCHES:
        dispatches.popitem(last=False)


@callback
def asked_for(hass: HomeAssistant, context: Context | None) -> str | None:
    """Who asked the question an orchestrator's task under this context is about; None otherwise."""
    return hass.data.get(DISPATCHES, {}).get(context.id) if context is not None else None


@callback
def from_dispatch(hass: HomeAssistant, context: Context) -> bool:
    """Something an orchestrator's task caused (under its context, or one it started)."""
    dispatches = hass.data.get(DISPATCHES, {})
    return context.id in dispatches or context.parent_id in dispatches


@callback
def is_overseer_agent(hass: HomeAssistant, agent_id: str) -> bool:
    """The conversation agent is an overseer's own (it posts its lines itself)."""
    entity = er.async_get(hass).async_get(agent_id)
    return entity is not None and entity.platform == DOMAIN
