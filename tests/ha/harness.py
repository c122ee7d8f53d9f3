"""Helpers for tests inside Home Assistant's test harness: the room, an entry, time and chat."""

from __future__ import annotations

import math
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from awesomeversion import AwesomeVersion
from freezegun.api import FrozenDateTimeFactory
from homeassistant import loader
from homeassistant.config_entries import ConfigEntry, ConfigEntryState
from homeassistant.const import __version__ as HA_VERSION
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.overseer.const import DOMAIN

from ..ollama_stub import OllamaStub

MODEL = "llama3.2:latest"
CONFIG = Path(__file__).parents[2] / "config"
ROOM_SERVICES = (
    ("cover", "open_cover"),
    ("cover", "close_cover"),
    ("vacuum", "start"),
    ("vacuum", "return_to_base"),
    ("vacuum", "locate"),
    ("light", "turn_on"),
    ("light", "turn_off"),
    # Not switch: the overseer's own switch platform registers the real switch services.
    ("input_boolean", "turn_on"),
    ("input_boolean", "turn_off"),
    ("script", "turn_on"),
    # Triage's tools: the room's devices here are bare states, with no entity or config entry.
    ("homeassistant", "update_entity"),
    ("homeassistant", "reload_config_entry"),
)
OPTIONS: dict[str, Any] = {
    "rover_entities": ["sensor.rover1_activity", "sensor.rover1_driver", "binary_sensor.rover1_docked"],
    "lift_cover": "cover.lift",
    "vacuum_entity": "vacuum.neato",
    "light_entities": ["light.shelf", "light.bench", "input_boolean.fan"],
    "state_entities": ["sensor.arena_temperature"],
}


async def setup_overseer(
    hass: HomeAssistant,
    stub: OllamaStub,
    options: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
    entry_id: str = "room1",
) -> MockConfigEntry:
    """Add and load an overseer entry pointed at the stub."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Arena",
        entry_id=entry_id,
        unique_id="arena" if entry_id == "room1" else entry_id,
        data={
            "name": "Overseer",
            "room": "Arena",
            "backend": "ollama",
            "url": stub.url,
            "model": MODEL,
            **(data or {}),
        },
        options=OPTIONS if options is None else options,
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def tick(hass: HomeAssistant, freezer: FrozenDateTimeFactory, seconds: float = 2) -> None:
    """Move time on by one gate interval and let every started decision finish."""
    freezer.tick(seconds)
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)


def say(hass: HomeAssistant, user: str, text: str, **extra: Any) -> None:
    """A human line arriving from a chat bridge."""
    hass.bus.async_fire("overseer_chat_message", {"user": user, "text": text, **extra})


def ready_in(hass: HomeAssistant, entity_id: str) -> float:
    """Seconds until a cooldown sensor's timestamp; negative once the group is ready."""
    ready_at = dt_util.parse_datetime(hass.states.get(entity_id).state)
    # The state holds whole seconds, so the seconds left round up.
    return math.ceil((ready_at - dt_util.utcnow()).total_seconds())


async def status(client: Any, entry_id: str = "room1") -> dict[str, Any]:
    """The room's status object, as the debug card reads it."""
    await client.send_json_auto_id({"type": "overseer/status", "entry_id": entry_id})
    response = await client.receive_json()
    assert response["success"], response
    return response["result"]


def llm_context(platform: str) -> llm.LLMContext:
    """The context an agent hands to an LLM API, with the fields this version has (user_prompt
    was dropped from LLMContext by 2026.2; agent_id came in 2026.11)."""
    values = {
        "platform": platform,
        "context": Context(),
        "user_prompt": None,
        "language": "en",
        "assistant": "conversation",
        "device_id": None,
        "agent_id": None,
    }
    return llm.LLMContext(**{f.name: values[f.name] for f in fields(llm.LLMContext)})


# From this release LLM tools return llm.ToolResult and carry ToolAnnotations: the tests expect
# them by the version, so that a rename in Home Assistant fails here instead of passing quietly.
TOOL_RESULTS = AwesomeVersion(HA_VERSION) >= AwesomeVersion("2026.10.0")


def tool_answer(result: Any) -> dict[str, Any]:
    """What a guardrails tool answered, as the calling agent's model reads it.

    From 2026.10 Home Assistant hands back an llm.ToolResult, whose error flag core's agents
    pass to their model: it must be set for every call that did not run.
    """
    if not TOOL_RESULTS:
        assert isinstance(result, dict), result
        return result
    assert isinstance(result, llm.ToolResult), result
    assert result.error is (result.data["success"] is False), result
    return result.data


async def set_select(hass: HomeAssistant, entity_id: str, option: str) -> None:
    """Choose a select's option, as a person or an automation does."""
    await hass.services.async_call(
        "select", "select_option", {"entity_id": entity_id, "option": option}, blocking=True
    )


async def load_demo(hass: HomeAssistant, monkeypatch: Any, **environment: str) -> None:
    """The demo room from config/, which configures its own overseer as scripts/develop does."""
    # The demo integration lives in config/custom_components, beside a link to ours.
    monkeypatch.setattr(sys, "path", [*sys.path, str(CONFIG)])
    hass.data.pop(loader.DATA_CUSTOM_COMPONENTS, None)  # found again, as enable_custom_integrations does
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert await async_setup_component(hass, "overseer_demo", {"overseer_demo": {}})
    await hass.async_block_till_done()
    await hass.async_block_till_done()  # the overseer entry the demo added
    assert hass.states.get("sensor.arena_loop_phase") is not None, "the demo did not set up the overseer"


# What the fault rules say of an incident; triage's own steps have reasons of their own.
DETECTION = (None, "cleared", "returned", "resolved")


def incident_events(events) -> list[tuple[str, str, str, str | None]]:
    """The detection events: opened (no reason), cleared, returned, resolved by itself."""
    return [
        (e.data["incident_id"], e.data["status"], e.data["fault"], e.data.get("reason"))
        for e in events
        if e.data.get("reason") in DETECTION
    ]


def count_setups(entry: ConfigEntry) -> list[ConfigEntryState]:
    """From now on, every state the entry enters: one LOADED per setup (a reload is one)."""
    states: list[ConfigEntryState] = []
    entry.async_on_state_change(lambda: states.append(entry.state))
    return states


def name_the_lift(hass: HomeAssistant, state: str, *aliases: str) -> None:
    """Give cover.lift a registry entry with the names the household gave it as aliases."""
    registry = er.async_get(hass)
    hass.states.async_remove("cover.lift")
    lift = registry.async_get_or_create("cover", "test", "lift", suggested_object_id="lift")
    assert lift.entity_id == "cover.lift"
    registry.async_update_entity(lift.entity_id, aliases=set(aliases))
    hass.states.async_set("cover.lift", state, {"friendly_name": "Lift"})
