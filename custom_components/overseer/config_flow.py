"""Config, reconfigure and options flows: one entry per room."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import voluptuous as vol
from homeassistant.config_entries import (
    SOURCE_RECONFIGURE,
    ConfigEntry,
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    OptionsFlow,
)
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_NAME, CONF_URL
from homeassistant.core import HomeAssistant, callback
from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import (
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .compat import conversation_agent_exists
from .const import (
    BACKEND_CONVERSATION,
    BACKEND_OLLAMA,
    BACKEND_OPENAI,
    CONF_AGENT_ID,
    CONF_ALIASES,
    CONF_APPROVAL_NOTIFY,
    CONF_APPROVAL_TOOLS,
    CONF_APPROVERS,
    CONF_ASSET_ENTITIES,
    CONF_BACKEND,
    CONF_CHALLENGE_PHRASES,
    CONF_FALLBACK_LINE,
    CONF_KIND,
    CONF_LIFT_COVER,
    CONF_LIFT_DOWN_SCRIPT,
    CONF_LIFT_UP_SCRIPT,
    CONF_LIGHT_ENTITIES,
    CONF_PARTICIPANTS,
    CONF_ROOM,
    CONF_ROVER_ENTITIES,
    CONF_STATE_ENTITIES,
    CONF_VACUUM_CLEAR_ERRORS_SCRIPT,
    CONF_VACUUM_ENTITY,
    COOLDOWN_OPTIONS,
    DEFAULT_NAME,
    DEFAULT_OLLAMA_URL,
    DEFAULT_OPENAI_URL,
    DOMAIN,
    KIND_ORCHESTRATOR,
    KIND_OVERSEER,
    LOGGER,
    NUMBER_DEFAULTS,
    NUMBER_RANGES,
    ORCHESTRATOR_DEFAULTS,
)
from .core.gate import DEFAULT_CHALLENGES
from .core.tools import TOOL_SPECS
from .providers import InvalidAuth, ModelError, ModelTimeout
from .providers.ollama import async_list_models
from .providers.openai import async_list_models as async_list_openai_models
from .roster import is_overseer_agent
from .runtime import RoomConfigEntry, is_orchestrator
from .settings import resolve_name, room_key, split_words

BACKENDS = [BACKEND_OLLAMA, BACKEND_OPENAI, BACKEND_CONVERSATION]
KINDS = [KIND_OVERSEER, KIND_ORCHESTRATOR]


def _error_key(err: ModelError) -> str:
    """The form error for a failed model listing."""
    if isinstance(err, InvalidAuth):
        return "invalid_auth"
    if isinstance(err, ModelTimeout):
        return "timeout"
    return "cannot_connect"


# The built-in agent runs intents itself: it is not a model and would bypass the guardrails.
BUILTIN_AGENT = "conversation.home_assistant"


def _identity_schema(defaults: Mapping[str, Any], with_room: bool) -> vol.Schema:
    """Name, room and backend."""
    fields: dict[Any, Any] = {
        vol.Required(CONF_NAME, default=defaults.get(CONF_NAME, DEFAULT_NAME)): TextSelector(),
    }
    if with_room:
        fields[vol.Required(CONF_ROOM, default=defaults.get(CONF_ROOM, ""))] = TextSelector()
        # The first step offers both kinds of entry for a room: its overseer, or its orchestrator.
        fields[vol.Required(CONF_KIND, default=defaults.get(CONF_KIND, KIND_OVERSEER))] = SelectSelector(
            SelectSelectorConfig(options=KINDS, translation_key=CONF_KIND, mode=SelectSelectorMode.LIST)
        )
    fields[vol.Required(CONF_BACKEND, default=defaults.get(CONF_BACKEND, BACKEND_OLLAMA))] = SelectSelector(
        SelectSelectorConfig(options=BACKENDS, translation_key=CONF_BACKEND, mode=SelectSelectorMode.LIST)
    )
    return vol.Schema(fields)


class OverseerConfigFlow(ConfigFlow, domain=DOMAIN):
    """Create one overseer per room, tested against its model before it is saved."""

    VERSION = 1

    def __init__(self) -> None:
        """Collect data across the steps."""
        self._data: dict[str, Any] = {}
        self._models: list[str] = []

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: RoomConfigEntry) -> OptionsFlow:
        """The room's entities and guardrails; for an orchestrator, its participants and limits."""
        if is_orchestrator(config_entry):
            return OrchestratorOptionsFlow()
        return OverseerOptionsFlow()

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Name the overseer and its room, and pick a backend."""
        errors: dict[str, str] = {}
        if user_input is not None:
            name = resolve_name(user_input)
            room = str(user_input.get(CONF_ROOM, "")).strip()
            if not room:
                errors[CONF_ROOM] = "room_required"
            else:
                kind = user_input.get(CONF_KIND, KIND_OVERSEER)
                # One overseer and one orchestrator per room.
                suffix = "_orchestrator" if kind == KIND_ORCHESTRATOR else ""
                await self.async_set_unique_id(room_key(room) + suffix)
                self._abort_if_unique_id_configured()
                self._data = {**user_input, CONF_NAME: name, CONF_ROOM: room}
                if kind != KIND_ORCHESTRATOR:
                    self._data.pop(CONF_KIND, None)  # absent means an overseer, as the contract says
                return await self._async_backend_step()
        return self.async_show_form(
            step_id="user", data_schema=_identity_schema(user_input or {}, with_room=True), errors=errors
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Change the name, the backend or the model of an existing room."""
        entry = self._get_reconfigure_entry()
        if user_input is not None:
            self._data = {**entry.data, **user_input, CONF_NAME: resolve_name(user_input)}
            return await self._async_backend_step()
        return self.async_show_form(
            step_id="reconfigure", data_schema=_identity_schema(entry.data, with_room=False)
        )

    async def _async_backend_step(self) -> ConfigFlowResult:
        """Continue with the chosen backend's own step."""
        if self._data[CONF_BACKEND] == BACKEND_CONVERSATION:
            return await self.async_step_conversation()
        if self._data[CONF_BACKEND] == BACKEND_OPENAI:
            return await self.async_step_openai()
        return await self.async_step_ollama()

    async def async_step_ollama(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Where the Ollama server is; it must answer before we go on."""
        errors: dict[str, str] = {}
        if user_input is not None:
            url = str(user_input[CONF_URL]).strip().rstrip("/")
            try:
                self._models = await async_list_models(url)
            except ModelError as err:
                errors["base"] = _error_key(err)
            except Exception:
                LOGGER.exception("Unexpected error asking %s for its models", url)
                errors["base"] = "unknown"
            else:
                self._data[CONF_URL] = url
                return await self.async_step_model()
        default_url = (user_input or {}).get(CONF_URL) or self._data.get(CONF_URL, DEFAULT_OLLAMA_URL)
        schema = vol.Schema(
            {
                vol.Required(CONF_URL, default=default_url): TextSelector(
                    TextSelectorConfig(type=TextSelectorType.URL)
                )
            }
        )
        return self.async_show_form(step_id="ollama", data_schema=schema, errors=errors)

    async def async_step_openai(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """An OpenAI-compatible server: base URL and an optional API key, tested before going on."""
        errors: dict[str, str] = {}
        if user_input is not None:
            url = str(user_input[CONF_URL]).strip().rstrip("/")
            api_key = str(user_input.get(CONF_API_KEY) or "").strip()
            errors = await self._async_try_openai(url, api_key)
            if not errors:
                self._data[CONF_URL] = url
                if api_key:
                    self._data[CONF_API_KEY] = api_key
                else:
                    self._data.pop(CONF_API_KEY, None)
                return await self.async_step_model()
        default_url = (user_input or {}).get(CONF_URL) or self._data.get(CONF_URL, DEFAULT_OPENAI_URL)
        schema = vol.Schema(
            {
                vol.Required(CONF_URL, default=default_url): TextSelector(
                    TextSelectorConfig(type=TextSelectorType.URL)
                ),
                vol.Optional(CONF_API_KEY): TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD)),
            }
        )
        return self.async_show_form(step_id="openai", data_schema=schema, errors=errors)

    async def _async_try_openai(self, url: str, api_key: str) -> dict[str, str]:
        """List the server's models with this key; the form's errors, empty when it worked."""
        try:
            self._models = await async_list_openai_models(self.hass, url, api_key)
        except ModelError as err:
            return {"base": _error_key(err)}
        except Exception:
            LOGGER.exception("Unexpected error asking %s for its models", url)
            return {"base": "unknown"}
        return {}

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        """The OpenAI-compatible server refused the stored API key."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for a new key and keep it only once the server accepts it."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            api_key = str(user_input.get(CONF_API_KEY) or "").strip()
            errors = await self._async_try_openai(entry.data[CONF_URL], api_key)
            if not errors:
                return self._async_update_and_abort(entry, {**entry.data, CONF_API_KEY: api_key})
        schema = vol.Schema(
            {vol.Required(CONF_API_KEY): TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))}
        )
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=schema,
            errors=errors,
            description_placeholders={"url": entry.data[CONF_URL]},
        )

    async def async_step_model(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Pick one of the models the server has."""
        errors: dict[str, str] = {}
        if user_input is not None:
            model = str(user_input[CONF_MODEL]).strip()
            if model in self._models:
                self._data[CONF_MODEL] = model
                self._data.pop(CONF_AGENT_ID, None)
                if self._data[CONF_BACKEND] == BACKEND_OLLAMA:
                    self._data.pop(CONF_API_KEY, None)
                return self._async_finish()
            errors[CONF_MODEL] = "model_not_found"
        current = (user_input or {}).get(CONF_MODEL) or self._data.get(CONF_MODEL)
        default = current if current else (self._models[0] if self._models else "")
        schema = vol.Schema(
            {
                vol.Required(CONF_MODEL, default=default): SelectSelector(
                    SelectSelectorConfig(options=self._models, custom_value=True, sort=True)
                )
            }
        )
        return self.async_show_form(
            step_id="model",
            data_schema=schema,
            errors=errors,
            description_placeholders={"url": self._data[CONF_URL], "count": str(len(self._models))},
        )

    async def async_step_conversation(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Pick a Home Assistant conversation agent (an LLM, not the built-in intents)."""
        errors: dict[str, str] = {}
        if user_input is not None:
            agent_id = str(user_input[CONF_AGENT_ID])
            if agent_id == BUILTIN_AGENT:
                errors[CONF_AGENT_ID] = "agent_not_llm"
            elif is_overseer_agent(self.hass, agent_id):
                # An overseer asking an overseer would post its whole context as a human line.
                errors[CONF_AGENT_ID] = "agent_is_overseer"
            elif not conversation_agent_exists(self.hass, agent_id):
                errors[CONF_AGENT_ID] = "agent_not_found"
            else:
                self._data[CONF_AGENT_ID] = agent_id
                for key in (CONF_URL, CONF_MODEL, CONF_API_KEY):
                    self._data.pop(key, None)
                return self._async_finish()
        schema = vol.Schema(
            {
                vol.Required(
                    CONF_AGENT_ID, default=self._data.get(CONF_AGENT_ID, vol.UNDEFINED)
                ): EntitySelector(
                    EntitySelectorConfig(domain="conversation", exclude_entities=[BUILTIN_AGENT])
                )
            }
        )
        return self.async_show_form(step_id="conversation", data_schema=schema, errors=errors)

    def _async_update_and_abort(self, entry: ConfigEntry, data: Mapping[str, Any]) -> ConfigFlowResult:
        """Store the new data and finish: a loaded entry's update listener reloads it, once.

        async_update_reload_and_abort would reload it a second time (and is reported beside an
        update listener from 2026.6, an error from 2026.12). An entry that is not loaded has no
        listener running, so it is set up again here.
        """
        # Read before the update: the listener starts eagerly and has begun unloading by its end.
        listening = entry.state is ConfigEntryState.LOADED
        changed = self.hass.config_entries.async_update_entry(entry, data=data)
        if changed and not listening and entry.disabled_by is None:
            self.hass.config_entries.async_schedule_reload(entry.entry_id)
        reason = "reconfigure_successful" if self.source == SOURCE_RECONFIGURE else "reauth_successful"
        return self.async_abort(reason=reason)

    def _async_finish(self) -> ConfigFlowResult:
        """Create the entry, or update it when reconfiguring."""
        if self.source == SOURCE_RECONFIGURE:
            entry = self._get_reconfigure_entry()
            return self._async_update_and_abort(entry, self._data)
        room = self._data[CONF_ROOM]
        title = f"{room} orchestrator" if self._data.get(CONF_KIND) == KIND_ORCHESTRATOR else room
        return self.async_create_entry(title=title, data=self._data)


def _number(key: str) -> NumberSelector:
    """A whole-number box with the option's range and unit."""
    low, high, unit = NUMBER_RANGES[key]
    config = NumberSelectorConfig(min=low, max=high, step=1, mode=NumberSelectorMode.BOX)
    if unit:
        config["unit_of_measurement"] = unit
    return NumberSelector(config)


def _entities(multiple: bool, *domains: str) -> EntitySelector:
    """An entity picker, optionally limited to some domains."""
    config = EntitySelectorConfig(multiple=multiple)
    if domains:
        config["domain"] = list(domains)
    return EntitySelector(config)


SECTIONS: dict[str, dict[str, Any]] = {
    "room": {
        CONF_ROVER_ENTITIES: _entities(True),
        CONF_LIFT_COVER: _entities(False, "cover"),
        CONF_LIFT_UP_SCRIPT: _entities(False, "script"),
        CONF_LIFT_DOWN_SCRIPT: _entities(False, "script"),
        CONF_VACUUM_ENTITY: _entities(False, "vacuum"),
        CONF_VACUUM_CLEAR_ERRORS_SCRIPT: _entities(False, "script"),
        CONF_LIGHT_ENTITIES: _entities(True, "light", "switch", "input_boolean"),
        CONF_STATE_ENTITIES: _entities(True),
        CONF_ASSET_ENTITIES: _entities(True),
    },
    "addressing": {
        CONF_ALIASES: TextSelector(TextSelectorConfig(multiple=True)),
        CONF_CHALLENGE_PHRASES: TextSelector(TextSelectorConfig(multiple=True)),
        CONF_FALLBACK_LINE: TextSelector(),
    },
    "guardrails": {
        **{
            key: _number(key)
            for key in (
                *COOLDOWN_OPTIONS,
                "action_budget",
                "action_window",
                "max_tool_calls",
            )
        },
        CONF_APPROVAL_TOOLS: SelectSelector(
            SelectSelectorConfig(
                options=[spec.name for spec in TOOL_SPECS if spec.group is not None], multiple=True
            )
        ),
    },
    "timing": {
        key: _number(key)
        for key in ("gate_interval", "heartbeat", "min_gap", "stale_after", "request_timeout")
    },
    "transcript": {
        key: _number(key)
        for key in ("transcript_turns", "transcript_minutes", "min_human_messages", "bot_messages")
    },
    "incidents": {
        # The choices are this Home Assistant's people and notify actions: see _choices.
        CONF_APPROVERS: SelectSelector(SelectSelectorConfig(options=[], multiple=True)),
        CONF_APPROVAL_NOTIFY: SelectSelector(SelectSelectorConfig(options=[], multiple=True)),
        **{key: _number(key) for key in ("approval_timeout", "verify_after")},
    },
}
NOTIFY_ACTION = re.compile(r"notify\.[a-z0-9_]+")


async def _choices(hass: HomeAssistant) -> dict[str, SelectSelector]:
    """The approvers and notify pickers, listing who and what exists now."""
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


LIST_OPTIONS = {
    CONF_APPROVAL_TOOLS,
    CONF_APPROVERS,
    CONF_APPROVAL_NOTIFY,
    CONF_ASSET_ENTITIES,
    CONF_ROVER_ENTITIES,
    CONF_LIGHT_ENTITIES,
    CONF_STATE_ENTITIES,
    CONF_ALIASES,
    CONF_CHALLENGE_PHRASES,
}


def _options_schema(options: Mapping[str, Any], choices: Mapping[str, SelectSelector]) -> vol.Schema:
    """Every option in its section, pre-filled with the current value or the default."""
    defaults: dict[str, Any] = {
        **NUMBER_DEFAULTS,
        CONF_CHALLENGE_PHRASES: list(DEFAULT_CHALLENGES),
        **options,
    }
    schema: dict[Any, Any] = {}
    for name, fields in SECTIONS.items():
        inner = {
            vol.Optional(key, description={"suggested_value": defaults.get(key)}): choices.get(key, selector)
            for key, selector in fields.items()
        }
        schema[vol.Required(name)] = section(
            vol.Schema(inner), {"collapsed": name not in ("room", "guardrails")}
        )
    return vol.Schema(schema)


def _flatten(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Sections are for display; options are stored flat, as the contract names them."""
    options: dict[str, Any] = {}
    for name, fields in SECTIONS.items():
        values = user_input.get(name) or {}
        for key in fields:
            value = values.get(key)
            if key in NUMBER_DEFAULTS:
                options[key] = int(value) if value is not None else NUMBER_DEFAULTS[key]
            elif key in LIST_OPTIONS:
                options[key] = (
                    list(split_words(value))
                    if key in (CONF_ALIASES, CONF_CHALLENGE_PHRASES)
                    else list(value or [])
                )
            elif value:
                options[key] = value
    return options


def _validate(options: Mapping[str, Any]) -> dict[str, str]:
    """Combinations no single field can check."""
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


ORCHESTRATOR_LIMITS: dict[str, Any] = {
    "max_iterations": NumberSelector(NumberSelectorConfig(min=1, max=5, step=1, mode=NumberSelectorMode.BOX)),
    "quality_threshold": NumberSelector(
        NumberSelectorConfig(min=0, max=1, step=0.05, mode=NumberSelectorMode.SLIDER)
    ),
    "delegation_timeout": NumberSelector(
        NumberSelectorConfig(min=5, max=600, step=1, mode=NumberSelectorMode.BOX, unit_of_measurement="s")
    ),
}


class OrchestratorOptionsFlow(OptionsFlow):
    """Who takes part (conversation agents), then a name and a description for each; the limits."""

    def __init__(self) -> None:
        """The agents chosen on the first step, named on the second."""
        self._chosen: list[str] = []
        self._limits: dict[str, Any] = {}

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """An options flow starts at init; the orchestrator's form has a step (and strings) of its own."""
        return await self.async_step_orchestrator(user_input)

    async def async_step_orchestrator(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """The participants and the pipeline's limits."""
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
                self._limits = {key: user_input[key] for key in ORCHESTRATOR_LIMITS}
                return await self.async_step_participants()
        current = [p["agent_id"] for p in options.get(CONF_PARTICIPANTS, []) if isinstance(p, dict)]
        defaults = {**ORCHESTRATOR_DEFAULTS, **options}
        schema = vol.Schema(
            {
                vol.Required("agents", default=current): EntitySelector(
                    EntitySelectorConfig(
                        domain="conversation", multiple=True, exclude_entities=[BUILTIN_AGENT]
                    )
                ),
                **{
                    vol.Required(key, default=defaults[key]): selector
                    for key, selector in ORCHESTRATOR_LIMITS.items()
                },
            }
        )
        return self.async_show_form(step_id="orchestrator", data_schema=schema, errors=errors)

    async def async_step_participants(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """A name (as it appears in chat) and a description (what it is good at) for each agent."""
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
            return self.async_create_entry(
                data={
                    CONF_PARTICIPANTS: participants,
                    "max_iterations": int(self._limits["max_iterations"]),
                    "quality_threshold": float(self._limits["quality_threshold"]),
                    "delegation_timeout": int(self._limits["delegation_timeout"]),
                }
            )
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
    """An agent's friendly name, as a starting point for its name in chat."""
    state = hass.states.get(agent_id)
    return str(state.name if state else agent_id.partition(".")[2].replace("_", " "))
