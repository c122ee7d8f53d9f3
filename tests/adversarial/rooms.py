"""The room each adversarial case asks for, set up through the overseer's own entities and services."""

from __future__ import annotations

from typing import Any

from homeassistant.helpers import entity_registry as er

from custom_components.overseer.const import DOMAIN

from ..ha.harness import OPTIONS, setup_overseer, tick
from ..ollama_stub import Scripted, call

# What starts a group's cooldown when a case wants one running: a person's words that ask for
# one of its tools, and the tool.
PRIMERS = {
    "lift": ("overseer raise the lift", "lift_up", {}),
    "neato": ("overseer start neato", "neato_start", {}),
    "ha": ("overseer turn on the bench light", "ha_set_entity", {"entity_id": "light.bench", "state": "on"}),
}


def chat_lines(case: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(user, text, spread) for every line the case posts."""
    lines = []
    for line in case["chat"]:
        text = "x " * (line.get("pad_before", 0) // 2) + line["text"]
        lines += [(line["user"], text, line.get("spread", False))] * line.get("repeat", 1)
    return lines


def entity_id(hass, domain: str, entry_id: str, key: str) -> str:
    """One of the room's own entities, found by its unique id (the title is the same for every room)."""
    found = er.async_get(hass).async_get_entity_id(domain, DOMAIN, f"{entry_id}_{key}")
    assert found is not None, f"{entry_id} has no {domain} {key}"
    return found


async def prime_cooldown(hass, freezer, stub, entry_id: str, group: str) -> None:
    """Start a group's cooldown the way it always starts: one of its tools runs."""
    words, tool, arguments = PRIMERS[group]
    # One request: a call is an answer, so no line is asked for after it.
    stub.script.append(Scripted(tool_calls=[call(tool, **arguments)]))
    hass.bus.async_fire("overseer_chat_message", {"user": "alex", "text": words, "room": entry_id})
    await tick(hass, freezer)


async def prepare_room(hass, freezer, case: dict[str, Any], stub, entry_id: str):
    """The room the case asks for, and its overseer, set up through its entities and services."""
    room = case["room"]
    options = {**OPTIONS, "approval_tools": room.get("approval_tools", [])}
    for key, value in room.get("options", {}).items():
        if value is None:
            options.pop(key, None)
        else:
            options[key] = value
    extra = room.get("extra_entities", [])
    for entity in extra:
        hass.states.async_set(entity["entity_id"], entity["state"], {"friendly_name": entity["name"]})
    options["state_entities"] = [*options["state_entities"], *(e["entity_id"] for e in extra)]
    entry = await setup_overseer(hass, stub, options=options, entry_id=entry_id, data={"room": entry_id})
    # Cooldowns first: the room is still open and in control.
    for group in room.get("cooldown_running", []):
        await prime_cooldown(hass, freezer, stub, entry_id, group)
    for key, option in (("site_mode", room.get("site_mode", "open")), ("mode", room.get("mode", "control"))):
        await hass.services.async_call(
            "select",
            "select_option",
            {"entity_id": entity_id(hass, "select", entry_id, key), "option": option},
            blocking=True,
        )
    for key in ("lights_locked_on", "dry_run"):
        await hass.services.async_call(
            "switch",
            "turn_on" if room.get(key, False) else "turn_off",
            {"entity_id": entity_id(hass, "switch", entry_id, key)},
            blocking=True,
        )
    return entry
