"""Home Assistant's sentences for the room's requests, loaded once per language."""

from __future__ import annotations

from collections import OrderedDict

from home_assistant_intents import get_intents, get_languages
from homeassistant.core import HomeAssistant
from homeassistant.util import language as language_util
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.requests import Recogniser, recogniser_for

# The language asked for -> its recogniser.
RECOGNISERS: HassKey[OrderedDict[str, Recogniser]] = HassKey(f"{DOMAIN}_recognisers")
# Languages kept: a home speaks one or two, and a language costs some hundred kilobytes.
KEEP_LANGUAGES = 4


async def async_recogniser(hass: HomeAssistant, language: str) -> Recogniser:
    """Return the recogniser for a language ("es-419" reads Spanish); the first time, load it off the loop."""
    recognisers = hass.data.setdefault(RECOGNISERS, OrderedDict())
    recogniser = recognisers.get(language)
    if recogniser is None:
        recogniser = await hass.async_add_executor_job(load_recogniser, language)
        recognisers[language] = recogniser
        while len(recognisers) > KEEP_LANGUAGES:
            recognisers.popitem(last=False)
    recognisers.move_to_end(language)
    return recogniser


def load_recogniser(language: str) -> Recogniser:
    """Build the recogniser from the intents of the language's closest variant, if it has one."""
    variants = language_util.matches(language, get_languages())
    if not variants:
        return recogniser_for(language, None)
    return recogniser_for(variants[0], get_intents(variants[0]))
