"""Home Assistant's sentences for the room's requests, loaded once per language."""

from __future__ import annotations

from collections import OrderedDict

from homeassistant.core import HomeAssistant
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .core.requests import Recogniser, recogniser_for
from .language_data import KEEP_LANGUAGES, async_per_language, closest_variant, load_intents

__all__ = ["KEEP_LANGUAGES", "RECOGNISERS", "async_recogniser", "load_recogniser"]

# The language asked for -> its recogniser.
RECOGNISERS: HassKey[OrderedDict[str, Recogniser]] = HassKey(f"{DOMAIN}_recognisers")


async def async_recogniser(hass: HomeAssistant, language: str) -> Recogniser:
    """Return the recogniser for a language ("es-419" reads Spanish); the first time, load it off the loop."""
    return await async_per_language(hass, RECOGNISERS, language, load_recogniser)


def load_recogniser(language: str) -> Recogniser:
    """Build the recogniser from the intents of the language's closest variant, if it has one."""
    return recogniser_for(closest_variant(language) or language, load_intents(language))
