"""Who may loosen the room's guardrails: anyone may tighten one, only someone trusted frees it.

Trusted is an administrator, or a call with no user behind it: an automation, a script, Home
Assistant itself (the README's lock automations run so). What is tightening and what is
loosening is each control's own rule (ControlPanel); the memory and trigger services are an
administrator's alone, and so is speaking as a bot on the chat bus.

A bot the room's orchestrator asks acts for the person who asked it, as them: its task runs
under their Home Assistant user. A line no user of the house stands behind (a chat bridge, a
relay automation, a line relayed under someone else's token) gives its bot the relay user's
authority: a system user who is no administrator, so it may tighten, never loosen, and Home
Assistant's own administrator-only actions refuse it too.
"""

from __future__ import annotations

from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.core import Context, HomeAssistant
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN

RELAY_USER_NAME = "Overseer relay"
RELAY_USER: HassKey[str] = HassKey(f"{DOMAIN}_relay_user")


async def async_trusted(hass: HomeAssistant, context: Context | None) -> bool:
    """Return True for an active administrator, or no user at all."""
    if context is None or context.user_id is None:
        return True
    user = await hass.auth.async_get_user(context.user_id)
    return user is not None and user.is_active and user.is_admin


async def async_relay_user(hass: HomeAssistant) -> str:
    """Return the id of the user bots act as for lines no user of the house stands behind (made once)."""
    if (known := hass.data.get(RELAY_USER)) is not None and await hass.auth.async_get_user(known):
        return known
    for user in await hass.auth.async_get_users():
        if user.system_generated and user.name == RELAY_USER_NAME and not user.is_admin:
            hass.data[RELAY_USER] = user.id
            return user.id
    user = await hass.auth.async_create_system_user(RELAY_USER_NAME, group_ids=[GROUP_ID_USER])
    hass.data[RELAY_USER] = user.id
    return user.id


async def async_remove_relay_user(hass: HomeAssistant) -> None:
    """Remove the relay user once no orchestrator needs it (the last one was deleted)."""
    hass.data.pop(RELAY_USER, None)
    for user in await hass.auth.async_get_users():
        if user.system_generated and user.name == RELAY_USER_NAME:
            await hass.auth.async_remove_user(user)
