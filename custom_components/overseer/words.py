"""Each language's words for reading the overseer's lines, built once per language."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from home_assistant_intents import get_intents, get_languages
from homeassistant.core import HomeAssistant
from homeassistant.util import language as language_util
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.statements import Words, words_for

# The language asked for -> its words.
WORDS: HassKey[OrderedDict[str, Words]] = HassKey(f"{DOMAIN}_words")
# Languages kept: a home speaks one or two, and a language's words cost some hundred kilobytes.
KEEP_LANGUAGES = 4


async def async_words(hass: HomeAssistant, language: str) -> Words:
    """Return a language's words ("es-419" reads Spanish); the first time, read its data off the loop."""
    cached = hass.data.setdefault(WORDS, OrderedDict())
    words = cached.get(language)
    if words is None:
        # Reading the data is file I/O, and building from it takes tens of milliseconds.
        words = await hass.async_add_executor_job(load_words, language)
        cached[language] = words
        while len(cached) > KEEP_LANGUAGES:
            cached.popitem(last=False)
    cached.move_to_end(language)
    return words


def load_words(language: str) -> Words:
    """Build a language's words from our table and its closest variant's intents data."""
    return words_for(language, load_intents(language))


def load_intents(language: str) -> dict[str, Any] | None:
    """Return the intents data of the language's closest variant; None when the package has none."""
    variants = language_util.matches(language, get_languages())
    if not variants:
        return None
    intents: dict[str, Any] | None = get_intents(variants[0])
    return intents
