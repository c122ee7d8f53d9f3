"""Fixtures of the Home Assistant harness, shared by every suite that runs inside it."""

from __future__ import annotations

import pytest
from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_mock_service

from ..ollama_stub import OllamaStub
from .harness import ROOM_SERVICES


@pytest.fixture(autouse=True)
async def auto_enable_custom_integrations(hass: HomeAssistant, enable_custom_integrations) -> None:
    """Let the harness load custom_components/overseer, beside the core integration every real
    Home Assistant runs (Assist's agents need it)."""
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
async def ollama_stub(socket_enabled):
    """A scripted Ollama server on a free loopback port."""
    stub = OllamaStub()
    await stub.start()
    yield stub
    await stub.stop()


@pytest.fixture
def room(hass: HomeAssistant) -> dict[str, list[ServiceCall]]:
    """The demo room's entities, and every service call made on them."""
    states = {
        "sensor.rover1_activity": ("driving", {"friendly_name": "rover1 activity"}),
        "sensor.rover1_driver": ("alex", {"friendly_name": "rover1 driver"}),
        "binary_sensor.rover1_docked": ("off", {"friendly_name": "rover1 docked"}),
        "cover.lift": ("closed", {"friendly_name": "Lift"}),
        "vacuum.neato": ("docked", {"friendly_name": "Neato", "battery_level": 90}),
        "light.shelf": ("on", {"friendly_name": "Shelf", "rgb_color": [128, 0, 128]}),
        "light.bench": ("off", {"friendly_name": "Bench"}),
        "input_boolean.fan": ("off", {"friendly_name": "Fan"}),
        "sensor.arena_temperature": (
            "21.5",
            {"friendly_name": "Arena temperature", "unit_of_measurement": "°C"},
        ),
    }
    for entity_id, (state, attributes) in states.items():
        hass.states.async_set(entity_id, state, attributes)
    return {
        f"{domain}.{service}": async_mock_service(hass, domain, service) for domain, service in ROOM_SERVICES
    }
