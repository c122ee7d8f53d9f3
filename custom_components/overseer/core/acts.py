"""The room's devices and what can be done to them, as plain data every language layer shares.

A line that states a device's state or a deed, and a request that asks for an action, are
both read against the same things: the room's devices (their names from Home Assistant's
registries) and acts. The tool registry says which act each tool does to which device, so
nothing here branches on a tool's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .world import MISSING_STATES, READS_TRUE, Entity, Rover, RoverField, World

# The lift and the vacuum are one each per room: their device keys are their roles.
LIFT = "lift"
VACUUM = "vacuum"


class Kind(StrEnum):
    """What a device is: which state words and acts apply to it."""

    LIGHT = "light"
    LIFT = "lift"
    VACUUM = "vacuum"
    # Watched, never acted on: lines state what it does, no tool moves it.
    ROVER = "rover"


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

    key: the entity id of a light, LIFT / VACUUM, or ROVER_KEY and a rover's name. names: its
    registry name, its aliases and the option's words, as people write them. state: Home
    Assistant's state ("on", "off", "open", "closed", "opening", "closing", "cleaning", "docked",
    …), or a rover's facts in words. colour: a light's nearest colour name while it is on, else
    "". known: False when its state cannot be read (a lift run by scripts has no position; an
    unavailable entity), so no statement about it is judged.
    facts: what its several sensors show true or false of it, where one state cannot say it all
    (a rover: ("docked", True), ("charging", False)); a fact no sensor shows is absent.
    """

    key: str
    kind: Kind
    names: tuple[str, ...]
    state: str
    colour: str = ""
    known: bool = True
    facts: tuple[tuple[str, bool], ...] = ()
    # The Home Assistant entity whose state this is ("" for a lift run by scripts, and a rover).
    entity_id: str = ""


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
            devices.append(
                Device(LIFT, Kind.LIFT, names, cover.state, known=known, entity_id=cover.entity_id)
            )
        else:
            scripts = [entity for entity in (lift.up_script, lift.down_script) if entity is not None]
            names = (LIFT_NAME, *(name for script in scripts for name in _names(script)))
            devices.append(Device(LIFT, Kind.LIFT, names, "unknown", known=False))
    if world.vacuum is not None:
        vacuum = world.vacuum
        devices.append(
            Device(
                VACUUM,
                Kind.VACUUM,
                _names(vacuum),
                vacuum.state,
                known=not vacuum.missing,
                entity_id=vacuum.entity_id,
            )
        )
    devices.extend(
        Device(
            light.entity_id,
            Kind.LIGHT,
            _names(light),
            light.state,
            colour=light.detail if light.state == "on" else "",
            known=not light.missing,
            entity_id=light.entity_id,
        )
        for light in world.lights
    )
    return tuple(devices)


# What a rover's activity sensor reads, by whether the rover is out driving.
_DRIVING = frozenset({"driving", "racing", "moving", "running"})
_RESTING = frozenset({"idle", "docked", "charging", "parked", "resting", "stopped"})
# How a binary sensor, or a plain sensor named for its field, reads false; any reading neither
# true nor false ("home", "at_dock") is no fact.
_READS_FALSE = frozenset({"off", "false", "no"})
# In the order the model is told them: "Rover 3: docked, charging, not driving, idle".
_ROVER_FACTS = ("docked", "charging", "driving", "idle", "undocked")
ROVER_KEY = "rover:"


def rover_device(rover: Rover) -> Device:
    """Return a rover as lines speak of it: its facts from its docked, charging and activity sensors.

    scripts/develop's overseer said "Rover 3 is idle and not charging." of a rover charging on its dock.
    """
    facts: dict[str, bool] = {}
    for field_of, entity in rover.fields:
        if entity.missing:
            continue
        reading = entity.state.casefold()
        if field_of in (RoverField.DOCKED, RoverField.CHARGING):
            if reading in READS_TRUE or reading == field_of.value:
                facts[field_of.value] = True
            elif reading in _READS_FALSE or reading in (f"un{field_of.value}", f"not_{field_of.value}"):
                facts[field_of.value] = False
        elif field_of is RoverField.ACTIVITY and reading in _DRIVING | _RESTING:
            facts["driving"] = reading in _DRIVING
    if facts.get("docked") and facts.get("driving"):
        # Docked and driving is a rover leaving or arriving: which one it is, nothing says. Its
        # activity unknown, a docked rover may be leaving all the same: that is not said either.
        del facts["docked"], facts["driving"]
    if "driving" in facts:
        facts["idle"] = not facts["driving"]
    if "docked" in facts:
        facts["undocked"] = not facts["docked"]
    facts = {name: facts[name] for name in _ROVER_FACTS if name in facts}
    shown = ", ".join(name if holds else f"not {name}" for name, holds in facts.items() if name != "undocked")
    return Device(
        f"{ROVER_KEY}{rover.name}",
        Kind.ROVER,
        (rover.name,),
        shown or "unknown",
        known=bool(facts),
        facts=tuple(facts.items()),
        # A fact about a rover is a fact about the sensors that show it: the first stands for them.
        entity_id=rover.fields[0][1].entity_id if rover.fields else "",
    )


def device_name(device: Device) -> str:
    """Return the name people read a device by: its first name, else its key."""
    return device.names[0] if device.names else device.key


def device_names(devices: Iterable[Device]) -> dict[str, str]:
    """Return each device's name by its key: "light.shelf": "Shelf"."""
    return {device.key: device_name(device) for device in devices}


def stated_devices(world: World) -> tuple[Device, ...]:
    """Return the devices a line may state something of: the room's, and the rovers it watches."""
    return (*room_devices(world), *(rover_device(rover) for rover in world.rovers))


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


def shows_done(device: Device, deed: Deed) -> bool:
    """Return whether the device shows the deed done already ("raise the lift" with the lift up)."""
    return expected_state(device, (deed,)) == device


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
    return replace(device, state=state, colour=colour)


# Where a device on its way ends up, as the deed that sends it there leaves it: a lift "opening"
# is as good as "open", a vacuum "docked" as one "returning" to its dock.
_ON_ITS_WAY = MappingProxyType({"opening": "open", "closing": "closed", "docked": "returning"})


def changes(device: Device, deed: Deed) -> bool:
    """Return whether the deed would change what the device shows: not done already, nor under way.

    A device whose state cannot be read may change.
    """
    if not device.known:
        return True
    after = expected_state(device, (deed,))
    settled = _ON_ITS_WAY.get(device.state, device.state)
    return (after.state, after.colour) != (settled, device.colour)


def light_deed(arguments: Mapping[str, Any]) -> Deed:
    """Return what a light call's arguments do: its light on, off or to a colour."""
    state = str(arguments.get("state", ""))
    act = Act.ON if state == "on" else Act.OFF if state == "off" else Act.COLOUR
    return Deed(str(arguments.get("entity_id", "")), act, state if act is Act.COLOUR else "")


def fixed_deed(device: str, act: Act) -> Callable[[Mapping[str, Any]], Deed]:
    """Return a tool's deed when its arguments change nothing about it (lift_up opens the lift)."""
    return lambda _: Deed(device, act)
