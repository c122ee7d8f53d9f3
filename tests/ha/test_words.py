"""Each language's words for the overseer's lines, from Home Assistant's data read off the event loop once."""

from __future__ import annotations

import threading

from homeassistant.helpers import entity_registry as er

from custom_components.overseer import words as words_module
from custom_components.overseer.core.facts import PLAIN_STATE
from custom_components.overseer.core.voice import ROOM_WORDS
from custom_components.overseer.language_data import KEEP_LANGUAGES
from custom_components.overseer.words import INTENTS, async_line_words

from .harness import load_demo


async def test_a_regional_language_reads_its_language_and_is_loaded_once_off_the_loop(hass, monkeypatch):
    threads = []

    def load_intents(language):
        threads.append(threading.current_thread())
        return original(language)

    original = words_module.load_intents
    monkeypatch.setattr(words_module, "load_intents", load_intents)
    spanish = await async_line_words(hass, "es-419", ("orange",))
    assert spanish.facts.language == "es-419"
    assert spanish.intents is not None and spanish.intents["language"] == "es"
    # Home Assistant's own Spanish: its answer to "is the lift up?", its colour words.
    assert "está" in spanish.facts.state_sentence
    assert spanish.facts.colour("orange") == "naranja"
    # What the model's words may not hold: the colours and states of every language a model
    # mixes in, as well as Spanish's.
    assert {"naranja", "orange", "rot", "rouge"} <= spanish.colours
    assert {("cover.closed", "Cerrado"), ("cover.closed", "Closed"), ("cover.closed", "Geschlossen")} <= set(
        spanish.states
    )
    assert ("light.on", "Allumé") in spanish.states
    # The asker's language, and each table's (English, Spanish, German, French) for the colours.
    loaded = len(threads)
    assert loaded == 1 + len(ROOM_WORDS)
    again = await async_line_words(hass, "es-419", ("orange",))
    assert again.intents is spanish.intents
    assert again.colours == spanish.colours and again.states == spanish.states
    assert len(threads) == loaded
    assert all(thread is not threading.main_thread() for thread in threads)


async def test_a_regional_language_states_the_room_in_its_language(hass):
    spanish = await async_line_words(hass, "es-419", ())
    assert spanish.facts.states["cover.closed"] == "Cerrado"


async def test_a_language_the_package_lacks_still_has_words_and_english_underneath(hass):
    assert words_module.load_intents("tlh") is None
    klingon = await async_line_words(hass, "tlh", ("red", "blue"))
    assert klingon.intents is None
    assert klingon.facts.state_sentence == PLAIN_STATE
    assert klingon.facts.colour("red") == "red"
    # Home Assistant's colour names, and the colour words of every language the tables read.
    assert {"red", "blue", "rojo", "naranja", "rot", "rouge"} <= klingon.colours
    # No Klingon of Home Assistant's: its states are said in English, and read in every table's.
    assert klingon.facts.states["cover.closed"] == "Closed"
    assert {("cover.closed", "Closed"), ("cover.closed", "Cerrado")} <= set(klingon.states)
    assert {"lift", "light"} <= klingon.voice.kinds


async def test_a_language_is_found_whatever_the_case_of_its_region(hass):
    assert words_module.load_intents("pt-br") is not None
    assert words_module.load_intents("PT-BR") is not None
    assert words_module.load_intents("de-AT") == words_module.load_intents("de")
    assert (await async_line_words(hass, "PT-BR", ())).intents == words_module.load_intents("pt-br")


async def test_only_the_languages_used_last_are_kept(hass):
    assert KEEP_LANGUAGES == 4
    for language in ("en", "es", "de", "fr", "it", "nl", "fr"):
        await async_line_words(hass, language, ())
    assert list(hass.data[INTENTS]) == ["de", "it", "nl", "fr"]


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
