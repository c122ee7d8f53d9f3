"""Home Assistant's language data (the intents package), read off the event loop and kept per language."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from home_assistant_intents import get_intents, get_languages
from homeassistant.core import HomeAssistant
from homeassistant.util import language as language_util
from homeassistant.util.hass_dict import HassKey

# Languages kept of each kind: a home speaks one or two, and a language costs some hundred kilobytes.
KEEP_LANGUAGES = 4


async def async_per_language[T](
    hass: HomeAssistant, key: HassKey[OrderedDict[str, T]], language: str, load: Callable[[str], T]
) -> T:
    """Return what load builds for a language, built once off the loop (file I/O and tens of ms)."""
    cached = hass.data.setdefault(key, OrderedDict())
    built = cached.get(language)
    if built is None:
        built = await hass.async_add_executor_job(load, language)
        cached[language] = built
        while len(cached) > KEEP_LANGUAGES:
            cached.popitem(last=False)
    cached.move_to_end(language)
    return built


def closest_variant(language: str) -> str | None:
    """Return the package's language closest to this one ("es-419" → "es"); None when it has none."""
    variants = language_util.matches(language, get_languages())
    return variants[0] if variants else None


def load_intents(language: str) -> dict[str, Any] | None:
    """Return the intents data of the language's closest variant; None when the package has none."""
    variant = closest_variant(language)
    if variant is None:
        return None
    intents: dict[str, Any] | None = get_intents(variant)
    return intents
