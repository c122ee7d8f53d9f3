"""Only entities that make sense for the room exist: no cooldown sensor for a group without tools."""

from __future__ import annotations

from homeassistant.helpers import entity_registry as er

from custom_components.overseer.status import build_status

from .harness import OPTIONS, setup_overseer


async def test_a_room_without_a_vacuum_has_no_vacuum_cooldown(hass, ollama_stub, room):
    options = {key: value for key, value in OPTIONS.items() if key != "vacuum_entity"}
    entry = await setup_overseer(hass, ollama_stub, options=options)
    registry = er.async_get(hass)
    keys = {e.translation_key for e in er.async_entries_for_config_entry(registry, entry.entry_id)}
    assert {"cooldown_lift", "cooldown_ha"} <= keys
    assert "cooldown_neato" not in keys
    status = build_status(entry.runtime_data)
    assert [group["group"] for group in status["groups"]] == ["lift", "ha"]
    assert set(status["cooldowns"]) == {"lift", "ha"}
    assert not any(name.startswith("neato_") for name in status["tools"])


async def test_the_status_carries_each_tools_group_and_safety(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub, options={**OPTIONS, "approval_tools": ["lift_down"]})
    status = build_status(entry.runtime_data)
    assert status["tools"]["lift_up"] == {"group": "lift", "safety": "reversible"}
    assert status["tools"]["lift_down"] == {"group": "lift", "safety": "consequential"}
    assert status["tools"]["chat_say"] == {"group": None, "safety": "read"}
    lift = next(group for group in status["groups"] if group["group"] == "lift")
    assert lift["tools"] == ["lift_up", "lift_down"] and lift["cooldown_s"] == 60 and lift["remaining"] == 0


async def test_an_entity_whose_target_was_removed_leaves_the_registry(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    registry = er.async_get(hass)
    assert registry.async_get("sensor.arena_vacuum_cooldown") is not None
    assert registry.async_get("switch.arena_lights_locked_on") is not None
    options = {key: value for key, value in OPTIONS.items() if key not in ("vacuum_entity", "light_entities")}
    hass.config_entries.async_update_entry(entry, options=options)  # the options flow's reload follows
    await hass.async_block_till_done()
    assert registry.async_get("sensor.arena_vacuum_cooldown") is None
    assert registry.async_get("sensor.arena_lights_cooldown") is None
    assert registry.async_get("switch.arena_lights_locked_on") is None  # nothing left for it to lock
    assert registry.async_get("switch.arena_dry_run") is not None
    assert hass.states.get("sensor.arena_lift_cooldown") is not None
