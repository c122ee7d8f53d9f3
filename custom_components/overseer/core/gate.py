"""The deterministic gate: decides, without a model, when a model call is worth it."""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from .language import opens_a_question
from .text import fold, one_line, strip_invisible, without_addressee
from .topics import TopicWatch

DEFAULT_NAME = "Overseer"
DEFAULT_CHALLENGES = (
    "i dare you",
    "bet you can't",
    "bet you cant",
    "you won't",
    "you wont",
    "prove it",
    "pick a side",
    "make it harder",
    "do something",
)
# Only what the model will read can address it; this also bounds the cost of a flood.
ADDRESS_SCAN_CHARS = 1000
# Who spoke, as a trigger names them.
ASKER_CHARS = 40
# The words that addressed the overseer, kept to be asked again at the end of the request.
QUESTION_CHARS = 400
# People waiting for an answer, each answered in a decision of their own. Past this many, a
# newcomer is not queued: their words are only in the chat the next decisions read.
MAX_WAITING_ASKERS = 8
# World events waiting for the room, oldest first: past this many, a newcomer is missed.
MAX_WAITING_WORLD_EVENTS = 8
# The last missed world events the status shows.
MISSED_WORLD_EVENTS_KEPT = 8
# One world event as a trigger names it.
WORLD_EVENT_CHARS = 80


class TriggerKind(StrEnum):
    """Why a decision runs, in priority order."""

    DIRECT_ADDRESS = "direct_address"
    MANUAL = "manual"
    CHALLENGE = "challenge"
    TOPIC_CHANGE = "topic_change"
    WORLD_EVENT = "world_event"
    CHAT_BURST = "chat_burst"
    HEARTBEAT = "heartbeat"


PRIORITY = tuple(TriggerKind)
# Someone asked: these are never dropped and never wait for the minimum gap.
SOLICITED = frozenset({TriggerKind.DIRECT_ADDRESS, TriggerKind.MANUAL})


@dataclass(frozen=True, slots=True)
class GateConfig:
    """Gate thresholds; the defaults suit a model that takes 30 s to answer."""

    name: str = DEFAULT_NAME
    aliases: tuple[str, ...] = ()
    challenge_phrases: tuple[str, ...] = DEFAULT_CHALLENGES
    burst_messages: int = 4
    burst_window: float = 20
    heartbeat: float = 30
    # Quiet time after any decision before an unsolicited one may follow.
    min_gap: float = 15
    # Heartbeats only while someone was around this recently.
    activity_window: float = 300
    # Unsolicited reasons older than this are no longer worth a decision.
    pending_ttl: float = 60
    # In a room someone is in, the longest the overseer stays silent: the next decision after
    # that owes the room a line (0: never owed). Left to the model, a small one said SKIP to
    # every moment for twenty minutes of a busy demo.
    quiet_limit: float = 300
    # The longest a world event waits in its lane for a free room (its orchestrator answering
    # questions, a decision in flight, the minimum gap) before it is missed as stale: a rover
    # docking expired unanswered in pending_ttl while an orchestrator answered three questions.
    world_event_wait: float = 180


class MissReason(StrEnum):
    """Why a world event was never answered."""

    LANE_FULL = "lane_full"
    STALE = "stale"


@dataclass(frozen=True, slots=True)
class WorldEvent:
    """One high-signal room change, as its lane keeps it: what happened, to what, and when."""

    detail: str
    since: float


@dataclass(frozen=True, slots=True)
class MissedWorldEvent:
    """A world event no decision answered, when it was given up and why."""

    event: WorldEvent
    at: float
    reason: MissReason


@dataclass(frozen=True, slots=True)
class Trigger:
    """One decision's reason, with the reasons it absorbed."""

    kind: TriggerKind
    since: float
    detail: str = ""
    coalesced: tuple[TriggerKind, ...] = ()
    # The chat line that addressed the overseer; empty when the question is elsewhere (Assist
    # asking for an orchestrator, whose question is already in the chat).
    question: str = ""
    # The question came through Assist: an approval it leads to is Assist's.
    via_assist: bool = False
    # Whose question it is (the shell's identity.py): approvals and grants are bound to it, and
    # each identity waits for its own answer, apart from the same identity's Assist questions.
    identity: str = ""
    # The room orchestrator's pipeline this question belongs to: the line answering it says so.
    pipeline_id: str = ""
    # The room has not heard the overseer for the gate's quiet_limit: this decision ends in a line.
    owed: bool = False
    # The world events this decision answers, oldest first: the model is told each, since the
    # room may have moved on while they waited for it.
    events: tuple[WorldEvent, ...] = ()


class AddressMatcher:
    """Finds the overseer's name or an alias as a whole word, @-mention included."""

    def __init__(self, name: str, aliases: tuple[str, ...] = ()) -> None:
        """Compile one pattern over the folded forms of every name."""
        words = sorted({fold(word) for word in (name or DEFAULT_NAME, *aliases) if fold(word)}, key=len)
        alternatives = "|".join(r"\s+".join(map(re.escape, word.split())) for word in reversed(words))
        self._pattern = re.compile(rf"(?<!\w)@?(?:{alternatives})(?!\w)")

    def addressed(self, text: str) -> bool:
        """Return True when the text, as a reader sees it, names the overseer."""
        return self._pattern.search(fold(text[:ADDRESS_SCAN_CHARS])) is not None


_OPENING_WORD = re.compile(r"[^\w¡]*\w")


def is_question(text: str) -> bool:
    """Return True when the line, as a reader sees it, asks something.

    It asks when it ends with a question mark ("?!" too), opens with "¿", or opens with an
    interrogative word (language.opens_a_question: accents or not, in every language the room
    reads) and does not end as an exclamation ("what a drift!", "¡qué carrera!"). A line opening
    with "did", "is" or "can" is as often the crowd's chatter ("did you see that drift") as a
    question, so a yes/no question needs its "?".
    """
    ending = _closing_marks(_as_read(text[-ADDRESS_SCAN_CHARS:]))
    if "?" in ending:
        return True
    # Whom the line is for ("alex: what now") is not part of the question.
    head = without_addressee(_as_read(text[:ADDRESS_SCAN_CHARS]).casefold())
    if head.startswith("¿"):
        return True
    if ending or _OPENING_WORD.match(head) is None:
        return False
    return opens_a_question(head)


def _as_read(text: str) -> str:
    """Return the text as a reader sees it, accents kept (NFKC reads a full-width question mark as "?")."""
    return unicodedata.normalize("NFKC", strip_invisible(text)).strip()


def _closing_marks(tail: str) -> str:
    """Return the question and exclamation marks after the line's last word ("?! 😂" has both)."""
    marks = ""
    for char in reversed(tail):
        if char.isalnum():
            break
        if char in "?!":
            marks += char
    return marks


class Gate:
    """Collects what happened between ticks and names at most one trigger per tick."""

    def __init__(
        self, config: GateConfig, now: float, on_missed: Callable[[MissedWorldEvent], None] | None = None
    ) -> None:
        """Start quiet: no activity seen, the heartbeat counted from now.

        on_missed hears of each world event no decision will answer (the room's metrics).
        """
        self.config = config
        self._matcher = AddressMatcher(config.name, config.aliases)
        self._challenges = tuple(fold(phrase) for phrase in config.challenge_phrases if fold(phrase))
        self._topics = TopicWatch(ignore=(config.name or DEFAULT_NAME, *config.aliases))
        self._pending: dict[TriggerKind, Trigger] = {}
        # One waiting address per asker, oldest first.
        self._addresses: dict[tuple[bool, str], Trigger] = {}
        # World events wait in a lane of their own, oldest first, each with its own detail: a
        # question's decision leaves them waiting, and the room being held for questions only
        # delays them (up to world_event_wait).
        self._world: list[WorldEvent] = []
        self._missed: deque[MissedWorldEvent] = deque(maxlen=MISSED_WORLD_EVENTS_KEPT)
        self._on_missed = on_missed
        # The latest instant the gate was told of: when an event put back is missed.
        self._clock = now
        self._human_times: deque[float] = deque(maxlen=max(config.burst_messages, 1))
        self.last_activity: float | None = None
        self.last_decision: float | None = None
        self.last_said: float | None = None
        self._started = now

    def note_activity(self, now: float) -> None:
        """Someone is in the room (a line the room's orchestrator answers): the room is busy."""
        self.last_activity = now

    def said(self, now: float) -> None:
        """Note that the overseer's line reached the room."""
        self.last_said = now

    def observe_chat(
        self, user: str, text: str, bot: bool, now: float, identity: str = "", may_address: bool = True
    ) -> TriggerKind | None:
        """Take in one chat line; bot lines never trigger anything.

        may_address is False for a line that is an Assist question's copy in the chat: that
        question waits already, as Assist's.
        """
        if bot:
            return None
        self.last_activity = now
        self._human_times.append(now)
        # Every human line is part of the topic, whatever else it does: a change that comes with
        # an address is coalesced into the answer's decision.
        if topic := self._topics.observe(text[:ADDRESS_SCAN_CHARS]):
            self._add(Trigger(TriggerKind.TOPIC_CHANGE, now, one_line(topic, 80)))
        if may_address and self._matcher.addressed(text):
            self._add(
                Trigger(
                    TriggerKind.DIRECT_ADDRESS,
                    now,
                    one_line(user, ASKER_CHARS),
                    question=one_line(text, QUESTION_CHARS),
                    identity=identity,
                )
            )
            return TriggerKind.DIRECT_ADDRESS
        folded = fold(text[:ADDRESS_SCAN_CHARS])
        if any(phrase in folded for phrase in self._challenges):
            self._add(Trigger(TriggerKind.CHALLENGE, now, one_line(user, ASKER_CHARS)))
            return TriggerKind.CHALLENGE
        return TriggerKind.TOPIC_CHANGE if topic else None

    def observe_world(self, event: str, subject: str, now: float) -> None:
        """Take in one high-signal room change (see world.world_event)."""
        self.last_activity = now
        self._clock = max(self._clock, now)
        self._add(Trigger(TriggerKind.WORLD_EVENT, now, one_line(f"{event} ({subject})", WORLD_EVENT_CHARS)))

    def request_address(
        self, user: str, now: float, question: str = "", identity: str = "", pipeline_id: str = ""
    ) -> None:
        """Someone spoke to the overseer directly (through Assist), whatever the words."""
        self._add(
            Trigger(
                TriggerKind.DIRECT_ADDRESS,
                now,
                one_line(user, ASKER_CHARS),
                question=one_line(question, QUESTION_CHARS),
                via_assist=True,
                identity=identity,
                pipeline_id=pipeline_id,
            )
        )

    def request_manual(self, now: float) -> None:
        """Someone asked for a decision now."""
        self._add(Trigger(TriggerKind.MANUAL, now))

    def _add(self, trigger: Trigger) -> None:
        """Coalesce: keep the earliest arrival of each kind, and its detail; world events go to their lane."""
        if trigger.kind is TriggerKind.DIRECT_ADDRESS:
            self._add_address(trigger)
        elif trigger.kind not in self._pending and trigger.kind is not TriggerKind.WORLD_EVENT:
            self._pending[trigger.kind] = replace(trigger, coalesced=(), events=())
        if trigger.kind is TriggerKind.WORLD_EVENT and not trigger.events:
            self._wait((WorldEvent(trigger.detail, trigger.since),))
        else:
            self._wait(trigger.events)

    def _wait(self, events: Iterable[WorldEvent]) -> None:
        """Queue world events in the lane, oldest first: one already waiting is its newest arrival.

        Past the lane's bound the newest are missed (lane_full): those waiting are older news,
        about to be answered.
        """
        arrived = tuple(events)
        if not arrived:
            return
        lane: list[WorldEvent] = []
        for event in sorted((*self._world, *arrived), key=lambda event: event.since):
            # The same change again while it waits is the same news, as of its latest time.
            lane = [waiting for waiting in lane if waiting.detail != event.detail]
            if len(lane) < MAX_WAITING_WORLD_EVENTS:
                lane.append(event)
            else:
                self._miss(event, MissReason.LANE_FULL)
        self._world = lane

    def _miss(self, event: WorldEvent, reason: MissReason) -> None:
        """Record a world event no decision will answer, with why."""
        missed = MissedWorldEvent(event, self._clock, reason)
        self._missed.append(missed)
        if self._on_missed is not None:
            self._on_missed(missed)

    def _add_address(self, trigger: Trigger) -> None:
        """Each asker waits for an answer of their own: another's question never takes their place.

        Someone who asks again while waiting is answered on their newest words; a question put
        back (asked again, or after a failure) keeps the newer words already waiting.
        """
        asker = _asker(trigger)
        pending = self._addresses.get(asker)
        if pending is None:
            if len(self._addresses) < MAX_WAITING_ASKERS:
                self._addresses[asker] = replace(trigger, coalesced=())
            return
        # New words are a new question, asked afresh (a request without words asks about the
        # chat); a question put back is older than them.
        fresh = trigger.since >= pending.since
        if fresh and not trigger.question:
            trigger = replace(trigger, question=pending.question)
        newer = trigger if fresh else pending
        self._addresses[asker] = replace(newer, since=min(pending.since, trigger.since), coalesced=())

    def requeue(self, trigger: Trigger) -> None:
        """Put back what a failed decision was for: its question to be answered, its world events to wait."""
        if trigger.kind in SOLICITED or trigger.kind is TriggerKind.WORLD_EVENT:
            self._add(trigger)
        else:
            self._wait(trigger.events)

    @property
    def addressed_pending(self) -> bool:
        """Someone is waiting for an answer."""
        return bool(self._addresses)

    @property
    def waiting_world_events(self) -> tuple[WorldEvent, ...]:
        """The world events waiting for the room, oldest first."""
        return tuple(self._world)

    @property
    def missed_world_events(self) -> tuple[MissedWorldEvent, ...]:
        """The last world events no decision answered, newest first."""
        return tuple(reversed(self._missed))

    def tick(self, now: float, busy: bool = False, questions_first: bool = False) -> Trigger | None:
        """Name the trigger for a decision starting now, or None; consumes what it names.

        questions_first: someone else answers a question in the room now (its orchestrator): on
        a single model, a moment of the overseer's own would hold their answer up, so only a
        question, or a line owed to a room that has not heard the overseer, starts a decision.
        World events wait meanwhile (see world_event_wait); the first moment of its own answers them.
        """
        config = self.config
        self._clock = max(self._clock, now)
        for kind, pending in list(self._pending.items()):
            if kind not in SOLICITED and now - pending.since > config.pending_ttl:
                del self._pending[kind]
        while self._world and now - self._world[0].since > config.world_event_wait:
            self._miss(self._world.pop(0), MissReason.STALE)
        if busy:
            return None
        candidates = dict(self._pending)
        if self._addresses:
            candidates[TriggerKind.DIRECT_ADDRESS] = next(iter(self._addresses.values()))
        if self._world:
            # Since the room was free to answer: the model is told when each event happened, so
            # its line is late only by its own time (the stale check's too_late).
            candidates[TriggerKind.WORLD_EVENT] = Trigger(
                TriggerKind.WORLD_EVENT,
                now,
                "; ".join(event.detail for event in self._world),
            )
        previous = self.last_decision if self.last_decision is not None else self._started
        counting_from = max(now - config.burst_window, previous)
        burst = [t for t in self._human_times if t > counting_from]
        if len(burst) >= config.burst_messages:
            candidates[TriggerKind.CHAT_BURST] = Trigger(
                TriggerKind.CHAT_BURST, burst[0], f"{len(burst)} messages"
            )
        someone_in = self.last_activity is not None and now - self.last_activity <= config.activity_window
        if someone_in and now - previous >= config.heartbeat:
            candidates[TriggerKind.HEARTBEAT] = Trigger(TriggerKind.HEARTBEAT, now)
        quiet_since = self.last_said if self.last_said is not None else self._started
        owed = someone_in and 0 < config.quiet_limit <= now - quiet_since
        if owed:
            candidates.setdefault(TriggerKind.HEARTBEAT, Trigger(TriggerKind.HEARTBEAT, now))
        if not candidates:
            return None
        kind = next(k for k in PRIORITY if k in candidates)
        if kind not in SOLICITED and (
            (self.last_decision is not None and now - self.last_decision < config.min_gap)
            or (questions_first and not owed)
        ):
            return None
        chosen = replace(candidates[kind], owed=owed and kind not in SOLICITED)
        if chosen.owed:
            # Owed once per quiet limit, whether or not its line is posted: in dry run nothing is,
            # and the room was owed a decision every min_gap (57 in 15 minutes).
            self.last_said = now
        self._pending.clear()
        # The other askers still wait, each for their own decision.
        if kind is TriggerKind.DIRECT_ADDRESS:
            del self._addresses[_asker(chosen)]
        # An answer to a question is about the question: world events wait for a moment of the
        # overseer's own, which answers every one of them.
        answers_lane = kind not in SOLICITED and bool(self._world)
        if answers_lane:
            chosen = replace(chosen, events=tuple(self._world))
            self._world = []
        self.last_decision = now
        return replace(
            chosen,
            coalesced=tuple(
                k
                for k in PRIORITY
                if k in candidates and k is not kind and (k is not TriggerKind.WORLD_EVENT or answers_lane)
            ),
        )


def _asker(trigger: Trigger) -> tuple[bool, str]:
    """Whose answer a question waits for: a chat line never merges into an Assist question.

    Without an identity (a caller that names none) the name as a reader sees it stands in.
    """
    return trigger.via_assist, trigger.identity or fold(trigger.detail)
