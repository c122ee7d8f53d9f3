"""The tool registry: every tool is whole, and the contract's tools are exactly its entries."""

from __future__ import annotations

from dataclasses import replace

import pytest

from custom_components.overseer.core.policy import (
    Limits,
    binding,
    configured_tools,
    planned_effect,
    vocabulary,
)
from custom_components.overseer.core.tools import (
    DEFAULT_COOLDOWNS,
    TOOL_SPECS,
    Adjust,
    CooldownGroup,
    MemoryWrite,
    NoEffect,
    Safety,
    ServiceCall,
    ToolSpec,
    Vocabulary,
)
from custom_components.overseer.core.world import Target

from ..contract import ROOM_TOOLS, TRIAGE_TOOLS
from .worlds import demo_world

CONTRACT_TOOLS = ROOM_TOOLS | TRIAGE_TOOLS | {"chat_say", "memory_read", "memory_write"}
SAMPLE_VOCABULARY = Vocabulary(
    {"light.shelf": "light"}, frozenset({"red"}), {"Rover 1": ("binary_sensor.rover_1_docked",)}
)
SAMPLE_ARGUMENTS = {
    "text": "hello",
    "slot": 2,
    "entity_id": "light.shelf",
    "state": "red",
    "asset_id": "Rover 1",
    "delta": 1,
    "about": ["lift"],
}


def missing_parts(spec: ToolSpec) -> list[str]:
    """Every part a tool must have, checked; the names of those it lacks."""
    lacks = []
    if not spec.name or not spec.name.isidentifier():
        lacks.append("name")
    if not spec.description.strip():
        lacks.append("description")
    if not spec.title.strip() or len(spec.title) > 40:
        lacks.append("title")
    if not isinstance(spec.safety, Safety):
        lacks.append("safety class")
    schema = spec.json_schema(SAMPLE_VOCABULARY)["function"]
    if schema["name"] != spec.name or any(
        "type" not in param.schema(SAMPLE_VOCABULARY) for param in spec.params
    ):
        lacks.append("argument schema")
    arguments = {name: SAMPLE_ARGUMENTS[name] for name in spec.param_names}
    try:
        spec.validate(arguments, SAMPLE_VOCABULARY)
    except ValueError:
        lacks.append("argument validation")
    if spec.group is None:
        # A targetless tool touches no room: it needs an effect of its own and no target.
        if spec.bindings or spec.effect is None:
            lacks.append("effect")
        else:
            try:
                effect = spec.effect((), arguments)
            except KeyError:
                effect = None
            if not isinstance(effect, NoEffect | MemoryWrite):
                lacks.append("effect")
    elif not spec.bindings:
        # Without a target option, a room tool reaches the asset its argument names.
        reaches = any(param.reaches_asset for param in spec.params) and spec.effect is not None
        if not reaches or not isinstance(spec.effect(("light.shelf",), arguments), ServiceCall):
            lacks.append("target option")
    else:
        for reach in spec.bindings:
            if not isinstance(reach.target, Target):
                lacks.append("target option")
            if not isinstance(reach.action(("light.shelf",), arguments), ServiceCall | Adjust):
                lacks.append("Home Assistant action")
    return lacks


@pytest.mark.parametrize("spec", TOOL_SPECS, ids=lambda spec: spec.name)
def test_every_tool_is_one_whole_entry(spec):
    assert missing_parts(spec) == []


def test_the_walk_notices_a_missing_part():
    lift_up = next(spec for spec in TOOL_SPECS if spec.name == "lift_up")
    assert missing_parts(replace(lift_up, bindings=())) == ["target option"]
    assert missing_parts(replace(lift_up, description=" ")) == ["description"]
    assert missing_parts(replace(lift_up, title="")) == ["title"]
    memory_write = next(spec for spec in TOOL_SPECS if spec.name == "memory_write")
    assert missing_parts(replace(memory_write, params=memory_write.params[:1])) == ["effect"]
    untyped = replace(memory_write.params[0], schema=lambda _: {})
    assert missing_parts(replace(memory_write, params=(untyped, memory_write.params[1]))) == [
        "argument schema"
    ]


def test_the_registry_is_the_contract():
    names = [spec.name for spec in TOOL_SPECS]
    assert len(names) == len(set(names))
    assert set(names) == CONTRACT_TOOLS
    assert {spec.name for spec in TOOL_SPECS if spec.group is not None} == ROOM_TOOLS | TRIAGE_TOOLS
    assert {spec.name for spec in TOOL_SPECS if spec.triage_only} == TRIAGE_TOOLS
    safety = {spec.name: spec.safety.value for spec in TOOL_SPECS}
    assert (safety["asset_refresh"], safety["asset_restart"]) == ("reversible", "consequential")


def test_cooldown_groups_are_one_ordered_enum_with_defaults():
    assert [group.value for group in CooldownGroup] == ["lift", "neato", "ha", "counter"]
    assert set(DEFAULT_COOLDOWNS) == set(CooldownGroup)
    assert Limits().cooldown(CooldownGroup.NEATO) == 120


def test_each_room_tool_runs_the_action_of_the_contract():
    world = demo_world()
    words = vocabulary(world, Limits(colour_names=frozenset({"red"})))
    expected = {
        "lift_up": ("cover", "open_cover", "cover.lift"),
        "lift_down": ("cover", "close_cover", "cover.lift"),
        "neato_start": ("vacuum", "start", "vacuum.neato"),
        "neato_send_home": ("vacuum", "return_to_base", "vacuum.neato"),
        "neato_locate": ("vacuum", "locate", "vacuum.neato"),
        "neato_clear_errors": ("script", "turn_on", "script.neato_clear"),
    }
    for name, (domain, service, entity_id) in expected.items():
        assert planned_effect(name, {}, world) == ServiceCall(domain, service, {"entity_id": entity_id})
    assert words.entities["switch.fan"] == "switch"
    assert planned_effect("ha_set_entity", {"entity_id": "switch.fan", "state": "off"}, world) == ServiceCall(
        "switch", "turn_off", {"entity_id": "switch.fan"}
    )
    assert planned_effect(
        "ha_set_entity", {"entity_id": "light.shelf", "state": "red"}, world
    ) == ServiceCall("light", "turn_on", {"entity_id": "light.shelf", "color_name": "red"})
    assert planned_effect("memory_write", {"slot": 1, "text": "x"}, world) == MemoryWrite(1, "x")


def test_triage_tools_reach_every_entity_of_the_asset_named_and_only_triage_sees_them():
    world = demo_world()
    rover = ["sensor.rover2_activity", "sensor.rover2_driver", "binary_sensor.rover2_docked"]
    assert planned_effect("asset_refresh", {"asset_id": "rover2"}, world) == ServiceCall(
        "homeassistant", "update_entity", {"entity_id": rover}
    )
    assert planned_effect("asset_restart", {"asset_id": "vacuum.neato"}, world) == ServiceCall(
        "homeassistant", "reload_config_entry", {"entity_id": ["vacuum.neato"]}
    )
    assert "asset_refresh" not in configured_tools(world)
    assert {"asset_refresh", "asset_restart"} <= set(configured_tools(world, triage=True))
    with_extra = replace(world, asset_entities=("sensor.freezer",))
    assert vocabulary(with_extra, Limits()).assets["sensor.freezer"] == ("sensor.freezer",)


def test_a_lift_of_scripts_is_reached_through_its_scripts():
    from custom_components.overseer.core.world import Entity, Lift

    scripts = demo_world(
        lift=Lift(
            up_script=Entity("script.up", "up", "off"), down_script=Entity("script.down", "down", "off")
        )
    )
    lift_up = next(spec for spec in TOOL_SPECS if spec.name == "lift_up")
    assert binding(lift_up, scripts).target is Target.LIFT_UP_SCRIPT
    assert planned_effect("lift_down", {}, scripts) == ServiceCall(
        "script", "turn_on", {"entity_id": "script.down"}
    )
