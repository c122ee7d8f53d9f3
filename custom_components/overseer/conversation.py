"""The overseer as an Assist conversation agent: an utterance is a direct address in the room.

The utterance goes onto the room's chat bus as a line from the calling user (their person's
name, else their user name: never a name the words claim) and is answered by the normal loop,
through the gate, the policy and the single decision in flight. The reply is the line that
decision posted; when it only acted or was refused, the reply says so in plain words from the
audit. When no answer comes within the request timeout, the agent says it is still thinking
and the answer appears in the room's chat when it comes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Literal

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.core import Context, Event, HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import intent
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.helpers.translation import async_get_translations

from .const import DOMAIN, EVENT_CHAT_MESSAGE, EVENT_DECISION, OverseerMode
from .coordinator import OverseerConfigEntry, OverseerCoordinator
from .core.gate import TriggerKind
from .core.replies import describe_actions
from .entity import room_device

# Someone who speaks through Assist with no Home Assistant user or device behind it.
UNKNOWN_CALLER = "Assist"
# Audit records searched for one decision's: it writes a few, and they are the newest.
AUDIT_LOOKBACK = 40


async def async_setup_entry(
    hass: HomeAssistant, entry: OverseerConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """One agent per room."""
    async_add_entities([OverseerAgent(entry.runtime_data.coordinator)])


async def caller_name(hass: HomeAssistant, context: Context | None, device_id: str | None) -> str:
    """Who is speaking: the user's person name, else their user name, else the satellite's name."""
    if user_id := context.user_id if context else None:
        for person in hass.states.async_all("person"):
            if person.attributes.get("user_id") == user_id:
                return person.name
        user = await hass.auth.async_get_user(user_id)
        if user and user.name:
            return user.name
    device = dr.async_get(hass).async_get(device_id) if device_id else None
    return (device.name_by_user or device.name if device else None) or UNKNOWN_CALLER


class _Answer:
    """Waits for the first decision that answers a question asked now."""

    def __init__(self, hass: HomeAssistant, coordinator: OverseerCoordinator) -> None:
        """A decision already in flight started before the question: it cannot answer it."""
        self._hass = hass
        self._coordinator = coordinator
        self._skip = coordinator.last.decision_id if coordinator.busy and coordinator.last else None
        self._lines: dict[str, str] = {}
        self.done: asyncio.Future[tuple[str, str | None]] = hass.loop.create_future()

    @callback
    def listen(self) -> list[Any]:
        """Follow the room's lines and decisions; returns the unsubscribers."""
        bus = self._hass.bus
        return [
            bus.async_listen(EVENT_CHAT_MESSAGE, self._line),
            bus.async_listen(EVENT_DECISION, self._decided),
        ]

    @callback
    def _line(self, event: Event) -> None:
        if decision_id := event.data.get("decision_id"):
            self._lines[decision_id] = str(event.data.get("text", ""))

    @callback
    def _decided(self, event: Event) -> None:
        decision_id = event.data["decision_id"]
        if self.done.done() or decision_id == self._skip:
            return
        if event.data.get("trigger") != TriggerKind.DIRECT_ADDRESS:
            return
        line = self._lines.get(decision_id)
        acted = bool(records_of(self._coordinator, decision_id))
        # Nothing said and nothing tried: the question is being asked again (dry run aside).
        if line is None and not acted and not self._coordinator.state.dry_run:
            return
        self.done.set_result((decision_id, line))


class OverseerAgent(conversation.ConversationEntity):
    """The room's overseer, for Assist pipelines."""

    _attr_has_entity_name = True
    _attr_translation_key = "agent"
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, coordinator: OverseerCoordinator) -> None:
        """One agent per room, on the room's device."""
        self.coordinator = coordinator
        self._attr_unique_id = f"{coordinator.entry.entry_id}_agent"
        self._attr_device_info = room_device(coordinator)

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Whatever the model speaks."""
        return MATCH_ALL

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Ask the room's overseer and wait, bounded, for its answer."""
        coordinator = self.coordinator
        phrases = await _async_phrases(self.hass, user_input.language)
        if coordinator.state.mode is OverseerMode.OFF or not coordinator.running:
            speech = phrases("reply_off")
        else:
            answer = _Answer(self.hass, coordinator)
            unsubscribe = answer.listen()
            try:
                caller = await caller_name(self.hass, user_input.context, user_input.device_id)
                coordinator.inputs.take_address(caller, user_input.text)
                async with asyncio.timeout(coordinator.settings.request_timeout):
                    decision_id, line = await answer.done
                speech = line or _from_audit(coordinator, decision_id, phrases)
            except TimeoutError:
                speech = phrases("reply_still_thinking")
            finally:
                for stop in unsubscribe:
                    stop()
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        response = intent.IntentResponse(language=user_input.language)
        response.async_set_speech(speech)
        return conversation.ConversationResult(response=response, conversation_id=chat_log.conversation_id)


def _from_audit(coordinator: OverseerCoordinator, decision_id: str, phrases: Any) -> str:
    """What the decision tried, in plain words, when it said nothing."""
    return describe_actions(records_of(coordinator, decision_id), phrases) or phrases("reply_nothing")


def records_of(coordinator: OverseerCoordinator, decision_id: str) -> list[dict[str, Any]]:
    """One decision's audit records, oldest first (they are among the newest)."""
    latest = coordinator.state.audit.latest(AUDIT_LOOKBACK)
    return [record for record in reversed(latest) if record.get("decision_id") == decision_id]


async def _async_phrases(hass: HomeAssistant, language: str | None) -> Any:
    """The reply phrases in the caller's language, English where it has none."""
    prefix = f"component.{DOMAIN}.exceptions."
    found: Mapping[str, str] = {}
    for candidate in dict.fromkeys((language or hass.config.language, "en")):
        found = {**await async_get_translations(hass, candidate, "exceptions", {DOMAIN}), **found}

    def phrase(key: str, **placeholders: Any) -> str:
        text = found.get(f"{prefix}{key}.message", key)
        for name, value in placeholders.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text

    return phrase
