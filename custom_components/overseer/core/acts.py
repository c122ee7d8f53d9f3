"""The room's devices and what can be done to them, as plain data every language layer shares.

A line that states a device's state or a deed, and a request that asks for an action, are
both read against the same things: the room's devices (their names from Home Assistant's
registries) and acts. The tool registry says which act each tool does to which device, so
nothing here branches on a tool's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .world import MISSING_STATES, Entity, World

# The lift and the vacuum are one each per room: their device keys are their roles.
LIFT = "lift"
VACUUM = "vacuum"


class Kind(StrEnum):
    """What a device is: which state words and acts apply to it."""

    LIGHT = "light"
    LIFT = "lift"
    VACUUM = "vacuum"


class Act(StrEnum):
    """What a call does to a device, in any language's words."""

    ON = "on"
    OFF = "off"
    # A light set to a colour (Deed.value names it: "blue").
    COLOUR = "colour"
    # The lift up / down.
    OPEN = "open"
    CLOSE = "close"
    # The vacuum.
    START = "start"
    DOCK = "dock"
    LOCATE = "locate"
    CLEAR = "clear"
    # Only in what words ask for: they name the device, in words no sentence reads, so any act
    # on it may be what they mean (core/requests.py).
    ANY = "any"


@dataclass(frozen=True, slots=True)
class Deed:
    """One act on one device: what a call did, a line claims, or a request asks for."""

    device: str
    act: Act
    # The colour of a COLOUR deed, in Home Assistant's English colour names; else "".
    value: str = ""


@dataclass(frozen=True, slots=True)
class Device:
    """One device of the room as lines speak of it.

    key: the entity id of a light, or LIFT / VACUUM. names: its registry name, its aliases and
    the option's words, as people write them. state: Home Assistant's state ("on", "off",
    "open", "closed", "opening", "closing", "cleaning", "docked", …). colour: a light's nearest
    colour name while it is on, else "". known: False when its state cannot be read (a lift run
    by scripts has no position; an unavailable entity), so no statement about it is judged.
    """

    key: str
    kind: Kind
    names: tuple[str, ...]
    state: str
    colour: str = ""
    known: bool = True


def _names(entity: Entity, *extra: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for name in (entity.name, *entity.aliases, *extra) if name))


LIFT_NAME = "Lift"


def room_devices(world: World) -> tuple[Device, ...]:
    """Return the devices a line may state something about, from the room as it is."""
    devices: list[Device] = []
    lift = world.lift
    if lift is not None:
        # Whatever its entity is called ("Slow lift", scripts "Lift up"/"Lift down"), it is the
        # room's lift, as its tools call it: "raise the lift" asks for it.
        if lift.cover is not None:
            cover = lift.cover
            names = tuple(dict.fromkeys((*_names(cover), LIFT_NAME)))
            known = cover.state not in MISSING_STATES
            devices.append(Device(LIFT, Kind.LIFT, names, cover.state, known=known))
        else:
            scripts = [entity for entity in (lift.up_script, lift.down_script) if entity is not None]
            names = (LIFT_NAME, *(name for script in scripts for name in _names(script)))
            devices.append(Device(LIFT, Kind.LIFT, names, "unknown", known=False))
    if world.vacuum is not None:
        vacuum = world.vacuum
        devices.append(Device(VACUUM, Kind.VACUUM, _names(vacuum), vacuum.state, known=not vacuum.missing))
    devices.extend(
        Device(
            light.entity_id,
            Kind.LIGHT,
            _names(light),
            light.state,
            colour=light.detail if light.state == "on" else "",
            known=not light.missing,
        )
        for light in world.lights
    )
    return tuple(devices)


# The state each act leaves its device in; locating or clearing the vacuum leaves it as it was.
LEFT_BY: Mapping[Act, str] = MappingProxyType(
    {
        Act.ON: "on",
        Act.OFF: "off",
        Act.COLOUR: "on",
        Act.OPEN: "open",
        Act.CLOSE: "closed",
        Act.START: "cleaning",
        Act.DOCK: "returning",
    }
)


def expected_state(device: Device, deeds: tuple[Deed, ...]) -> Device:
    """Return the device as the deeds that just ran on it leave it, before its state catches up.

    A line after "lift_up" ran may say the lift is up while the cover still reads "opening".
    """
    state, colour = device.state, device.colour
    for deed in deeds:
        if deed.device != device.key or deed.act not in LEFT_BY:
            continue
        state = LEFT_BY[deed.act]
        # Turned on, a light keeps its colour; set to one, it shows that; anything else shows none.
        colour = deed.value if deed.act is Act.COLOUR else colour if deed.act is Act.ON else ""
    return Device(device.key, device.kind, device.names, state, colour, device.known)


def light_deed(arguments: Mapping[str, Any]) -> Deed:
    """Return what a light call's arguments do: its light on, off or to a colour."""
    state = str(arguments.get("state", ""))
    act = Act.ON if state == "on" else Act.OFF if state == "off" else Act.COLOUR
    return Deed(str(arguments.get("entity_id", "")), act, state if act is Act.COLOUR else "")


def fixed_deed(device: str, act: Act) -> Callable[[Mapping[str, Any]], Deed]:
    """Return a tool's deed when its arguments change nothing about it (lift_up opens the lift)."""
    return lambda _: Deed(device, act)
