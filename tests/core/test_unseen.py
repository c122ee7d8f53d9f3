"""What the room cannot see: questions about things no device of the room shows."""

from __future__ import annotations

import pytest
from home_assistant_intents import get_intents

from custom_components.overseer.core.unseen import asks_unseen, unseen_intents

NAMES = ("Lift", "elevador", "Bench", "banco", "Neato", "aspiradora", "Rover 1")


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "overseer, what's the weather like outside?"),
        ("en", "overseer who is winning"),
        ("en", "@overseer how much money did kim bet?"),
        ("en", "overseer: what was the final score last night?"),
        ("en", "overseer, how hot is it outside today?"),
        ("es", "oye overseer, ¿qué temperatura hace fuera?"),
        ("es", "@overseer ¿quién ganó la apuesta de jo?"),
        ("es", "overseer, ¿cómo quedó el partido de anoche?"),
        ("es-419", "overseer ¿cuál es el marcador?"),
        ("de", "Overseer, wie ist das Wetter draußen?"),
        ("fr", "overseer, qui a gagné le pari ?"),
        # English beneath any language: people mix it in.
        ("es", "overseer, ¿quién va winning?"),
    ],
)
def test_a_question_about_what_no_device_shows_is_unseen(language, text):
    assert asks_unseen(text, language, None, NAMES)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "overseer, is the lift up?"),
        ("en", "overseer, what do you think of rover 1?"),
        ("en", "overseer, is the bench light hot?"),
        ("es", "overseer, ¿está encendida la luz del banco?"),
        ("es", "overseer, ¿qué opinas de la aspiradora?"),
        ("en", "overseer, tell me a joke"),
        ("en", "overseer, give me a hot take on sam"),
        ("en", "overseer, has sam lost it?"),
    ],
)
def test_a_question_about_the_rooms_devices_or_an_opinion_is_not(language, text):
    assert not asks_unseen(text, language, None, NAMES)


@pytest.mark.parametrize(
    ("language", "text"), [("nl", "wat is het weer?"), ("it", "che tempo fa?"), ("pt", "como está o tempo?")]
)
def test_home_assistants_own_weather_sentences_read_languages_our_table_lacks(language, text):
    assert not asks_unseen(text, language, None)
    assert asks_unseen(text, language, unseen_intents(get_intents(language)))
    assert not asks_unseen("hoe is het weer met de Lift?", "nl", unseen_intents(get_intents("nl")), NAMES)


def test_data_without_the_intents_has_no_sentences():
    assert unseen_intents(None) is None and unseen_intents({"intents": {}}) is None
