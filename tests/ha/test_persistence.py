"""Nothing a user set or the overseer remembered is lost across reloads and restarts."""

from __future__ import annotations

from datetime import timedelta

from homeassistant.util import dt as dt_util

from ..ollama_stub import call
from .harness import ready_in, say, setup_overseer, tick

STORAGE_KEY = "overseer.room1"
BOOK_KEY = "overseer.room1.book"


def document(data: dict) -> dict:
    """The room's document as Home Assistant's store keeps it."""
    return {"version": 1, "minor_version": 1, "key": STORAGE_KEY, "data": data}


async def test_memory_audit_cooldowns_and_controls_survive_a_reload(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    await hass.services.async_call(
        "overseer", "memory_write", {"slot": 1, "text": "alex likes the lift"}, blocking=True
    )
    await hass.services.async_call(
        "select", "select_option", {"entity_id": "select.arena_site_mode", "option": "admin"}, blocking=True
    )
    await hass.services.async_call(
        "select",
        "select_option",
        {"entity_id": "select.arena_overseer_mode", "option": "commentary"},
        blocking=True,
    )
    for switch in ("switch.arena_lights_locked_on", "switch.arena_dry_run"):
        await hass.services.async_call("switch", "turn_on", {"entity_id": switch}, blocking=True)
    freezer.tick(10)

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()

    loop = entry.runtime_data.loop
    assert loop.state.memory.slots[0] == "alex likes the lift"
    assert [r["tool"] for r in loop.state.audit.as_list()] == ["lift_up"]
    # Still running, not reset: ready 50 s from now, as before the reload.
    assert ready_in(hass, "sensor.arena_lift_cooldown") == 50
    assert hass.states.get("select.arena_site_mode").state == "admin"
    assert hass.states.get("select.arena_overseer_mode").state == "commentary"
    assert hass.states.get("switch.arena_lights_locked_on").state == "on"
    assert hass.states.get("switch.arena_dry_run").state == "on"


async def test_state_is_read_back_after_a_restart(hass, hass_storage, freezer, ollama_stub, room):
    started = dt_util.utcnow().timestamp()
    hass_storage[STORAGE_KEY] = document(
        {
            "memory": ["one", "two", "three"],
            "audit": [{"ts": started - 5, "tool": "neato_start", "outcome": "executed", "decision_id": "x"}],
            "ledger": {"cooldown_until": {"neato": started + 100}, "executed_at": [started - 5]},
            "site_mode": "lockdown",
            "lights_locked_on": True,
            "mode": "control",
            "dry_run": False,
        }
    )
    await setup_overseer(hass, ollama_stub)
    assert hass.states.get("select.arena_site_mode").state == "lockdown"
    assert ready_in(hass, "sensor.arena_vacuum_cooldown") == 100
    say(hass, "alex", "overseer vacuum")
    await tick(hass, freezer)
    state_update = ollama_stub.requests[0]["messages"][1]["content"]
    assert "memory: 1=one, 2=two, 3=three" in state_update
    assert "actions: 1/3 used in 300s" in ollama_stub.requests[0]["messages"][-1]["content"]


async def test_unload_writes_immediately_and_malformed_storage_falls_back(
    hass, hass_storage, ollama_stub, room
):
    hass_storage[STORAGE_KEY] = document({"memory": "not a list", "site_mode": "chaos", "ledger": [1, 2]})
    entry = await setup_overseer(hass, ollama_stub)
    loop = entry.runtime_data.loop
    assert loop.state.memory.slots == ("", "", "")
    assert loop.state.controls.site_mode.value == "open"
    await hass.services.async_call("overseer", "memory_write", {"slot": 2, "text": "kept"}, blocking=True)
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert hass_storage[STORAGE_KEY]["data"]["memory"] == ["", "kept", ""]


async def test_what_guards_the_room_is_written_within_a_second_and_the_history_within_minutes(
    hass, hass_storage, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    await tick(hass, freezer, 1)  # the critical document's delay
    # A crash now keeps the cooldown and the budget: the lift cannot be raised again at once.
    critical = hass_storage[STORAGE_KEY]["data"]
    assert critical["ledger"]["cooldown_until"]["lift"] > 0 and len(critical["ledger"]["executed_at"]) == 1
    assert "audit" not in critical and "incidents" not in critical  # the large part is apart
    assert BOOK_KEY not in hass_storage  # the audit waits, with every change of the next minutes
    for text in ("a", "b", "c"):  # a busy while: more changes
        await hass.services.async_call("overseer", "memory_write", {"slot": 1, "text": text}, blocking=True)
        await tick(hass, freezer, 5)
    assert hass_storage[STORAGE_KEY]["data"]["memory"][0] == "c"
    assert BOOK_KEY not in hass_storage
    await tick(hass, freezer, 300)
    assert [record["tool"] for record in hass_storage[BOOK_KEY]["data"]["audit"]] == ["lift_up"]


async def test_a_room_saved_in_one_document_keeps_its_audit_and_incidents(
    hass, hass_storage, freezer, ollama_stub, room
):
    started = dt_util.utcnow().timestamp()
    hass_storage[STORAGE_KEY] = document(
        {
            "memory": ["kept", "", ""],
            "audit": [{"ts": started - 5, "tool": "neato_start", "outcome": "executed", "decision_id": "x"}],
            "incidents": [],
            "incident_number": 7,
        }
    )
    entry = await setup_overseer(hass, ollama_stub)
    loop = entry.runtime_data.loop
    assert [record.tool for record in loop.state.audit.latest(5)] == ["neato_start"]
    assert await hass.config_entries.async_unload(entry.entry_id)
    # Split on the next write, nothing lost: the history in the book, the rest where it was.
    assert [record["tool"] for record in hass_storage[BOOK_KEY]["data"]["audit"]] == ["neato_start"]
    assert hass_storage[STORAGE_KEY]["data"]["memory"] == ["kept", "", ""]
    assert hass_storage[STORAGE_KEY]["data"]["incident_number"] == 7
    assert "audit" not in hass_storage[STORAGE_KEY]["data"]


async def test_an_upgrade_never_leaves_the_history_in_neither_document(
    hass, hass_storage, freezer, ollama_stub, room
):
    started = dt_util.utcnow().timestamp()
    audit = [{"ts": started - 5, "tool": "neato_start", "outcome": "executed", "decision_id": "x"}]
    hass_storage[STORAGE_KEY] = document({"memory": ["kept", "", ""], "audit": audit})
    await setup_overseer(hass, ollama_stub)
    await hass.services.async_call("overseer", "memory_write", {"slot": 2, "text": "new"}, blocking=True)
    await tick(hass, freezer, 1)  # the main document is rewritten without the history
    assert "audit" not in hass_storage[STORAGE_KEY]["data"]
    # A crash now must not lose it: the book was written before the main document dropped it.
    assert [record["tool"] for record in hass_storage[BOOK_KEY]["data"]["audit"]] == ["neato_start"]


async def test_cooldown_sensor_says_when_the_group_is_ready_without_ticking(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    assert hass.states.get("sensor.arena_lights_cooldown").state == "unknown"  # never used yet
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.bench", state="on"))
    say(hass, "alex", "overseer turn on the bench light")
    await tick(hass, freezer)
    state = hass.states.get("sensor.arena_lights_cooldown")
    assert state.attributes["device_class"] == "timestamp"
    ready_at = dt_util.parse_datetime(state.state)
    assert ready_at == dt_util.utcnow().replace(microsecond=0) + timedelta(seconds=20)
    for _ in range(3):
        await tick(hass, freezer)
        # A countdown is the frontend's job: the state is not rewritten every tick.
        assert hass.states.get("sensor.arena_lights_cooldown").last_updated == state.last_updated
    await tick(hass, freezer, seconds=30)
    assert ready_in(hass, "sensor.arena_lights_cooldown") < 0  # in the past: ready


async def test_removing_the_entry_deletes_its_storage(hass, hass_storage, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    await hass.services.async_call("overseer", "memory_write", {"slot": 1, "text": "x"}, blocking=True)
    assert await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()
    assert STORAGE_KEY not in hass_storage and BOOK_KEY not in hass_storage


async def test_a_prompt_copied_to_the_config_folder_wins_and_gets_the_name(
    hass, tmp_path, freezer, ollama_stub, room
):
    hass.config.config_dir = str(tmp_path)
    prompts = tmp_path / "overseer" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "system.md").write_text("I am <NAME>, keeper of the arena. <NAME> decides.")
    await setup_overseer(hass, ollama_stub, data={"name": "Warden"})
    say(hass, "alex", "warden?")
    await tick(hass, freezer)
    assert (
        ollama_stub.requests[0]["messages"][0]["content"]
        == "I am Warden, keeper of the arena. Warden decides."
    )


async def test_a_missing_name_falls_back_to_the_default(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub, data={"name": "   "})
    say(hass, "alex", "overseer, hello")
    await tick(hass, freezer)
    assert ollama_stub.requests[0]["messages"][0]["content"].startswith("You are Overseer,")
