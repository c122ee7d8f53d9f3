"""Policy: available and blocked tools with the contract's reason codes."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.policy import (
    Ledger,
    Limits,
    availability,
    check_call,
    configured_tools,
    tool_block,
)
from custom_components.overseer.core.tools import CooldownGroup, Refusal
from custom_components.overseer.core.world import Entity, Lift, SiteMode, World

from ..contract import ROOM_TOOLS as CONTRACT_ROOM_TOOLS
from .worlds import demo_world, light

# The demo room has no button box: every room tool but the counter's.
ROOM_TOOLS = CONTRACT_ROOM_TOOLS - {"counter_adjust"}


def blocked(world, ledger=Ledger(), limits=Limits(), now=1000.0):
    return {name: block for name, block in availability(world, ledger, limits, now).blocked}


def test_everything_available_in_an_open_idle_room():
    result = availability(demo_world(), Ledger(), Limits(), 1000.0)
    assert result.blocked == ()
    assert set(result.available) == ROOM_TOOLS | {"chat_say", "memory_read", "memory_write"}


def test_unconfigured_targets_are_not_mentioned_at_all():
    world = World()
    assert configured_tools(world) == ("chat_say", "memory_read", "memory_write")
    assert blocked(world) == {}
    no_script = demo_world(vacuum_clear_errors=None)
    assert "neato_clear_errors" not in configured_tools(no_script)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [(SiteMode.ADMIN, Refusal.SITE_MODE_ADMIN), (SiteMode.LOCKDOWN, Refusal.SITE_MODE_LOCKDOWN)],
)
def test_site_mode_locks_every_room_tool(mode, reason):
    result = blocked(demo_world(site_mode=mode))
    assert set(result) == ROOM_TOOLS
    assert {block.reason for block in result.values()} == {reason}


def test_lights_locked_on_blocks_room_controls_only():
    result = blocked(demo_world(lights_locked_on=True))
    assert {name: b.reason for name, b in result.items()} == {"ha_set_entity": Refusal.LIGHTS_LOCKED_ON}


def test_busy_and_unavailable_from_entity_states():
    moving = demo_world(lift=Lift(cover=Entity("cover.lift", "lift", "opening")))
    assert blocked(moving)["lift_up"].reason is Refusal.BUSY
    cleaning = demo_world(vacuum=Entity("vacuum.neato", "neato", "cleaning"))
    result = blocked(cleaning)
    assert result["neato_start"].reason is Refusal.BUSY
    assert "neato_send_home" not in result  # sending it home is how a run stops
    gone = demo_world(vacuum=Entity("vacuum.neato", "neato", "unavailable"))
    assert {b.reason for b in blocked(gone).values()} == {Refusal.UNAVAILABLE}
    dark = demo_world(lights=(light("shelf", "unavailable"), light("bench", "unknown")))
    assert blocked(dark)["ha_set_entity"].reason is Refusal.UNAVAILABLE


def test_lift_scripts_busy_while_either_runs():
    scripts = Lift(
        up_script=Entity("script.up", "up", "on"), down_script=Entity("script.down", "down", "off")
    )
    result = blocked(demo_world(lift=scripts))
    assert result["lift_up"].reason is Refusal.BUSY and result["lift_down"].reason is Refusal.BUSY
    only_up = Lift(up_script=Entity("script.up", "up", "off"))
    assert "lift_down" not in configured_tools(demo_world(lift=only_up))


def test_cooldown_per_group_with_remaining_seconds():
    limits = Limits(cooldowns={CooldownGroup.LIFT: 60})
    ledger = Ledger().after_execution("lift_up", 1000.0, limits)
    result = blocked(demo_world(), ledger, limits, now=1012.5)
    assert result["lift_down"].reason is Refusal.COOLDOWN
    assert result["lift_down"].remaining == 48
    assert "neato_start" not in result
    assert blocked(demo_world(), ledger, limits, now=1060.0) == {}


def test_budget_counts_executions_in_the_window():
    limits = Limits(
        action_budget=2, action_window=300, cooldowns={CooldownGroup.LIFT: 0, CooldownGroup.HA: 0}
    )
    ledger = (
        Ledger().after_execution("lift_up", 1000.0, limits).after_execution("ha_set_entity", 1100.0, limits)
    )
    result = blocked(demo_world(), ledger, limits, now=1200.0)
    assert {b.reason for b in result.values()} == {Refusal.RATE_LIMIT}
    assert result["neato_start"].remaining == 100
    assert blocked(demo_world(), ledger, limits, now=1300.5) == {}
    # chat and memory are not actions and are never rate limited
    assert tool_block("chat_say", demo_world(), ledger, limits, 1200.0) is None


def test_ledger_stays_bounded_and_survives_persistence():
    limits = Limits(action_budget=3)
    ledger = Ledger()
    for t in range(1000):
        ledger = ledger.after_execution("ha_set_entity", float(t * 10), limits)
    assert len(ledger.executed_at) <= 3
    assert Ledger.from_dict(ledger.as_dict()) == ledger
    assert Ledger.from_dict({"cooldown_until": {"lift": "x", "evil": 1}, "executed_at": "no"}) == Ledger()
    assert Ledger.from_dict(None) == Ledger()


def test_execution_check_codes():
    world = demo_world()
    offered = frozenset(availability(world, Ledger(), Limits(), 0).available)

    def reason(name, args, w=world, offer=offered):
        verdict = check_call(name, args, offer, w, Ledger(), Limits(colour_names=frozenset({"purple"})), 0.0)
        return verdict.refusal.reason if verdict.refusal else None

    assert reason("lift_up", {}) is None
    assert reason("self_destruct", {}) is Refusal.NOT_ALLOWLISTED
    assert reason(["lift_up"], {}) is Refusal.NOT_ALLOWLISTED
    assert (
        reason("ha_set_entity", {"entity_id": "lock.front_door", "state": "off"}) is Refusal.NOT_ALLOWLISTED
    )
    assert reason("ha_set_entity", {"entity_id": "light.*", "state": "off"}) is Refusal.NOT_ALLOWLISTED
    assert (
        reason("ha_set_entity", {"entity_id": "light.shelf", "state": "explode"}) is Refusal.INVALID_ARGUMENTS
    )
    assert reason("ha_set_entity", {"entity_id": "switch.fan", "state": "red"}) is Refusal.INVALID_ARGUMENTS
    assert reason("ha_set_entity", {"entity_id": "light.shelf", "state": "Purple"}) is None
    assert reason("lift_up", {"force": True}) is Refusal.INVALID_ARGUMENTS
    assert reason("lift_up", {}, offer=frozenset()) is Refusal.NOT_AVAILABLE  # blocked earlier, fine now
    cooling = Ledger().after_execution("lift_up", 0.0, Limits())
    # Not offered and still blocked: the live reason says more than "not offered".
    verdict = check_call("lift_down", {}, frozenset(), world, cooling, Limits(), 1.0)
    assert verdict.refusal.reason is Refusal.COOLDOWN
    # a lock that flipped after the context was built
    assert reason("lift_up", {}, w=replace(world, site_mode=SiteMode.LOCKDOWN)) is Refusal.SITE_MODE_LOCKDOWN
    half_dark = replace(world, lights=(light("shelf", "unavailable"), light("bench")))
    assert (
        reason("ha_set_entity", {"entity_id": "light.shelf", "state": "on"}, w=half_dark)
        is Refusal.UNAVAILABLE
    )


def test_consequential_tools_are_never_executed_directly():
    world = demo_world()
    limits = Limits(consequential=frozenset({"lift_up"}))
    verdict = check_call("lift_up", {}, {"lift_up"}, world, Ledger(), limits, 0.0)
    assert verdict.refusal.reason is Refusal.NEEDS_APPROVAL


# Property: what the context offers, the executor accepts in the same state.

STATES = [
    "on",
    "off",
    "unavailable",
    "unknown",
    "opening",
    "closing",
    "open",
    "closed",
    "cleaning",
    "returning",
    "docked",
    "error",
    "idle",
]


@st.composite
def rooms(draw):
    state = st.sampled_from(STATES)
    lights = tuple(light(f"l{i}", draw(state)) for i in range(draw(st.integers(0, 4))))
    lift = draw(
        st.sampled_from(
            [
                None,
                Lift(cover=Entity("cover.lift", "lift", draw(state))),
                Lift(
                    up_script=Entity("script.up", "up", draw(state)),
                    down_script=Entity("script.down", "down", draw(state)),
                ),
            ]
        )
    )
    vacuum = draw(st.none() | st.builds(lambda s: Entity("vacuum.v", "v", s), state))
    world = World(
        site_mode=draw(st.sampled_from(list(SiteMode))),
        lights_locked_on=draw(st.booleans()),
        lift=lift,
        vacuum=vacuum,
        vacuum_clear_errors=draw(st.none() | st.builds(lambda s: Entity("script.c", "c", s), state)),
        lights=lights,
    )
    limits = Limits(action_budget=draw(st.integers(0, 4)), action_window=draw(st.sampled_from([10.0, 300.0])))
    ledger = Ledger()
    for name, at in draw(
        st.lists(st.tuples(st.sampled_from(sorted(ROOM_TOOLS)), st.floats(0, 1000)), max_size=6)
    ):
        ledger = ledger.after_execution(name, at, limits)
    return world, ledger, limits, draw(st.floats(0, 2000))


def valid_arguments(name, world):
    if name == "chat_say":
        return {"text": "hello"}
    if name == "memory_write":
        return {"slot": 2, "text": "remember"}
    if name == "ha_set_entity":
        target = next((li for li in world.lights if not li.missing), world.lights[0])
        return {"entity_id": target.entity_id, "state": "off"}
    return {}


@settings(max_examples=400, deadline=None)
@given(rooms())
def test_policy_never_offers_what_its_execution_check_refuses(room):
    world, ledger, limits, now = room
    offered = availability(world, ledger, limits, now).available
    for name in offered:
        verdict = check_call(
            name, valid_arguments(name, world), frozenset(offered), world, ledger, limits, now
        )
        assert verdict.refusal is None, (name, verdict)
    for name, _ in availability(world, ledger, limits, now).blocked:
        verdict = check_call(
            name, valid_arguments(name, world), frozenset([name]), world, ledger, limits, now
        )
        assert verdict.refusal is not None, name
