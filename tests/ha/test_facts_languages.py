"""The room's facts in the asker's language, from Home Assistant's data, in languages we never wrote for."""

from __future__ import annotations

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import OPTIONS, say, setup_overseer, tick


@pytest.mark.parametrize(
    ("language", "question", "closed"),
    [
        ("en", "overseer, ist der Aufzug oben?", ("geschlossen",)),
        ("en", "overseer, est-ce que l'ascenseur est en haut ?", ("ferm",)),
        # Dutch has no word of ours and no prompt: Home Assistant's language and its data alone
        # (its word for a closed cover changed between releases).
        ("nl", "overseer, staat de lift omhoog?", ("dicht", "gesloten")),
    ],
)
async def test_a_question_about_a_device_gets_its_fact_in_the_askers_language(
    hass, freezer, ollama_stub, room, language, question, closed
):
    hass.config.language = language
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "language": ""})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Chaos has standards.")
    say(hass, "alex", question)
    await tick(hass, freezer)
    line = next(event.data for event in chat if event.data.get("bot"))
    assert line["facts"] == [{"entity_id": "cover.lift", "state": "closed"}]
    # The state in the asker's words, never English's.
    said = line["text"].casefold()
    assert any(word in said for word in closed) and "closed" not in said
