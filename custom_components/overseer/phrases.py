"""Sentences the overseer says in the user's language: its translations' `exceptions` messages."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from .const import DOMAIN
from .core.accounts import STATE_DOMAINS, Phrase


async def async_phrases(hass: HomeAssistant, language: str | None) -> Phrase:
    """Return a phrase by key with its placeholders filled in, in language, English where it has none."""
    prefix = f"component.{DOMAIN}.exceptions."
    found: dict[str, str] = {}
    for candidate in dict.fromkeys((language or hass.config.language, "en")):
        found = {**await async_get_translations(hass, candidate, "exceptions", {DOMAIN}), **found}

    def phrase(key: str, **placeholders: Any) -> str:
        text = found.get(f"{prefix}{key}.message", key)
        for name, value in placeholders.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text

    return phrase


async def async_state_words(hass: HomeAssistant, language: str) -> dict[str, str]:
    """Return Home Assistant's own words for the room devices' states ("cover.closed": "Cerrado").

    A regional language Home Assistant has no state words for ("es-419") reads its base language's,
    not English.
    """
    # A room light may be a switch or an input boolean: their states are said in their own words.
    domains = {*STATE_DOMAINS.values(), "switch", "input_boolean"}
    found = await async_get_translations(hass, language, "entity_component", domains)
    base = language.partition("-")[0]
    if base not in (language, "en"):
        english = await async_get_translations(hass, "en", "entity_component", domains)
        if found == english:
            found = await async_get_translations(hass, base, "entity_component", domains)
    words: dict[str, str] = {}
    for domain in domains:
        prefix = f"component.{domain}.entity_component._.state."
        words |= {
            f"{domain}.{key.removeprefix(prefix)}": text
            for key, text in found.items()
            if key.startswith(prefix)
        }
    return words
