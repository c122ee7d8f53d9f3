"""Translate Home Assistant's live state into the core's plain World."""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util

from .core.world import Entity, Lift, Rover, RoverField, SiteMode, World, colour_name, rover_field
from .settings import Settings

MISSING = "unavailable"


@dataclass(slots=True)
class Controls:
    """The switches and selects that lock the room down, as they are right now."""

    site_mode: SiteMode = SiteMode.OPEN
    lights_locked_on: bool = False


def _entity(hass: HomeAssistant, entity_id: str) -> Entity:
    """One entity; a configured entity that does not exist reads as unavailable."""
    state = hass.states.get(entity_id)
    if state is None:
        return Entity(entity_id, entity_id, MISSING)
    entry = er.async_get(hass).async_get(entity_id)
    aliases = tuple(sorted(alias for alias in entry.aliases if isinstance(alias, str))) if entry else ()
    return Entity(entity_id, _name(state), state.state, _detail(state), aliases)


def _name(state: State) -> str:
    """Return the friendly name a person in the room would use."""
    return str(state.attributes.get("friendly_name") or state.object_id.replace("_", " "))


def _detail(state: State) -> str:
    """One short extra: a light's colour, a vacuum's error or battery, a unit."""
    attributes = state.attributes
    if state.domain == "light" and state.state == "on":
        return colour_name(attributes.get("rgb_color"))
    if state.domain == "vacuum":
        parts = []
        if state.state == "error" and attributes.get("status"):
            parts.append(f"error={attributes['status']}")
        if isinstance(attributes.get("battery_level"), int | float):
            parts.append(f"battery={attributes['battery_level']}%")
        return ", ".join(parts)
    unit = attributes.get("unit_of_measurement")
    return str(unit) if unit else ""


def _without_field(name: str) -> str:
    """'Rover 1 docked' -> 'Rover 1': the words before the one that says what is reported."""
    words = name.split()
    for index, word in enumerate(words):
        if rover_field(word, word) is not RoverField.OTHER:
            return " ".join(words[:index])
    return ""


def _rovers(hass: HomeAssistant, entity_ids: tuple[str, ...]) -> tuple[Rover, ...]:
    """Return the rover entities grouped by their Home Assistant device, one Rover per device."""
    entities = er.async_get(hass)
    devices = dr.async_get(hass)
    groups: dict[str, list[tuple[RoverField, Entity]]] = {}
    for entity_id in entity_ids:
        entity = _entity(hass, entity_id)
        entry = entities.async_get(entity_id)
        device = devices.async_get(entry.device_id) if entry and entry.device_id else None
        rover_name = (device.name_by_user or device.name) if device else None
        # Without a device, the entity's name less the field it reports names the rover.
        rover_name = rover_name or _without_field(entity.name) or entity_id.partition(".")[2]
        label = entity.name.removeprefix(rover_name).strip() or entity.name
        groups.setdefault(rover_name, []).append(
            (rover_field(entity_id, label), Entity(entity_id, label, entity.state, entity.detail))
        )
    return tuple(Rover(name, tuple(fields)) for name, fields in groups.items())


def build_world(
    hass: HomeAssistant,
    settings: Settings,
    controls: Controls,
    memory: tuple[str, ...],
    active_people: tuple[str, ...],
    incidents: tuple[str, ...] = (),
) -> World:
    """Build the room as it is at this instant."""
    lift = None
    if settings.lift_cover:
        lift = Lift(cover=_entity(hass, settings.lift_cover))
    elif settings.lift_up_script or settings.lift_down_script:
        lift = Lift(
            up_script=_entity(hass, settings.lift_up_script) if settings.lift_up_script else None,
            down_script=_entity(hass, settings.lift_down_script) if settings.lift_down_script else None,
        )
    return World(
        local_time=dt_util.now().isoformat(timespec="seconds"),
        site_mode=controls.site_mode,
        lights_locked_on=controls.lights_locked_on,
        rovers=_rovers(hass, settings.rover_entities),
        lift=lift,
        vacuum=_entity(hass, settings.vacuum_entity) if settings.vacuum_entity else None,
        vacuum_clear_errors=(
            _entity(hass, settings.vacuum_clear_errors_script)
            if settings.vacuum_clear_errors_script
            else None
        ),
        lights=tuple(_entity(hass, entity_id) for entity_id in settings.light_entities),
        counter=_entity(hass, settings.counter_entity) if settings.counter_entity else None,
        extras=tuple(_entity(hass, entity_id) for entity_id in settings.state_entities),
        active_people=active_people,
        memory=memory,
        incidents=incidents,
        asset_entities=settings.asset_entities,
    )
