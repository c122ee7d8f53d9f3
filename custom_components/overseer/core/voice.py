"""The model's words after the overseer's facts: its voice, sentence by sentence, never a fact.

The overseer states the room itself (core/facts.py); what the model writes is its quip, and a
quip that speaks of the room could contradict the facts before it in words no rule foresaw. So
the model's words are never parsed for claims: each sentence is kept only when it says nothing
of the room at all. It names no room device (a name, an alias, the noun for its kind), holds none
of the state, colour or deed words of the devices the facts speak of, states no figure the model
was not shown, and is in the asker's language. Otherwise the sentence is dropped, and a device it
named gets its fact instead ("The lift stays down. Chaos has standards." keeps the second).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .acts import Device
from .language import base_language, language_of
from .text import fold

# What Home Assistant's data has no words for, per language, folded: the nouns of the room's own
# kinds by kind (its lift and rovers; a light and a vacuum by their everyday names); the stems of
# the verbs that say an act, in any tense or person ("rais*": raised, raising; "sub*": subí,
# subió); the words that say a state or where a device is; and yes and no (after "The lift is
# down.", "Yes." states the opposite). A word ending in * is a stem: any word it opens. Every
# table is read whatever the asker's language: a model mixes languages in one line; and whether
# or not the line states a fact: "It went up." or "Yes, it is." with no fact of the lift is a
# claim all the same. Examples, each dropped: "The elevator is stuck." (kinds), "Ya lo subí." and
# "Er ist hochgefahren." (acts), "Está arriba." (states), "Yes, it is." (answers), "Es
# leuchtet blau." (acts, colours).
KIND_WORDS = ("lift", "light", "vacuum", "rover")
ROOM_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "lift": "lift elevator",
        "light": "light lamp",
        "vacuum": "vacuum hoover robot",
        "rover": "rover",
        "acts": "rais* lower* lift* open* clos* shut* start* dock* clean* sweep* vacuum* hoover* shin* "
        "glow* switch* turn* dim* brighten* lit charg* driv* park* mov* stop* return* send* sent",
        "states": "up down on off dark bright home idle running busy done",
        "answers": "yes no yeah yep nope nah",
    },
    "es": {
        "lift": "ascensor elevador",
        "light": "luz luces lampara",
        "vacuum": "aspiradora robot",
        "rover": "rover",
        "acts": "sub* baj* levant* encend* prend* apag* abri* abre abren abierto abierta cerr* limpi* "
        "aspir* barr* brill* ilumin* arranc* arranq* carg* conduc* aparc* estacion* mov* parad* paro "
        "volv* regres* mand* envi* puse puso pusiste",
        "states": "arriba abajo base casa marcha reposo oscura oscuro hecho listo",
        "colours": "cian turquesa",
        "answers": "si no",
    },
    "de": {
        "lift": "aufzug lift",
        "light": "licht lichter lampe",
        "vacuum": "staubsauger roboter",
        "rover": "rover",
        "acts": "hochgefahr* heruntergefahr* gehoben* gesenkt* hebe* senk* eingeschalt* ausgeschalt* "
        "schalt* geoffnet* offne* geschlossen* schliess* gestartet* starte* reinig* saug* leucht* "
        "lad* fahr* gefahren* hochfahr* runterfahr* runtergefahr* herunterfahr* geparkt* park* putz* schick* "
        "geschickt* angeschalt* abgeschalt*",
        "states": "hoch runter oben unten an aus offen hell dunkel erledigt",
        "colours": "turkis",
        "answers": "ja nein",
    },
    "fr": {
        "lift": "ascenseur",
        "light": "lumiere lumieres lampe",
        "vacuum": "aspirateur robot",
        "rover": "rover",
        "acts": "mont* descend* lev* baiss* allum* etein* ouvr* ouvert* ferm* demarr* nettoi* nettoy* aspir* "
        "brill* charg* condui* gare* roul* arret* rentr* renvoy* envoy*",
        "states": "haut bas sombre fait station",
        "colours": "turquoise",
        "answers": "oui non",
    },
}

# A sentence ends at its mark and the space after it; a line without one is one sentence.
_SENTENCE = re.compile(r"(?<=[.!?…。！？])\s+")
_WORD = re.compile(r"\w+")
# A figure stands on its own: the 1 of "rover1" or "aux1" is part of a name.
_FIGURE = re.compile(r"(?<![^\W\d])\d+(?:[.,]\d+)?(?![^\W\d])")
# Fewer words than this cannot tell a language apart ("Ha!", "Nope."): kept in any.
_TELLING_WORDS = 3
# Noun forms: a kind's noun matches its plural as a prefix ("light" in "lights").
_PREFIX_CHARS = 4


@dataclass(frozen=True, slots=True)
class VoiceWords:
    """What a language says of the room: the words a quip may not hold.

    kinds: the nouns for the room's kinds of device ("light", "ascensor"); states: the words of
    the room's states ("closed", "encendido", "up"); colours: colour words, read with their
    inflections ("roja", "blaue"); deeds: the stems of the verbs of its acts ("rais*", "baj*");
    answers: yes and no, which answer for the room: the facts answer what was asked.
    """

    kinds: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    colours: frozenset[str] = frozenset()
    deeds: frozenset[str] = frozenset()
    answers: frozenset[str] = frozenset()

    @property
    def inflected(self) -> frozenset[str]:
        """Return the words read with their inflections: colours, and states long enough to inflect."""
        return self.colours | {word for word in self.states if len(word) >= _STATE_INFLECTS_FROM}


@dataclass(frozen=True, slots=True)
class Voice:
    """The model's sentences kept, and why each of the others was dropped."""

    kept: tuple[str, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()
    # Devices a dropped sentence named: each gets its fact instead.
    named: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Return the kept sentences as one line."""
        return " ".join(self.kept)


class Dropped:
    """Why a sentence of the model's was not posted (the demo check counts them by these)."""

    NAMES_A_DEVICE = "names_a_device"
    STATES = "states_the_room"
    FIGURE = "unseen_figure"
    LANGUAGE = "another_language"
    BEFORE_RESULTS = "written_before_results"
    # Written while the asked-for act, which it could do, was left undone.
    ASKED_NOT_DONE = "asked_act_not_done"
    # Its words copy what the request told it to do.
    SAID_BACK = "said_back"
    # Written for a room that moved on while it was written.
    STALE = "stale"
    # In a language none of the tables reads: what it says of the room cannot be told.
    UNREAD = "unread_language"


def voice_words(
    intents: Mapping[str, Any] | None,
    states: Iterable[tuple[str, str]],
    colours: Iterable[str],
) -> VoiceWords:
    """Build what a quip may not say of the room.

    intents: the language's home-assistant-intents data (its nouns for Home Assistant's domains);
    states: ("domain.state", Home Assistant's word) for the domains a room device's state may be of
    (a light may be a switch); colours: every colour word a line may use;
    Every table
    of ours is read whatever the asker's language: a model mixes languages in one line.
    """
    ours = list(ROOM_WORDS.values())
    kinds = {word for table in ours for kind in KIND_WORDS for word in table.get(kind, "").split()}
    kinds |= _domain_nouns(intents or {})
    state_words = {word for key, text in states for word in (text, key.partition(".")[2].replace("_", " "))}
    state_words |= {word for table in ours for word in table.get("states", "").split()}
    yes_no = {word for table in ours for word in table.get("answers", "").split()}
    # Colours Home Assistant's lists lack a word for in a language ("cian", "türkis").
    colour_words = {*colours, *(word for table in ours for word in table.get("colours", "").split())}
    return VoiceWords(
        frozenset(kinds),
        frozenset(state_words),
        frozenset(fold(colour) for colour in colour_words),
        frozenset(word for table in ours for word in table.get("acts", "").split()),
        frozenset(yes_no),
    )


# Home Assistant's response to "turn on" names each domain's kind ({"light": "the light", …}).
_DOMAIN_NOUN = re.compile(r'"\w+":\s*"([^"]+)"')
# Shorter words of those names are articles ("the", "el", "la").
_NOUN_CHARS = 4


def _domain_nouns(intents: Mapping[str, Any]) -> set[str]:
    """Return the nouns Home Assistant's "turn on" response names domains by, articles left out."""
    template = intents.get("responses", {}).get("intents", {}).get("HassTurnOn", {}).get("default", "")
    return {
        word
        for name in _DOMAIN_NOUN.findall(str(template))
        for word in _WORD.findall(fold(name))
        if len(word) >= _NOUN_CHARS
    }


def kinds_named(text: str) -> frozenset[str]:
    """Return the kinds of device the words name by their noun, in any language ("the lights": light)."""
    said = _WORD.findall(fold(text))
    return frozenset(
        kind
        for table in ROOM_WORDS.values()
        for kind in KIND_WORDS
        if _holds(said, table.get(kind, "").split(), prefix=True)
    )


def sentences(text: str) -> list[str]:
    """Return a line's sentences, each stripped, none empty."""
    return [part.strip() for part in _SENTENCE.split(text.strip()) if part.strip()]


def voice(
    text: str,
    devices: Sequence[Device],
    words: VoiceWords,
    shown: str,
    language: str,
    told: str = "",
) -> Voice:
    """Return the sentences of the model's line that say nothing of the room, and the rest with why.

    devices: every room device (a sentence naming any of them is dropped); shown: everything the
    model's request showed it, whose figures a sentence may repeat; language: the asker's; told:
    what the request told it to do, whose sentences a sentence of its may not copy.
    """
    if language and base_language(language) not in ROOM_WORDS:
        # Dutch words of the room ("Hij staat nu omhoog.") are in no table of ours: none is posted.
        return Voice(dropped=tuple((sentence, Dropped.UNREAD) for sentence in sentences(text)))
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    named: dict[str, None] = {}
    seen = set(_FIGURE.findall(fold(shown)))
    instructions = [set(_WORD.findall(fold(part))) for part in sentences(told)]
    for sentence in sentences(text):
        said = _WORD.findall(fold(sentence))
        devices_named = [device.key for device in devices if _names(said, device.names)]
        if len(said) >= _TELLING_WORDS and any(set(said) <= words_of for words_of in instructions):
            dropped.append((sentence, Dropped.SAID_BACK))
        elif devices_named or _holds(said, words.kinds, prefix=True):
            named |= dict.fromkeys(devices_named)
            dropped.append((sentence, Dropped.NAMES_A_DEVICE))
        elif _holds(said, words.states | words.deeds | words.answers) or _inflects(said, words.inflected):
            dropped.append((sentence, Dropped.STATES))
        elif any(figure not in seen for figure in _FIGURE.findall(fold(sentence))):
            dropped.append((sentence, Dropped.FIGURE))
        elif len(said) >= _TELLING_WORDS and base_language(language_of(sentence, language)) != base_language(
            language
        ):
            dropped.append((sentence, Dropped.LANGUAGE))
        else:
            kept.append(sentence)
    return Voice(tuple(kept), tuple(dropped), tuple(named))


def _names(said: Sequence[str], names: Iterable[str]) -> bool:
    """Return whether the words (folded) hold one of the names, word for word."""
    for name in names:
        wanted = _WORD.findall(fold(name))
        if wanted and any(said[i : i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1)):
            return True
    return False


def _holds(said: Sequence[str], words: Iterable[str], prefix: bool = False) -> bool:
    """Return whether the words hold one of these (each folded; several words read in a row).

    A word ending in * is a stem: it matches any word it opens. prefix: a long single word matches
    the words it opens too (a kind's noun, its plural).
    """
    for word in words:
        if word.endswith("*"):
            stem = fold(word[:-1])
            if stem and any(token.startswith(stem) for token in said):
                return True
            continue
        wanted = _WORD.findall(fold(word))
        if not wanted:
            continue
        if len(wanted) == 1 and prefix and len(wanted[0]) >= _PREFIX_CHARS:
            if any(token.startswith(wanted[0]) for token in said):
                return True
        elif any(said[i : i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1)):
            return True
    return False


# A state word this long inflects like an adjective ("inactivo": inactiva, "cerrado": cerrada);
# a shorter one ("hell", "on") is read as itself: "Hello there." says nothing bright.
_STATE_INFLECTS_FROM = 6
# The endings an inflection adds to a colour word in the room's languages ("roja", "blaue",
# "azules", "rotes"); a word ending in a vowel may change it ("rojo": roja, "blanco": blancas).
_ENDINGS = frozenset({"", "a", "o", "e", "s", "as", "os", "es", "en", "er", "em", "n"})
_VOWELS = frozenset("aeiou")


def _inflects(said: Sequence[str], words: Iterable[str]) -> bool:
    """Return whether the words hold one of these colour words, or it inflected ("rojo": roja).

    Only a colour's own endings: "Bless you." holds no "bleu", "What a noise." no "noir".
    """
    for written in words:
        word = " ".join(_WORD.findall(fold(written)))
        if not word:
            continue
        if " " in word:
            if _holds(said, (word,)):
                return True
            continue
        stems = (word, word[:-1]) if word[-1] in _VOWELS and len(word) > 2 else (word,)
        if any(token.startswith(stem) and token[len(stem) :] in _ENDINGS for token in said for stem in stems):
            return True
    return False
