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
from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import intent
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util.json import JsonObjectType

from .compat import chat_log_trace, conversation_busy_errors
from .const import OverseerMode, status_signal
from .core.accounts import Names, Phrase, describe_actions
from .core.acts import device_names, room_devices
from .core.gate import TriggerKind
from .core.results import call_result
from .cycle import Cycle
from .entity import room_device
from .identity import device_identity
from .loop import OverseerLoop
from .phrases import async_phrases
from .roster import asked_for
from .runtime import OverseerConfigEntry

# Questions wait in the room's gate, each answered by the single decision in flight.
PARALLEL_UPDATES = 0
# Someone who speaks through Assist with no Home Assistant user or device behind it.
UNKNOWN_CALLER = "Assist"


async def async_setup_entry(
    hass: HomeAssistant, entry: OverseerConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    """One agent per room."""
    async_add_entities([OverseerAgent(entry.runtime_data.loop)])


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
    """Waits for this room's first decision that answers a question asked now.

    Resolves with the decision, returned by the loop when it ends, and the lines it posted; or
    with None when the overseer is switched off or stopped meanwhile.
    """

    def __init__(self, hass: HomeAssistant, loop: OverseerLoop) -> None:
        """Set up the agent; a decision already in flight started before the question: it cannot answer it."""
        self._hass = hass
        self._loop = loop
        self._skip = loop.last.decision_id if loop.busy and loop.last else None
        # Whose answer this is: others waiting are answered in decisions of their own.
        self.asker = ""
        self.identity = ""
        self.done: asyncio.Future[tuple[Cycle, str | None] | None] = hass.loop.create_future()

    @callback
    def listen(self) -> list[CALLBACK_TYPE]:
        """Follow the room's decisions and controls; returns the unsubscribers."""
        signal = status_signal(self._loop.entry.entry_id)
        return [
            self._loop.async_listen_decisions(self._decided),
            async_dispatcher_connect(self._hass, signal, self._room_changed),
        ]

    @callback
    def _room_changed(self) -> None:
        loop = self._loop
        if not self.done.done() and (loop.state.mode is OverseerMode.OFF or not loop.running):
            self.done.set_result(None)

    @callback
    def _decided(self, cycle: Cycle) -> None:
        if self.done.done() or cycle.decision_id == self._skip:
            return
        trigger = cycle.trigger
        if (
            trigger.kind is not TriggerKind.DIRECT_ADDRESS
            or not trigger.via_assist
            or trigger.identity != self.identity
        ):
            return
        # A decision may post its line and then say that a call waits for a person.
        line = " ".join(cycle.said) or None
        # Nothing said and nothing tried: the question is being asked again (dry run aside).
        if line is None and not cycle.actions and not self._loop.state.dry_run:
            return
        self.done.set_result((cycle, line))


class OverseerAgent(conversation.ConversationEntity):
    """The room's overseer, for Assist pipelines."""

    _attr_has_entity_name = True
    _attr_translation_key = "agent"
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, loop: OverseerLoop) -> None:
        """One agent per room, on the room's device."""
        self.loop = loop
        self._attr_unique_id = f"{loop.entry.entry_id}_agent"
        self._attr_device_info = room_device(loop)

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Whatever the model speaks."""
        return MATCH_ALL

    async def _async_ask(
        self, user_input: conversation.ConversationInput, phrase: Phrase
    ) -> tuple[str, Cycle | None]:
        """Put the words to the room as a direct address; wait, bounded, for the answer and its decision."""
        loop = self.loop
        answer = _Answer(self.hass, loop)
        unsubscribe = answer.listen()
        try:
            if (asker := asked_for(self.hass, user_input.context)) is not None:
                # The room's orchestrator asks: the question and earlier answers are in the
                # room's chat already, so the task is not posted as a line; answer the asker.
                answer.asker, answer.identity = asker.name, asker.identity
                loop.inputs.request_address(asker.name, asker.identity, asker.question, asker.pipeline_id)
            else:
                answer.asker = await caller_name(self.hass, user_input.context, user_input.device_id)
                answer.identity = device_identity(
                    user_input.context, user_input.device_id, getattr(user_input, "satellite_id", None)
                )
                loop.inputs.take_address(answer.asker, user_input.text, user_input.context, answer.identity)
            async with asyncio.timeout(loop.settings.request_timeout):
                answered = await answer.done
            reply = _reply(answered, loop.state.dry_run, phrase, device_names(room_devices(loop.world())))
            return reply, answered[0] if answered else None
        except TimeoutError:
            return phrase("reply_still_thinking"), None
        finally:
            for stop in unsubscribe:
                stop()

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Answer, or say in the user's language that the last message is still being answered.

        From 2026.11 a second message to a conversation mid-turn cannot open its chat log.
        """
        try:
            return await super().async_process(user_input)
        except conversation_busy_errors():
            phrase = await async_phrases(self.hass, user_input.language)
            return _spoken(phrase("reply_busy"), user_input)

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Ask the room's overseer and wait, bounded, for its answer."""
        loop = self.loop
        phrase = await async_phrases(self.hass, user_input.language)
        cycle = None
        if loop.state.mode is OverseerMode.OFF or not loop.running:
            speech = phrase("reply_off")
        elif not user_input.text.strip():
            speech = phrase("reply_nothing")
        else:
            speech, cycle = await self._async_ask(user_input, phrase)
        # The decision's calls and what came of them, as Home Assistant traces an agent's tools.
        for content in chat_log_trace(user_input.agent_id, _calls(cycle)):
            chat_log.async_add_assistant_content_without_tools(content)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        return _spoken(speech, user_input, chat_log.conversation_id)


def _calls(cycle: Cycle | None) -> list[tuple[str, str, Mapping[str, Any], JsonObjectType, bool]]:
    """Return the decision's calls for the chat log: its id, tool, arguments and result each."""
    if cycle is None:
        return []
    calls = []
    for index, record in enumerate(cycle.actions):
        data, error = call_result(record)
        arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
        calls.append((f"{cycle.decision_id}-{index}", record.tool, arguments, data, error))
    return calls


def _spoken(
    speech: str, user_input: conversation.ConversationInput, conversation_id: str | None = None
) -> conversation.ConversationResult:
    """Return a plain spoken answer in the conversation."""
    response = intent.IntentResponse(language=user_input.language)
    response.async_set_speech(speech)
    return conversation.ConversationResult(
        response=response, conversation_id=conversation_id or user_input.conversation_id
    )


def _reply(answer: tuple[Cycle, str | None] | None, dry_run: bool, phrase: Phrase, names: Names) -> str:
    """Return the decision's line; else what it tried, in plain words from its audit records."""
    if answer is None:
        return phrase("reply_off")
    cycle, line = answer
    if line:
        return line
    tried = describe_actions(cycle.actions, phrase, names)
    would_say = cycle.decision.chat if dry_run and cycle.decision else None
    if would_say:
        return " ".join(part for part in (phrase("reply_dry_run_line", line=would_say), tried) if part)
    return tried or phrase("reply_nothing")
