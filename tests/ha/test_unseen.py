"""A question about what no device of the room shows gets the room's own answer, and no made-up one."""

from __future__ import annotations

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import say, setup_overseer, tick


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "overseer, what's the weather like outside?",
            "Nothing in this room shows that, so I cannot tell you.",
        ),
        (
            "overseer, ¿quién ganó la apuesta?",
            "Nada de esta sala muestra eso, así que no te lo puedo decir.",
        ),
    ],
)
async def test_the_room_says_it_cannot_see_it_and_the_model_is_not_asked(
    hass, freezer, ollama_stub, room, question, answer
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decided = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("The weather is sunny and Sam won 10 points.")
    say(hass, "alex", question)
    await tick(hass, freezer)
    [line] = [event.data for event in chat if event.data.get("bot")]
    assert line["text"] == answer and line["facts"] == [] and line["fixed"] is True
    assert ollama_stub.requests == []
    assert "requests" not in decided[0].data and decided[0].data["latency_ms"] == 0


async def test_a_question_naming_a_device_is_the_models_to_answer(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Hot enough to fry a rover.")
    say(hass, "alex", "overseer, is the bench light hot?")
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1
    [line] = [event.data for event in chat if event.data.get("bot")]
    # The room's fact of the light asked about; the model's words that name a room device are not
    # posted.
    assert line["text"] == "Bench is off." and line["fixed"] is True
    assert line["facts"] == [{"entity_id": "light.bench", "state": "off"}]
