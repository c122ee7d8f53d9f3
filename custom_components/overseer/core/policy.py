"""The authority: which tools may run now, asked at context time and again at execution."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .tools import ROOM_GROUPS, TOOLS, ArgumentError, Group, Refusal, Safety, validate_arguments
from .world import Entity, SiteMode, World


@dataclass(frozen=True, slots=True)
class Limits:
    """Guardrail settings from the options flow."""

    cooldown_lift: float = 60
    cooldown_neato: float = 120
    cooldown_ha: float = 20
    action_budget: int = 3
    action_window: float = 300
    # Tools a user marked as needing a human's approval: never executed directly.
    consequential: frozenset[str] = frozenset()

    def cooldown(self, group: Group) -> float:
        """Cooldown of a room group in seconds; chat and memory have none."""
        return {
            Group.LIFT: self.cooldown_lift,
            Group.NEATO: self.cooldown_neato,
            Group.HA: self.cooldown_ha,
        }.get(group, 0.0)

    def safety(self, name: str) -> Safety:
        """A tool's safety class, raised to consequential where the user asked for it."""
        return Safety.CONSEQUENTIAL if name in self.consequential else TOOLS[name].safety


@dataclass(frozen=True, slots=True)
class Ledger:
    """What past executions left behind: running cooldowns and the budget's spend."""

    cooldown_until: Mapping[str, float] = field(default_factory=dict)
    executed_at: tuple[float, ...] = ()

    def after_execution(self, name: str, now: float, limits: Limits) -> Ledger:
        """The ledger once a tool has run: cooldown started, budget spent."""
        group = TOOLS[name].group
        if group not in ROOM_GROUPS:
            return self
        cooldowns = dict(self.cooldown_until)
        cooldowns[group] = now + limits.cooldown(group)
        # Only the spend inside the window matters, and never more than the budget.
        recent = [t for t in self.executed_at if t > now - limits.action_window]
        keep = max(limits.action_budget, 1)
        return Ledger(cooldowns, tuple([*recent, now][-keep:]))

    def remaining(self, group: Group, now: float) -> int:
        """Whole seconds left on a group's cooldown, 0 when ready."""
        return max(0, math.ceil(self.cooldown_until.get(group, 0.0) - now))

    def as_dict(self) -> dict[str, Any]:
        """Plain data for persistence."""
        return {"cooldown_until": dict(self.cooldown_until), "executed_at": list(self.executed_at)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Ledger:
        """Rebuild from persisted data, ignoring anything malformed."""
        if not isinstance(data, Mapping):
            return cls()
        raw_cooldowns = data.get("cooldown_until")
        cooldowns = {
            str(group): float(until)
            for group, until in (raw_cooldowns.items() if isinstance(raw_cooldowns, Mapping) else ())
            if group in ROOM_GROUPS and isinstance(until, int | float)
        }
        raw_times = data.get("executed_at")
        times = tuple(
            float(t) for t in (raw_times if isinstance(raw_times, list) else ()) if isinstance(t, int | float)
        )
        return cls(cooldowns, times)


@dataclass(frozen=True, slots=True)
class Block:
    """Why a tool cannot run, with seconds left where waiting helps."""

    reason: Refusal
    remaining: int | None = None


@dataclass(frozen=True, slots=True)
class Availability:
    """The split every decision cycle shows the model."""

    available: tuple[str, ...]
    blocked: tuple[tuple[str, Block], ...]


def configured_tools(world: World) -> tuple[str, ...]:
    """Tools whose target exists; a tool without one is not mentioned at all."""
    lift = world.lift
    present = {
        "chat_say": True,
        "memory_read": True,
        "memory_write": True,
        "lift_up": lift is not None and (lift.cover or lift.up_script) is not None,
        "lift_down": lift is not None and (lift.cover or lift.down_script) is not None,
        "neato_start": world.vacuum is not None,
        "neato_send_home": world.vacuum is not None,
        "neato_locate": world.vacuum is not None,
        "neato_clear_errors": world.vacuum is not None and world.vacuum_clear_errors is not None,
        "ha_set_entity": bool(world.lights),
    }
    return tuple(name for name in TOOLS if present[name])


def _targets(name: str, world: World) -> tuple[tuple[Entity, ...], tuple[Entity, ...]]:
    """(entities that must be present, entities whose state can make the tool busy)."""
    group = TOOLS[name].group
    if group is Group.LIFT and world.lift is not None:
        lift = world.lift
        if lift.cover is not None:
            return (lift.cover,), (lift.cover,)
        script = lift.up_script if name == "lift_up" else lift.down_script
        running = tuple(s for s in (lift.up_script, lift.down_script) if s is not None)
        return (script,) if script else (), running
    if group is Group.NEATO and world.vacuum is not None:
        needed = (world.vacuum,)
        if name == "neato_clear_errors" and world.vacuum_clear_errors is not None:
            needed = (world.vacuum, world.vacuum_clear_errors)
        return needed, (world.vacuum,)
    return (), ()


def tool_block(name: str, world: World, ledger: Ledger, limits: Limits, now: float) -> Block | None:
    """Why a configured tool cannot run in this state, or None when it can.

    The single rule both the context builder and the executor ask.
    """
    spec = TOOLS[name]
    if spec.group not in ROOM_GROUPS:
        return None
    if world.site_mode is SiteMode.ADMIN:
        return Block(Refusal.SITE_MODE_ADMIN)
    if world.site_mode is SiteMode.LOCKDOWN:
        return Block(Refusal.SITE_MODE_LOCKDOWN)
    if spec.group is Group.HA and world.lights_locked_on:
        return Block(Refusal.LIGHTS_LOCKED_ON)
    needed, busy_sources = _targets(name, world)
    if any(entity.missing for entity in needed):
        return Block(Refusal.UNAVAILABLE)
    if spec.group is Group.HA and all(light.missing for light in world.lights):
        return Block(Refusal.UNAVAILABLE)
    if any(_is_busy(spec.busy_states, entity) for entity in busy_sources):
        return Block(Refusal.BUSY)
    remaining = ledger.remaining(spec.group, now)
    if remaining:
        return Block(Refusal.COOLDOWN, remaining)
    recent = [t for t in ledger.executed_at if t > now - limits.action_window]
    if len(recent) >= limits.action_budget:
        return Block(
            Refusal.RATE_LIMIT, max(1, math.ceil(min(recent, default=now) + limits.action_window - now))
        )
    return None


def _is_busy(busy_states: frozenset[str], entity: Entity) -> bool:
    """A cover or vacuum in a working state, or a lift script still running."""
    return entity.state in busy_states or (entity.domain == "script" and entity.state == "on")


def availability(world: World, ledger: Ledger, limits: Limits, now: float) -> Availability:
    """Split the configured tools into callable now and blocked with a reason."""
    available: list[str] = []
    blocked: list[tuple[str, Block]] = []
    for name in configured_tools(world):
        block = tool_block(name, world, ledger, limits, now)
        if block is None:
            available.append(name)
        else:
            blocked.append((name, block))
    return Availability(tuple(available), tuple(blocked))


@dataclass(frozen=True, slots=True)
class Verdict:
    """The execution-time answer for one call: clean arguments, or why not."""

    arguments: dict[str, Any]
    refusal: Block | None = None


def check_call(
    name: Any,
    arguments: Any,
    offered: frozenset[str] | set[str] | tuple[str, ...],
    world: World,
    ledger: Ledger,
    limits: Limits,
    now: float,
) -> Verdict:
    """Decide one call against the state of this instant; never raises."""
    if not isinstance(name, str) or name not in configured_tools(world):
        return Verdict({}, Block(Refusal.NOT_ALLOWLISTED))
    try:
        clean = validate_arguments(name, arguments, usable_allowlist(world, include_missing=True))
    except ArgumentError as err:
        return Verdict({}, Block(err.reason))
    block = tool_block(name, world, ledger, limits, now)
    if block is not None:
        return Verdict(clean, block)
    if name not in offered:
        # Blocked when the context was built, fine now: still not the model's to call.
        return Verdict(clean, Block(Refusal.NOT_AVAILABLE))
    if name == "ha_set_entity":
        target = world.light(clean["entity_id"])
        if target is None or target.missing:
            return Verdict(clean, Block(Refusal.UNAVAILABLE))
    if limits.safety(name) is Safety.CONSEQUENTIAL:
        return Verdict(clean, Block(Refusal.NEEDS_APPROVAL))
    return Verdict(clean)


def usable_allowlist(world: World, include_missing: bool = False) -> dict[str, str]:
    """Lights ha_set_entity may touch; the model is only shown the ones present now."""
    return {light.entity_id: light.domain for light in world.lights if include_missing or not light.missing}
