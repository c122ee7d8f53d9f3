"""What comes into a room: chat lines from the bus and changes of the watched entities."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from homeassistant.core import CALLBACK_TYPE, Event, EventStateChangedData, HomeAssistant, callback
from homeassistant.helpers.event import async_track_state_change_event

from .chat import parse_chat_event
from .const import EVENT_CHAT_MESSAGE, TRANSCRIPT_BUFFER
from .core.context import ChatLine
from .core.gate import Gate
from .core.text import fold
from .core.world import Role, rover_field, world_event
from .settings import Settings

PEOPLE_WINDOW = 300
MAX_ACTIVE_PEOPLE = 12


class RoomInputs:
    """Keeps the room's bounded transcript and tells the gate what happened."""

    def __init__(
        self,
        hass: HomeAssistant,
        settings: Settings,
        gate: Gate,
        now: Callable[[], float],
        listening: Callable[[], bool],
    ) -> None:
        """listening() says whether the overseer is on; chat is still kept while it is off."""
        self._hass = hass
        self._settings = settings
        self._gate = gate
        self._now = now
        self._listening = listening
        self._watched = settings.watched()
        self.transcript: deque[ChatLine] = deque(maxlen=TRANSCRIPT_BUFFER)
        # Lines taken in since start: the card's live tail is refreshed when it moves.
        self.received = 0

    @callback
    def async_listen(self) -> list[CALLBACK_TYPE]:
        """Subscribe to the chat bus and the watched entities; returns the unsubscribers."""
        unsubscribe = [self._hass.bus.async_listen(EVENT_CHAT_MESSAGE, self._on_chat)]
        if self._watched:
            unsubscribe.append(
                async_track_state_change_event(self._hass, list(self._watched), self._on_state)
            )
        return unsubscribe

    @callback
    def _on_chat(self, event: Event) -> None:
        """Take in a chat line addressed to this room (or to every room)."""
        chat = parse_chat_event(event.data)
        if chat is None or (chat.room is not None and fold(chat.room) != self._settings.room):
            return
        now = self._now()
        # Our own lines come back on the bus with the decision that wrote them.
        own = chat.bot and chat.user == self._settings.name and event.data.get("decision_id") is not None
        self.transcript.append(ChatLine(chat.user, chat.text, chat.bot, now, own))
        self.received += 1
        if self._listening():
            self._gate.observe_chat(chat.user, chat.text, chat.bot, now)

    @callback
    def _on_state(self, event: Event[EventStateChangedData]) -> None:
        """Turn a watched entity's change into a world event when it is high-signal."""
        new_state = event.data["new_state"]
        if new_state is None or not self._listening():
            return
        old_state = event.data["old_state"]
        entity_id = event.data["entity_id"]
        role = self._watched.get(entity_id, Role.STATE)
        name = str(new_state.attributes.get("friendly_name") or entity_id)
        field = rover_field(entity_id, name) if role is Role.ROVER else None
        happened = world_event(role, field, old_state.state if old_state else None, new_state.state)
        if happened:
            self._gate.observe_world(happened, name, self._now())

    @callback
    def take_address(self, user: str, text: str) -> None:
        """A line said to the overseer directly: on the chat bus like any line, and a direct address."""
        self._hass.bus.async_fire(
            EVENT_CHAT_MESSAGE, {"room": self._settings.room, "user": user, "text": text, "bot": False}
        )
        self._gate.request_address(user, self._now())

    def active_people(self) -> tuple[str, ...]:
        """Humans who spoke recently, newest first."""
        now = self._now()
        people: dict[str, None] = {}
        for line in reversed(self.transcript):
            if line.ts < now - PEOPLE_WINDOW:
                break
            if not line.bot:
                people.setdefault(line.user, None)
        return tuple(people)[:MAX_ACTIVE_PEOPLE]
