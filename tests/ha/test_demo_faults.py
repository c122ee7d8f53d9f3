"""The demo room's fault buttons open incidents in the overseer that watches it."""

from __future__ import annotations

from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import incident_events, load_demo, tick


async def test_the_demo_fault_buttons_open_and_clear_incidents(hass, freezer, ollama_stub, monkeypatch):
    await load_demo(hass, monkeypatch, OLLAMA_URL=ollama_stub.url)
    events = async_capture_events(hass, "overseer_incident")

    await hass.services.async_call(
        "button", "press", {"entity_id": "button.neato_jam_the_brush"}, blocking=True
    )
    await tick(hass, freezer, 5)
    assert hass.states.get("vacuum.neato").state == "error"
    assert incident_events(events) == [("INC-0001", "open", "vacuum_error", None)]

    await hass.services.async_call(
        "button", "press", {"entity_id": "button.rover_2_drop_off_the_network"}, blocking=True
    )
    for _ in range(26):  # past the two-minute grace period
        await tick(hass, freezer, 5)
    assert hass.states.get("sensor.rover_2_activity").state == "unavailable"
    assert incident_events(events)[-1] == ("INC-0002", "open", "unavailable", None)
    assert {e.data["asset_id"] for e in events if e.data["incident_id"] == "INC-0002"} == {"Rover 2"}
    assert hass.states.get("sensor.arena_open_incidents").state == "2"

    await hass.services.async_call("vacuum", "start", {"entity_id": "vacuum.neato"}, blocking=True)
    for _ in range(12):  # the rover is back after three minutes
        await tick(hass, freezer, 5)
    assert hass.states.get("sensor.rover_2_activity").state != "unavailable"
    assert sorted(reason for *_, reason in incident_events(events) if reason) == ["cleared", "cleared"]
