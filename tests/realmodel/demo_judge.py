"""The demo check's judge: what the room did and what the bots said, read from the room itself.

Independent of the product: it imports nothing from custom_components. It reads the devices'
states as Home Assistant reported them (state_changed events, timed), the lines on the chat bus
and the orchestrator's pipelines, and decides per question whether the asked-for action ran,
whether anything else moved, whether a line stated what the room contradicted, and whether a
bot answered twice. The overseer's lines carry the facts they state as data (`facts`): each is
read against the device's reported state. The model's words in a line (`quip`) are read only
for a device's name (the facts speak of devices, never the model) and their language. Any line's
words are read too, by this judge's own small table of the demo room's words (English and
Spanish), deliberately narrow: a sentence that names one device and one state of it, without a
negation or a future, is a statement of that state.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeassistant.util.color import color_name_to_rgb, color_RGB_to_hs

from .demo_questions import LIFT, LIGHTS, VACUUM, Kind, Question, Want

# The demo vacuum goes home by itself this long after it was started (overseer_demo/vacuum.py):
# that return is no one's action.
VACUUM_RUNS = 30.0

LIGHT_NAMES = ("shelf", "bench", "corner", "aux1", "aux2", "window")
SPANISH_LIGHT_NAMES = ("estante", "banco", "rincón", "auxiliar 1", "auxiliar 2", "ventana")
# How the room's devices are named in a line, in English and Spanish.
DEVICE_WORDS: dict[str, tuple[str, ...]] = {
    LIFT: ("lift", "elevator", "elevador", "ascensor", "montacargas"),
    VACUUM: ("vacuum", "neato", "aspiradora", "robot aspirador"),
    **{
        entity: (name, f"{name} light", f"luz del {spanish}", f"luz de la {spanish}")
        for entity, name, spanish in zip(LIGHTS, LIGHT_NAMES, SPANISH_LIGHT_NAMES, strict=True)
    },
}
DEVICE_WORDS[LIGHTS[2]] += ("esquina", "luz de la esquina")
DEVICE_WORDS[LIGHTS[3]] += ("aux 1", "luz auxiliar 1")
DEVICE_WORDS[LIGHTS[4]] += ("aux 2", "luz auxiliar 2")
# Things of the room this judge does not read: a sentence naming one is about it, and a light's
# name in it may be a place ("Rover 2 is parked on the bench." says nothing of the bench light).
UNREAD_THINGS = ("rover", "rovers")
# A light's bare name after a preposition is a place, whatever stands there: "The car is parked
# on the bench." says nothing of the bench light, "on the bench light" and "luz del banco" do.
PLACE = re.compile(
    r"(?<!luz )\b(?:on|in|at|by|near|under|behind|beside|onto|from|en|sobre|junto a|cerca de|de|del)\s+"
    r"(?:the\s+|el\s+|la\s+)?(?:"
    + "|".join(re.escape(name) for name in (*LIGHT_NAMES, *SPANISH_LIGHT_NAMES, "esquina"))
    + r")\b(?!\s+light)"
)
# A device moved within this long of a call is that call's doing (the lift travels four seconds).
CALL_TO_MOVE = 8.0
# A state, and the words that state it, per kind of device.
STATE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "cover": {
        "open": ("up", "raised", "open", "opened", "arriba", "subido", "subida", "abierto", "levantado"),
        "closed": ("down", "lowered", "closed", "abajo", "bajado", "bajada", "cerrado"),
    },
    "light": {
        "on": ("on", "lit", "encendida", "encendido", "prendida"),
        "off": ("off", "dark", "apagada", "apagado"),
    },
    "vacuum": {
        "cleaning": (
            "cleaning",
            "running",
            "limpiando",
            "aspirando",
            "funcionando",
            "en marcha",
            "encendida",
            "encendido",
        ),
        "docked": (
            "docked",
            "charging",
            "home",
            "in its dock",
            "on its dock",
            "en la base",
            "a la base",
            "a casa",
            "cargando",
        ),
    },
}
# The colour words a line may use; their hue is Home Assistant's own for the name.
COLOURS: dict[str, tuple[str, ...]] = {
    "red": ("red", "rojo", "roja"),
    "orange": ("orange", "naranja"),
    "yellow": ("yellow", "amarillo", "amarilla"),
    "green": ("green", "verde"),
    "cyan": ("cyan", "cian", "turquoise", "turquesa"),
    "blue": ("blue", "azul"),
    "purple": ("purple", "violet", "morado", "morada", "violeta", "púrpura"),
    "pink": ("pink", "rosa", "rosado", "rosada"),
    "white": ("white", "blanco", "blanca"),
}
# Two hues this close are one colour to a person; below this saturation a light reads white.
SAME_HUE = 25.0
WHITE_BELOW = 15.0

# A sentence with one of these is no plain statement of the present: the judge leaves it alone.
NOT_A_STATEMENT = re.compile(
    r"\b(?:not|no|never|will|would|could|should|might|may|if|unless|going to|gonna|want|shall|"
    r"keep|ago|soon|later|in a sec|nunca|jamás|si|voy a|va a|vas a|quieres|puedo|podría|debería|"
    r"mantén|luego)\b|n['’]t\b|\?|¿",
    re.IGNORECASE,
)
# An answer's opening yes or no is no negation of what follows ("No, the lift is down.").
ANSWER_WORD = re.compile(r"^\s*(?:no|nope|nah|yes|yep|sí|si)\b[,.!]?\s*", re.IGNORECASE)
SENTENCES = re.compile(r"(?<=[.!?;])\s+|\s+(?:but|and|pero|y)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """One device's state at one moment, as Home Assistant reported it."""

    at: float
    state: str
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Room:
    """Every reported state of the room's devices, in order."""

    readings: dict[str, list[Reading]] = field(default_factory=dict)

    def add(self, entity_id: str, reading: Reading) -> None:
        self.readings.setdefault(entity_id, []).append(reading)

    def at(self, entity_id: str, when: float) -> Reading | None:
        """The device's reading at a moment: the last one reported by then."""
        found = None
        for reading in self.readings.get(entity_id, []):
            if reading.at > when:
                break
            found = reading
        return found

    def moves(self, calls: Sequence[Call]) -> list[Move]:
        """Every time a device was moved, by whose call: the last call that ran just before it began.

        Travel states (the lift opening or closing) are part of the move; the vacuum coming home
        by itself after its run is no one's; a move no call explains has no decision.
        """
        ran = sorted((call for call in calls if call.outcome == "executed"), key=lambda call: call.at)
        moved = []
        for entity_id, readings in self.readings.items():
            settled = [r for r in readings if r.state not in TRAVEL]
            for before, after in itertools.pairwise(settled):
                if _same(entity_id, before, after):
                    continue
                began = next(r for r in readings if r.at > before.at)
                if entity_id == VACUUM and _came_home_by_itself(readings, after):
                    moved.append(Move(entity_id, before, after, None, by_itself=True))
                    continue
                by = [c for c in ran if began.at - CALL_TO_MOVE <= c.at <= began.at + 0.5]
                moved.append(Move(entity_id, before, after, by[-1].decision_id if by else None))
        return moved


TRAVEL = ("opening", "closing", "unavailable", "unknown")


@dataclass(frozen=True)
class Call:
    """One call the overseer tried, as its overseer_action event told it."""

    at: float
    decision_id: str
    tool: str
    outcome: str
    reason: str | None = None


@dataclass(frozen=True)
class Move:
    """A device moved: from, to, and the decision whose call did it (None: no call explains it)."""

    entity_id: str
    before: Reading
    after: Reading
    decision_id: str | None
    by_itself: bool = False

    def __str__(self) -> str:
        colour = colour_of(self.after)
        hue = f" hue {colour[0]:.0f}" if colour else ""
        return f"{self.entity_id}: {self.before.state} -> {self.after.state}{hue}"


def _same(entity_id: str, before: Reading, after: Reading) -> bool:
    if before.state != after.state:
        if entity_id == VACUUM:
            # Returning then docked is one trip home.
            return {before.state, after.state} == {"returning", "docked"}
        return False
    if entity_id.startswith("light.") and after.state == "on":
        return colour_of(before) == colour_of(after)
    return True


def _came_home_by_itself(readings: Sequence[Reading], after: Reading) -> bool:
    if after.state not in ("returning", "docked"):
        return False
    started = [r.at for r in readings if r.state == "cleaning" and r.at < after.at]
    return bool(started) and abs(after.at - started[-1] - VACUUM_RUNS) < 3


def colour_of(reading: Reading | None) -> tuple[float, float] | None:
    """A light's hue and saturation, or None (off, or no colour reported)."""
    if reading is None or reading.state != "on":
        return None
    hs = reading.attributes.get("hs_color")
    return (float(hs[0]) % 360, float(hs[1])) if hs else None


def shows_colour(reading: Reading | None, word: str) -> bool:
    """Whether a light reads as the colour a person calls word."""
    hs = colour_of(reading)
    if hs is None:
        return False
    hue, saturation = hs
    if word == "white":
        return saturation < WHITE_BELOW
    wanted, _ = color_RGB_to_hs(*color_name_to_rgb(word))
    distance = abs(hue - wanted) % 360
    return saturation >= WHITE_BELOW and min(distance, 360 - distance) <= SAME_HUE


def kind_of(entity_id: str) -> str:
    return entity_id.split(".", 1)[0]


def satisfied(want: Want, reading: Reading | None) -> bool:
    """Whether the device reads as the question wanted."""
    if reading is None:
        return False
    state = reading.state
    if kind_of(want.entity_id) == "vacuum" and want.state in ("returning", "docked"):
        matches = state in ("returning", "docked")
    else:
        matches = state == want.state
    if matches and want.attribute is not None:
        name, value = want.attribute
        if name == "color_name":
            return shows_colour(reading, str(value))
        return reading.attributes.get(name) == value
    return matches


def _mentions(sentence: str, words: Iterable[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", sentence) for word in words)


def claims(line: str) -> list[tuple[str, str]]:
    """The statements of state a line makes, as (entity_id, state or colour word), by this judge's reading."""
    found = []
    for said in SENTENCES.split(line.lower()):
        sentence = PLACE.sub(" somewhere", ANSWER_WORD.sub("", said))
        if not sentence.strip() or NOT_A_STATEMENT.search(sentence):
            continue
        named = [entity for entity, words in DEVICE_WORDS.items() if _mentions(sentence, words)]
        # "the lights" or two devices in one sentence: whose state is which is not plain.
        if len(named) != 1 or _mentions(sentence, UNREAD_THINGS):
            continue
        entity = named[0]
        states = [s for s, words in STATE_WORDS[kind_of(entity)].items() if _mentions(sentence, words)]
        colours = [c for c, words in COLOURS.items() if _mentions(sentence, words)]
        if kind_of(entity) == "light" and len(colours) == 1 and states in ([], ["on"]):
            found.append((entity, colours[0]))
        elif len(states) == 1:
            found.append((entity, states[0]))
    return found


def contradicted(line: str, at: float, room: Room, settle: float = 6.0) -> list[str]:
    """The statements of a line that the room's state contradicts when it was said.

    A device still travelling, or that reached the stated state within `settle` seconds either
    side of the line, is not contradicted: the lift takes four seconds to rise.
    """
    wrong = []
    for entity, stated in claims(line):
        moments = [at + offset for offset in (-settle, 0.0, settle)]
        if any(_reads_as(room.at(entity, moment), entity, stated) for moment in moments):
            continue
        reading = room.at(entity, at)
        wrong.append(f"{entity} stated {stated}, read {reading.state if reading else 'nothing'}")
    return wrong


def _reads_as(reading: Reading | None, entity: str, stated: str) -> bool:
    if reading is None or reading.state in ("unavailable", "unknown"):
        return True  # nothing to contradict it with
    if reading.state in ("opening", "closing"):
        return True
    if stated in COLOURS:
        return shows_colour(reading, stated)
    if kind_of(entity) == "vacuum":
        return (stated == "cleaning") == (reading.state == "cleaning")
    return reading.state == stated


@dataclass(frozen=True)
class Line:
    """One line on the chat bus: the overseer's carry the facts they state and the model's words."""

    at: float
    user: str
    text: str
    bot: bool
    decision_id: str | None = None
    pipeline_id: str | None = None
    facts: tuple[Mapping[str, Any], ...] = ()
    quip: str = ""


# Words that own up to not knowing, the honest answer to what the room cannot see.
NOT_KNOWING = re.compile(
    r"\b(?:(?:do|does|did)\s*n['’]?o?t\s+know|don['’]t\s+know|no\s+idea|can['’]?not\s+see|can['’]t\s+see|"
    r"can['’]?not\s+tell|can['’]t\s+tell|not\s+sure|unknown|no\s+s[eé]|ni\s+idea|no\s+puedo\s+(?:ver|saber)|"
    r"no\s+lo\s+s[eé]|no\s+tengo\s+(?:ni\s+)?idea|desconozco)\b",
    re.IGNORECASE,
)
FIGURE = re.compile(r"\d")


def false_facts(line: Line, room: Room, settle: float = 6.0) -> list[str]:
    """The facts a line carries that the room's reported states contradict when it was said."""
    wrong = []
    for fact in line.facts:
        entity = str(fact.get("entity_id", ""))
        if entity not in room.readings:
            continue  # a rover's sensors or a device this judge does not read
        state, colour = str(fact.get("state", "")), str(fact.get("colour") or "")
        moments = [line.at + offset for offset in (-settle, 0.0, settle)]
        if any(_holds(room.at(entity, moment), entity, state, colour) for moment in moments):
            continue
        reading = room.at(entity, line.at)
        wrong.append(f"fact {entity} {state} {colour}, read {reading.state if reading else 'nothing'}")
    return wrong


def _holds(reading: Reading | None, entity: str, state: str, colour: str) -> bool:
    if not _reads_as(reading, entity, state):
        return False
    # A colour the judge's reading cannot check (no hue reported) is not contradicted.
    return not colour or colour_of(reading) is None or shows_colour(reading, colour)


def quip_names_a_device(line: Line) -> list[str]:
    """The devices the model's own words name: the facts speak of them, never the model."""
    said = PLACE.sub(" somewhere", line.quip.lower())
    return [entity for entity, words in DEVICE_WORDS.items() if _mentions(said, words)]


def invented(question: Question, line: Line) -> bool:
    """An answer in the model's words to what the room cannot see that does not own up to not knowing."""
    if question.kind is not Kind.UNKNOWN_FACT or not line.quip:
        return False
    return bool(FIGURE.search(line.quip)) or not NOT_KNOWING.search(line.quip)


@dataclass
class Asked:
    """One question of the check, and what became of it."""

    question: Question
    at: float
    pipeline_id: str | None = None
    routed_at: float | None = None
    finished_at: float | None = None
    route: tuple[str, ...] = ()


@dataclass
class Verdict:
    """What the judge found for one question."""

    asked: Asked
    answers: list[Line]
    wrong_actions: list[str]
    false_lines: list[str]
    doubles: list[str]
    # Answers in the model's words to what the room cannot see that do not own up to not knowing.
    inventions: list[str]
    done: bool | None  # the asked-for action ran; None when nothing was asked or it was so already
    # The model's own words were posted (its quip): a share a small model's luck moves.
    own_line: bool
    right_language: bool
    stock: list[str]
    # Lines that answer it as asked: its own words (not the fallback), in its language, true, no stock line.
    accepted: list[Line]


def judge(
    asked: Asked,
    lines: Sequence[Line],
    room: Room,
    moves: Sequence[Move],
    is_fallback,
    stock_phrase,
    spoken_language,
    scripted: frozenset[str] = frozenset(),
) -> Verdict:
    """Judge one question from the lines of its pipeline and the moves its decisions made.

    scripted: bots whose lines are canned, not a model's (the demo's Rover guide): they may
    refine an answer, but none of theirs is one in the model's own words.
    """
    question = asked.question
    answers = [
        line for line in lines if line.bot and asked.pipeline_id and line.pipeline_id == asked.pipeline_id
    ]
    decisions = {line.decision_id for line in answers if line.decision_id}
    mine = [move for move in moves if move.decision_id in decisions]
    wanted = {want.entity_id: want for want in question.wants}
    # Another device, or the opposite of what was asked (a colour on the way is not the opposite).
    wrong = [
        str(move)
        for move in mine
        if move.entity_id not in wanted or move.after.state != wanted[move.entity_id].state
    ]
    start = asked.routed_at if asked.routed_at is not None else asked.at
    contradicting = {
        id(line): found
        for line in answers
        if (
            found := [
                *contradicted(line.text, line.at, room),
                *false_facts(line, room),
                *(f"the model's words name {entity}" for entity in quip_names_a_device(line)),
            ]
        )
    }
    false_lines = [
        f"{line.user}: {line.text!r} ({'; '.join(contradicting[id(line)])})"
        for line in answers
        if id(line) in contradicting
    ]
    by_bot: dict[str, list[Line]] = {}
    for line in answers:
        by_bot.setdefault(line.user, []).append(line)
    doubles = [f"{bot}: {[line.text for line in said]}" for bot, said in by_bot.items() if len(said) > 1]
    done = None
    if question.wants and not all(satisfied(want, room.at(want.entity_id, start)) for want in question.wants):
        done = all(
            any(move.entity_id == want.entity_id and satisfied(want, move.after) for move in mine)
            for want in question.wants
        )
    # Its own words: the overseer's quip; another bot's line (no facts of ours) is all its own.
    own = [
        line
        for line in answers
        if not is_fallback(line.text) and line.user not in scripted and (line.quip or not line.decision_id)
    ]
    # A line too short to tell its language by is taken as the asker's.
    language = [
        line
        for line in own
        if spoken_language(line.quip or line.text) == question.language
        or (spoken_language(line.quip or line.text) is None and len((line.quip or line.text).split()) <= 2)
    ]
    return Verdict(
        asked=asked,
        answers=answers,
        wrong_actions=wrong,
        false_lines=false_lines,
        doubles=doubles,
        inventions=[f"{line.user}: {line.text!r}" for line in answers if invented(question, line)],
        done=done,
        own_line=bool(own),
        right_language=bool(language),
        stock=[f"{line.user}: {line.text!r}" for line in answers if stock_phrase(line.text)],
        accepted=[line for line in language if id(line) not in contradicting and not stock_phrase(line.text)],
    )
