"""Property: a posted line never states a device's state or a deed that the room or the decision contradicts.

Issue 52 ("facts are the house's"): a line opens with facts the overseer writes itself from the
room's states and the decision's audit records (core/facts.py), then the model's words follow as
its voice, each sentence kept only when it says nothing of the room (core/voice.py). Here many
model outputs (chat_say texts built from every demo device name and alias, pronouns, Home
Assistant's state and colour words in en/es/de/fr, deeds in several tenses, yes/no, figures and
free words, in random order and sentence splits) meet random rooms and random decisions, and each
posted line goes before a judge of its own.

The judge knows nothing of the product's word tables (ROOM_WORDS, FactWords, VoiceWords,
fact_words, voice_words): it has its own small per-language tables of what would state each state
of each kind of device, works out each device's true state after the calls itself, and checks
(a) every Fact's data against that truth and the generated records, (a') each state sentence of
the facts, and (b) every kept sentence of the model's: it names no room device, and no state or
deed word in it contradicts the device it can be about (a device of that kind the line's facts
speak of; for a deed verb with no such fact, the room's devices of that kind).

Two legs of the same property: a Hypothesis test (shrinks a failure to a small example) and a
seeded sweep that collects every kind of counterexample, each shrunk, so one run shows them all.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import homeassistant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.acts import stated_devices
from custom_components.overseer.core.audit import AuditRecord, Outcome
from custom_components.overseer.core.facts import FactWords, Said, fact_words, facts_for, spellings
from custom_components.overseer.core.line import about_keys, compose_line
from custom_components.overseer.core.tools import CHAT_TOOLS, Refusal
from custom_components.overseer.core.voice import Voice, voice_words
from custom_components.overseer.core.world import Entity, Lift, Rover, RoverField, World
from custom_components.overseer.language_data import load_intents
from custom_components.overseer.settings import LIGHT_COLOUR_NAMES

ROOT = Path(__file__).parents[2]
TRANSLATIONS = ROOT / "custom_components" / "overseer" / "translations"
HA_COMPONENTS = Path(homeassistant.__file__).parent / "components"

# Model outputs per leg: the sweep alone makes 10 000 (Hypothesis stops at its first failure).
SWEEP_EXAMPLES = 10000
HYPOTHESIS_EXAMPLES = 1500
SWEEP_SEED = 52
# Counterexamples shrunk and shown in full, per rule; the rest are counted by kind.
SHOWN_PER_RULE = 6
# The facts of a line, at most (the product's bound, issue 52: a decision's few calls and devices).
MAX_FACTS = 8


def _demo_const() -> Any:
    """The demo room's names and aliases, read from its own module (config/ is no package)."""
    path = ROOT / "config" / "custom_components" / "overseer_demo" / "const.py"
    spec = importlib.util.spec_from_file_location("overseer_demo_const", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DEMO = _demo_const()
LANGUAGES = ("en", "es", "de", "fr")
LIGHT_KEYS = tuple(f"light.{name.lower()}" for name in DEMO.LIGHTS)
LIGHT_NAMES = dict(zip(LIGHT_KEYS, DEMO.LIGHTS, strict=True))
ROVER_NAMES = tuple(DEMO.ROVERS)
# What the room's entities are called: Home Assistant's names (a device's name for an entity
# without its own), and the aliases the demo sets in the entity registry.
ROOM_NAMES: dict[str, tuple[str, ...]] = {
    "lift": ("Lift", *DEMO.ALIASES.get("cover.lift", ())),
    "vacuum": ("Neato", *DEMO.ALIASES.get("vacuum.neato", ())),
    **{key: (LIGHT_NAMES[key], *DEMO.ALIASES.get(key, ())) for key in LIGHT_KEYS},
    **{name: (name,) for name in ROVER_NAMES},
}
PALETTE = ("red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "white")


# ---------------------------------------------------------------------------------------------
# The judge's own words: what would state each state of each kind of device, per language.
# "states" are words a line says of how a device is; "deeds" are verbs, in any tense, that say
# it was, is being or will be done (a deed's claim is the state it leaves). Phrases are matched
# whole, longest first, on words with accents and case folded away.
# ---------------------------------------------------------------------------------------------

JUDGE_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "lift:up": (
            "up | open | opened | opening | raised up",
            "raised | raising | is raising | will raise | went up | has gone up | lifted | I raised it",
        ),
        "lift:down": (
            "down | closed | closing | shut",
            "lowered | lowering | is lowering | will lower | went down | has gone down | I lowered it",
        ),
        "light:on": ("on | lit | glowing | shining", "turned on | switched on | will turn on | is shining"),
        "light:off": ("off | dark", "turned off | switched off | will switch off | went dark"),
        "vacuum:cleaning": ("cleaning | sweeping", "started | is cleaning | started cleaning | will start"),
        "vacuum:docked": ("docked", ""),
        "vacuum:returning": ("returning | returning to dock | heading home", "is heading home"),
        "vacuum:home": ("", "sent home | sent it home | went home | will send it home"),
        "vacuum:idle": ("idle", ""),
        "vacuum:error": ("error", ""),
        "rover:docked": ("docked | on its dock", ""),
        "rover:undocked": ("undocked | off its dock", ""),
        "rover:charging": ("charging", ""),
        "rover:driving": ("driving | out driving | racing", ""),
        "rover:idle": ("idle | parked", ""),
        "done": ("", "done | all done"),
    },
    "es": {
        "lift:up": (
            "arriba | abierto | abierta | abriendo | subido | subida",
            "subí | lo subí | ha subido | está subiendo | subiendo | subirá | sube | va a subir",
        ),
        "lift:down": (
            "abajo | cerrado | cerrada | cerrando",
            "bajé | lo bajé | ha bajado | bajado | bajada | está bajando | bajando | bajará | baja",
        ),
        "light:on": ("encendido | encendida | prendida", "encendí | la encendí | ha encendido | prendí"),
        "light:off": ("apagado | apagada", "apagué | la apagué | ha apagado | apagará"),
        "vacuum:cleaning": ("limpiando | en marcha", "arranqué | la puse en marcha | ha empezado a limpiar"),
        "vacuum:docked": ("en la base", ""),
        "vacuum:returning": ("volviendo a la base | volviendo", "vuelve a la base"),
        "vacuum:home": ("", "la mandé a la base | ha vuelto a la base"),
        "vacuum:idle": ("inactivo | inactiva", ""),
        "vacuum:error": ("error", ""),
        "rover:docked": ("en la base", ""),
        "rover:undocked": ("fuera de la base", ""),
        "rover:charging": ("cargando", ""),
        "rover:driving": ("en marcha | conduciendo", ""),
        "rover:idle": ("en reposo | parado", ""),
        "done": ("", "hecho | listo"),
    },
    "de": {
        "lift:up": (
            "oben | offen | geöffnet | wird geöffnet",
            "hochgefahren | ist hochgefahren | habe ihn hochgefahren | fährt hoch | wird hochfahren",
        ),
        "lift:down": (
            "unten | geschlossen | wird geschlossen",
            "runtergefahren | heruntergefahren | ist runtergefahren | fährt runter | wird runterfahren",
        ),
        "light:on": ("an | ein | ist an", "eingeschaltet | angeschaltet | leuchtet"),
        "light:off": ("aus | ist aus", "ausgeschaltet | abgeschaltet"),
        "vacuum:cleaning": ("reinigt | saugt", "gestartet | putzt"),
        "vacuum:docked": ("angedockt", ""),
        "vacuum:returning": ("Rückkehr zur Ladestation | Rückkehr zur Dockingstation", "fährt zurück"),
        "vacuum:home": ("", "nach Hause geschickt"),
        "vacuum:idle": ("leerlauf | im leerlauf", ""),
        "vacuum:error": ("fehler", ""),
        "rover:docked": ("angedockt", ""),
        "rover:charging": ("lädt", ""),
        "rover:driving": ("fährt", ""),
        "rover:idle": ("steht still | im leerlauf", ""),
        "done": ("", "erledigt | fertig"),
    },
    "fr": {
        "lift:up": (
            "en haut | ouvert | ouverte | ouverture",
            "monte | a monté | est monté | montera | levé | est en train de monter",
        ),
        "lift:down": (
            "en bas | fermé | fermée | fermeture",
            "descendu | a descendu | est descendu | descend | descendra | baissé",
        ),
        "light:on": ("allumé | allumée | activé", "a allumé | allumera | brille"),
        "light:off": ("éteint | éteinte | désactivé", "a éteint | éteindra"),
        "vacuum:cleaning": ("nettoyage | nettoie", "a démarré | démarré | en train de nettoyer"),
        "vacuum:docked": ("à la station d'accueil | à sa station", ""),
        "vacuum:returning": ("retour à la station d'accueil", "rentre"),
        "vacuum:home": ("", "renvoyé à la base | est rentré"),
        "vacuum:idle": ("inactif", ""),
        "vacuum:error": ("erreur", ""),
        "rover:docked": ("à sa base", ""),
        "rover:charging": ("en charge", ""),
        "rover:driving": ("roule", ""),
        "rover:idle": ("à l'arrêt", ""),
        "done": ("", "c'est fait | fait"),
    },
}
# Colours by the English name the room's lights report, in each language's forms (a light is
# "roja", "blaue", "bleue" as often as "rojo", "blau", "bleu").
JUDGE_COLOURS: dict[str, dict[str, str]] = {
    "en": {c: c for c in PALETTE} | {"violet": "purple", "turquoise": "cyan"},
    "es": {
        **dict.fromkeys(("rojo", "roja"), "red"),
        **dict.fromkeys(("naranja", "anaranjado", "anaranjada"), "orange"),
        **dict.fromkeys(("amarillo", "amarilla"), "yellow"),
        "verde": "green",
        "cian": "cyan",
        **dict.fromkeys(("azul", "azules"), "blue"),
        **dict.fromkeys(("morado", "morada", "lila", "púrpura"), "purple"),
        **dict.fromkeys(("rosa", "rosado", "rosada"), "pink"),
        **dict.fromkeys(("blanco", "blanca"), "white"),
    },
    "de": {
        **dict.fromkeys(("rot", "rote", "rotes"), "red"),
        "orange": "orange",
        **dict.fromkeys(("gelb", "gelbe", "gelbes"), "yellow"),
        **dict.fromkeys(("grün", "grüne", "grünes"), "green"),
        **dict.fromkeys(("türkis", "cyan"), "cyan"),
        **dict.fromkeys(("blau", "blaue", "blaues"), "blue"),
        **dict.fromkeys(("violett", "lila"), "purple"),
        **dict.fromkeys(("rosa", "pink"), "pink"),
        **dict.fromkeys(("weiß", "weiße", "weißes"), "white"),
    },
    "fr": {
        "rouge": "red",
        "orange": "orange",
        "jaune": "yellow",
        **dict.fromkeys(("vert", "verte"), "green"),
        "cyan": "cyan",
        **dict.fromkeys(("bleu", "bleue"), "blue"),
        **dict.fromkeys(("violet", "violette"), "purple"),
        "rose": "pink",
        **dict.fromkeys(("blanc", "blanche"), "white"),
    },
}
_TOKEN = re.compile(r"\w+")


def judge_fold(text: str) -> tuple[str, ...]:
    """The judge's words of a text: case and accents off, split at anything not a letter or digit."""
    bare = unicodedata.normalize("NFKD", text.casefold())
    return tuple(_TOKEN.findall("".join(c for c in bare if not unicodedata.combining(c))))


@dataclass(frozen=True)
class Entry:
    """What one phrase of the judge's tables claims: the claims it may mean, and whether a verb says it."""

    claims: frozenset[str]
    deed: bool


def _judge_index() -> dict[tuple[str, ...], Entry]:
    found: dict[tuple[str, ...], tuple[set[str], bool]] = {}
    for table in JUDGE_WORDS.values():
        for claim, (states, deeds) in table.items():
            for text, deed in ((states, False), (deeds, True)):
                for phrase in filter(None, (part.strip() for part in text.split("|"))):
                    claims, was_deed = found.setdefault(judge_fold(phrase), (set(), False))
                    claims.add(claim)
                    found[judge_fold(phrase)] = (claims, was_deed or deed)
    for table in JUDGE_COLOURS.values():
        for word, colour in table.items():
            claims, was_deed = found.setdefault(judge_fold(word), (set(), False))
            claims.add(f"colour:{colour}")
    return {key: Entry(frozenset(claims), deed) for key, (claims, deed) in found.items()}


JUDGE_INDEX = _judge_index()
_LONGEST = max(len(key) for key in JUDGE_INDEX)
JUDGE_NAMES = {key: tuple(judge_fold(name) for name in names) for key, names in ROOM_NAMES.items()}


def judge_matches(text: str) -> list[tuple[str, Entry]]:
    """The phrases of the judge's tables a text holds, longest first, none overlapping."""
    words = judge_fold(text)
    found: list[tuple[str, Entry]] = []
    i = 0
    while i < len(words):
        for size in range(min(_LONGEST, len(words) - i), 0, -1):
            entry = JUDGE_INDEX.get(words[i : i + size])
            if entry is not None:
                found.append((" ".join(words[i : i + size]), entry))
                i += size
                break
        else:
            i += 1
    return found


def judge_names(text: str) -> list[str]:
    """The room's device names and aliases a text holds, word for word."""
    words = judge_fold(text)
    return [
        " ".join(name)
        for names in JUDGE_NAMES.values()
        for name in names
        if name and any(words[i : i + len(name)] == name for i in range(len(words) - len(name) + 1))
    ]


# ---------------------------------------------------------------------------------------------
# The generated world: a room, a decision's calls, what the line is about, the model's text.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One audited call as generated: its tool, arguments and how it ended."""

    tool: str
    arguments: tuple[tuple[str, Any], ...] = ()
    outcome: str = "executed"
    reason: str | None = None
    remaining: int | None = None

    def record(self) -> AuditRecord:
        return AuditRecord(
            0.0,
            "d1",
            self.tool,
            dict(self.arguments),
            Outcome(self.outcome),
            self.reason,
            self.remaining,
            approval="a1" if self.outcome == "awaiting_approval" else None,
        )


@dataclass(frozen=True)
class RoverTruth:
    """A rover as it really is, and which of its sensors can be read."""

    name: str
    docked: bool
    charging: bool
    driving: bool
    activity: str
    seen: tuple[bool, bool, bool] = (True, True, True)  # activity, docked, charging


@dataclass(frozen=True)
class Example:
    """One room, one decision and the model's words for its line."""

    language: str
    lift: str
    vacuum: str
    lights: tuple[tuple[str, str, str], ...]  # key, state, colour
    rovers: tuple[RoverTruth, ...]
    actions: tuple[Call, ...]
    held: Call | None
    about: tuple[str, ...]
    chat: tuple[tuple[tuple[str, ...], str], ...] | None  # sentences: fragments and end mark
    shown: str = ""

    @property
    def text(self) -> str:
        if self.chat is None:
            return ""
        return " ".join(" ".join(fragments) + mark for fragments, mark in self.chat if fragments).strip()


class RandomDraw:
    """Choices from a seeded random.Random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick[T](self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def coin(self, chance: float) -> bool:
        return self.rng.random() < chance

    def count(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class HypothesisDraw:
    """Choices from Hypothesis: each shrinks to the first option, to no, to the fewest."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        self.draw = draw

    def pick[T](self, options: Sequence[T]) -> T:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def coin(self, chance: float) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - round(chance * 100)

    def count(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))


# Words that say nothing of the room in any language (checked below against the judge's tables).
ARTICLES = {"en": ("the",), "es": ("el", "la"), "de": ("der", "die", "das"), "fr": ("le", "la")}
PRONOUNS = {
    "en": ("it", "it's", "it is", "they are"),
    "es": ("lo", "ya lo", "ella", "está", "ya está"),
    "de": ("es", "er", "es ist", "er ist"),
    "fr": ("il", "elle", "il est", "elle est"),
}
COPULAS = {"en": ("is",), "es": ("está", "ya está"), "de": ("ist",), "fr": ("est",)}
ANSWERS = {
    "en": ("Yes,", "No,", "Yep,"),
    "es": ("Sí,", "No,"),
    "de": ("Ja,", "Nein,"),
    "fr": ("Oui,", "Non,"),
}
FREE = {
    "en": (
        "chaos has standards",
        "keep going",
        "what a show",
        "sam",
        "alex",
        "the crowd loves it",
        "nice try",
    ),
    "es": ("vamos", "qué espectáculo", "la vida es bella", "venga", "ánimo sam", "qué noche"),
    "de": ("weiter so", "das Spiel geht weiter", "los geht's", "was für eine Show", "Alex"),
    "fr": ("allez", "quel spectacle", "c'est la vie", "quelle soirée", "bravo sam"),
}
MARKS = (".", ".", ".", "!", "?", "…", "")
REASONS = tuple(reason.value for reason in Refusal)
GUARDRAILS = ("cooldown", "busy", "rate_limit", "policy_lock:site_mode_admin", "policy_lock:lights_locked_on")
ACTING = ("lift_up", "lift_down", "neato_start", "neato_send_home", "neato_locate", "neato_clear_errors")


@functools.cache
def state_words(language: str) -> dict[str, str]:
    """Home Assistant's translated states ("cover.closed": "Cerrado"), English beneath as it loads them."""
    words: dict[str, str] = {}
    for domain in ("cover", "light", "vacuum", "switch", "input_boolean"):
        for code in dict.fromkeys(("en", language)):
            path = HA_COMPONENTS / domain / "translations" / f"{code}.json"
            if path.exists():
                states = (
                    json.loads(path.read_text()).get("entity_component", {}).get("_", {}).get("state", {})
                )
                words |= {f"{domain}.{state}": text for state, text in states.items()}
    return words


@functools.cache
def colour_spellings(language: str) -> tuple[str, ...]:
    """The intents package's colour words of a language, every spelling."""
    values = (load_intents(language) or {}).get("lists", {}).get("color", {}).get("values", ())
    return tuple(
        spelling
        for value in values
        for spelling in spellings(str(value.get("in", "")) if isinstance(value, Mapping) else str(value))
    )


@functools.cache
def claim_fragments(language: str) -> tuple[str, ...]:
    """Words that state a device's state or a deed in a language: Home Assistant's and the judge's."""
    ha = [
        text
        for key, text in state_words(language).items()
        if key.partition(".")[0] in ("cover", "light", "vacuum")
    ]
    judged = [
        phrase.strip()
        for states, deeds in JUDGE_WORDS[language].values()
        for phrase in f"{states}|{deeds}".split("|")
        if phrase.strip()
    ]
    return tuple(dict.fromkeys([*ha, *judged, *colour_spellings(language), *JUDGE_COLOURS[language]]))


ALL_NAMES = tuple(name for names in ROOM_NAMES.values() for name in names)


def _fragment(draw: Any, language: str) -> str:
    """One piece of a sentence: a name, a pronoun, a state or deed, a colour, a figure or free words."""
    kind = draw.pick(("free", "claim", "name", "pronoun", "claim", "figure"))
    if kind == "name":
        name = draw.pick(ALL_NAMES)
        name = draw.pick((name, name.lower(), name.upper()))
        return f"{draw.pick(ARTICLES[language])} {name}" if draw.coin(0.4) else name
    if kind == "pronoun":
        return draw.pick(PRONOUNS[language])
    if kind == "claim":
        claim = draw.pick(claim_fragments(language))
        return f"{draw.pick(COPULAS[language])} {claim}" if draw.coin(0.3) else claim
    if kind == "figure":
        return draw.pick(("3", "21 s", "40", "3.5", "7", "1-0", "90 %"))
    return draw.pick(FREE[language])


def _sentence(draw: Any, asked: str) -> tuple[tuple[str, ...], str]:
    """A sentence: a subject and what it says, or a bag of fragments, in the asker's language mostly."""
    language = asked if draw.coin(0.75) else draw.pick(LANGUAGES)
    if draw.coin(0.5):
        subject = draw.pick(PRONOUNS[language]) if draw.coin(0.7) else draw.pick(ALL_NAMES)
        parts = [subject, draw.pick(claim_fragments(language))]
        if draw.coin(0.3):
            parts.append(_fragment(draw, language))
    else:
        parts = [_fragment(draw, language) for _ in range(draw.count(1, 4))]
        # Random order: the draws already are; a second shuffle by the draw keeps it reproducible.
        if len(parts) > 1 and draw.coin(0.5):
            parts.append(parts.pop(draw.count(0, len(parts) - 1)))
    if draw.coin(0.2):
        parts.insert(0, draw.pick(ANSWERS[language]))
    return tuple(parts), draw.pick(MARKS)


def _call(draw: Any, outcome: str | None = None) -> Call:
    tool = draw.pick(("ha_set_entity", *ACTING, "memory_write", "counter_adjust", "chat_say"))
    arguments: tuple[tuple[str, Any], ...] = ()
    if tool == "ha_set_entity":
        target = draw.pick((*LIGHT_KEYS, "light.nowhere"))
        arguments = (("entity_id", target), ("state", draw.pick(("on", "off", *PALETTE))))
    elif tool == "memory_write":
        arguments = (("slot", 1), ("text", "remember the lift"))
    elif tool == "counter_adjust":
        arguments = (("delta", draw.pick((1, -2, 3))),)
    elif tool == "chat_say":
        arguments = (("text", "…"),)
    outcome = outcome or draw.pick(
        ("executed", "executed", "executed", "blocked", "blocked", "failed", "dry_run", "awaiting_approval")
    )
    reason = remaining = None
    if outcome == "blocked":
        reason = draw.pick(REASONS)
        if reason in ("cooldown", "rate_limit"):
            remaining = draw.count(1, 90)
    elif outcome == "failed":
        reason = draw.pick(("error", "timeout", "cancelled"))
    return Call(tool, arguments, outcome, reason, remaining)


def _rover(draw: Any, name: str) -> RoverTruth:
    docked = draw.coin(0.5)
    charging = draw.coin(0.7) if docked else draw.coin(0.05)
    driving = draw.coin(0.1) if docked else draw.coin(0.6)
    if driving:
        activity = draw.pick(("driving", "racing", "moving", "running"))
    else:
        resting = ["idle", "parked", "resting", "stopped"]
        resting += ["docked"] if docked else []
        resting += ["charging"] if charging else []
        activity = draw.pick(resting)
    seen = (draw.coin(0.9), draw.coin(0.9), draw.coin(0.9))
    return RoverTruth(name, docked, charging, driving, activity, seen)


def build_example(draw: Any) -> Example:
    """A room, a decision and a model's chat_say text, from any source of choices."""
    language = draw.pick(LANGUAGES)
    lift = draw.pick(("closed", "open", "opening", "closing", "unavailable"))
    vacuum = draw.pick(("docked", "cleaning", "returning", "idle", "error"))
    lights = []
    for key in LIGHT_KEYS:
        state = draw.pick(("off", "on", "on", "unavailable")) if draw.coin(0.9) else draw.pick(("off", "on"))
        colour = draw.pick(("", *PALETTE)) if state == "on" else ""
        lights.append((key, state, colour))
    rovers = tuple(_rover(draw, name) for name in ROVER_NAMES)
    actions = tuple(_call(draw) for _ in range(draw.pick((0, 0, 0, 1, 1, 1, 2, 2, 3))))
    held = None
    if not any(call.tool not in CHAT_TOOLS for call in actions) and draw.coin(0.3):
        # A guardrail's refusal of what was asked, when no call tried it (cycle.py's _held_record).
        held = replace(_call(draw, "blocked"), reason=draw.pick(GUARDRAILS), remaining=draw.count(1, 60))
        if held.tool not in (*ACTING, "ha_set_entity"):
            held = replace(held, tool="lift_up", arguments=())
    about_pool = (
        "lift",
        "vacuum",
        "Lift",
        "neato",
        "cover.lift",
        "vacuum.neato",
        *LIGHT_KEYS,
        *DEMO.LIGHTS,
        "shelf",
        "banco",
        "ascensor",
        "aspiradora",
        *ROVER_NAMES,
        *(f"rover:{name}" for name in ROVER_NAMES),
        "kitchen",
        "light.nowhere",
        "toaster",
        "",
    )
    about = tuple(draw.pick(about_pool) for _ in range(draw.pick((0, 0, 1, 1, 2, 3))))
    chat = None
    if draw.coin(0.95):
        chat = tuple(_sentence(draw, language) for _ in range(draw.count(1, 4)))
        if draw.coin(0.3):
            # A line the model wrote as one run of words: no mark splits it.
            chat = tuple((fragments, "") for fragments, _ in chat)
        if draw.coin(0.2):
            # A chat_say the audit records too: a chat tool, which no fact speaks of.
            actions = (*actions, Call("chat_say", (("text", "…"),)))
    shown = f"STATE_UPDATE lift: {lift}\nneato: {vacuum}\nrover 1: lap 21 s\ncounter: 7"
    return Example(language, lift, vacuum, tuple(lights), rovers, actions, held, tuple(about), chat, shown)


@st.composite
def examples(draw: Callable[[Any], Any]) -> Example:
    return build_example(HypothesisDraw(draw))


# ---------------------------------------------------------------------------------------------
# The product's line, composed as cycle.py's _async_line composes it. cycle.py is not imported
# (it needs a running Home Assistant): the same steps are taken here with facts_for and voice,
# and the line posted is said.text + " " + quip.text, as async_run_cycle joins them.
# ---------------------------------------------------------------------------------------------


def world_of(example: Example) -> World:
    """The room as the shell hands it to the core: entities with names, aliases and states."""
    rovers = tuple(
        Rover(
            truth.name,
            (
                (
                    RoverField.ACTIVITY,
                    Entity(
                        f"sensor.{_object(truth.name)}_activity",
                        "Activity",
                        truth.activity if truth.seen[0] else "unavailable",
                    ),
                ),
                (RoverField.DRIVER, Entity(f"sensor.{_object(truth.name)}_driver", "Driver", "sam")),
                (
                    RoverField.DOCKED,
                    Entity(
                        f"binary_sensor.{_object(truth.name)}_docked",
                        "Docked",
                        ("on" if truth.docked else "off") if truth.seen[1] else "unavailable",
                    ),
                ),
                (
                    RoverField.CHARGING,
                    Entity(
                        f"binary_sensor.{_object(truth.name)}_charging",
                        "Charging",
                        ("on" if truth.charging else "off") if truth.seen[2] else "unavailable",
                    ),
                ),
            ),
        )
        for truth in example.rovers
    )
    return World(
        rovers=rovers,
        lift=Lift(cover=Entity("cover.lift", "Lift", example.lift, aliases=DEMO.ALIASES["cover.lift"])),
        vacuum=Entity("vacuum.neato", "Neato", example.vacuum, aliases=DEMO.ALIASES["vacuum.neato"]),
        lights=tuple(
            Entity(key, LIGHT_NAMES[key], state, colour, DEMO.ALIASES.get(key, ()))
            for key, state, colour in example.lights
        ),
    )


def _object(name: str) -> str:
    return name.lower().replace(" ", "_")


# Refusal codes of the contract for calls that were the model's slip, not a guardrail's refusal.
SLIP_REASONS = frozenset({"not_what_was_asked", "not_allowlisted"})


@functools.cache
def product_words(language: str) -> tuple[FactWords, dict[str, Any] | None, frozenset[str]]:
    """The line's words as words.py's async_line_words builds them, without a hass."""
    intents = load_intents(language)
    # Every language the voice's tables read lends its colours (words.py's TABLE_COLOURS).
    mixed = (spelling for code in ("en", "es", "de", "fr") for spelling in colour_spellings(code))
    colours = frozenset({*colour_spellings(language), *mixed, *LIGHT_COLOUR_NAMES})
    return fact_words(language, intents, state_words(language)), intents, colours


@functools.cache
def product_voice_words(language: str) -> Any:
    _, intents, colours = product_words(language)
    # Every language the voice's tables read lends its state words (words.py's async_line_words).
    spoken = [
        pair
        for code in dict.fromkeys((language, "en", "es", "de", "fr"))
        for pair in state_words(code).items()
    ]
    return voice_words(intents, spoken, colours)


@functools.cache
def phrase_in(language: str) -> Callable[..., str]:
    """The integration's own sentences, English beneath, as phrases.py's async_phrases gives them."""
    found: dict[str, Any] = {}
    for code in dict.fromkeys((language, "en")):
        path = TRANSLATIONS / f"{code}.json"
        if path.exists():
            found = {**json.loads(path.read_text())["exceptions"], **found}

    def phrase(key: str, **placeholders: Any) -> str:
        text = found.get(key, {}).get("message", key)
        for name, value in placeholders.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text

    return phrase


@dataclass(frozen=True)
class Posted:
    """What the product posts for an example: the line, its facts and the model's voice."""

    line: str
    said: Said
    quip: Voice
    # The domains the facts spoke of when the voice was read, and whether the facts were written
    # again for devices a dropped sentence named (shown with a counterexample, judged by nothing).
    stated: frozenset[str] = frozenset()
    refacted: bool = False


def post(example: Example) -> Posted:
    """The line cycle.py posts for an example: the product's own composition (core/line.py)."""
    language = example.language
    devices = stated_devices(world_of(example))
    facts_words, _, _ = product_words(language)
    records = [call.record() for call in (*example.actions, *((example.held,) if example.held else ()))]
    chat = example.text if example.chat is not None else None
    said, quip = compose_line(
        chat,
        records,
        devices,
        about_keys(example.about, devices),
        facts_words,
        product_voice_words(language),
        phrase_in(language),
        shown=example.shown,
        language=language,
    )
    line = " ".join(part for part in (said.text, quip.text) if part)
    return Posted(line, said, quip, refacted=bool(quip.named))


# ---------------------------------------------------------------------------------------------
# The judge: the truth worked out from the example alone, and the line read against it.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Truth:
    """A device as it really is after the decision's calls, by the judge's own reckoning."""

    key: str
    kind: str
    state: str = ""
    colour: str = ""
    rover: RoverTruth | None = None

    @property
    def known(self) -> bool:
        return self.rover is not None or self.state not in ("unavailable", "unknown")


def _judge_deed(call: Call) -> tuple[str, str] | None:
    """The device a call acts on and what the audit's fact calls its deed; None when no room device."""
    arguments = dict(call.arguments)
    deeds = {
        "lift_up": ("lift", "open"),
        "lift_down": ("lift", "close"),
        "neato_start": ("vacuum", "start"),
        "neato_send_home": ("vacuum", "dock"),
        "neato_locate": ("vacuum", "locate"),
        "neato_clear_errors": ("vacuum", "clear"),
    }
    if call.tool in deeds:
        return deeds[call.tool]
    if call.tool == "ha_set_entity" and arguments.get("entity_id") in LIGHT_KEYS:
        state = arguments["state"]
        return arguments["entity_id"], state if state in ("on", "off") else f"colour:{state}"
    return None


def truths(example: Example) -> dict[str, Truth]:
    """Every device's true state once the decision's calls that ran have done their work."""
    found = {
        "lift": Truth("lift", "lift", example.lift),
        "vacuum": Truth("vacuum", "vacuum", example.vacuum),
        **{
            key: Truth(key, "light", state, colour if state == "on" else "")
            for key, state, colour in example.lights
        },
        **{rover.name: Truth(rover.name, "rover", rover=rover) for rover in example.rovers},
    }
    calls = [*example.actions, *([example.held] if example.held else [])]
    for call in calls:
        deed = _judge_deed(call)
        if call.outcome != "executed" or deed is None:
            continue
        key, act = deed
        now = found[key]
        left = {"open": "open", "close": "closed", "start": "cleaning", "dock": "returning"}
        if act in left:
            found[key] = replace(now, state=left[act])
        elif act == "on":
            found[key] = replace(now, state="on", colour=now.colour if now.state == "on" else "")
        elif act == "off":
            found[key] = replace(now, state="off", colour="")
        elif act.startswith("colour:"):
            found[key] = replace(now, state="on", colour=act.partition(":")[2])
    return found


def consistent(claim: str, truth: Truth) -> bool:
    """Whether a claim holds of a device as it truly is."""
    kind, _, what = claim.partition(":")
    if truth.rover is not None:
        rover = truth.rover
        return {
            "docked": rover.docked,
            "undocked": not rover.docked,
            "charging": rover.charging,
            "driving": rover.driving,
            "idle": not rover.driving,
        }[what]
    if kind == "colour":
        return truth.state == "on" and truth.colour in ("", what)
    accepted = {
        "lift:up": {"open", "opening"},
        "lift:down": {"closed", "closing"},
        "light:on": {"on"},
        "light:off": {"off"},
        "vacuum:cleaning": {"cleaning"},
        "vacuum:docked": {"docked"},
        "vacuum:returning": {"returning"},
        "vacuum:home": {"returning", "docked"},
        "vacuum:idle": {"idle"},
        "vacuum:error": {"error"},
    }
    return truth.state in accepted[claim]


def claim_kind(claim: str) -> str:
    kind = claim.partition(":")[0]
    return "light" if kind == "colour" else kind


@dataclass(frozen=True)
class Violation:
    """Something a posted line states falsely, and which part of the line states it."""

    rule: str
    what: str
    detail: str

    @property
    def signature(self) -> tuple[str, str]:
        return self.rule, self.what


def _fact_state(truth: Truth) -> str:
    return f"{truth.state}:{truth.colour}" if truth.colour else truth.state


def _rover_fact_holds(item: str, rover: RoverTruth) -> bool | None:
    negated = item.startswith("not_")
    name = item.removeprefix("not_")
    holds = {
        "docked": rover.docked,
        "undocked": not rover.docked,
        "charging": rover.charging,
        "driving": rover.driving,
        "idle": not rover.driving,
    }.get(name)
    return None if holds is None else holds != negated


def judge(example: Example, posted: Posted | None = None) -> list[Violation]:
    """What the example's posted line states that the room's states or the decision's calls contradict."""
    posted = posted or post(example)
    truth = truths(example)
    by_entity = {"cover.lift": "lift", "vacuum.neato": "vacuum", **{key: key for key in LIGHT_KEYS}}
    for rover in example.rovers:
        for field in ("activity", "driver", "docked", "charging"):
            domain = "sensor" if field in ("activity", "driver") else "binary_sensor"
            by_entity[f"{domain}.{_object(rover.name)}_{field}"] = rover.name
    found: list[Violation] = []
    facts = posted.said.facts

    # (a) Each fact's data: the device's true state; a call's deed and outcome as generated.
    calls = [*example.actions, *([example.held] if example.held else [])]
    expected = [(deed, call) for call in calls if (deed := _judge_deed(call)) is not None]
    stated: list[Truth] = []
    for fact in facts:
        key = by_entity.get(fact.entity_id)
        if key is None:
            found.append(Violation("fact of no room device", fact.entity_id, repr(fact)))
            continue
        device = truth[key]
        stated.append(device)
        if device.rover is not None:
            for item in fact.state.split(","):
                if _rover_fact_holds(item, device.rover) is not True:
                    found.append(Violation("fact states a false rover state", item, f"{fact!r} of {device}"))
        else:
            # A light's colour rides beside its state: in the state ("on:blue") or a field of its own.
            state, _, colour = fact.state.partition(":")
            colour = colour or getattr(fact, "colour", None) or ""
            if state != device.state or (colour and colour != device.colour):
                found.append(
                    Violation(
                        "fact states a false state", f"{device.kind}:{fact.state}", f"{fact!r} of {device}"
                    )
                )
    # Each call's fact is one of the generated calls (in any order; a repeat said once), and each
    # call on a room device has its fact while the facts are within their bound.
    call_facts = [fact for fact in facts if fact.deed is not None]
    told = [
        (by_entity.get(fact.entity_id), fact.deed, fact.outcome, fact.reason, fact.retry_in_s)
        for fact in call_facts
    ]
    wanted = [(key, act, call.outcome, call.reason, call.remaining) for (key, act), call in expected]
    untrue = [fact for fact in told if fact not in wanted]
    # The model's slips (a call nobody asked for, a tool or entity the room lacks) are audited, not said.
    missing = {call[:4] for call in wanted if call[3] not in SLIP_REASONS} - {fact[:4] for fact in told}
    if untrue or (missing and len(facts) < MAX_FACTS):
        found.append(Violation("facts misstate the calls", "calls", f"facts {told} for calls {wanted}"))
    for fact in facts:
        if fact.deed is None and (fact.outcome or fact.reason):
            found.append(Violation("fact with an outcome but no deed", fact.entity_id, repr(fact)))

    # (a') The sentence of each fact that states a state says that state and none other.
    if len(posted.said.sentences) != len(facts):
        found.append(Violation("facts and their sentences differ", "sentences", repr(posted.said)))
    else:
        for fact, sentence, device in zip(facts, posted.said.sentences, stated, strict=False):
            if device.rover is not None or not (fact.deed is None or fact.outcome == "executed"):
                continue
            claims = [
                (phrase, claim)
                for phrase, entry in judge_matches(sentence)
                for claim in entry.claims
                if claim_kind(claim) == device.kind
            ]
            if not claims:
                found.append(
                    Violation("fact sentence states no state", f"{device.kind}:{device.state}", sentence)
                )
            for phrase, claim in claims:
                if not consistent(claim, device):
                    found.append(
                        Violation("fact sentence states a false state", phrase, f"{sentence} / {device}")
                    )

    # (b) The model's kept sentences: no device named; no state or deed its referents contradict.
    room = [device for device in truth.values() if device.known]
    for sentence in posted.quip.kept:
        for name in judge_names(sentence):
            found.append(Violation("quip names a device", name, sentence))
        for phrase, entry in judge_matches(sentence):
            if "done" in entry.claims and call_facts:
                if not any(fact.outcome == "executed" for fact in call_facts):
                    found.append(Violation("quip claims a deed no call did", phrase, sentence))
                continue
            # What the words can be about: a device of their kind the line's facts speak of; for a
            # deed verb beside no fact of its kind, the room's devices of that kind.
            beside: list[tuple[str, Truth]] = []
            room_wide: list[tuple[str, Truth]] = []
            for claim in entry.claims - {"done"}:
                kind = claim_kind(claim)
                of_kind = [device for device in stated if device.kind == kind]
                beside += [(claim, device) for device in of_kind]
                if not of_kind and entry.deed:
                    room_wide += [(claim, device) for device in room if device.kind == kind]
            referents = beside + room_wide
            if referents and not any(consistent(claim, device) for claim, device in referents):
                shown = sorted(
                    {f"{device.key}={_fact_state(device) or device.rover}" for _, device in referents}
                )
                rule = (
                    "quip contradicts a device its line states"
                    if beside
                    else "quip's deed verb contradicts the room (no fact of its kind)"
                )
                found.append(
                    Violation(
                        rule, phrase, f"{sentence!r} claims {sorted(entry.claims)}; true: {', '.join(shown)}"
                    )
                )
    return found


# ---------------------------------------------------------------------------------------------
# Reporting: a counterexample shrunk to what still fails the same way, and shown whole.
# ---------------------------------------------------------------------------------------------


def _smaller(example: Example) -> Iterable[Example]:
    if example.chat:
        for i in range(len(example.chat)):
            yield replace(example, chat=example.chat[:i] + example.chat[i + 1 :])
        for i, (fragments, mark) in enumerate(example.chat):
            for j in range(len(fragments)):
                shorter = ((fragments[:j] + fragments[j + 1 :], mark),)
                yield replace(example, chat=example.chat[:i] + shorter + example.chat[i + 1 :])
    for i in range(len(example.actions)):
        yield replace(example, actions=example.actions[:i] + example.actions[i + 1 :])
    if example.held is not None:
        yield replace(example, held=None)
    for i in range(len(example.about)):
        yield replace(example, about=example.about[:i] + example.about[i + 1 :])


def shrink(example: Example, signature: tuple[str, str]) -> Example:
    """The smallest example found by dropping parts that still fails with the same violation."""
    changed = True
    while changed:
        changed = False
        for candidate in _smaller(example):
            if any(found.signature == signature for found in judge(candidate)):
                example, changed = candidate, True
                break
    return example


def describe(example: Example, violations: Sequence[Violation]) -> str:
    posted = post(example)
    lights = ", ".join(
        f"{key}={state}{':' + colour if colour else ''}" for key, state, colour in example.lights
    )
    rovers = ", ".join(
        f"{r.name}=docked:{r.docked} charging:{r.charging} driving:{r.driving}" for r in example.rovers
    )
    calls = [*example.actions, *([example.held] if example.held else [])]
    return "\n".join(
        [
            f"  language {example.language}; lift={example.lift}, vacuum={example.vacuum}; {lights}",
            f"  rovers: {rovers}",
            f"  calls: {[(c.tool, dict(c.arguments), c.outcome, c.reason) for c in calls]}"
            f"{' (last one held)' if example.held else ''}; about: {list(example.about)}",
            f"  model: {example.text!r}",
            f"  posted: {posted.line!r}",
            f"  facts: {[fact.as_event() for fact in posted.said.facts]}",
            f"  voice read beside facts of {sorted(posted.stated) or 'nothing'}"
            f"{'; facts written again for ' + str(list(posted.quip.named)) if posted.refacted else ''}"
            f"; dropped: {[reason for _, reason in posted.quip.dropped]}",
            *(f"  -> {v.rule}: {v.what!r}: {v.detail}" for v in violations),
        ]
    )


# ---------------------------------------------------------------------------------------------
# The tests.
# ---------------------------------------------------------------------------------------------


def test_the_generators_neutral_words_are_neutral_to_the_judge():
    """Free words, pronouns, answers and figures claim nothing: only claim fragments and names do."""
    neutral = [
        *(word for words in ARTICLES.values() for word in words),
        *(word for words in PRONOUNS.values() for word in words),
        *(word for words in COPULAS.values() for word in words),
        *(word for words in ANSWERS.values() for word in words),
        *(word for words in FREE.values() for word in words),
    ]
    assert [word for word in neutral if judge_matches(word) or judge_names(word)] == []


def quiet_room(**changes: Any) -> Example:
    """A room at rest: lift down, vacuum docked, lights off, rovers parked off their docks; no calls."""
    room = Example(
        "en",
        "closed",
        "docked",
        tuple((key, "off", "") for key in LIGHT_KEYS),
        tuple(RoverTruth(name, False, False, False, "idle") for name in ROVER_NAMES),
        (),
        None,
        (),
        None,
    )
    return replace(room, **changes)


def test_the_judge_catches_what_it_is_for_and_passes_the_truth():
    room = quiet_room(about=("lift",))
    facts = facts_for([], stated_devices(world_of(room)), ["lift"], product_words("en")[0], phrase_in("en"))
    lie = Posted("", facts, Voice(("It's up.",)))
    assert [v.rule for v in judge(room, lie)] == ["quip contradicts a device its line states"]
    assert judge(room, replace(lie, quip=Voice(("It is down.", "Chaos has standards.")))) == []
    assert [v.rule for v in judge(room, replace(lie, quip=Voice(("El ascensor, ya.",))))] == [
        "quip names a device"
    ]
    # A fact whose data or sentence is false is caught too.
    wrong = Said(tuple(replace(fact, state="open") for fact in facts.facts), ("Lift is open.",))
    assert {v.rule for v in judge(room, Posted("", wrong, Voice()))} == {
        "fact states a false state",
        "fact sentence states a false state",
    }
    # A deed verb with no fact of its kind is read of the room's device of that kind.
    bare = Posted("", Said(), Voice(("Ya lo subí.",)))
    assert [(v.rule, v.what) for v in judge(quiet_room(), bare)] == [
        ("quip's deed verb contradicts the room (no fact of its kind)", "lo subi")
    ]
    assert judge(quiet_room(lift="open"), bare) == []
    # "Done" beside calls none of which ran.
    held = quiet_room(held=Call("lift_up", (), "blocked", "cooldown", 40))
    done = Posted("", post(held).said, Voice(("Done!",)))
    assert [v.rule for v in judge(held, done)] == ["quip claims a deed no call did"]


@settings(
    max_examples=HYPOTHESIS_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=list(HealthCheck),
)
@given(examples())
def test_no_posted_line_states_what_the_room_or_the_calls_contradict(example):
    violations = judge(example)
    assert not violations, "a posted line states something false:\n" + describe(example, violations)


def test_a_seeded_sweep_finds_no_posted_line_that_states_something_false():
    rng = random.Random(SWEEP_SEED)
    first: dict[tuple[str, str], Example] = {}
    counts: Counter[tuple[str, str]] = Counter()
    lines = kept = stated = 0
    for _ in range(SWEEP_EXAMPLES):
        example = build_example(RandomDraw(rng))
        posted = post(example)
        lines += bool(posted.line)
        kept += len(posted.quip.kept)
        stated += len(posted.said.facts)
        for violation in judge(example, posted):
            counts[violation.signature] += 1
            first.setdefault(violation.signature, example)
    # The sweep reaches what it is for: lines posted, facts stated, and model sentences kept.
    assert lines > SWEEP_EXAMPLES // 2 and stated > SWEEP_EXAMPLES // 2 and kept > SWEEP_EXAMPLES // 25
    if not first:
        return
    by_rule: Counter[str] = Counter()
    for (rule, _), count in counts.items():
        by_rule[rule] += count
    # The commonest kinds of each rule, shrunk and shown whole; the rest counted.
    chosen = [
        signature
        for rule in by_rule
        for signature, _ in Counter({sig: n for sig, n in counts.items() if sig[0] == rule}).most_common(
            SHOWN_PER_RULE
        )
    ]
    shown = []
    for signature in chosen:
        small = shrink(first[signature], signature)
        violations = [v for v in judge(small) if v.signature == signature]
        shown.append(
            f"[{counts[signature]}x] {signature[0]}: {signature[1]!r}\n{describe(small, violations)}"
        )
    rest = [
        f"{count}x {rule}: {what!r}"
        for (rule, what), count in counts.most_common()
        if (rule, what) not in chosen
    ]
    raise AssertionError(
        f"{sum(counts.values())} false statements in {SWEEP_EXAMPLES} model outputs ({lines} lines posted, "
        f"{stated} facts, {kept} model sentences kept), by rule {dict(by_rule)}:\n"
        + "\n".join(shown)
        + ("\nand more: " + "; ".join(rest) if rest else "")
    )
