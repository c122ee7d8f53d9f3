"""Home Assistant's sentences for requests, loaded off the event loop once per language."""

from __future__ import annotations

from custom_components.overseer.core.acts import LIFT, Act, Deed, Device, Kind
from custom_components.overseer.core.requests import asked_deeds
from custom_components.overseer.recognition import KEEP_LANGUAGES, RECOGNISERS, async_recogniser

LIFT_DEVICE = (Device(LIFT, Kind.LIFT, ("Lift", "elevador"), "closed"),)


async def test_a_language_is_loaded_once_and_a_regional_one_reads_its_language(hass):
    spanish = await async_recogniser(hass, "es-419")
    assert asked_deeds("baja el elevador", LIFT_DEVICE, spanish) == {Deed(LIFT, Act.CLOSE)}
    assert await async_recogniser(hass, "es-419") is spanish


async def test_a_language_without_sentences_recognises_nothing(hass):
    nothing = await async_recogniser(hass, "tlh")
    assert nothing.intents is None
    assert asked_deeds("lower the lift", LIFT_DEVICE, nothing) == frozenset()


async def test_only_the_languages_used_last_are_kept(hass):
    assert KEEP_LANGUAGES == 4
    for language in ("en", "es", "de", "fr", "it", "nl", "fr"):
        await async_recogniser(hass, language)
    assert list(hass.data[RECOGNISERS]) == ["de", "it", "nl", "fr"]
