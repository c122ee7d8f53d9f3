"""Config flow for the overseer."""

from __future__ import annotations

from typing import Any

import voluptuous as vol
from homeassistant.config_entries import ConfigFlow, ConfigFlowResult

from .const import DEFAULT_NAME, DOMAIN


class OverseerConfigFlow(ConfigFlow, domain=DOMAIN):
    """Create one overseer per room."""

    VERSION = 1

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for the overseer's name."""
        if user_input is not None:
            return self.async_create_entry(title=user_input["name"], data=user_input)
        return self.async_show_form(
            step_id="user", data_schema=vol.Schema({vol.Required("name", default=DEFAULT_NAME): str})
        )
