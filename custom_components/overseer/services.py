"""Services: post a chat line, trigger a decision, write or clear memory, answer an approval.

Each service has a schema (voluptuous, or probatio under its name from Home Assistant 2026.9):
Home Assistant applies it before the handler runs, so an unknown field, a wrong type or slot 4
is refused and changes nothing. The schema's refusal is a translated ServiceValidationError
naming the field and what it expects, like every other refusal here, in our own words: each
engine words its messages its own way. What a schema cannot know (whether the overseer named
exists and is loaded, which one is meant) is checked in the handler, again before anything
changes.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from homeassistant.auth.permissions.const import POLICY_CONTROL
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_NAME, Platform
from homeassistant.core import HomeAssistant, ServiceCall, callback
from homeassistant.exceptions import ServiceValidationError, Unauthorized
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import entity_registry as er

from .authority import async_trusted
from .compat import vol
from .const import (
    ATTR_APPROVAL_ID,
    ATTR_CONFIG_ENTRY_ID,
    ATTR_GRANT_ID,
    ATTR_GRANT_MINUTES,
    CONF_ALIASES,
    DOMAIN,
    SERVICE_APPROVE,
    SERVICE_DENY,
    SERVICE_MEMORY_CLEAR,
    SERVICE_MEMORY_WRITE,
    SERVICE_POST_MESSAGE,
    SERVICE_REVOKE_GRANT,
    SERVICE_TRIGGER,
)
from .core.approvals import AnswerRefused
from .core.gate import DEFAULT_NAME
from .core.text import BOT_LABEL, fold
from .core.tools import ArgumentError, parse_slot
from .events import fire_chat_message
from .identity import bare_name
from .loop import OverseerLoop
from .options import split_words
from .roster import agent_names
from .runtime import OverseerRuntimeData, is_orchestrator, overseer_data
from .settings import OrchestratorSettings

ATTR_USER = "user"
ATTR_TEXT = "text"
ATTR_BOT = "bot"
ATTR_SLOT = "slot"


def _slot(value: Any) -> int:
    """Validate a memory slot 1-3: an int, a whole float or a digit string (the UI may send any)."""
    try:
        return parse_slot(value)
    except ArgumentError as err:
        raise vol.Invalid("expected memory slot 1, 2 or 3") from err


def _not_blank(value: str) -> str:
    """Text with something in it besides spaces (kept as given)."""
    if not value.strip():
        raise vol.Invalid("must not be empty")
    return value


def _slot_or_all(value: Any) -> int | None:
    """Validate a memory slot, or null for all three."""
    return None if value is None else _slot(value)


def _minutes(value: Any) -> int:
    """Validate whole minutes, 0 to a day (the room's option bounds it further)."""
    if isinstance(value, bool):
        raise vol.Invalid("expected whole minutes, not true or false")
    minutes: int = vol.Coerce(int)(value)
    if (isinstance(value, float) and value != minutes) or not 0 <= minutes <= MAX_GRANT_MINUTES:
        raise vol.Invalid("expected whole minutes from 0 to 1440")
    return minutes


def _entry_id(value: Any) -> str | None:
    """Validate a config entry id, or null for every loaded overseer (or the only one)."""
    return None if value is None else cv.string(value)


TEXT = vol.All(cv.string, _not_blank)
# The same check as TEXT, separate objects so that a refusal can say which id is meant.
APPROVAL_ID = vol.All(cv.string, _not_blank)
GRANT_ID = vol.All(cv.string, _not_blank)
MAX_GRANT_MINUTES = 1440

# What each field's validator expects, as the translation key of its refusal. The engines
# word (and will reword) their messages as they like, so the refusal is chosen by the
# validator that refused, never by the text it raised.
EXPECTATIONS: dict[Any, str] = {
    TEXT: "invalid_text",
    APPROVAL_ID: "invalid_approval_id",
    GRANT_ID: "invalid_grant_id",
    _minutes: "invalid_grant_minutes",
    cv.boolean: "invalid_boolean",
    _slot: "invalid_slot",
    _slot_or_all: "invalid_slot_or_all",
    _entry_id: "invalid_entry_id",
}


def _invalid(key: str, **placeholders: str) -> ServiceValidationError:
    """Return a translated validation error."""
    return ServiceValidationError(
        translation_domain=DOMAIN, translation_key=key, translation_placeholders=placeholders or None
    )


class TranslatedSchema(vol.Schema):
    """A service schema whose refusal reaches the user as a translated ServiceValidationError."""

    def __call__(self, data: Any, **kwargs: Any) -> Any:
        """Validate; Home Assistant passes a ServiceValidationError through to the caller as it is.

        Keywords go to the engine as they came: probatio's schemas take a `context`.
        """
        try:
            # voluptuous (Home Assistant before probatio, our oldest leg) leaves Schema.__call__ unannotated.
            return super().__call__(data, **kwargs)  # type: ignore[no-untyped-call,unused-ignore]
        except vol.Invalid as err:
            refusals = [refusal for refusal in getattr(err, "errors", [err]) if refusal.path]
            if not refusals:  # data that is not a mapping (only Python code sends that) has no field
                raise
            raise self._translated(min(refusals, key=self._rank)) from err

    @property
    def _validators(self) -> dict[str, Any]:
        """Each field's validator, by the field's name."""
        return {str(key): validator for key, validator in self.schema.items()}

    def _rank(self, refusal: vol.Invalid) -> tuple[int, str]:
        """Which refusal to report: the same on every engine, though each lists them in its own order.

        An unknown field comes first (a misspelt one is often why a required one is missing),
        then the schema's order.
        """
        field = str(refusal.path[0])
        fields = list(self._validators)
        return (fields.index(field) + 1, "") if field in fields else (0, field)

    def _translated(self, refusal: vol.Invalid) -> ServiceValidationError:
        """Our sentence for one field's refusal: unknown, missing, or not what it expects."""
        field = str(refusal.path[0])
        name = field[:60]  # an unknown field's name is whatever the caller sent
        validators = self._validators
        if field not in validators:
            return _invalid("unknown_field", field=name)
        if isinstance(refusal, vol.RequiredFieldInvalid):
            return _invalid("missing_field", field=name)
        return _invalid(EXPECTATIONS[validators[field]], field=name)


ENTRY_ID: dict[vol.Marker, Any] = {vol.Optional(ATTR_CONFIG_ENTRY_ID): _entry_id}

POST_MESSAGE_SCHEMA = TranslatedSchema(
    {
        vol.Required(ATTR_USER): TEXT,
        vol.Required(ATTR_TEXT): TEXT,
        vol.Optional(ATTR_BOT, default=False): cv.boolean,
        **ENTRY_ID,
    }
)
TRIGGER_SCHEMA = TranslatedSchema(ENTRY_ID)
MEMORY_WRITE_SCHEMA = TranslatedSchema(
    {
        vol.Required(ATTR_SLOT): _slot,
        vol.Required(ATTR_TEXT): TEXT,
        **ENTRY_ID,
    }
)
MEMORY_CLEAR_SCHEMA = TranslatedSchema(
    {
        vol.Optional(ATTR_SLOT): _slot_or_all,
        **ENTRY_ID,
    }
)
APPROVAL_SCHEMA = TranslatedSchema({vol.Required(ATTR_APPROVAL_ID): APPROVAL_ID})
APPROVE_SCHEMA = TranslatedSchema(
    {vol.Required(ATTR_APPROVAL_ID): APPROVAL_ID, vol.Optional(ATTR_GRANT_MINUTES, default=0): _minutes}
)
REVOKE_GRANT_SCHEMA = TranslatedSchema({vol.Required(ATTR_GRANT_ID): GRANT_ID})


def _overseers(hass: HomeAssistant) -> list[OverseerRuntimeData]:
    """Return the loaded overseers (orchestrators left out)."""
    return [data for entry in hass.config_entries.async_entries(DOMAIN) if (data := overseer_data(entry))]


def _loops(hass: HomeAssistant, call: ServiceCall, single: bool) -> list[OverseerLoop]:
    """Return the rooms a call is for: the one named, or every loaded one."""
    entry_id = call.data.get(ATTR_CONFIG_ENTRY_ID)
    if entry_id is not None:
        entry = hass.config_entries.async_get_entry(entry_id)
        if entry is None or entry.domain != DOMAIN:
            raise _invalid("entry_not_found", entry_id=entry_id[:60])
        if entry.state is not ConfigEntryState.LOADED:
            raise _invalid("entry_not_loaded", name=entry.title)
        if (data := overseer_data(entry)) is None:  # an orchestrator has no room of its own
            raise _invalid("entry_not_found", entry_id=entry_id[:60])
        return [data.loop]
    loaded = [data.loop for data in _overseers(hass)]
    if not loaded:
        raise _invalid("no_loaded_entries")
    if single and len(loaded) > 1:
        raise _invalid("entry_required")
    return loaded


def _refused(loops: list[OverseerLoop], service: str, call: ServiceCall) -> Unauthorized:
    """Audit a refused call in each room it was for; the error to raise."""
    data = {key: value for key, value in call.data.items() if key != ATTR_CONFIG_ENTRY_ID}
    refusals = [loop.controls.refuse(service, data, call.context) for loop in loops]
    return refusals[0] if refusals else Unauthorized(context=call.context, permission=POLICY_CONTROL)


async def _administered(
    hass: HomeAssistant, call: ServiceCall, service: str, single: bool
) -> list[OverseerLoop]:
    """Return the rooms of an administrator's service.

    Anyone else is refused (audited) before anything changes.
    """
    loops = _loops(hass, call, single)
    if not await async_trusted(hass, call.context):
        raise _refused(loops, service, call)
    return loops


def _overseers_named(hass: HomeAssistant, call: ServiceCall) -> list[OverseerLoop]:
    """Return the room a post_message names, or every loaded overseer (none is no error: a line may wait)."""
    if call.data.get(ATTR_CONFIG_ENTRY_ID) is not None:
        return _loops(hass, call, single=True)
    return [data.loop for data in _overseers(hass)]


def _speaks_as_a_bot(hass: HomeAssistant, user: str) -> bool:
    """Return whether the name passes for a bot as a reader sees it: a bot's name, or a bot's label.

    A reader does not see case, marks or spacing; "helper (bot)" reads as a bot whatever helper is.
    """
    return BOT_LABEL.search(fold(user)) is not None or bare_name(user) in {
        bare_name(name) for name in _bot_names(hass)
    }


def _bot_names(hass: HomeAssistant) -> set[str]:
    """Every name a bot of any room answers to: overseers' and participants', configured and registered."""
    registry = er.async_get(hass)
    names: set[str] = set()
    agents: set[str] = set()
    for entry in hass.config_entries.async_entries(DOMAIN):
        if is_orchestrator(entry):
            for participant in OrchestratorSettings.from_options(entry.options).participants:
                names.add(participant.name)
                agents.add(participant.agent_id)
        else:
            names.add(str(entry.data.get(CONF_NAME) or DEFAULT_NAME))
            # The words that address it are its names too.
            names.update(split_words(entry.options.get(CONF_ALIASES)))
            agents.update(
                agent.entity_id
                for agent in er.async_entries_for_config_entry(registry, entry.entry_id)
                if agent.domain == Platform.CONVERSATION
            )
    for agent_id in agents:
        names.update(agent_names(hass, agent_id))
    return names


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the overseer's services (once, for every room)."""

    async def post_message(call: ServiceCall) -> None:
        # Without config_entry_id the line has no room: every overseer hears it.
        room = None
        rooms = _overseers_named(hass, call)
        if call.data.get(ATTR_CONFIG_ENTRY_ID) is not None:
            room = rooms[0].settings.room
        if (call.data[ATTR_BOT] or _speaks_as_a_bot(hass, call.data[ATTR_USER])) and not await async_trusted(
            hass, call.context
        ):
            raise _refused(rooms, SERVICE_POST_MESSAGE, call)
        fire_chat_message(
            hass,
            user=call.data[ATTR_USER],
            text=call.data[ATTR_TEXT],
            bot=call.data[ATTR_BOT],
            room=room,
            context=call.context,
        )

    async def trigger(call: ServiceCall) -> None:
        loops = await _administered(hass, call, SERVICE_TRIGGER, single=False)
        for loop in loops:
            loop.request_decision()

    async def memory_write(call: ServiceCall) -> None:
        loop = (await _administered(hass, call, SERVICE_MEMORY_WRITE, single=True))[0]
        loop.controls.write_memory(call.data[ATTR_SLOT], call.data[ATTR_TEXT])

    async def memory_clear(call: ServiceCall) -> None:
        loop = (await _administered(hass, call, SERVICE_MEMORY_CLEAR, single=True))[0]
        loop.controls.clear_memory(call.data.get(ATTR_SLOT))

    def answer(approve: bool) -> Callable[[ServiceCall], Coroutine[Any, Any, None]]:
        async def handler(call: ServiceCall) -> None:
            approval_id = call.data[ATTR_APPROVAL_ID].strip()
            for data in _overseers(hass):
                desk = data.approvals
                if desk.knows(approval_id):
                    minutes = call.data.get(ATTR_GRANT_MINUTES, 0)
                    await desk.async_answer(approval_id, approve, call.context, minutes)
                    return
            raise _invalid(AnswerRefused.NOT_FOUND.value, approval_id=approval_id[:40])

        return handler

    async def revoke_grant(call: ServiceCall) -> None:
        grant_id = call.data[ATTR_GRANT_ID].strip()
        for data in _overseers(hass):
            if data.approvals.knows_grant(grant_id):
                await data.approvals.async_revoke(grant_id, call.context)
                return
        raise _invalid("grant_not_found", grant_id=grant_id[:40])

    for name, handler, schema in (
        (SERVICE_POST_MESSAGE, post_message, POST_MESSAGE_SCHEMA),
        (SERVICE_TRIGGER, trigger, TRIGGER_SCHEMA),
        (SERVICE_MEMORY_WRITE, memory_write, MEMORY_WRITE_SCHEMA),
        (SERVICE_MEMORY_CLEAR, memory_clear, MEMORY_CLEAR_SCHEMA),
        (SERVICE_APPROVE, answer(approve=True), APPROVE_SCHEMA),
        (SERVICE_DENY, answer(approve=False), APPROVAL_SCHEMA),
        (SERVICE_REVOKE_GRANT, revoke_grant, REVOKE_GRANT_SCHEMA),
    ):
        hass.services.async_register(DOMAIN, name, handler, schema=schema)
