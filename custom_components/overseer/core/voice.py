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
# kinds (its lift and rovers; a light and a vacuum by their everyday names), the words that say an
# act or what it left, and yes and no (after "The lift is down.", "Yes." states the opposite).
# Examples, each dropped beside a fact of its device: "The elevator is stuck." (kinds), "Yes, it's
# up." (answers, deeds), "Sí, ya subió." (answers, deeds), "Es leuchtet blau." (deeds, colours).
ROOM_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "kinds": "lift elevator light lamp vacuum hoover robot rover",
        "deeds": "up down raise raised raising lower lowered lowering on off open opened opening close "
        "closed closing start started starting dock docked docking clean cleaned cleaning shine shining "
        "lit glow glowing dark bright turned switched running moving stopped home charging",
        "answers": "yes no yeah yep nope nah",
    },
    "es": {
        "kinds": "ascensor elevador luz luces lampara aspiradora robot rover",
        "deeds": "sube subio subido subida subir baja bajo bajado bajada bajar encendida encendido encender "
        "apagada apagado apagar abierto abierta cerrado cerrada limpia limpiando base brilla brillando "
        "arriba abajo cargando",
        "answers": "si no",
    },
    "de": {
        "kinds": "aufzug lift licht lampe staubsauger roboter rover",
        "deeds": "hoch runter oben unten an aus ein eingeschaltet ausgeschaltet offen geschlossen gestartet "
        "reinigt saugt leuchtet hell dunkel",
        "answers": "ja nein",
    },
    "fr": {
        "kinds": "ascenseur lumiere lampe aspirateur robot rover",
        "deeds": "monte monte descend descendu allume allumee eteint eteinte ouvert ouverte ferme fermee "
        "nettoie brille haut bas",
        "answers": "oui non",
    },
}

# A sentence ends at its mark and the space after it; a line without one is one sentence.
_SENTENCE = re.compile(r"(?<=[.!?…。！？])\s+")
_WORD = re.compile(r"\w+")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)?")
# Fewer words than this cannot tell a language apart ("Ha!", "Nope."): kept in any.
_TELLING_WORDS = 3
# Noun forms: a kind's noun matches its plural as a prefix ("light" in "lights").
_PREFIX_CHARS = 4


@dataclass(frozen=True, slots=True)
class VoiceWords:
    """What a language says of the room: the words a quip may not hold.

    kinds: the nouns for the room's kinds of device ("light", "ascensor"); states: state words
    by device key, for the devices the facts speak of; colours: colour words; deeds: words that
    say an act ("raise", "bajar", "up", "encendido").
    """

    kinds: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    colours: frozenset[str] = frozenset()
    deeds: frozenset[str] = frozenset()


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


def voice_words(
    language: str,
    intents: Mapping[str, Any] | None,
    states: Mapping[str, str],
    colours: Iterable[str],
    stated: Iterable[str],
) -> VoiceWords:
    """Build what a quip may not say in a language, beside facts of the stated domains.

    intents: the language's home-assistant-intents data (its nouns for Home Assistant's domains);
    states: "domain.state" -> Home Assistant's word; colours: every colour word a line may use;
    stated: the domains the facts speak of (none: no state, colour or deed word is the room's).
    English is read beneath every language: a model mixes it in.
    """
    ours = [ROOM_WORDS.get(code, {}) for code in dict.fromkeys((base_language(language), "en"))]
    kinds = {word for table in ours for word in table.get("kinds", "").split()}
    kinds |= _domain_nouns(intents or {})
    domains = frozenset(stated)
    if not domains:
        return VoiceWords(frozenset(kinds))
    state_words = {
        word
        for key, text in states.items()
        if key.partition(".")[0] in domains
        for word in (text, key.partition(".")[2].replace("_", " "))
    }
    deeds = {word for table in ours for part in ("deeds", "answers") for word in table.get(part, "").split()}
    return VoiceWords(frozenset(kinds), frozenset(state_words), frozenset(colours), frozenset(deeds))


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


def sentences(text: str) -> list[str]:
    """Return a line's sentences, each stripped, none empty."""
    return [part.strip() for part in _SENTENCE.split(text.strip()) if part.strip()]


def voice(
    text: str,
    devices: Sequence[Device],
    words: VoiceWords,
    shown: str,
    language: str,
) -> Voice:
    """Return the sentences of the model's line that say nothing of the room, and the rest with why.

    devices: every room device (a sentence naming any of them is dropped); shown: everything the
    model's request showed it, whose figures a sentence may repeat; language: the asker's.
    """
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    named: dict[str, None] = {}
    seen = set(_FIGURE.findall(fold(shown)))
    for sentence in sentences(text):
        said = _WORD.findall(fold(sentence))
        devices_named = [device.key for device in devices if _names(said, device.names)]
        if devices_named or _holds(said, words.kinds, prefix=True):
            named |= dict.fromkeys(devices_named)
            dropped.append((sentence, Dropped.NAMES_A_DEVICE))
        elif _holds(said, words.states | words.colours | words.deeds):
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
    """Return whether the words hold one of these (each folded; several words read in a row)."""
    for word in words:
        wanted = _WORD.findall(fold(word))
        if not wanted:
            continue
        if len(wanted) == 1 and prefix and len(wanted[0]) >= _PREFIX_CHARS:
            if any(token.startswith(wanted[0]) for token in said):
                return True
        elif any(said[i : i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1)):
            return True
    return False
