"""Services: bad input is refused with a translated message, and changes nothing."""

from __future__ import annotations

import pytest
import voluptuous as vol
from homeassistant.exceptions import ServiceValidationError
from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import setup_overseer, tick


async def call_service(hass, service, data):
    await hass.services.async_call("overseer", service, data, blocking=True)


async def refused(hass, freezer, ollama_stub, service, data):
    """Call a service that must refuse: nothing is stored, posted or decided afterwards."""
    loop = hass.config_entries.async_get_entry("room1").runtime_data.loop
    before = loop.state.as_dict()
    chat = async_capture_events(hass, "overseer_chat_message")
    with pytest.raises(ServiceValidationError) as err:
        await call_service(hass, service, data)
    await tick(hass, freezer)  # a trigger that slipped through would run a decision now
    assert loop.state.as_dict() == before
    assert chat == []
    assert ollama_stub.requests == []
    return err.value


# Each refusal's translation key and its English sentence after "Invalid input: {field} "
# (Home Assistant drops a message's final full stop).
UNKNOWN = ("unknown_field", "is not a field of this service")
MISSING = ("missing_field", "is required")
TEXT = ("invalid_text", "must be text that is not blank")
APPROVAL_ID = ("invalid_approval_id", "must be an approval id, such as APR-1a2b3c4d")
BOOLEAN = ("invalid_boolean", "must be true or false")
SLOT = ("invalid_slot", "must be memory slot 1, 2 or 3")
SLOT_OR_ALL = ("invalid_slot_or_all", "must be memory slot 1, 2 or 3, or empty for all three")
ENTRY_ID = ("invalid_entry_id", "must be the config entry id of an overseer, or empty")
GRANT_MINUTES = ("invalid_grant_minutes", "must be whole minutes from 0 to 1440")
GRANT_ID = ("invalid_grant_id", "must be a grant id, such as GRT-1a2b3c4d")


@pytest.mark.parametrize(
    ("service", "data", "field", "refusal"),
    [
        # Fields a service does not have: a typo is refused, not ignored.
        ("post_message", {"user": "alex", "text": "hi", "colour": "red"}, "colour", UNKNOWN),
        ("trigger", {"room": "arena"}, "room", UNKNOWN),
        ("memory_write", {"slot": 1, "text": "x", "slots": 2}, "slots", UNKNOWN),
        ("memory_clear", {"slot": 1, "all": True}, "all", UNKNOWN),
        ("approve", {"approval_id": "APR-1", "x" * 100: 1}, "x" * 60, UNKNOWN),  # a name is cut short
        # Missing, empty or mistyped fields.
        ("post_message", {"user": "alex"}, "text", MISSING),
        ("post_message", {"user": "", "text": "hi"}, "user", TEXT),
        ("post_message", {"user": "alex", "text": "   "}, "text", TEXT),
        ("post_message", {"user": ["alex"], "text": "hi"}, "user", TEXT),
        ("post_message", {"user": "alex", "text": "hi", "bot": "maybe"}, "bot", BOOLEAN),
        (
            "post_message",
            {"user": "alex", "text": "hi", "config_entry_id": ["room1"]},
            "config_entry_id",
            ENTRY_ID,
        ),
        ("memory_write", {"slot": 1}, "text", MISSING),
        ("memory_write", {"slot": 1, "text": ["a"]}, "text", TEXT),
        ("memory_write", {"slot": 1, "text": {"a": 1}}, "text", TEXT),
        ("memory_write", {"text": "x"}, "slot", MISSING),
        ("approve", {}, "approval_id", MISSING),
        ("deny", {"approval_id": " "}, "approval_id", APPROVAL_ID),
        ("deny", {"approval_id": ["APR-1"]}, "approval_id", APPROVAL_ID),
        ("deny", {"approval_id": "APR-1", "grant_minutes": 5}, "grant_minutes", UNKNOWN),
        ("approve", {"approval_id": "APR-1", "grant_minutes": -1}, "grant_minutes", GRANT_MINUTES),
        ("approve", {"approval_id": "APR-1", "grant_minutes": 1.5}, "grant_minutes", GRANT_MINUTES),
        ("approve", {"approval_id": "APR-1", "grant_minutes": "ten"}, "grant_minutes", GRANT_MINUTES),
        ("approve", {"approval_id": "APR-1", "grant_minutes": 1441}, "grant_minutes", GRANT_MINUTES),
        ("approve", {"approval_id": "APR-1", "grant_minutes": True}, "grant_minutes", GRANT_MINUTES),
        ("revoke_grant", {}, "grant_id", MISSING),
        ("revoke_grant", {"grant_id": "  "}, "grant_id", GRANT_ID),
        # Slots other than 1, 2 and 3.
        ("memory_write", {"slot": 4, "text": "x"}, "slot", SLOT),
        ("memory_write", {"slot": "two", "text": "x"}, "slot", SLOT),
        ("memory_write", {"slot": True, "text": "x"}, "slot", SLOT),
        ("memory_write", {"slot": 1.5, "text": "x"}, "slot", SLOT),
        ("memory_clear", {"slot": 0}, "slot", SLOT_OR_ALL),
        ("memory_clear", {"slot": "-1"}, "slot", SLOT_OR_ALL),
        # Several bad fields: an unknown one is named first, then the schema's order, on every engine.
        ("memory_write", {"slot": 4, "text": "", "txt": "x", "colour": "red"}, "colour", UNKNOWN),
        ("memory_write", {"text": ""}, "slot", MISSING),
        ("memory_write", {}, "slot", MISSING),
    ],
)
async def test_the_schema_refuses_bad_input_and_nothing_changes(
    hass, freezer, ollama_stub, room, service, data, field, refusal
):
    await setup_overseer(hass, ollama_stub)
    await call_service(hass, "memory_write", {"slot": 1, "text": "keep me"})  # so a clear would show
    err = await refused(hass, freezer, ollama_stub, service, data)
    # The schema refused it in our own sentence, whatever the validation engine's wording.
    key, sentence = refusal
    assert (err.translation_domain, err.translation_key) == ("overseer", key)
    assert err.translation_placeholders == {"field": field}
    assert str(err) == f"Invalid input: {field} {sentence}"


async def test_data_that_is_not_a_mapping_is_the_engines_refusal(hass, ollama_stub, room):
    """It names no field to translate; only Python code can send it (the UI and YAML send mappings)."""
    await setup_overseer(hass, ollama_stub)
    with pytest.raises(vol.Invalid):
        await call_service(hass, "trigger", ["room1"])


@pytest.mark.parametrize(
    ("service", "data", "key"),
    [
        ("post_message", {"user": "alex", "text": "hi", "config_entry_id": "nope"}, "entry_not_found"),
        ("trigger", {"config_entry_id": 5}, "entry_not_found"),
        ("memory_write", {"slot": 2, "text": "x", "config_entry_id": "nope"}, "entry_not_found"),
        ("memory_clear", {"config_entry_id": "nope"}, "entry_not_found"),
    ],
)
async def test_an_unknown_overseer_is_refused_with_a_translated_error(
    hass, freezer, ollama_stub, room, service, data, key
):
    await setup_overseer(hass, ollama_stub)
    await call_service(hass, "memory_write", {"slot": 1, "text": "keep me"})  # so a clear would show
    err = await refused(hass, freezer, ollama_stub, service, data)
    assert err.translation_domain == "overseer"
    assert err.translation_key == key
    assert str(err)  # the translated message


async def test_bad_input_over_the_websocket_gets_a_clear_error(hass, hass_ws_client, ollama_stub, room):
    """What the UI shows: Developer tools call_service, and a script run from the editor."""
    entry = await setup_overseer(hass, ollama_stub)
    loop = entry.runtime_data.loop
    before = loop.state.as_dict()
    client = await hass_ws_client(hass)
    data = {"slot": 4, "text": "x"}
    await client.send_json_auto_id(
        {"type": "call_service", "domain": "overseer", "service": "memory_write", "service_data": data}
    )
    response = await client.receive_json()
    assert response["success"] is False
    assert response["error"]["translation_key"] == "invalid_slot"
    assert response["error"]["translation_placeholders"] == {"field": "slot"}
    assert response["error"]["message"].endswith("Invalid input: slot must be memory slot 1, 2 or 3")
    await client.send_json_auto_id(
        {"type": "execute_script", "sequence": [{"action": "overseer.memory_write", "data": data}]}
    )
    response = await client.receive_json()
    assert response["success"] is False
    assert response["error"]["translation_key"] == "invalid_slot"
    assert response["error"]["message"] == "Invalid input: slot must be memory slot 1, 2 or 3"
    await client.send_json_auto_id(
        {
            "type": "call_service",
            "domain": "overseer",
            "service": "memory_write",
            "service_data": {"slot": 1, "text": "x", "config_entry_id": "nope"},
        }
    )
    response = await client.receive_json()
    assert response["success"] is False
    assert response["error"]["code"] == "service_validation_error"
    assert response["error"]["translation_key"] == "entry_not_found"
    assert loop.state.as_dict() == before


async def test_the_schema_coerces_what_the_ui_and_yaml_send(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    loop = entry.runtime_data.loop
    chat = async_capture_events(hass, "overseer_chat_message")
    await call_service(hass, "memory_write", {"slot": "2", "text": "from a string"})
    await call_service(hass, "memory_write", {"slot": 3.0, "text": "from a float"})
    assert loop.state.memory.slots == ("", "from a string", "from a float")
    await call_service(hass, "memory_clear", {"slot": " 2 ", "config_entry_id": None})
    assert loop.state.memory.slots == ("", "", "from a float")
    await call_service(hass, "memory_clear", {"slot": None})
    assert loop.state.memory.slots == ("", "", "")
    await call_service(hass, "post_message", {"user": 42, "text": " spaced ", "bot": "on"})
    assert chat[0].data == {"user": "42", "text": " spaced ", "bot": True}
    await tick(hass, freezer)
    assert ollama_stub.requests == []  # a bot line never triggers


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
    assert second.runtime_data.loop.state.memory.slots[0] == "lab only"
    assert first.runtime_data.loop.state.memory.slots[0] == ""


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
    assert "trigger: manual" in request["messages"][-1]["content"]
    assert [m["content"] for m in request["messages"][2:4]] == [
        "discord alex: hello all",
        "otherbot (bot): overseer, beep",
    ]
