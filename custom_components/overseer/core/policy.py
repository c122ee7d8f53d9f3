"""The authority: which tools may run now, asked at context time and again at execution."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .acts import Deed
from .requests import fulfils
from .tools import (
    DEFAULT_COOLDOWNS,
    NAMED_TARGETS,
    TOOL_SPECS,
    TOOLS,
    ArgumentError,
    Binding,
    CooldownGroup,
    Effect,
    Refusal,
    Safety,
    ToolSpec,
    Vocabulary,
)
from .world import SiteMode, World


@dataclass(frozen=True, slots=True)
class Limits:
    """Guardrail settings from the options flow."""

    cooldowns: Mapping[CooldownGroup, float] = field(default_factory=lambda: dict(DEFAULT_COOLDOWNS))
    action_budget: int = 3
    action_window: float = 300
    # Tools a user marked as needing a human's approval: never executed directly.
    consequential: frozenset[str] = frozenset()
    # Colour names a light may be set to: Home Assistant's own list, from the shell.
    colour_names: frozenset[str] = frozenset()
    # The most counter_adjust may change the counter by in one call.
    counter_max_step: int = 1

    def cooldown(self, group: CooldownGroup) -> float:
        """Cooldown of a group in seconds."""
        return self.cooldowns.get(group, DEFAULT_COOLDOWNS[group])

    def safety(self, name: str) -> Safety:
        """Return a tool's safety class, raised to consequential where the user asked for it."""
        return Safety.CONSEQUENTIAL if name in self.consequential else TOOLS[name].safety


@dataclass(frozen=True, slots=True)
class Ledger:
    """What past executions left behind: running cooldowns and the budget's spend."""

    cooldown_until: Mapping[str, float] = field(default_factory=dict)
    executed_at: tuple[float, ...] = ()

    def after_execution(self, name: str, now: float, limits: Limits) -> Ledger:
        """Return the ledger once a tool has run: cooldown started, budget spent."""
        group = TOOLS[name].group
        if group is None:
            return self
        cooldowns = dict(self.cooldown_until)
        cooldowns[group] = now + limits.cooldown(group)
        # Only the spend inside the window matters, and never more than the budget.
        keep = max(limits.action_budget, 1)
        return Ledger(cooldowns, tuple([*self.spent(now, limits), now][-keep:]))

    def remaining(self, group: CooldownGroup, now: float) -> int:
        """Whole seconds left on a group's cooldown, 0 when ready."""
        return max(0, math.ceil(self.cooldown_until.get(group, 0.0) - now))

    def spent(self, now: float, limits: Limits) -> list[float]:
        """Return the executions inside the budget's window."""
        return [t for t in self.executed_at if t > now - limits.action_window]

    def visible(self, now: float, limits: Limits) -> tuple[frozenset[str], int]:
        """Return what the card shows of the ledger: the groups cooling down, the budget spent."""
        cooling = frozenset(
            group for group in self.cooldown_until if self.remaining(CooldownGroup(group), now)
        )
        return cooling, len(self.spent(now, limits))

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
            if group in CooldownGroup and isinstance(until, int | float)
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

    @property
    def shown(self) -> tuple[str, ...]:
        """Every tool the split shows the model, callable or blocked."""
        return (*self.available, *(name for name, _ in self.blocked))

    def only(self, names: tuple[str, ...]) -> Availability:
        """Return the same split, narrowed to some of the tools."""
        return Availability(
            tuple(name for name in self.available if name in names),
            tuple((name, block) for name, block in self.blocked if name in names),
        )


def binding(spec: ToolSpec, world: World) -> Binding | None:
    """Return the first way the tool can reach this room, or None when none is configured."""
    for candidate in spec.bindings:
        if world.entities(candidate.target) and all(world.entities(needed) for needed in candidate.requires):
            return candidate
    return None


def is_configured(spec: ToolSpec, world: World) -> bool:
    """Return whether the tool's target exists; a tool without one is not mentioned at all."""
    return not spec.bindings or binding(spec, world) is not None


def planned_effect(name: str, arguments: Mapping[str, Any], world: World) -> Effect:
    """Return what a checked call does in this room: the action of the binding it reaches the room by."""
    spec = TOOLS[name]
    reach = binding(spec, world)
    if reach is not None:
        return reach.action(tuple(entity.entity_id for entity in world.entities(reach.target)), arguments)
    if spec.effect is None:
        raise ValueError(f"{name} has no effect in this room")
    assets = world.assets()
    reached = tuple(
        entity_id
        for param in spec.params
        if param.reaches_asset
        for entity_id in assets[arguments[param.name]][1]
    )
    return spec.effect(reached, arguments)


def configured_tools(world: World, triage: bool = False) -> tuple[str, ...]:
    """Return the room's tools, in registry order; with triage, the tools only triage proposes too."""
    return tuple(
        spec.name for spec in TOOL_SPECS if is_configured(spec, world) and (triage or not spec.triage_only)
    )


def room_tools(world: World, triage: bool = False) -> tuple[str, ...]:
    """List the configured tools that act on the room (those with a cooldown group); triage's too if asked."""
    return tuple(name for name in configured_tools(world, triage) if TOOLS[name].group is not None)


def configured_groups(world: World) -> tuple[CooldownGroup, ...]:
    """Cooldown groups with at least one configured tool, in the enum's order."""
    groups = {TOOLS[name].group for name in configured_tools(world)}
    return tuple(group for group in CooldownGroup if group in groups)


def tool_block(name: str, world: World, ledger: Ledger, limits: Limits, now: float) -> Block | None:
    """Why a configured tool cannot run in this state, or None when it can.

    The single rule both the context builder and the executor ask.
    """
    spec = TOOLS[name]
    if spec.group is None:
        return None
    if world.site_mode is SiteMode.ADMIN:
        return Block(Refusal.SITE_MODE_ADMIN)
    if world.site_mode is SiteMode.LOCKDOWN:
        return Block(Refusal.SITE_MODE_LOCKDOWN)
    if spec.room_control and world.lights_locked_on:
        return Block(Refusal.LIGHTS_LOCKED_ON)
    reach = binding(spec, world)
    if reach is not None:
        targets = world.entities(reach.target)
        required = [entity for needed in reach.requires for entity in world.entities(needed)]
        # A list target (the lights) is usable while any of its entities is.
        if all(entity.missing for entity in targets) or any(entity.missing for entity in required):
            return Block(Refusal.UNAVAILABLE)
        busy_sources = [entity for source in reach.busy_sources for entity in world.entities(source)]
        if any(entity.state in reach.busy_states for entity in busy_sources):
            return Block(Refusal.BUSY)
    remaining = ledger.remaining(spec.group, now)
    if remaining:
        return Block(Refusal.COOLDOWN, remaining)
    recent = ledger.spent(now, limits)
    if len(recent) >= limits.action_budget:
        return Block(
            Refusal.RATE_LIMIT, max(1, math.ceil(min(recent, default=now) + limits.action_window - now))
        )
    return None


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


def vocabulary(world: World, limits: Limits, include_missing: bool = False) -> Vocabulary:
    """Return what arguments may name; the model is only shown the entities present now."""
    entities = {
        entity.entity_id: entity.domain
        for target in NAMED_TARGETS
        for entity in world.entities(target)
        if include_missing or not entity.missing
    }
    assets = {asset_id: entity_ids for asset_id, (_, entity_ids) in world.assets().items()}
    return Vocabulary(entities, limits.colour_names, assets, limits.counter_max_step)


def tool_schemas(names: tuple[str, ...], world: World, limits: Limits) -> list[dict[str, Any]]:
    """Return the JSON schemas of the tools the model is offered."""
    words = vocabulary(world, limits)
    return [TOOLS[name].json_schema(words) for name in names]


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
    claimed: Safety = Safety.READ,
    approved: bool = False,
    asked: frozenset[Deed] | None = None,
) -> Verdict:
    """Decide one call against the state of this instant; never raises.

    A consequential call (by the policy's class, or because whoever proposed it said so: a
    claim can raise the class, never lower it) runs only once a person has approved it.
    asked: in an answer to someone, the acts on a room device their words ask for (None: nobody
    is answered); an act on a room device that is none of them (the opposite, anything instead,
    any act at all when the words asked for none) is refused.
    """
    if not isinstance(name, str) or name not in configured_tools(world, triage=True):
        return Verdict({}, Block(Refusal.NOT_ALLOWLISTED))
    spec = TOOLS[name]
    try:
        clean = spec.validate(arguments, vocabulary(world, limits, include_missing=True))
    except ArgumentError as err:
        return Verdict({}, Block(err.reason))
    if asked is not None and spec.group is not None:
        done = spec.deed(clean) if spec.deed is not None else None
        # A call on an entity the words cannot name (a configured state entity) is not held
        # to them, unless they asked for an act on a room device: then it is something else.
        if (done is None and asked) or (done is not None and not fulfils(asked, done)):
            return Verdict(clean, Block(Refusal.NOT_WHAT_WAS_ASKED))
    block = tool_block(name, world, ledger, limits, now)
    if block is not None:
        return Verdict(clean, block)
    if name not in offered:
        # Blocked when the context was built, fine now: still not the model's to call.
        return Verdict(clean, Block(Refusal.NOT_AVAILABLE))
    for param in spec.params:
        if param.names is not None:
            named = next((e for e in world.entities(param.names) if e.entity_id == clean[param.name]), None)
            if named is None or named.missing:
                return Verdict(clean, Block(Refusal.UNAVAILABLE))
    if Safety.CONSEQUENTIAL in (limits.safety(name), claimed) and not approved:
        return Verdict(clean, Block(Refusal.NEEDS_APPROVAL))
    return Verdict(clean)
