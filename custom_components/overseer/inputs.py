"""What comes into a room: chat lines from the bus, changes of the watched entities, the room now."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from homeassistant.core import CALLBACK_TYPE, Context, Event, EventStateChangedData, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.event import async_track_state_change_event

from .chat import parse_chat_event
from .const import DOMAIN, EVENT_CHAT_MESSAGE, TRANSCRIPT_BUFFER, OverseerMode
from .core.context import ChatLine
from .core.gate import Gate
from .core.incidents import active_incidents
from .core.text import fold, one_line
from .core.world import Role, World, rover_field, world_event
from .events import fire_chat_message
from .identity import chat_identity
from .room import build_world
from .room_state import RoomState
from .roster import answering, note_asked_through_assist, takes_part
from .settings import Settings

PEOPLE_WINDOW = 300
ASSIST_LINES_KEPT = 16
MAX_ACTIVE_PEOPLE = 12


class RoomInputs:
    """Keeps the room's bounded transcript and tells the gate what happened."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry_id: str,
        settings: Settings,
        state: RoomState,
        gate: Gate,
        now: Callable[[], float],
    ) -> None:
        """Chat is kept whatever the mode; the gate hears of it only while an overseer runs."""
        self._hass = hass
        self._entry_id = entry_id
        self._settings = settings
        self._state = state
        self._gate = gate
        self._now = now
        self._watched = settings.watched()
        self.transcript: deque[ChatLine] = deque(maxlen=TRANSCRIPT_BUFFER)
        # The contexts of Assist questions this room put in its chat: their copy on the bus asks
        # nothing more (each waits as Assist's already).
        self._assist_lines: deque[str] = deque(maxlen=ASSIST_LINES_KEPT)
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
        fixed = own and event.data.get("fixed") is True
        # Its own line is read back as the model's words alone: the facts before them are the
        # overseer's, and a small model copies the shape of what it takes for its own.
        quip = event.data.get("quip")
        words = one_line(quip, len(chat.text)) if own and not fixed and isinstance(quip, str) and quip else ""
        self.transcript.append(ChatLine(chat.user, chat.text, chat.bot, now, own, fixed, words))
        self.received += 1
        if own and event.data.get("pipeline_id") is None:
            # An answer to the orchestrator's question is not the room hearing the overseer of its
            # own accord: answering all along, it was never owed a line (a 16-minute demo heard
            # nothing unprompted).
            self._gate.said(now)
        if not self._listening():
            return
        if not chat.bot and self._orchestrated():
            # In an orchestrated room a human line is the orchestrator's to route: the overseer
            # answers when it is asked (through its agent), not by itself; the room is busy.
            self._gate.note_activity(now)
        else:
            self._gate.observe_chat(
                chat.user,
                chat.text,
                chat.bot,
                now,
                identity=chat_identity(self._hass, event.context, chat.user),
                may_address=event.context.id not in self._assist_lines,
            )

    def _listening(self) -> bool:
        return self._state.mode is not OverseerMode.OFF

    def questions_first(self) -> bool:
        """Return whether the room's orchestrator is working through a question (own moments wait)."""
        return answering(self._hass, self._settings.room)

    def _orchestrated(self) -> bool:
        agent = er.async_get(self._hass).async_get_entity_id(
            "conversation", DOMAIN, f"{self._entry_id}_agent"
        )
        return takes_part(self._hass, self._settings.room, agent)

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
    def take_address(self, user: str, text: str, context: Context, identity: str) -> None:
        """Take a line said to the overseer directly: on the chat bus like any line, and a direct address.

        The caller's context goes with it: an orchestrator knows its own questions by it.
        """
        self._assist_lines.append(context.id)
        note_asked_through_assist(self._hass, context)
        fire_chat_message(
            self._hass, room=self._settings.room, user=user, text=text, bot=False, context=context
        )
        self._gate.request_address(user, self._now(), text, identity)

    @callback
    def request_address(self, user: str, identity: str, question: str, pipeline_id: str = "") -> None:
        """Someone waits for the overseer's answer to what they asked in the room's chat."""
        self._gate.request_address(user, self._now(), question, identity, pipeline_id)

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

    def world(self) -> World:
        """Return the room as it is now, with who is about and what is still wrong."""
        return build_world(
            self._hass,
            self._settings,
            self._state.controls,
            self._state.memory.slots,
            self.active_people(),
            tuple(incident.summary() for incident in active_incidents(self._state.incidents)),
        )
