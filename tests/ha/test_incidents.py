"""Incidents inside Home Assistant: the room's devices fail, the overseer opens one ticket each."""

from __future__ import annotations

from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import OPTIONS, incident_events, say, setup_overseer, status, tick

GRACE = 120
WINDOW = 600


def open_incidents(hass) -> int:
    return int(hass.states.get("sensor.arena_open_incidents").state)


async def test_a_vacuum_error_opens_one_incident_shown_everywhere(
    hass, freezer, ollama_stub, room, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_incident")
    assert open_incidents(hass) == 0

    hass.states.async_set("vacuum.neato", "error", {"friendly_name": "Neato", "status": "Brush stuck"})
    await tick(hass, freezer, 5)

    assert incident_events(events) == [("INC-0001", "open", "vacuum_error", None)]
    assert open_incidents(hass) == 1
    [shown] = (await status(await hass_ws_client(hass)))["incidents"]
    assert shown["asset_id"] == "vacuum.neato" and shown["detail"] == "Brush stuck"
    assert shown["checks"] == {"no error": False}
    assert shown["timeline"][0]["what"] == "opened"
    # The chat loop's next decision sees it in one line (with triage's status of the moment).
    say(hass, "alex", "overseer what's wrong with the vacuum?")
    await tick(hass, freezer)
    await tick(hass, freezer)
    # The question's decision (the vacuum's error may have had a world-event decision before
    # the desk's check opened the incident).
    state_update = next(
        r["messages"][1]["content"]
        for r in ollama_stub.requests
        if "tools" in r and "trigger: direct_address" in r["messages"][-1]["content"]
    )
    assert "open incidents:\n- INC-0001 " in state_update
    assert ": vacuum.neato vacuum_error (Brush stuck)" in state_update


async def test_a_flapping_fault_stays_one_incident_and_resolves_once_it_stays_away(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_incident")
    for _ in range(5):
        hass.states.async_set("vacuum.neato", "error", {"status": "Wheel jammed"})
        await tick(hass, freezer, 5)
        hass.states.async_set("vacuum.neato", "docked", {"battery_level": 90})
        await tick(hass, freezer, 5)

    assert [e[0] for e in incident_events(events) if e[3] is None] == ["INC-0001"]
    assert open_incidents(hass) == 1
    for _ in range(WINDOW // 5 + 1):
        await tick(hass, freezer, 5)
    assert incident_events(events)[-1] == ("INC-0001", "resolved", "vacuum_error", "resolved")
    assert open_incidents(hass) == 0


async def test_a_rover_that_drops_off_opens_an_incident_after_the_grace_period(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_incident")
    for entity_id in OPTIONS["rover_entities"]:
        hass.states.async_set(entity_id, "unavailable")
    for _ in range(GRACE // 5 - 2):
        await tick(hass, freezer, 5)
    assert events == []  # a blip is not a fault

    for _ in range(3):
        await tick(hass, freezer, 5)
    [(incident_id, state, fault, _)] = incident_events(events)
    assert (state, fault) == ("open", "unavailable")


async def test_extra_assets_are_watched_and_incidents_survive_a_reload(hass, freezer, ollama_stub, room):
    hass.states.async_set("binary_sensor.pump_problem", "off", {"device_class": "problem"})
    entry = await setup_overseer(
        hass, ollama_stub, options={**OPTIONS, "asset_entities": ["binary_sensor.pump_problem"]}
    )
    events = async_capture_events(hass, "overseer_incident")
    hass.states.async_set("binary_sensor.pump_problem", "on", {"device_class": "problem"})
    await tick(hass, freezer, 5)
    assert incident_events(events) == [("INC-0001", "open", "problem_reported", None)]

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    await tick(hass, freezer, 5)
    assert open_incidents(hass) == 1
    assert len(incident_events(events)) == 1  # the same incident, not opened again

    hass.states.async_set("vacuum.neato", "error", {"status": "Bin full"})
    await tick(hass, freezer, 5)
    assert incident_events(events)[-1] == ("INC-0002", "open", "vacuum_error", None)  # ids are never reused


async def test_a_device_that_goes_offline_with_an_open_error_does_not_clear_it(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    events = async_capture_events(hass, "overseer_incident")
    hass.states.async_set("vacuum.neato", "error", {"status": "Brush stuck"})
    await tick(hass, freezer, 5)
    hass.states.async_set("vacuum.neato", "unavailable")
    for _ in range(GRACE // 5 - 2):
        await tick(hass, freezer, 5)
    # Offline for less than the grace period: nothing is known, nothing is cleared.
    assert incident_events(events) == [("INC-0001", "open", "vacuum_error", None)]
    for _ in range(3):
        await tick(hass, freezer, 5)
    # Offline for good: a second incident; the error is not taken as fixed.
    assert incident_events(events) == [
        ("INC-0001", "open", "vacuum_error", None),
        ("INC-0002", "open", "unavailable", None),
    ]
    assert open_incidents(hass) == 2


async def test_unknown_is_not_a_fault(hass, freezer, ollama_stub, room):
    hass.states.async_set("button.pump_reset", "unknown")
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "asset_entities": ["button.pump_reset"]})
    events = async_capture_events(hass, "overseer_incident")
    for _ in range(40):
        await tick(hass, freezer, 5)
    assert events == []
