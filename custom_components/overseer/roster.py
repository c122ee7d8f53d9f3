"""Which rooms are orchestrated, and by whom: an overseer taking part leaves human chat to it."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN

# The room's key -> the agents its orchestrator asks.
ROSTER: HassKey[dict[str, frozenset[str]]] = HassKey(f"{DOMAIN}_orchestrated_rooms")
# A task's context id -> who asked the question it is about: their name and identity.
DISPATCHES: HassKey[OrderedDict[str, Asker]] = HassKey(f"{DOMAIN}_orchestrator_dispatches")
# Tasks handed out (and Assist questions) not yet forgotten: only the newest are kept.
KEEP_DISPATCHES = 50
# Context ids of questions asked an overseer through Assist, which it posts on the chat bus: it
# answers them itself, so no orchestrator routes them to it (or to a bot) again.
ASKED_THROUGH_ASSIST: HassKey[OrderedDict[str, None]] = HassKey(f"{DOMAIN}_asked_through_assist")
# The rooms whose orchestrator is working through a question now.
ANSWERING: HassKey[set[str]] = HassKey(f"{DOMAIN}_orchestrator_answering")


@callback
def register_room(hass: HomeAssistant, room: str, agent_ids: frozenset[str]) -> CALLBACK_TYPE:
    """Let an orchestrator take the room's human lines for these agents; return the unregister."""
    rooms = hass.data.setdefault(ROSTER, {})
    rooms[room] = agent_ids

    @callback
    def unregister() -> None:
        if rooms.get(room) is agent_ids:
            del rooms[room]

    return unregister


@callback
def takes_part(hass: HomeAssistant, room: str, agent_id: str | None) -> bool:
    """Return whether the agent answers this room's human lines only when the orchestrator asks it."""
    rooms = hass.data.get(ROSTER)
    return agent_id is not None and rooms is not None and agent_id in rooms.get(room, frozenset())


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asked a question: the name the chat shows, the identity a grant is bound to, and the words.

    The words go with them so that the overseer asked never looks the question up by a name
    anyone can post under.
    """

    name: str
    identity: str
    question: str = ""
    # The orchestrator's pipeline for the question: the overseer's answer carries it on the bus.
    pipeline_id: str = ""


@callback
def note_dispatch(hass: HomeAssistant, context: Context, asker: Asker) -> None:
    """Note that the orchestrator hands a task out under this context, for a question this person asked."""
    _keep_newest(hass.data.setdefault(DISPATCHES, OrderedDict()), context.id, asker)


@callback
def asked_for(hass: HomeAssistant, context: Context | None) -> Asker | None:
    """Who asked the question an orchestrator's task under this context is about; None otherwise."""
    if context is None or (dispatches := hass.data.get(DISPATCHES)) is None:
        return None
    return dispatches.get(context.id)


@callback
def note_asked_through_assist(hass: HomeAssistant, context: Context) -> None:
    """Note that the chat line under this context is a question an overseer takes from Assist."""
    _keep_newest(hass.data.setdefault(ASKED_THROUGH_ASSIST, OrderedDict()), context.id, None)


def _keep_newest[T](kept: OrderedDict[str, T], context_id: str, value: T) -> None:
    """Keep the value under the context id, and only the KEEP_DISPATCHES newest."""
    kept[context_id] = value
    while len(kept) > KEEP_DISPATCHES:
        kept.popitem(last=False)


@callback
def asked_through_assist(hass: HomeAssistant, context: Context) -> bool:
    """Whether the chat line under this context is a question an overseer answers from Assist."""
    return context.id in hass.data.get(ASKED_THROUGH_ASSIST, ())


@callback
def from_dispatch(hass: HomeAssistant, context: Context) -> bool:
    """Something an orchestrator's task caused (under its context, or one it started)."""
    dispatches = hass.data.get(DISPATCHES)
    return dispatches is not None and (context.id in dispatches or context.parent_id in dispatches)


@callback
def is_overseer_agent(hass: HomeAssistant, agent_id: str) -> bool:
    """Return whether the conversation agent is an overseer's own (it posts its lines itself)."""
    entity = er.async_get(hass).async_get(agent_id)
    return entity is not None and entity.platform == DOMAIN


@callback
def note_answering(hass: HomeAssistant, room: str, busy: bool) -> None:
    """Note whether the room's orchestrator is working through a question (queued ones included)."""
    rooms = hass.data.setdefault(ANSWERING, set())
    if busy:
        rooms.add(room)
    else:
        rooms.discard(room)


@callback
def answering(hass: HomeAssistant, room: str) -> bool:
    """Return whether the room's orchestrator is working through a question right now."""
    return room in hass.data.get(ANSWERING, set())
