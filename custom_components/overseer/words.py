"""Each language's words for the overseer's lines, from Home Assistant's own data, kept per language.

The facts a line opens with are written in them (core/facts.py), and the model's words after the
facts are checked against them (core/voice.py): the intents package's data for the language,
Home Assistant's translated states, and its colour names.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.facts import FactWords, fact_words, spellings
from .core.voice import ROOM_WORDS, VoiceWords, voice_words
from .language_data import async_per_language, load_intents
from .phrases import async_state_words

# The language asked for -> its intents data (None: the package has none for it).
INTENTS: HassKey[OrderedDict[str, dict[str, Any] | None]] = HassKey(f"{DOMAIN}_intents")
# The colour words of every language the voice's tables read, built once.
TABLE_COLOURS: HassKey[OrderedDict[str, frozenset[str]]] = HassKey(f"{DOMAIN}_table_colours")


@dataclass(frozen=True, slots=True)
class LineWords:
    """One language's words for a line: its facts' words, and what the model's words may not hold."""

    facts: FactWords
    intents: Mapping[str, Any] | None
    # ("domain.state", word) in this language and every one the voice's tables read.
    states: tuple[tuple[str, str], ...]
    colours: frozenset[str]

    @property
    def voice(self) -> VoiceWords:
        """Return what a quip may not say of the room."""
        return voice_words(self.intents, self.states, self.colours)


async def async_line_words(hass: HomeAssistant, language: str, colour_names: Iterable[str]) -> LineWords:
    """Return a language's words for a line ("es-419" reads Spanish); its data read off the loop once.

    colour_names: Home Assistant's English colour names, which a line in any language may use, as
    it may the colour words of every language the voice's tables read (a model mixes them in).
    """
    intents = await async_per_language(hass, INTENTS, language, load_intents)
    states = await async_state_words(hass, language)
    mixed = await async_per_language(hass, TABLE_COLOURS, "", _table_colours)
    colours = frozenset({*colour_spellings(intents), *mixed, *colour_names})
    # The voice holds no state word of any language its tables read (Home Assistant caches its
    # translations: after the first line, this reads memory).
    spoken = [*states.items()]
    for code in ROOM_WORDS:
        spoken += (await async_state_words(hass, code)).items()
    return LineWords(fact_words(language, intents, states), intents, tuple(dict.fromkeys(spoken)), colours)


def colour_spellings(intents: Mapping[str, Any] | None) -> set[str]:
    """Return every spelling of every colour a language's intents data lists."""
    return {
        spelling
        for value in (intents or {}).get("lists", {}).get("color", {}).get("values", ())
        if isinstance(value, Mapping | str)
        for spelling in spellings(str(value.get("in", "")) if isinstance(value, Mapping) else value)
    }


def _table_colours(_: str) -> frozenset[str]:
    """Return the colour words of every language the voice's tables read (off the loop: file I/O)."""
    return frozenset(word for code in ROOM_WORDS for word in colour_spellings(load_intents(code)))
