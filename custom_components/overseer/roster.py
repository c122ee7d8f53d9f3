"""Which rooms are orchestrated, and by whom: an overseer taking part leaves human chat to it."""

from __future__ import annotations

from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback

from .const import DOMAIN

ROSTER = f"{DOMAIN}_orchestrated_rooms"


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
