"""Each language's words for reading the overseer's lines, loaded off the event loop once per language."""

from __future__ import annotations

import threading

from homeassistant.helpers import entity_registry as er

from custom_components.overseer import words as words_module
from custom_components.overseer.core.acts import LIFT, Device, Kind
from custom_components.overseer.core.statements import false_statements
from custom_components.overseer.words import KEEP_LANGUAGES, WORDS, async_words

from .harness import load_demo

LIFT_DEVICE = (Device(LIFT, Kind.LIFT, ("Lift", "elevador"), "closed"),)


async def test_a_regional_language_reads_its_language_and_is_loaded_once_off_the_loop(hass, monkeypatch):
    threads = []

    def load_intents(language):
        threads.append(threading.current_thread())
        return original(language)

    original = words_module.load_intents
    monkeypatch.setattr(words_module, "load_intents", load_intents)
    spanish = await async_words(hass, "es-419")
    assert spanish.language == "es-419"
    assert [f.claimed for f in false_statements("Subí el elevador.", LIFT_DEVICE, (), spanish)] == ["open"]
    assert spanish.meaning("naranja").colour == "orange"  # Home Assistant's own Spanish
    assert await async_words(hass, "es-419") is spanish
    assert len(threads) == 1
    assert threads[0] is not threading.main_thread()


async def test_a_language_the_package_lacks_reads_english_underneath(hass):
    klingon = await async_words(hass, "tlh")
    assert words_module.load_intents("tlh") is None
    assert [f.claimed for f in false_statements("Lift raised.", LIFT_DEVICE, (), klingon)] == ["open"]
    assert false_statements("Subí el elevador.", LIFT_DEVICE, (), klingon) == ()


async def test_a_language_is_found_whatever_the_case_of_its_region(hass):
    assert words_module.load_intents("pt-br") is not None
    assert words_module.load_intents("PT-BR") is not None
    assert words_module.load_intents("de-AT") == words_module.load_intents("de")


async def test_only_the_languages_used_last_are_kept(hass):
    assert KEEP_LANGUAGES == 4
    for language in ("en", "es", "de", "fr", "it", "nl", "fr"):
        await async_words(hass, language)
    assert list(hass.data[WORDS]) == ["de", "it", "nl", "fr"]


async def test_the_demo_names_its_devices_in_spanish_and_keeps_ones_own_aliases(
    hass, monkeypatch, ollama_stub
):
    registry = er.async_get(hass)
    registry.async_get_or_create("light", "overseer_demo", "bench_light", suggested_object_id="bench")
    mine = registry.async_get("light.bench").aliases
    mine = {"my bench"} if isinstance(mine, set) else ["my bench"]  # a set before 2026.x, then a list
    registry.async_update_entity("light.bench", aliases=mine)

    await load_demo(hass, monkeypatch, OLLAMA_URL=ollama_stub.url)

    bench = registry.async_get("light.bench").aliases
    assert {"my bench", "banco", "luz del banco"} <= {alias for alias in bench if isinstance(alias, str)}
    assert {"elevador", "ascensor"} <= set(registry.async_get("cover.lift").aliases)
    shelf = registry.async_get("light.shelf").aliases
    assert "luz del estante" in shelf
    if isinstance(shelf, list):
        # An ordered list, where the entity's own name was an alias before ours: it still is.
        assert shelf[0] is er.COMPUTED_NAME
