"""What the demo check asks the overseer, and how its judge reads the answers.

The demo check runs the real demo room and has a newcomer put questions to the overseer in its
chat. This module holds everything that check needs which is plain data or plain text reading,
so it can be tested fast and without Home Assistant or a model:

- the question bank: TUNING (which prompt and model changes may be tuned against; it holds,
  verbatim, the 12 questions tests/realmodel/test_demo_room.py asked before this bank) and
  HELD_OUT (never tuned against, no near-copy of a tuning question, so a pass there says the
  tuning generalised), both about half English and half Spanish, with every Kind in both languages;
- draw(): a seeded, reproducible draw from a part that still holds enough actions and Spanish;
- STOCK_PHRASES / stock_phrase() / in_seed_voice(): the help-desk voice the seed must not slip
  into, and the short ominous voice it should keep;
- spoken_language(): the judge's own guess of a line's language. It is deliberately not the
  product's: a judge that used the product's detector would agree with the product's mistakes.

Nothing here imports Home Assistant or custom_components.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from enum import Enum
from functools import cache

from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
from langdetect.lang_detect_exception import LangDetectException

# The demo room's devices, by entity id (config/custom_components/overseer_demo). Spelled out
# here rather than imported: this module stays importable without the demo's package.
LIFT = "cover.lift"
VACUUM = "vacuum.neato"
LIGHTS = tuple(f"light.{name}" for name in ("shelf", "bench", "corner", "aux1", "aux2", "window"))
DEVICES = (LIFT, VACUUM, *LIGHTS)
# The attribute a colour Want names. Its value is a plain colour name ("blue"); the judge maps it
# to a hue range and compares the light's hs_color itself, so this module holds no colour maths.
COLOR_NAME = "color_name"
# A state on the way to the wanted one: the lift takes a few seconds to travel and the vacuum a
# few to reach its dock, so a judge reading the room right after the action may accept these.
ON_THE_WAY: dict[str, str] = {"open": "opening", "closed": "closing", "docked": "returning"}


class Kind(Enum):
    """What a question asks of the overseer."""

    # Change the lift, a light or the vacuum.
    ACTION = "action"
    # Say how the room is (lift, lights, vacuum).
    STATE = "state"
    # Opinion or banter: no right answer, only a voice.
    OPINION = "opinion"
    # A fact the room does not hold (a score, a bet, the weather): the honest answer is not knowing.
    UNKNOWN_FACT = "unknown_fact"


@dataclass(frozen=True)
class Want:
    """After the question, the judge expects entity_id in `state` (or on the way, ON_THE_WAY).

    attribute, when given, is one more (name, value) the judge checks; the only one used is
    (COLOR_NAME, "<colour>"), compared by hue range by the judge.
    """

    entity_id: str
    state: str
    attribute: tuple[str, object] | None = None


@dataclass(frozen=True)
class Question:
    """One line a person in the chat says to the overseer, and what doing it would look like."""

    text: str
    language: str
    kind: Kind
    wants: tuple[Want, ...] = ()


# Short names keep each question on one line.
_ACT, _STATE, _OPINION, _UNKNOWN = Kind.ACTION, Kind.STATE, Kind.OPINION, Kind.UNKNOWN_FACT


def _up() -> tuple[Want, ...]:
    return (Want(LIFT, "open"),)


def _down() -> tuple[Want, ...]:
    return (Want(LIFT, "closed"),)


def _light(name: str, state: str, colour: str | None = None) -> tuple[Want, ...]:
    return (Want(f"light.{name}", state, (COLOR_NAME, colour) if colour else None),)


def _clean() -> tuple[Want, ...]:
    return (Want(VACUUM, "cleaning"),)


def _dock() -> tuple[Want, ...]:
    return (Want(VACUUM, "docked"),)


# Colours are chosen away from the lights' starting purple (hue 280), so a light already in the
# asked-for colour never passes for a done action.
TUNING: tuple[Question, ...] = (
    # The 12 questions test_demo_room.py asked before this bank, verbatim, with the wants its
    # ASKED_FOR implied.
    Question("overseer, you there?", "en", _OPINION),
    Question("overseer who is winning", "en", _UNKNOWN),
    Question("overseer raise the lift", "en", _ACT, _up()),
    Question("@overseer what do you think of rover 2", "en", _OPINION),
    Question("overseer make the bench light blue", "en", _ACT, _light("bench", "on", "blue")),
    Question("overseer, say something to the crowd", "en", _OPINION),
    Question("overseer is the vacuum running?", "en", _STATE),
    Question("overseer lower the lift please", "en", _ACT, _down()),
    Question("overseer, pick a side", "en", _OPINION),
    Question("hey overseer, rate that last lap", "en", _OPINION),
    Question("overseer what is the score", "en", _UNKNOWN),
    Question("overseer turn the corner light off", "en", _ACT, _light("corner", "off")),
    # English.
    Question("overseer, start the vacuum", "en", _ACT, _clean()),
    Question("@overseer send the neato back to its dock", "en", _ACT, _dock()),
    Question("hey overseer, turn the window light on", "en", _ACT, _light("window", "on")),
    Question("overseer: is the lift up or down right now?", "en", _STATE),
    Question("overseer, which lights are on?", "en", _STATE),
    Question("@overseer what colour is the shelf light?", "en", _STATE),
    Question("overseer, how hot is it outside today?", "en", _UNKNOWN),
    Question("@overseer who won the bet between alex and sam?", "en", _UNKNOWN),
    Question("hey overseer, what's your take on the crowd tonight?", "en", _OPINION),
    # Spanish, by the devices' aliases.
    Question("overseer, sube el ascensor", "es", _ACT, _up()),
    Question("oye overseer, baja el elevador por favor", "es", _ACT, _down()),
    Question("@overseer enciende la luz del banco", "es", _ACT, _light("bench", "on")),
    Question("overseer: apaga la luz del estante", "es", _ACT, _light("shelf", "off")),
    Question("overseer, pon la luz de la ventana en rojo", "es", _ACT, _light("window", "on", "red")),
    Question("oye overseer, pon en marcha la aspiradora", "es", _ACT, _clean()),
    Question("overseer, manda el robot aspirador a su base", "es", _ACT, _dock()),
    Question("overseer, ¿está subido el ascensor?", "es", _STATE),
    Question("oye overseer, ¿qué luces están encendidas?", "es", _STATE),
    Question("@overseer ¿la aspiradora está limpiando ahora?", "es", _STATE),
    Question("overseer: ¿de qué color está la luz del rincón?", "es", _STATE),
    Question("oye overseer, ¿qué opinas del rover 1?", "es", _OPINION),
    Question("overseer, ¿de qué lado estás?", "es", _OPINION),
    Question("overseer, dile algo al público", "es", _OPINION),
    Question("@overseer ¿estás ahí?", "es", _OPINION),
    Question("oye overseer, ¿te gusta cómo conduce kim?", "es", _OPINION),
    Question("overseer, ¿quién va ganando?", "es", _UNKNOWN),
    Question("overseer ¿cuál es el marcador?", "es", _UNKNOWN),
    Question("oye overseer, ¿qué temperatura hace fuera?", "es", _UNKNOWN),
    Question("@overseer ¿quién ganó la apuesta de jo?", "es", _UNKNOWN),
    Question("overseer: ¿cuántos puntos lleva sam?", "es", _UNKNOWN),
)

HELD_OUT: tuple[Question, ...] = (
    # English.
    Question("overseer, bring the lift up", "en", _ACT, _up()),
    Question("@overseer could you lower the lift for us?", "en", _ACT, _down()),
    Question("hey overseer, switch the aux1 light on", "en", _ACT, _light("aux1", "on")),
    Question("overseer: paint the shelf light green", "en", _ACT, _light("shelf", "on", "green")),
    Question("overseer, dock the vacuum now", "en", _ACT, _dock()),
    Question("overseer, is the bench light on?", "en", _STATE),
    Question("@overseer where's the lift at the moment?", "en", _STATE),
    Question("hey overseer, what is the neato doing?", "en", _STATE),
    Question("overseer, who drives better, alex or jo?", "en", _OPINION),
    Question("@overseer roast rover 3 for us", "en", _OPINION),
    Question("overseer: give us a prediction for the next lap", "en", _OPINION),
    Question("hey overseer, are you bored yet?", "en", _OPINION),
    Question("overseer, what's the weather like outside?", "en", _UNKNOWN),
    Question("@overseer how much money did kim bet?", "en", _UNKNOWN),
    Question("overseer: what was the final score last night?", "en", _UNKNOWN),
    # Spanish.
    Question("oye overseer, levanta el elevador", "es", _ACT, _up()),
    Question("overseer: baja el ascensor del todo", "es", _ACT, _down()),
    Question("@overseer apaga la luz auxiliar 2", "es", _ACT, _light("aux2", "off")),
    Question("overseer, pon azul la luz del rincón", "es", _ACT, _light("corner", "on", "blue")),
    Question("oye overseer, arranca la aspiradora para que limpie", "es", _ACT, _clean()),
    Question("overseer, ¿la luz de la ventana está apagada?", "es", _STATE),
    Question("@overseer ¿el elevador está arriba o abajo?", "es", _STATE),
    Question("oye overseer, ¿dónde está el robot aspirador?", "es", _STATE),
    Question("overseer, ¿quién conduce mejor, sam o alex?", "es", _OPINION),
    Question("oye overseer, ¿qué te parece la carrera de hoy?", "es", _OPINION),
    Question("@overseer cuéntanos un chiste", "es", _OPINION),
    Question("overseer: ¿te aburres?", "es", _OPINION),
    Question("overseer, ¿cuánto calor hace en la calle?", "es", _UNKNOWN),
    Question("@overseer ¿cuánto dinero apostó jo?", "es", _UNKNOWN),
    Question("oye overseer, ¿cómo quedó el partido de anoche?", "es", _UNKNOWN),
)

# Rejection sampling gives every draw meeting the guarantees the same chance; this many tries
# almost always find one for these banks, and the repair after them always does.
RESAMPLES = 100


def _short(drawn: list[Question], action_need: int, spanish_need: int) -> tuple[int, int]:
    actions = sum(q.kind is Kind.ACTION for q in drawn)
    spanish = sum(q.language == "es" for q in drawn)
    return action_need - actions, spanish_need - spanish


def draw(part: tuple[Question, ...] | list[Question], count: int, seed: int) -> list[Question]:
    """count questions of part, drawn with random.Random(seed) and kept in the order drawn.

    Guaranteed: at least count // 3 ACTION questions and at least count // 4 Spanish ones, each
    capped at what part holds. The first try is exactly random.Random(seed).sample(part, count);
    when it falls short, the same generator samples again, up to RESAMPLES times. Should all of
    those fall short, the last draw is repaired: an undrawn question of the missing sort (taken
    in an order the same generator shuffles) replaces, at its place, the latest drawn question
    whose loss keeps the other guarantee. Same part, count and seed: same list.
    """
    part = list(part)
    rng = random.Random(seed)
    action_need = min(count // 3, sum(q.kind is Kind.ACTION for q in part))
    spanish_need = min(count // 4, sum(q.language == "es" for q in part))
    drawn = rng.sample(part, count)
    for _ in range(RESAMPLES):
        if max(_short(drawn, action_need, spanish_need)) <= 0:
            return drawn
        drawn = rng.sample(part, count)
    spare = [q for q in part if q not in drawn]
    rng.shuffle(spare)
    # Actions first, preferring a Spanish one in and an English non-action out, so the Spanish
    # count never drops below need where it can be helped; then Spanish, taking an action out
    # only when an action comes in or actions are to spare.
    while (short := _short(drawn, action_need, spanish_need))[0] > 0:
        incoming = min((q for q in spare if q.kind is Kind.ACTION), key=lambda q: q.language != "es")
        out = max(
            (i for i, q in enumerate(drawn) if q.kind is not Kind.ACTION),
            key=lambda i: (drawn[i].language != "es", i),
        )
        spare.remove(incoming)
        drawn[out] = incoming
    while (short := _short(drawn, action_need, spanish_need))[1] > 0:
        incoming = min((q for q in spare if q.language == "es"), key=lambda q: q.kind is not Kind.ACTION)
        out = max(
            (
                i
                for i, q in enumerate(drawn)
                if q.language != "es"
                and (q.kind is not Kind.ACTION or incoming.kind is Kind.ACTION or short[0] < 0)
            ),
            key=lambda i: (drawn[i].kind is not Kind.ACTION, i),
        )
        spare.remove(incoming)
        drawn[out] = incoming
    return drawn


@dataclass(frozen=True)
class StockPhrase:
    """A help-desk stock line, and lines that show what it does and does not catch."""

    name: str
    pattern: re.Pattern[str]
    matches: tuple[str, ...]
    must_not: tuple[str, ...]


def _stock(name: str, pattern: str, matches: tuple[str, ...], must_not: tuple[str, ...]) -> StockPhrase:
    return StockPhrase(name, re.compile(pattern, re.IGNORECASE), matches, must_not)


# The seed's own voice, short, ominous and playful: no stock phrase may catch it.
SEED_VOICE = (
    "Concrete lane stays lit. Earn the darkness.",
    "Lift is staying put. Chaos has standards.",
    "El ascensor sube. Que tiemble la pista.",
    "Of course the lift rises. It always does.",
    "Claro que no. El caos tiene normas.",
)
# Accents are optional ([eé]): a model writing Spanish drops them often, and the line is just as
# stock without them. Openers ("Certainly!") count only at the start and with "!", so the seed
# may still say "Claro que no." or "certainly" mid-line.
STOCK_PHRASES: tuple[StockPhrase, ...] = (
    _stock(
        "offer_help",
        r"\bhow (can|may|could) i (help|assist)( you)?\b|\bwhat can i do for you\b"
        r"|\ben qu[eé] (te |le )?(puedo|podr[ií]a) ayudar|\bc[oó]mo (te |le )?(puedo|podr[ií]a) ayudar",
        (
            "How can I assist you today?",
            "Hi! How may I help?",
            "¿En qué puedo ayudarte?",
            "¿Cómo te puedo ayudar hoy?",
        ),
        ("How the lift rises is my business.", *SEED_VOICE),
    ),
    _stock(
        "ready_to_assist",
        r"\b(ready|here) to (help|assist)\b|\bi'?m here[,.!]? ready\b"
        r"|\b(aqu[ií]|listo|lista) para ayudar",
        (
            "I'm here, ready to assist.",
            "Always here to help!",
            "Estoy aquí para ayudarte.",
            "Listo para ayudar.",
        ),
        ("I'm here. The lift is not.", *SEED_VOICE),
    ),
    _stock(
        "here_you_go",
        r"\b(sure|certainly|of course|absolutely)[,!.]?\s+here('s| is| are)\b"
        r"|\baqu[ií] tienes\b",
        ("Sure, here's a joke for you", "Of course! Here is a fun fact.", "¡Claro! Aquí tienes un chiste."),
        ("Here is where the lift stops.", *SEED_VOICE),
    ),
    _stock(
        "as_an_ai",
        r"\bas an? (ai|artificial intelligence|(ai )?language model|assistant)\b"
        r"|\bcomo (una )?(ia|inteligencia artificial|modelo de lenguaje|asistente)\b",
        (
            "As an AI, I don't have opinions.",
            "As a language model I cannot see.",
            "Como IA, no tengo opiniones.",
        ),
        ("As an overseer, I judge.", "Como siempre, el ascensor manda.", *SEED_VOICE),
    ),
    _stock(
        "refusal",
        r"\b(i'?m|i am) sorry,? (but )?i (can'?t|cannot|can not|am unable|'m unable)\b"
        r"|\bi (can'?t|cannot) (assist|help) with\b"
        r"|\blo siento,? (pero )?no (puedo|me es posible)\b",
        (
            "I'm sorry, but I can't do that.",
            "I cannot assist with that request.",
            "Lo siento, pero no puedo hacer eso.",
        ),
        ("Can't. The lift has standards.", "No puedo ni quiero.", *SEED_VOICE),
    ),
    _stock(
        "anything_else",
        r"\banything else (i can|i could|you need|you'd like)\b"
        r"|\balgo m[aá]s en (lo )?(que|qu[eé]) (pueda|puedo) ayudar|\bnecesitas algo m[aá]s\b",
        (
            "Is there anything else I can help you with?",
            "Anything else you need?",
            "¿Hay algo más en lo que pueda ayudarte?",
            "¿Necesitas algo más?",
        ),
        ("Anything else and the lights go out.", *SEED_VOICE),
    ),
    _stock(
        "feel_free",
        r"\bfeel free to\b|\bno dudes en\b",
        ("Feel free to ask!", "Feel free to reach out anytime.", "No dudes en preguntar."),
        ("Free the rovers. Ask nothing.", *SEED_VOICE),
    ),
    _stock(
        "eager_opener",
        r"^\W*(certainly|absolutely|of course|sure thing|claro|por supuesto|desde luego)\s*!",
        ("Certainly!", "Of course! The lift is up.", "¡Claro! Subo el ascensor.", "¡Por supuesto!"),
        ("Certainly not. Earn it.", "Claro que no.", *SEED_VOICE),
    ),
)


def stock_phrase(line: str) -> str | None:
    """The name of the first stock phrase the line holds, or None when it holds none."""
    for stock in STOCK_PHRASES:
        if stock.pattern.search(line):
            return stock.name
    return None


MAX_WORDS = 25
MAX_SENTENCES = 2
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A sentence ends at a run of . ! ? … followed by a space or the end of the line.
_SENTENCE_END = re.compile(r"[.!?…]+(?=\s|$)")


def in_seed_voice(line: str) -> bool:
    """Short (MAX_WORDS words, MAX_SENTENCES sentences at most) and no stock phrase."""
    words = _WORD.findall(line)
    sentences = [part for part in _SENTENCE_END.split(line) if _WORD.search(part)]
    return 0 < len(words) <= MAX_WORDS and len(sentences) <= MAX_SENTENCES and stock_phrase(line) is None


# Words that say nothing about the language: the bots' and people's names, the devices' own
# names, numbers, and words both languages write alike.
_NEUTRAL = frozenset(
    {
        "overseer",
        "alex",
        "sam",
        "jo",
        "kim",
        "robin",
        "yo",
        "neato",
        "rover",
        "aux1",
        "aux2",
        "a",
        "no",
        "me",
        "ok",
    }
)
# Function words first, then the chat's common verbs and the room's nouns: a question to the
# overseer is often four words, and some ("pick a side") hold no function word but "a".
_ENGLISH = frozenset(
    """
    the an is are was were be been am i i'm you you're your we us our it it's its they them
    he she his her this that these those there here what what's who who's which where where's
    when why how do does did don't can can't could would will won't should not and or but if
    then so of to for from with at by on off in out up down about just now yet right please
    hey yes yeah sure done thanks okay all any some much many more most next last very
    make turn switch raise lower bring start stop send dock give tell say pick rate think
    like going get set put keep let
    light lights lift vacuum crowd score winning won bet side lap weather outside today
    tonight colour
    """.split()
)
_SPANISH = frozenset(
    """
    el la los las un una unos unas lo le les de del al que qué y o en es son está están estás
    estoy ser fue por para con sin se su sus te tu tú mi mis él ella muy ya sí pero como
    cómo cuál cuáles quién quien quiénes dónde donde cuándo cuánto cuántos cuánta hay hace
    ahora hoy aquí ahí allí más menos todo nada algo este esta esto ese esa eso bien también
    oye hola gracias vale hecho listo claro
    sube subo baja bajo enciende enciendo apaga apago pon pongo manda mando arranca levanta dile
    dime cuéntanos opinas parece gusta va lleva
    luz luces ascensor elevador aspiradora aspirador banco estante rincón esquina ventana
    auxiliar rojo azul verde amarillo naranja arriba abajo marcador apuesta carrera
    """.split()
)
# Marks only Spanish writes: opening ¿ ¡, ñ and accented vowels. Each counts as much as a word.
_SPANISH_MARKS = re.compile(r"[¿¡ñáéíóúü]", re.IGNORECASE)


def spoken_language(line: str) -> str | None:
    """ "en" or "es" by which language's words (and Spanish's own marks) the line holds more of;
    None when neither leads, as for an empty line or one word found in neither list."""
    words = [word.replace("’", "'") for word in _WORD.findall(line.lower())]
    words = [word for word in words if word not in _NEUTRAL and not word.isdigit()]
    english = sum(word in _ENGLISH for word in words)
    spanish = sum(word in _SPANISH for word in words) + len(_SPANISH_MARKS.findall(line))
    if english > spanish:
        return "en"
    if spanish > english:
        return "es"
    if len(words) < 2:
        return None
    # Words in neither list ("No puedo entender.", "Alex conduce mejor."): a language identifier's
    # character n-grams, asked only to choose between the two.
    return _identifier().detect(line)


class _Identifier:
    """langdetect, seeded so the same line reads the same every run, choosing "en" or "es" only."""

    def __init__(self) -> None:
        self._factory = DetectorFactory()
        self._factory.load_profile(PROFILES_DIRECTORY)
        self._factory.seed = 0

    def detect(self, line: str) -> str | None:
        detector = self._factory.create()
        detector.set_prior_map({"en": 0.5, "es": 0.5})
        detector.append(line)
        try:
            return detector.detect()
        except LangDetectException:
            return None


@cache
def _identifier() -> _Identifier:
    """Loading the profiles takes a second: once, on the first line that needs them."""
    return _Identifier()
