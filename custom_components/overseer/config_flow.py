"""Config, reconfigure and options flows: one entry per room."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import (
    SOURCE_RECONFIGURE,
    ConfigEntry,
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    OptionsFlow,
)
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_NAME, CONF_URL
from homeassistant.core import callback
from homeassistant.helpers.selector import (
    EntitySelector,
    EntitySelectorConfig,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .compat import conversation_agent_exists, vol
from .const import (
    BACKEND_CONVERSATION,
    BACKEND_OLLAMA,
    BACKEND_OPENAI,
    BUILTIN_AGENT,
    CONF_AGENT_ID,
    CONF_BACKEND,
    CONF_KIND,
    CONF_ROOM,
    DEFAULT_NAME,
    DEFAULT_OLLAMA_URL,
    DEFAULT_OPENAI_URL,
    DOMAIN,
    KIND_ORCHESTRATOR,
    KIND_OVERSEER,
    LOGGER,
)
from .options_flow import OrchestratorOptionsFlow, OverseerOptionsFlow
from .providers import InvalidAuth, ModelError, ModelTimeout
from .providers.ollama import async_list_models
from .providers.openai import async_list_models as async_list_openai_models
from .roster import is_overseer_agent
from .runtime import RoomConfigEntry, is_orchestrator
from .settings import resolve_name, room_key

BACKENDS = [BACKEND_OLLAMA, BACKEND_OPENAI, BACKEND_CONVERSATION]
KINDS = [KIND_OVERSEER, KIND_ORCHESTRATOR]


def _error_key(err: ModelError) -> str:
    """Return the form error for a failed model listing."""
    if isinstance(err, InvalidAuth):
        return "invalid_auth"
    if isinstance(err, ModelTimeout):
        return "timeout"
    return "cannot_connect"


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
        """Return the options flow for the entry.

        The room's entities and guardrails; for an orchestrator, its participants and limits.
        """
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
        """Ask for an OpenAI-compatible server: base URL and an optional API key, tested before going on."""
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
        """Handle the OpenAI-compatible server refusing the stored API key."""
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
            # The built-in agent never gets here: the selector below excludes it, and Home
            # Assistant refuses a value the form's selector does not allow.
            if is_overseer_agent(self.hass, agent_id):
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
        """Store the new data and finish, with the entry set up again once.

        A loaded entry's update listener reloads it when the data changed (async_update_reload_and_abort
        would reload it a second time, reported beside an update listener from 2026.6, an error
        from 2026.12). Otherwise the flow does it: an entry that is not loaded has no listener, and
        the same key given again after a refusal must be tried again too.
        """
        # Read before the update: the listener starts eagerly and has begun unloading by its end.
        listening = entry.state is ConfigEntryState.LOADED
        changed = self.hass.config_entries.async_update_entry(entry, data=data)
        if not (changed and listening) and entry.disabled_by is None:
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
