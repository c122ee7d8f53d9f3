"""The demo room's fault buttons open incidents in the overseer that watches it."""

from __future__ import annotations

from pytest_homeassistant_custom_component.common import async_capture_events

from .harness import load_demo, tick


async def test_the_demo_fault_buttons_open_and_clear_incidents(hass, freezer, ollama_stub, monkeypatch):
    await load_demo(hass, monkeypatch, OLLAMA_URL=ollama_stub.url)
    events = async_capture_events(hass, "overseer_incident")

    await hass.services.async_call(
        "button", "press", {"entity_id": "button.neato_jam_the_brush"}, blocking=True
    )
    await tick(hass, freezer, 5)
    assert hass.states.get("vacuum.neato").state == "error"
    assert [(e.data["asset_id"], e.data["fault"], e.data["status"]) for e in events] == [
        ("vacuum.neato", "vacuum_error", "open")
    ]

    await hass.services.async_call(
        "button", "press", {"entity_id": "button.rover_2_drop_off_the_network"}, blocking=True
    )
    for _ in range(26):  # past the two-minute grace period
        await tick(hass, freezer, 5)
    assert hass.states.get("sensor.rover_2_activity").state == "unavailable"
    assert [(e.data["asset_id"], e.data["fault"]) for e in events][-1] == ("Rover 2", "unavailable")
    assert hass.states.get("sensor.arena_open_incidents").state == "2"

    await hass.services.async_call("vacuum", "start", {"entity_id": "vacuum.neato"}, blocking=True)
    for _ in range(12):  # the rover is back after three minutes
        await tick(hass, freezer, 5)
    assert hass.states.get("sensor.rover_2_activity").state != "unavailable"
    assert sorted(e.data["reason"] for e in events if e.data.get("reason")) == ["cleared", "cleared"]
