"""Each language's words for reading the overseer's lines, built once per language."""

from __future__ import annotations

from collections import OrderedDict

from homeassistant.core import HomeAssistant
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.statements import Words, words_for
from .language_data import KEEP_LANGUAGES, async_per_language, load_intents

__all__ = ["KEEP_LANGUAGES", "WORDS", "async_words", "load_intents", "load_words"]

# The language asked for -> its words.
WORDS: HassKey[OrderedDict[str, Words]] = HassKey(f"{DOMAIN}_words")


async def async_words(hass: HomeAssistant, language: str) -> Words:
    """Return a language's words ("es-419" reads Spanish); the first time, read its data off the loop."""
    return await async_per_language(hass, WORDS, language, load_words)


def load_words(language: str) -> Words:
    """Build a language's words from our table and its closest variant's intents data."""
    return words_for(language, load_intents(language))
