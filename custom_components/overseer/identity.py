"""Whom a request belongs to: the most specific identity its caller has, never a display name alone.

An approval and a grant are bound to it, and each waiting question is kept under it: a chat line
posted under someone's name neither borrows their grant nor merges into their Assist question.

- A Home Assistant user (the post_message service, the REST or websocket API, Assist, another
  agent, an MCP client): `user:<user id>`; a chat line posted under someone else's name with a
  user's token (a bridge relaying a chat) is that name's through that user, `user:<id>|alex`.
  Home Assistant hands an LLM API no client id, so one user's MCP clients share that user's
  identity, and so their grants.
- Assist with no user (a satellite): `device:<device id>`, else `satellite:<id>`.
- A chat event fired with no user (a bridge automation or script): the automation or script it
  came from and the speaker's name as a reader sees it, `automation.discord_relay|alex`; a
  source we cannot name is `event|alex`.
- A bot the room's orchestrator asks (a call under its task's context): the asker's identity.
"""

from __future__ import annotations

from collections import OrderedDict

from homeassistant.core import Context, Event, HomeAssistant, callback
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.text import fold
from .roster import asked_for

# Fired by automation and script runs under the context their actions then use (Home Assistant's
# own event names; the components are not imported for two strings).
EVENT_AUTOMATION_TRIGGERED = "automation_triggered"
EVENT_SCRIPT_STARTED = "script_started"
# A run's context id -> the automation or script entity that started it; only the newest kept.
ORIGINS: HassKey[OrderedDict[str, str]] = HassKey(f"{DOMAIN}_chat_origins")
KEEP_ORIGINS = 256
ENTITY_ID_CHARS = 80
NAME_CHARS = 40
# A bound on every identity: the longest form is an origin, a bar and a name.
IDENTITY_CHARS = ENTITY_ID_CHARS + 1 + NAME_CHARS


@callback
def async_track_origins(hass: HomeAssistant) -> None:
    """Remember which automation or script each recent run's context belongs to (once, for every room)."""
    origins = hass.data.setdefault(ORIGINS, OrderedDict())

    @callback
    def started(event: Event) -> None:
        entity_id = event.data.get("entity_id")
        if isinstance(entity_id, str):
            origins[event.context.id] = entity_id[:ENTITY_ID_CHARS]
            while len(origins) > KEEP_ORIGINS:
                origins.popitem(last=False)

    for name in (EVENT_AUTOMATION_TRIGGERED, EVENT_SCRIPT_STARTED):
        hass.bus.async_listen(name, started)


def user_identity(user_id: str) -> str:
    """Return a Home Assistant user's identity."""
    return f"user:{user_id}"


# Home Assistant users' names by id, kept current: a chat line names its speaker, and is its
# user's own only when the name is theirs.
USER_NAMES: HassKey[dict[str, str]] = HassKey(f"{DOMAIN}_user_names")
EVENT_USER_ADDED, EVENT_USER_UPDATED, EVENT_USER_REMOVED = "user_added", "user_updated", "user_removed"


async def async_track_users(hass: HomeAssistant) -> None:
    """Know every user's name now and as users are added, renamed and removed (once, for every room)."""
    names = hass.data.setdefault(USER_NAMES, {})
    names.update({user.id: user.name or "" for user in await hass.auth.async_get_users()})

    async def refresh(event: Event) -> None:
        user_id = event.data.get("user_id")
        if not isinstance(user_id, str):
            return
        user = await hass.auth.async_get_user(user_id)
        if user is None:
            names.pop(user_id, None)
        else:
            names[user_id] = user.name or ""

    for event in (EVENT_USER_ADDED, EVENT_USER_UPDATED, EVENT_USER_REMOVED):
        hass.bus.async_listen(event, refresh)


@callback
def line_user(hass: HomeAssistant, context: Context | None, name: str) -> str | None:
    """Return the user whose own chat line this is: posted under their own user or person name.

    A bridge that fires the chat event with an administrator's token posts everyone's lines under
    that user: "alex" relayed that way is not the administrator, and speaks with no authority of theirs.
    """
    user_id = context.user_id if context is not None else None
    if not user_id:
        return None
    theirs = {hass.data.get(USER_NAMES, {}).get(user_id, "")}
    theirs.update(
        person.name
        for person in hass.states.async_all("person")
        if person.attributes.get("user_id") == user_id
    )
    return user_id if bare_name(name) in {bare_name(known) for known in theirs if known} else None


def bare_name(name: str) -> str:
    """Return a name without what a reader overlooks: case, accents, look-alikes, spacing and punctuation."""
    return "".join(char for char in fold(name) if char.isalnum())


@callback
def chat_identity(hass: HomeAssistant, context: Context | None, name: str) -> str:
    """Whose chat line this is: its user, a user's relay with the name, else its automation and the name."""
    if context is not None and context.user_id:
        if line_user(hass, context, name):
            return user_identity(context.user_id)
        # Relayed under a user's token: each speaker is their own, none of them the user.
        return f"{user_identity(context.user_id)}|{fold(name)[:NAME_CHARS]}"
    origins = hass.data.get(ORIGINS, OrderedDict())
    origin = None
    if context is not None:
        origin = origins.get(context.id) or (origins.get(context.parent_id) if context.parent_id else None)
    return f"{origin or 'event'}|{fold(name)[:NAME_CHARS]}"


@callback
def caller_identity(
    hass: HomeAssistant,
    context: Context | None,
    device_id: str | None = None,
    satellite_id: str | None = None,
) -> str:
    """Whose request a call is: the asker of the orchestrator's task it runs for, else its own caller's."""
    if (asker := asked_for(hass, context)) is not None:
        return asker.identity
    return device_identity(context, device_id, satellite_id)


def device_identity(context: Context | None, device_id: str | None, satellite_id: str | None = None) -> str:
    """Whose Assist request or agent call this is: its user, else the device or satellite it came from."""
    if context is not None and context.user_id:
        return user_identity(context.user_id)
    if device_id:
        return f"device:{device_id[:ENTITY_ID_CHARS]}"
    if satellite_id:
        return f"satellite:{satellite_id[:ENTITY_ID_CHARS]}"
    # Nothing names the caller: every such caller is one, and shares what it was granted.
    return "anonymous"
