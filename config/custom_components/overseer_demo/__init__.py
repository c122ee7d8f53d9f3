"""A demo room for trying the overseer: rovers, a lift, a vacuum, lights and a chatty crowd.

Besides the overseer it sets up a second bot, the Rover guide (conversation.py), and the room's
orchestrator with both taking part, so a human line in the chat is routed to one of them,
scored, and refined by the other when it falls short.

Development only: scripts/develop and the end-to-end tests load it from config/.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import Any

import voluptuous as vol
from homeassistant.config_entries import SOURCE_IMPORT, SOURCE_USER, ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.helpers.typing import ConfigType

from .const import ALIASES, DOMAIN, LIGHTS, PEOPLE, ROVERS, SIGNAL_ROOM

CONFIG_SCHEMA = vol.Schema({DOMAIN: vol.Any(None, {})}, extra=vol.ALLOW_EXTRA)
PLATFORMS = [
    Platform.BINARY_SENSOR,
    Platform.BUTTON,
    Platform.CONVERSATION,
    Platform.COVER,
    Platform.LIGHT,
    Platform.SENSOR,
    Platform.SWITCH,
    Platform.VACUUM,
]
OVERSEER_ENTRY_ID = "overseer_demo_arena"
ORCHESTRATOR_ENTRY_ID = "overseer_demo_arena_orchestrator"
OVERSEER_AGENT = "conversation.arena_agent"
GUIDE_AGENT = "conversation.rover_guide"
CROWD_INTERVAL = timedelta(seconds=12)
# What the crowd says among itself, most of the time.
CROWD_CHATTER = (
    "did you see that drift",
    "rover 2 is cheating again",
    "lights look great tonight",
    "i dare you to make this harder",
    "bot pick a side",
    "go go go",
    "that was close",
)
# And now and then it asks the bots something: about once in three minutes. Every question is
# a routing call, an answer and a judge's call for the room's one model; asked every minute and
# a half, as it was, a small model on a CPU never caught up and a newcomer's question waited
# behind the crowd's for minutes.
CROWD_ASKS = (
    "who parked on the dock",
    "overseer, raise the lift!",
    "overseer what do you think of sam's driving",
)
ASK_CHANCE = 0.07
CROWD_LINES = (*CROWD_CHATTER, *CROWD_ASKS)


@dataclass
class Rover:
    """One simulated rover."""

    activity: str = "idle"
    driver: str = "none"
    docked: bool = True
    charging: bool = True
    # Off the network (a demo fault): its entities read unavailable.
    online: bool = True


@dataclass
class Room:
    """The simulated room every demo entity reads."""

    rovers: dict[str, Rover] = field(default_factory=lambda: {name: Rover() for name in ROVERS})
    crowd: bool = False
    random: random.Random = field(default_factory=lambda: random.Random(7))
    # The vacuum entity, for the demo fault that jams it.
    vacuum: Any = None


def overseer_options() -> dict[str, Any]:
    """The demo room, mapped in the overseer's options."""
    rover_entities = []
    for index in range(1, len(ROVERS) + 1):
        rover_entities += [
            f"sensor.rover_{index}_activity",
            f"sensor.rover_{index}_driver",
            f"binary_sensor.rover_{index}_docked",
            f"binary_sensor.rover_{index}_charging",
        ]
    return {
        "rover_entities": rover_entities,
        "lift_cover": "cover.lift",
        "vacuum_entity": "vacuum.neato",
        "light_entities": [f"light.{name.lower()}" for name in LIGHTS],
        "state_entities": ["input_text.chat_as_you"],
    }


def orchestrator_options() -> dict[str, Any]:
    """The room's two bots, named and described for the router, and the contract's limits."""
    return {
        "participants": [
            {
                "agent_id": OVERSEER_AGENT,
                "name": "Overseer",
                "description": "runs the arena: the lift, the lights, the vacuum, the game and the crowd",
            },
            {
                "agent_id": GUIDE_AGENT,
                "name": "Rover guide",
                "description": "the track marshal: where each rover is, who drives it, docked or charging",
            },
        ],
        "max_iterations": 3,
        "quality_threshold": 0.8,
        # The overseer answers through its own decision loop and model: up to three requests
        # (the first, after its calls, a true line), each within its request timeout. The
        # bundled model on two cores takes 20-30 s a request: a minute cut answers off mid-way.
        "delegation_timeout": 150,
    }


def _model_settings() -> dict[str, str]:
    """Which model the demo overseer asks: OLLAMA_URL, or what scripts/develop chose."""
    backend = os.environ.get("OVERSEER_DEMO_BACKEND", "ollama")
    if backend == "openai":
        return {
            "backend": "openai",
            "url": os.environ["OVERSEER_DEMO_URL"],
            "model": os.environ["OVERSEER_DEMO_MODEL"],
        }
    return {
        "backend": "ollama",
        "url": os.environ.get("OLLAMA_URL", "http://localhost:11434"),
        "model": os.environ.get("OLLAMA_MODEL", "llama3.2:latest"),
    }


def _demo_entry(
    entry_id: str, data: dict[str, Any], options: dict[str, Any], title: str, unique_id: str
) -> ConfigEntry:
    """An overseer entry the demo owns."""
    # Created directly rather than through the flow: the flow rightly refuses a server that
    # does not answer, and the demo must start (and say so on the card) without one.
    return ConfigEntry(
        data=data,
        discovery_keys=MappingProxyType({}),
        domain="overseer",
        entry_id=entry_id,
        minor_version=1,
        options=options,
        source=SOURCE_USER,
        subentries_data=None,
        title=title,
        unique_id=unique_id,
        version=1,
    )


@callback
def _ensure_entry(hass: HomeAssistant, entry: ConfigEntry, model: dict[str, str]) -> None:
    """Add the demo's entry once; later, keep it pointed at the chosen model."""
    existing = hass.config_entries.async_get_entry(entry.entry_id)
    if existing is None:
        if any(other.unique_id == entry.unique_id for other in hass.config_entries.async_entries("overseer")):
            return  # someone set this room's up themselves: leave it alone
        hass.async_create_task(hass.config_entries.async_add(entry))
    elif any(existing.data.get(key) != value for key, value in model.items()):
        hass.config_entries.async_update_entry(existing, data={**existing.data, **model})


@callback
def _add_aliases(hass: HomeAssistant) -> None:
    """Give the room's devices their Spanish names as aliases, keeping every alias already set."""
    registry = er.async_get(hass)
    for entity_id, aliases in ALIASES.items():
        entry = registry.async_get(entity_id)
        if entry is None:
            continue
        missing = [alias for alias in aliases if alias not in entry.aliases]
        if not missing:
            continue
        if isinstance(entry.aliases, set):  # before 2026.x: an unordered set
            registry.async_update_entity(entity_id, aliases=entry.aliases | set(missing))
        else:
            # An ordered list, where an empty one stands for the entity's own name: keep it named.
            current = list(entry.aliases) or [er.COMPUTED_NAME]
            registry.async_update_entity(entity_id, aliases=[*current, *missing])


@callback
def _ensure_overseer(hass: HomeAssistant) -> None:
    """Configure the overseer and the orchestrator for the demo room once, pointed at the chosen model.

    OVERSEER_DEMO_ORCHESTRATOR=0 leaves the orchestrator out: the overseer alone then answers
    the room's chat, as it does in a room with one bot.
    """
    if os.environ.get("OVERSEER_DEMO_AUTOCONFIGURE", "1") == "0":
        return  # the end-to-end tests configure it through the config flow instead
    model = _model_settings()
    ours = hass.config_entries.async_get_entry(OVERSEER_ENTRY_ID)
    if ours is None and any(
        entry.entry_id != ORCHESTRATOR_ENTRY_ID for entry in hass.config_entries.async_entries("overseer")
    ):
        return  # someone configured their own overseer: leave it alone
    _ensure_entry(
        hass,
        _demo_entry(
            OVERSEER_ENTRY_ID,
            {"name": "Overseer", "room": "Arena", **model},
            overseer_options(),
            "Arena",
            "arena",
        ),
        model,
    )
    if os.environ.get("OVERSEER_DEMO_ORCHESTRATOR", "1") == "0":
        if hass.config_entries.async_get_entry(ORCHESTRATOR_ENTRY_ID) is not None:
            hass.async_create_task(hass.config_entries.async_remove(ORCHESTRATOR_ENTRY_ID))
        return
    _ensure_entry(
        hass,
        _demo_entry(
            ORCHESTRATOR_ENTRY_ID,
            {"kind": "orchestrator", "name": "Orchestrator", "room": "Arena", **model},
            orchestrator_options(),
            "Arena orchestrator",
            "arena_orchestrator",
        ),
        model,
    )


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Create the demo room entry from YAML."""
    if not hass.config_entries.async_entries(DOMAIN):
        hass.async_create_task(
            hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_IMPORT}, data={})
        )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Start the simulated room and its crowd."""
    room = Room()
    entry.runtime_data = room
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    _add_aliases(hass)
    _ensure_overseer(hass)

    @callback
    def crowd_step(_: Any) -> None:
        if not room.crowd:
            return
        pick = room.random
        if (draw := pick.random()) < 0.6:
            said = pick.choice(CROWD_ASKS if draw < ASK_CHANCE else CROWD_CHATTER)
            hass.bus.async_fire(
                "overseer_chat_message", {"user": pick.choice(PEOPLE), "text": said, "bot": False}
            )
        rover = room.rovers[pick.choice(ROVERS)]
        if pick.random() < 0.5:
            rover.docked = not rover.docked
            rover.charging = rover.docked
            rover.activity = "docked" if rover.docked else "driving"
            rover.driver = "none" if rover.docked else pick.choice(PEOPLE)
        async_dispatcher_send(hass, SIGNAL_ROOM)

    entry.async_on_unload(async_track_time_interval(hass, crowd_step, CROWD_INTERVAL))
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Stop the demo room."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
