"""Who may loosen the room's guardrails: anyone may tighten one, only someone trusted frees it.

Trusted is an administrator, or a call with no user behind it: an automation, a script, Home
Assistant itself (the README's lock automations run so). What is tightening and what is
loosening is each control's own rule (ControlPanel); the memory and trigger services are an
administrator's alone, and so is speaking as a bot on the chat bus.

A bot the room's orchestrator asks acts for the person who asked it, with their authority and
no more: its task runs under their user, and a line with no user behind it (a chat bridge, a
relay automation) gives its bot none, whatever context the relay itself runs in.
"""

from __future__ import annotations

from homeassistant.core import Context, HomeAssistant

from .roster import asked_for


async def async_trusted(hass: HomeAssistant, context: Context | None) -> bool:
    """Return True for an active administrator, or no user at all; a bot has its asker's authority."""
    if context is None:
        return True
    user_id = context.user_id
    if (asker := asked_for(hass, context)) is not None:
        if asker.user_id is None:
            return False
        user_id = asker.user_id
    elif user_id is None:
        return True
    user = await hass.auth.async_get_user(user_id)
    return user is not None and user.is_active and user.is_admin
