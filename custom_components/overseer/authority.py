"""Who may loosen the room's guardrails: anyone may tighten one, only someone trusted frees it.

Trusted is an administrator, or a call with no user behind it: an automation, a script, Home
Assistant itself (the README's lock automations run so). What is tightening and what is
loosening is each control's own rule (ControlPanel); the memory and trigger services are an
administrator's alone, and so is speaking as a bot on the chat bus.
"""

from __future__ import annotations

from homeassistant.core import Context, HomeAssistant


async def async_trusted(hass: HomeAssistant, context: Context | None) -> bool:
    """Return True for an active administrator, or no user at all."""
    if context is None or context.user_id is None:
        return True
    user = await hass.auth.async_get_user(context.user_id)
    return user is not None and user.is_active and user.is_admin
