"""Plain snapshots of the room, and which changes in it are worth a decision."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

MISSING_STATES = frozenset({"unavailable", "unknown"})
# How a binary sensor, or a plain sensor named for what it reports ("docked"), reads true.
READS_TRUE = frozenset({"on", "true", "yes"})
_WORDS = re.compile(r"[^a-z0-9]+")


class SiteMode(StrEnum):
    """Site-wide lock set by automations: admin and lockdown take the room away."""

    OPEN = "open"
    ADMIN = "admin"
    LOCKDOWN = "lockdown"

    def loosens_to(self, other: SiteMode) -> bool:
        """Return whether moving to other frees the room, as disarming a panel does.

        The order is open < admin < lockdown.
        """
        order = tuple(SiteMode)
        return order.index(other) < order.index(self)


class Target(StrEnum):
    """Options that name what a tool acts on, by their key in the entry's options."""

    LIFT_COVER = "lift_cover"
    LIFT_UP_SCRIPT = "lift_up_script"
    LIFT_DOWN_SCRIPT = "lift_down_script"
    VACUUM = "vacuum_entity"
    VACUUM_CLEAR_ERRORS_SCRIPT = "vacuum_clear_errors_script"
    LIGHTS = "light_entities"
    COUNTER = "counter_entity"


class AssetKind(StrEnum):
    """What an asset is, which decides the fault rules it is checked against."""

    LIFT = "lift"
    VACUUM = "vacuum"
    ROVER = "rover"
    LIGHT = "light"
    ENTITY = "entity"


class RoverField(StrEnum):
    """What a rover entity reports, recognised from its entity id or name."""

    DOCKED = "docked"
    CHARGING = "charging"
    DRIVER = "driver"
    ACTIVITY = "activity"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Entity:
    """One Home Assistant entity as the core sees it."""

    entity_id: str
    name: str
    state: str
    # Small, already-chosen extras: a light's colour, a vacuum's error.
    detail: str = ""
    # The other names people gave it in Home Assistant's entity registry.
    aliases: tuple[str, ...] = ()

    @property
    def domain(self) -> str:
        """The part of the entity id before the dot."""
        return self.entity_id.partition(".")[0]

    @property
    def missing(self) -> bool:
        """Unavailable or unknown: nothing can be done with it."""
        return self.state in MISSING_STATES


@dataclass(frozen=True, slots=True)
class Rover:
    """One rover: the entities of one device, each tagged with the field it reports."""

    name: str
    fields: tuple[tuple[RoverField, Entity], ...]


@dataclass(frozen=True, slots=True)
class Lift:
    """The lift: a cover, or a pair of scripts."""

    cover: Entity | None = None
    up_script: Entity | None = None
    down_script: Entity | None = None


@dataclass(frozen=True, slots=True)
class World:
    """Everything the overseer may know about the room at one instant."""

    local_time: str = ""
    site_mode: SiteMode = SiteMode.OPEN
    lights_locked_on: bool = False
    rovers: tuple[Rover, ...] = ()
    lift: Lift | None = None
    vacuum: Entity | None = None
    vacuum_clear_errors: Entity | None = None
    lights: tuple[Entity, ...] = ()
    # The button box's count (a counter or input_number), when configured.
    counter: Entity | None = None
    extras: tuple[Entity, ...] = ()
    active_people: tuple[str, ...] = ()
    memory: tuple[str, ...] = field(default=("", "", ""))
    # Open incidents, one line each (core/faults.py Incident.summary).
    incidents: tuple[str, ...] = ()
    # Entities watched for faults beyond the room's own devices (the asset_entities option).
    asset_entities: tuple[str, ...] = ()

    def assets(self) -> dict[str, tuple[AssetKind, tuple[str, ...]]]:
        """Return the watched assets by id: what each is and its entity ids (a rover is all of its own)."""
        found: dict[str, tuple[AssetKind, tuple[str, ...]]] = {}
        singles = [
            (self.lift.cover if self.lift else None, AssetKind.LIFT),
            (self.vacuum, AssetKind.VACUUM),
            *((light, AssetKind.LIGHT) for light in self.lights),
        ]
        for entity, kind in singles:
            if entity is not None:
                found[entity.entity_id] = (kind, (entity.entity_id,))
        for rover in self.rovers:
            found[rover.name] = (AssetKind.ROVER, tuple(entity.entity_id for _, entity in rover.fields))
        for entity_id in self.asset_entities:
            found.setdefault(entity_id, (AssetKind.ENTITY, (entity_id,)))
        return found

    def entities(self, target: Target) -> tuple[Entity, ...]:
        """Return the configured entities behind one target option; empty when it is not configured."""
        if target is Target.LIGHTS:
            return self.lights
        lift = self.lift or Lift()
        entity = {
            Target.LIFT_COVER: lift.cover,
            Target.LIFT_UP_SCRIPT: lift.up_script,
            Target.LIFT_DOWN_SCRIPT: lift.down_script,
            Target.VACUUM: self.vacuum,
            Target.VACUUM_CLEAR_ERRORS_SCRIPT: self.vacuum_clear_errors,
            Target.COUNTER: self.counter,
        }[target]
        return () if entity is None else (entity,)


def rover_field(entity_id: str, name: str) -> RoverField:
    """Guess what a rover entity reports from the words of its id and name ("undocked" is not "docked")."""
    words = set(_WORDS.split(f"{entity_id} {name}".lower()))
    for candidate in (RoverField.DOCKED, RoverField.CHARGING, RoverField.DRIVER, RoverField.ACTIVITY):
        if candidate.value in words:
            return candidate
    if any(word.startswith("dock") for word in words):
        return RoverField.DOCKED
    return RoverField.OTHER


class Role(StrEnum):
    """Why an entity is watched; decides which of its changes are high-signal."""

    ROVER = "rover"
    LIFT = "lift"
    VACUUM = "vacuum"
    LIGHT = "light"
    STATE = "state"


def world_event(role: Role, rover: RoverField | None, old: str | None, new: str) -> str | None:
    """Name a high-signal change worth waking the model for, or None.

    old is None for an entity seen for the first time: that is never an event.
    """
    if old is None or old == new:
        return None
    if new in MISSING_STATES and old not in MISSING_STATES:
        return "became_unavailable"
    if old in MISSING_STATES and new not in MISSING_STATES:
        return "came_back"
    if role is Role.ROVER:
        if rover is RoverField.DOCKED:
            return "docked" if new in READS_TRUE or new == RoverField.DOCKED.value else "undocked"
        if rover is RoverField.DRIVER:
            return "driver_changed"
    if role is Role.LIFT and (new in ("open", "closed") or (old, new) == ("off", "on")):
        # A cover arriving at either end, or a lift script starting its run.
        return "lift_moved"
    if role is Role.VACUUM and new == "error":
        return "vacuum_error"
    return None


_PALETTE = {
    "red": (255, 0, 0),
    "orange": (255, 165, 0),
    "yellow": (255, 255, 0),
    "green": (0, 128, 0),
    "cyan": (0, 255, 255),
    "blue": (0, 0, 255),
    "purple": (128, 0, 128),
    "pink": (255, 105, 180),
    "white": (255, 255, 255),
}


def colour_name(rgb: object) -> str:
    """Return the nearest everyday colour name for a light's rgb_color, or '' if there is none."""
    if not isinstance(rgb, list | tuple) or len(rgb) != 3 or not all(isinstance(c, int | float) for c in rgb):
        return ""
    return min(_PALETTE, key=lambda name: sum((a - b) ** 2 for a, b in zip(_PALETTE[name], rgb, strict=True)))
