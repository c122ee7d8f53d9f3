"""Services: bad input gets a translated error and changes nothing."""

from __future__ import annotations

import pytest
from homeassistant.exceptions import ServiceValidationError
from pytest_homeassistant_custom_component.common import async_capture_events

from .conftest import setup_overseer, tick


async def call_service(hass, service, data):
    await hass.services.async_call("overseer", service, data, blocking=True)


@pytest.mark.parametrize(
    ("service", "data", "key"),
    [
        ("post_message", {"user": "alex"}, "empty_field"),
        ("post_message", {"user": "", "text": "hi"}, "empty_field"),
        ("post_message", {"user": "alex", "text": "   "}, "empty_field"),
        ("post_message", {"user": "alex", "text": "hi", "bot": "yes"}, "invalid_bot"),
        ("post_message", {"user": "alex", "text": "hi", "colour": "red"}, "unknown_field"),
        ("post_message", {"user": "alex", "text": "hi", "config_entry_id": "nope"}, "entry_not_found"),
        ("memory_write", {"slot": 4, "text": "x"}, "invalid_slot"),
        ("memory_write", {"slot": "two", "text": "x"}, "invalid_slot"),
        ("memory_write", {"slot": True, "text": "x"}, "invalid_slot"),
        ("memory_write", {"slot": 1}, "empty_field"),
        ("memory_write", {"slot": 1, "text": ["a"]}, "empty_field"),
        ("memory_clear", {"slot": 0}, "invalid_slot"),
        ("trigger", {"config_entry_id": 5}, "entry_not_found"),
    ],
)
async def test_bad_input_is_refused_with_a_translated_error(hass, ollama_stub, room, service, data, key):
    entry = await setup_overseer(hass, ollama_stub)
    coordinator = entry.runtime_data.coordinator
    coordinator.write_memory(1, "keep me")
    before = coordinator.state.as_dict()
    chat = async_capture_events(hass, "overseer_chat_message")
    with pytest.raises(ServiceValidationError) as err:
        await call_service(hass, service, data)
    assert err.value.translation_domain == "overseer"
    assert err.value.translation_key == key
    assert str(err.value)  # the translated message
    assert coordinator.state.as_dict() == before
    assert chat == []


async def test_services_with_no_loaded_overseer_say_so(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    await hass.config_entries.async_unload(entry.entry_id)
    for service, data, key in (
        ("trigger", {}, "no_loaded_entries"),
        ("memory_clear", {"config_entry_id": entry.entry_id}, "entry_not_loaded"),
    ):
        with pytest.raises(ServiceValidationError) as err:
            await call_service(hass, service, data)
        assert err.value.translation_key == key


async def test_two_rooms_need_an_entry_id_for_memory(hass, ollama_stub, room):
    first = await setup_overseer(hass, ollama_stub)
    second = await setup_overseer(hass, ollama_stub, data={"room": "Lab"}, entry_id="room2")
    with pytest.raises(ServiceValidationError) as err:
        await call_service(hass, "memory_write", {"slot": 1, "text": "which one?"})
    assert err.value.translation_key == "entry_required"
    await call_service(
        hass, "memory_write", {"slot": "1", "text": "lab only", "config_entry_id": second.entry_id}
    )
    assert second.runtime_data.coordinator.state.memory.slots[0] == "lab only"
    assert first.runtime_data.coordinator.state.memory.slots[0] == ""


async def test_post_message_reaches_the_room_and_trigger_runs_a_decision(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    await call_service(
        hass, "post_message", {"user": "discord:alex", "text": "hello all", "config_entry_id": entry.entry_id}
    )
    assert chat[0].data == {"user": "discord:alex", "text": "hello all", "bot": False, "room": "arena"}
    await call_service(hass, "post_message", {"user": "otherbot", "text": "overseer, beep", "bot": True})
    await tick(hass, freezer)
    assert ollama_stub.requests == []  # neither an unaddressed line nor a bot line triggers
    await call_service(hass, "trigger", {})
    await tick(hass, freezer)
    request = ollama_stub.requests[0]
    assert "trigger: manual" in request["messages"][1]["content"]
    assert [m["content"] for m in request["messages"][2:4]] == [
        "discord alex: hello all",
        "otherbot (bot): overseer, beep",
    ]
