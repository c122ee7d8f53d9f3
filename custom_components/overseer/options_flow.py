"""The options flows: an overseer's options in sections, an orchestrator's participants and limits.

Every field comes from the options table (options.py); what no single field can check is
checked here, and nothing is saved unless all of it is valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import ConfigFlowResult, OptionsFlow
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import (
    EntitySelector,
    EntitySelectorConfig,
    SelectOptionDict,
    Selector,
    SelectSelector,
    SelectSelectorConfig,
    TextSelector,
)

from .compat import conversation_agent_exists, vol
from .const import (
    BUILTIN_AGENT,
    CONF_APPROVAL_NOTIFY,
    CONF_APPROVERS,
    CONF_LIFT_COVER,
    CONF_LIFT_DOWN_SCRIPT,
    CONF_LIFT_UP_SCRIPT,
    CONF_PARTICIPANTS,
    CONF_VACUUM_CLEAR_ERRORS_SCRIPT,
    CONF_VACUUM_ENTITY,
)
from .options import OPEN_SECTIONS, ORCHESTRATOR_OPTIONS, OVERSEER_OPTIONS, read_all, sections

NOTIFY_ACTION = re.compile(r"notify\.[a-z0-9_]+")


async def _choices(hass: HomeAssistant) -> dict[str, SelectSelector]:
    """Return the approvers and notify pickers, listing who and what exists now."""
    # Deactivated users stay listed (and can never approve), so a saved choice stays valid.
    users = [user for user in await hass.auth.async_get_users() if not user.system_generated]
    services = sorted(f"notify.{name}" for name in hass.services.async_services_for_domain("notify"))
    return {
        CONF_APPROVERS: SelectSelector(
            SelectSelectorConfig(
                options=[
                    SelectOptionDict(
                        value=user.id,
                        label=(user.name or user.id) + ("" if user.is_active else " (inactive)"),
                    )
                    for user in users
                ],
                multiple=True,
            )
        ),
        # A phone's notify action may not exist yet when the form is filled in.
        CONF_APPROVAL_NOTIFY: SelectSelector(
            SelectSelectorConfig(options=services, multiple=True, custom_value=True)
        ),
    }


def _options_schema(options: Mapping[str, Any], choices: Mapping[str, Selector[Any]]) -> vol.Schema:
    """Return every option in its section, pre-filled with the current value or the default."""
    schema: dict[Any, Any] = {}
    for name, fields in sections(OVERSEER_OPTIONS).items():
        inner = {
            vol.Optional(option.key, description={"suggested_value": option.shown(options)}): choices.get(
                option.key, option.selector()
            )
            for option in fields
        }
        schema[vol.Required(name)] = section(vol.Schema(inner), {"collapsed": name not in OPEN_SECTIONS})
    return vol.Schema(schema)


def _flatten(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Sections are for display; options are stored flat, as the contract names them."""
    options: dict[str, Any] = {}
    for name, fields in sections(OVERSEER_OPTIONS).items():
        values = user_input.get(name) or {}
        for option in fields:
            if (stored := option.stored(values.get(option.key))) is not None:
                options[option.key] = stored
    return options


def _validate(options: Mapping[str, Any]) -> dict[str, str]:
    """Return the errors of combinations no single field can check."""
    errors: dict[str, str] = {}
    if options.get(CONF_LIFT_COVER) and (
        options.get(CONF_LIFT_UP_SCRIPT) or options.get(CONF_LIFT_DOWN_SCRIPT)
    ):
        errors["base"] = "lift_cover_and_scripts"
    elif options["min_human_messages"] + options["bot_messages"] > options["transcript_turns"]:
        errors["base"] = "transcript_too_small"
    elif options.get(CONF_VACUUM_CLEAR_ERRORS_SCRIPT) and not options.get(CONF_VACUUM_ENTITY):
        errors["base"] = "clear_errors_without_vacuum"
    elif not all(NOTIFY_ACTION.fullmatch(str(action)) for action in options.get(CONF_APPROVAL_NOTIFY, ())):
        errors["base"] = "invalid_notify_action"
    return errors


class OverseerOptionsFlow(OptionsFlow):
    """The room's entities, guardrails, timing and transcript bounds."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """One form, in sections; nothing is saved unless all of it is valid."""
        errors: dict[str, str] = {}
        if user_input is not None:
            options = _flatten(user_input)
            errors = _validate(options)
            if not errors:
                return self.async_create_entry(data=options)
            shown: Mapping[str, Any] = options
        else:
            shown = self.config_entry.options
        return self.async_show_form(
            step_id="init", data_schema=_options_schema(shown, await _choices(self.hass)), errors=errors
        )


class OrchestratorOptionsFlow(OptionsFlow):
    """Who takes part (conversation agents), then a name and a description for each; the limits."""

    def __init__(self) -> None:
        """Start with no agents chosen: chosen on the first step, named on the second."""
        self._chosen: list[str] = []
        self._limits: dict[str, Any] = {}

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Start the options flow at init; the orchestrator's form has a step (and strings) of its own."""
        return await self.async_step_orchestrator(user_input)

    async def async_step_orchestrator(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for the participants and the pipeline's limits."""
        options = self.config_entry.options
        errors: dict[str, str] = {}
        if user_input is not None:
            chosen = list(dict.fromkeys(user_input.get("agents") or []))
            if not chosen:
                errors["agents"] = "no_participants"
            elif any(not conversation_agent_exists(self.hass, agent_id) for agent_id in chosen):
                errors["agents"] = "agent_not_found"
            else:
                self._chosen = chosen
                self._limits = {
                    option.key: option.stored(user_input[option.key]) for option in ORCHESTRATOR_OPTIONS
                }
                return await self.async_step_participants()
        current = [p["agent_id"] for p in options.get(CONF_PARTICIPANTS, []) if isinstance(p, dict)]
        limits = read_all(ORCHESTRATOR_OPTIONS, options)
        schema = vol.Schema(
            {
                vol.Required("agents", default=current): EntitySelector(
                    EntitySelectorConfig(
                        domain="conversation", multiple=True, exclude_entities=[BUILTIN_AGENT]
                    )
                ),
                **{
                    vol.Required(option.key, default=limits[option.key]): option.selector()
                    for option in ORCHESTRATOR_OPTIONS
                },
            }
        )
        return self.async_show_form(step_id="orchestrator", data_schema=schema, errors=errors)

    async def async_step_participants(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for a name (as it appears in chat) and a description (what it is good at) for each agent."""
        options = self.config_entry.options
        known = {p["agent_id"]: p for p in options.get(CONF_PARTICIPANTS, []) if isinstance(p, dict)}
        if user_input is not None:
            participants = [
                {
                    "agent_id": agent_id,
                    "name": str(user_input.get(f"name_{index}") or "").strip()
                    or _agent_name(self.hass, agent_id),
                    "description": str(user_input.get(f"description_{index}") or "").strip(),
                }
                for index, agent_id in enumerate(self._chosen)
            ]
            return self.async_create_entry(data={CONF_PARTICIPANTS: participants, **self._limits})
        fields: dict[Any, Any] = {}
        for index, agent_id in enumerate(self._chosen):
            before = known.get(agent_id, {})
            name = before.get("name") or _agent_name(self.hass, agent_id)
            fields[vol.Required(f"name_{index}", default=name)] = TextSelector()
            fields[vol.Optional(f"description_{index}", default=before.get("description", ""))] = (
                TextSelector()
            )
        return self.async_show_form(
            step_id="participants",
            data_schema=vol.Schema(fields),
            description_placeholders={"agents": ", ".join(self._chosen)},
        )


def _agent_name(hass: HomeAssistant, agent_id: str) -> str:
    """Return an agent's friendly name, as a starting point for its name in chat."""
    state = hass.states.get(agent_id)
    return str(state.name if state else agent_id.partition(".")[2].replace("_", " "))
