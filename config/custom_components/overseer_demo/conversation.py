"""The Rover guide: a second bot in the demo room, for the overseer's orchestrator to route to.

A conversation agent with a persona of its own, the arena's track marshal: it knows the three
rovers (running or docked, who drives, charging, on the network) and nothing else. It calls no
model: every answer is put together here from the simulated room's rover states, the same
states the rover entities show. So its answers are always true and quick, and plainly
incomplete when the question is about something else (the lift, the lights, the vacuum, the
crowd): the orchestrator's judge scores those low and the Overseer refines them, which is the
refinement a newcomer sees in the chat. Asked to refine the Overseer's answer, it adds only
rover facts that answer does not hold yet, and otherwise says nothing.
"""

from __future__ import annotations

import re
from typing import Literal

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.helpers import intent
from homeassistant.helpers.device_registry import DeviceInfo

from .const import DOMAIN, ROVERS

GUIDE = "Rover guide"
ROVER_NUMBER = re.compile(r"\brover\s*#?\s*(\d+)", re.IGNORECASE)
# Questions a track marshal can answer about every rover at once.
TRACK_WORDS = re.compile(
    r"\b(rovers?|driv\w*|drove|dock\w*|charg\w*|batter\w*|track|race|racing|lap|winning|ahead|who)\b",
    re.IGNORECASE,
)


async def async_setup_entry(hass, entry, async_add_entities) -> None:
    """The guide, reading the demo room."""
    async_add_entities([RoverGuide(entry.runtime_data)])


def describe(name: str, rover) -> str:
    """One rover in a sentence, from its state."""
    if not rover.online:
        return f"{name} is off the network, so I cannot see it."
    if rover.docked:
        return f"{name} is on its dock{', charging' if rover.charging else ''}."
    driver = f" with {rover.driver} at the wheel" if rover.driver not in ("", "none") else ""
    doing = "out driving" if rover.activity == "driving" else f"off its dock, {rover.activity}"
    return f"{name} is {doing}{driver}."


def answer(room, text: str) -> str:
    """The guide's answer to a question: the first line of what it is asked.

    Asked by the orchestrator to improve an earlier answer (the lines after the question), it
    adds only what the track shows and the earlier answers do not say yet. With nothing to add
    its answer is empty, which the orchestrator takes as no answer: no line in the chat.
    """
    lines = text.strip().splitlines()
    question = lines[0] if lines else ""
    facts = _facts(room, question)
    if len(lines) > 1:
        earlier = "\n".join(lines[1:])
        new = [fact for fact in facts if fact not in earlier]
        return f"To add what the track shows: {' '.join(new)}" if new else ""
    # A question about anything but the rovers is not the guide's: it says nothing rather than
    # the same sentence every time (the orchestrator then asks the other bot).
    return " ".join(facts)


def _facts(room, question: str) -> list[str]:
    """What the track shows about the rovers the question is about; none when it is about none."""
    asked = [f"Rover {number}" for number in ROVER_NUMBER.findall(question)]
    known = [name for name in asked if name in room.rovers]
    if known:
        return [describe(name, room.rovers[name]) for name in dict.fromkeys(known)]
    if asked:
        return [f"There is no {asked[0]} here: the arena has {', '.join(ROVERS)}."]
    if TRACK_WORDS.search(question):
        return [describe(name, room.rovers[name]) for name in ROVERS]
    return []


class RoverGuide(conversation.ConversationEntity):
    """The arena's track marshal, as a Home Assistant conversation agent."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_unique_id = "rover_guide_agent"

    def __init__(self, room) -> None:
        """On a device of its own, so it is conversation.rover_guide."""
        self.room = room
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, GUIDE)}, name=GUIDE, manufacturer="Overseer demo"
        )

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """It answers in English whatever it is asked in."""
        return MATCH_ALL

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Answer from the rovers' states."""
        speech = answer(self.room, user_input.text)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        response = intent.IntentResponse(language=user_input.language)
        response.async_set_speech(speech)
        return conversation.ConversationResult(response=response, conversation_id=chat_log.conversation_id)
