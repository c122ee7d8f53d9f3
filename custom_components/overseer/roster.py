"""Which rooms are orchestrated, and by whom: an overseer taking part leaves human chat to it."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from homeassistant.const import CONF_NAME
from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.util.hass_dict import HassKey

from .const import CONF_ALIASES, DOMAIN
from .core.gate import DEFAULT_NAME
from .options import split_words

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
    # The Home Assistant user whose line it was; None for a line with no user behind it (a chat
    # bridge, a relay automation): a bot asked for them gets the least authority there is.
    user_id: str | None = None


@callback
def note_dispatch(hass: HomeAssistant, context: Context, asker: Asker) -> None:
    """Note that the orchestrator hands a task out under this context, for a question this person asked."""
    _keep_newest(hass.data.setdefault(DISPATCHES, OrderedDict()), context.id, asker)


@callback
def asked_for(hass: HomeAssistant, context: Context | None) -> Asker | None:
    """Who asked the question an orchestrator's task under this context (or one it started) is about.

    None for anything no orchestrator handed out: the caller then acts for themselves.
    """
    if context is None or (dispatches := hass.data.get(DISPATCHES)) is None:
        return None
    asker = dispatches.get(context.id)
    if asker is None and context.parent_id is not None:
        asker = dispatches.get(context.parent_id)
    return asker


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
def is_overseer_agent(hass: HomeAssistant, agent_id: str) -> bool:
    """Return whether the conversation agent is an overseer's own (it posts its lines itself)."""
    entity = er.async_get(hass).async_get(agent_id)
    return entity is not None and entity.platform == DOMAIN


@callback
def agent_names(hass: HomeAssistant, agent_id: str) -> tuple[str, ...]:
    """Return every name a conversation agent answers to, as people see them now.

    Its entity's name, its registry name and aliases, @object_id, and for an overseer's own
    agent the overseer's configured name and the aliases that address it. Read each time: an
    agent renamed, or set up later, is known by the names it has now.
    """
    names = [agent_id.partition(".")[2]]
    if (state := hass.states.get(agent_id)) is not None:
        names.append(state.name)
    entity = er.async_get(hass).async_get(agent_id)
    if entity is not None:
        # A name Home Assistant computes (from 2026.x, among aliases too) is no string here: the
        # state's name holds it.
        names.extend(name for name in (entity.name, entity.original_name) if isinstance(name, str))
        names.extend(sorted(alias for alias in entity.aliases if isinstance(alias, str)))
        entry = (
            hass.config_entries.async_get_entry(entity.config_entry_id) if entity.config_entry_id else None
        )
        if entity.platform == DOMAIN and entry is not None:
            names.append(str(entry.data.get(CONF_NAME) or DEFAULT_NAME))
            names.extend(split_words(entry.options.get(CONF_ALIASES)))
    return tuple(dict.fromkeys(name for name in names if name.strip()))


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
