"""THE tool registry: every tool is one entry, and nothing else branches on a tool's name.

An entry says what the tool is for the model (name, description, argument schema), what
guards it (cooldown group, safety class, locks, busy states), which option configures its
target and what it does when it runs (a Home Assistant action or a memory effect).
Validation and the JSON schema the model sees are both derived from the argument schema.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .acts import LIFT, VACUUM, Act, Deed, fixed_deed, light_deed
from .text import one_line
from .world import Target


class CooldownGroup(StrEnum):
    """Tools that share a cooldown, in the order people see them; chat and memory have none."""

    LIFT = "lift"
    NEATO = "neato"
    HA = "ha"
    COUNTER = "counter"


# The contract's default cooldowns, in seconds; each is the option cooldown_<group>.
DEFAULT_COOLDOWNS: Mapping[CooldownGroup, int] = {
    CooldownGroup.LIFT: 60,
    CooldownGroup.NEATO: 120,
    CooldownGroup.HA: 20,
    CooldownGroup.COUNTER: 30,
}


def cooldown_option(group: CooldownGroup) -> str:
    """Return the option that sets a group's cooldown."""
    return f"cooldown_{group}"


class Safety(StrEnum):
    """How much a call can change: consequential calls need a human's approval."""

    READ = "read"
    REVERSIBLE = "reversible"
    CONSEQUENTIAL = "consequential"


class Refusal(StrEnum):
    """Reason codes of the contract, for context time and execution time."""

    COOLDOWN = "cooldown"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    RATE_LIMIT = "rate_limit"
    SITE_MODE_ADMIN = "policy_lock:site_mode_admin"
    SITE_MODE_LOCKDOWN = "policy_lock:site_mode_lockdown"
    LIGHTS_LOCKED_ON = "policy_lock:lights_locked_on"
    NOT_AVAILABLE = "not_available"
    NOT_ALLOWLISTED = "not_allowlisted"
    INVALID_ARGUMENTS = "invalid_arguments"
    MAX_TOOL_CALLS = "max_tool_calls"
    NEEDS_APPROVAL = "needs_approval"
    # A person who may not loosen a guardrail (or use an administrator's service) tried to.
    UNAUTHORIZED = "unauthorized"
    # Someone asked for one action on a room device and the call does another (or acts elsewhere).
    NOT_WHAT_WAS_ASKED = "not_what_was_asked"


MEMORY_SLOTS = 3
MEMORY_LINE_CHARS = 160
CHAT_SAY_CHARS = 2000  # the normaliser cuts to the configured length later


class ArgumentError(ValueError):
    """A call's arguments were refused; carries the contract's reason code."""

    def __init__(self, reason: Refusal, detail: str) -> None:
        """Keep the code apart from the human-readable detail."""
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What arguments may name: allowlisted entities (id → domain) and light colour names.

    The colour names are Home Assistant's own list, handed in by the shell.
    """

    entities: Mapping[str, str]
    colours: frozenset[str] = frozenset()
    # The watched assets (asset id → its entity ids) a triage intent may name.
    assets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The most the counter may change in one call (counter_max_step).
    max_step: int = 1


# Argument kinds: each knows how to check a value and how to describe itself to the model.


def _text(limit: int) -> Callable[[Any, Mapping[str, Any], Vocabulary], Any]:
    """Return a check for a non-empty single line of text, cut to limit characters."""

    def check(value: Any, _: Mapping[str, Any], __: Vocabulary) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ArgumentError(Refusal.INVALID_ARGUMENTS, "text must be a non-empty string")
        return one_line(value, limit)

    return check


def parse_slot(value: Any) -> int:
    """Parse a memory slot number; small models often send it as a string."""
    if isinstance(value, bool):
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "slot must be 1, 2 or 3")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 1 <= value <= MEMORY_SLOTS:
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "slot must be 1, 2 or 3")
    return value


def _delta(value: Any, _: Mapping[str, Any], vocabulary: Vocabulary) -> int:
    """Check a whole, non-zero change no bigger than the room's step; small models send "2" or 2.0 too."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,6}", value.strip()):
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    step = vocabulary.max_step
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or abs(value) > step:
        raise ArgumentError(
            Refusal.INVALID_ARGUMENTS, f"delta must be a whole number from -{step} to {step}, not 0"
        )
    return value


def _entity(value: Any, _: Mapping[str, Any], vocabulary: Vocabulary) -> str:
    """Check an allowlisted entity id."""
    if not isinstance(value, str) or value not in vocabulary.entities:
        raise ArgumentError(Refusal.NOT_ALLOWLISTED, f"entity {str(value)[:80]!r} is not allowlisted")
    return value


def _state_of(entity_param: str) -> Callable[[Any, Mapping[str, Any], Vocabulary], str]:
    """on, off, or for a light a colour name; checked after the entity argument it applies to."""

    def check(value: Any, clean: Mapping[str, Any], vocabulary: Vocabulary) -> str:
        if not isinstance(value, str):
            raise ArgumentError(Refusal.INVALID_ARGUMENTS, "state must be a string")
        wanted = value.strip().lower().replace(" ", "")
        if wanted in ("on", "off"):
            return wanted
        domain = vocabulary.entities.get(clean.get(entity_param, ""))
        if domain == "light" and wanted in vocabulary.colours:
            return wanted
        raise ArgumentError(
            Refusal.INVALID_ARGUMENTS, f"state {value[:40]!r} is not on, off or a colour name"
        )

    return check


def _asset(value: Any, _: Mapping[str, Any], vocabulary: Vocabulary) -> str:
    """Check a watched asset's id, exactly as the request gave it."""
    if not isinstance(value, str) or value not in vocabulary.assets:
        raise ArgumentError(Refusal.NOT_ALLOWLISTED, f"asset {str(value)[:80]!r} is not watched")
    return value


@dataclass(frozen=True, slots=True)
class Param:
    """One argument: its name, how it is checked, and its JSON schema for the model."""

    name: str
    check: Callable[[Any, Mapping[str, Any], Vocabulary], Any]
    schema: Callable[[Vocabulary], dict[str, Any]]
    # The option whose entities this argument names; the one named must be present at run time.
    names: Target | None = None
    # The argument names a watched asset, and the call reaches that asset's entities.
    reaches_asset: bool = False
    # A call may leave it out: its value is then this.
    optional: bool = False
    default: Any = None


# The devices a line may say it is about, at most, each by the words the STATE_UPDATE shows it by.
MAX_ABOUT = 8
ABOUT_CHARS = 60


def _about(value: Any, _: Mapping[str, Any], __: Vocabulary) -> tuple[str, ...]:
    """Check the devices a line is about: names as the model read them; a bare name is a list of one.

    Names the room does not have are let through here and read as nothing later: a small model's
    slip in `about` costs its line nothing.
    """
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "about must be a list of device names")
    return tuple(
        dict.fromkeys(
            one_line(item, ABOUT_CHARS)
            for item in items[:MAX_ABOUT]
            if isinstance(item, str) and item.strip()
        )
    )


ABOUT = Param(
    "about",
    _about,
    lambda _: {
        "type": "array",
        "items": {"type": "string"},
        "description": "The room devices the line is about, named as STATE_UPDATE shows them (optional).",
    },
    optional=True,
    default=(),
)


def text_param(name: str, limit: int) -> Param:
    """Return a parameter for a line of text."""
    return Param(name, _text(limit), lambda _: {"type": "string"})


SLOT = Param(
    "slot",
    lambda value, _, __: parse_slot(value),
    lambda _: {"type": "integer", "enum": list(range(1, MEMORY_SLOTS + 1))},
)


def _entity_schema(vocabulary: Vocabulary) -> dict[str, Any]:
    """Return the allowlist as an enum, and in the description: some clients (the ollama one) drop "enum"."""
    entities = sorted(vocabulary.entities)
    return {"type": "string", "enum": entities, "description": ", ".join(entities)}


ASSET = Param(
    "asset_id",
    _asset,
    lambda vocabulary: {"type": "string", "enum": sorted(vocabulary.assets)},
    reaches_asset=True,
)
LIGHT = Param("entity_id", _entity, _entity_schema, names=Target.LIGHTS)
DELTA = Param(
    "delta",
    _delta,
    lambda vocabulary: {
        "type": "integer",
        "minimum": -vocabulary.max_step,
        "maximum": vocabulary.max_step,
        "description": f"-{vocabulary.max_step}..{vocabulary.max_step}, not 0",
    },
)
LIGHT_STATE = Param(
    "state",
    _state_of(LIGHT.name),
    lambda _: {"type": "string", "description": "on, off or a CSS colour name"},
)


# What a tool does when it runs. The executor dispatches on these types, never on names.


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """A Home Assistant action with its data."""

    domain: str
    service: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """Replace one memory slot."""

    slot: int
    text: str


@dataclass(frozen=True, slots=True)
class Adjust:
    """Move a counter or input_number by delta from its value at that instant (adjusted() says how)."""

    entity_id: str
    delta: int


@dataclass(frozen=True, slots=True)
class NoEffect:
    """Nothing to run: the tool only reads what the model already sees."""


type Effect = ServiceCall | MemoryWrite | Adjust | NoEffect
# (the entity ids the call reaches: the bound target's, or the named asset's, or none; the clean
# arguments) → the effect
type ActionFn = Callable[[tuple[str, ...], Mapping[str, Any]], Effect]


def service(domain: str, name: str) -> ActionFn:
    """Return the action on the bound target entity."""
    return lambda entity_ids, _: ServiceCall(domain, name, {"entity_id": entity_ids[0]})


def _on_entities(domain: str, name: str) -> ActionFn:
    """Return the action on every entity the call reaches (an asset may be several)."""
    return lambda entity_ids, _: ServiceCall(domain, name, {"entity_id": list(entity_ids)})


def _set_entity(_: tuple[str, ...], arguments: Mapping[str, Any]) -> Effect:
    """on/off on the entity's own domain; a colour turns a light on in that colour."""
    entity_id, state = arguments["entity_id"], arguments["state"]
    domain = entity_id.partition(".")[0]
    if state in ("on", "off"):
        return ServiceCall(domain, f"turn_{state}", {"entity_id": entity_id})
    return ServiceCall("light", "turn_on", {"entity_id": entity_id, "color_name": state})


# Where each domain keeps its bounds.
_BOUNDS = {"counter": ("minimum", "maximum"), "input_number": ("min", "max")}


def adjusted(effect: Adjust, state: str, attributes: Mapping[str, Any]) -> ServiceCall:
    """Return the set_value call that moves the entity by delta, kept within the entity's own bounds.

    Raises ValueError when its state is not a number (unknown, unavailable).
    """
    domain = effect.entity_id.partition(".")[0]
    value = float(state)
    if not math.isfinite(value):
        raise ValueError(f"{effect.entity_id} is {state}")
    low_key, high_key = _BOUNDS.get(domain, ("min", "max"))
    wanted = value + effect.delta
    low, high = attributes.get(low_key), attributes.get(high_key)
    if isinstance(low, int | float) and not isinstance(low, bool):
        wanted = max(wanted, low)
    if isinstance(high, int | float) and not isinstance(high, bool):
        wanted = min(wanted, high)
    number: float = int(wanted) if wanted.is_integer() else wanted
    return ServiceCall(domain, "set_value", {"entity_id": effect.entity_id, "value": number})


@dataclass(frozen=True, slots=True)
class Binding:
    """One way a tool reaches the room: the option naming its target and the action it runs."""

    target: Target
    action: ActionFn
    # Other options that must be configured (and present) too.
    requires: tuple[Target, ...] = ()
    # Options whose entity being busy blocks the tool; by default the target itself.
    busy_from: tuple[Target, ...] | None = None
    # States of those entities in which the call makes no sense right now.
    busy_states: frozenset[str] = frozenset()

    @property
    def busy_sources(self) -> tuple[Target, ...]:
        """Where busy states are read."""
        return (self.target,) if self.busy_from is None else self.busy_from


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool, whole."""

    name: str
    description: str
    safety: Safety
    params: tuple[Param, ...] = ()
    # A room tool has a cooldown group, shares the action budget and obeys the site mode.
    group: CooldownGroup | None = None
    # Ways to reach the room, first configured wins; none means the tool needs no target.
    bindings: tuple[Binding, ...] = ()
    # What runs for a targetless tool.
    effect: ActionFn | None = None
    # Held off by the lights_locked_on switch.
    room_control: bool = False
    # The chat channel: the argument whose text is the decision's line (not an action).
    speaks: str | None = None
    # Proposed by incident triage only: never offered to the chat loop or to other agents.
    triage_only: bool = False
    # For people and MCP clients: a short title, and whether calling twice does what once does.
    title: str = ""
    idempotent: bool = False
    # What a call does to which device of the room, from its clean arguments; None: no device.
    deed: Callable[[Mapping[str, Any]], Deed] | None = None

    @property
    def param_names(self) -> tuple[str, ...]:
        """The argument names, in order."""
        return tuple(param.name for param in self.params)

    def validate(self, arguments: Any, vocabulary: Vocabulary) -> dict[str, Any]:
        """Clean arguments, or ArgumentError with the contract's reason code."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ArgumentError(Refusal.INVALID_ARGUMENTS, "arguments are not an object")
        names = self.param_names
        extra = set(arguments) - set(names)
        if extra:
            raise ArgumentError(Refusal.INVALID_ARGUMENTS, f"unexpected arguments: {sorted(map(str, extra))}")
        missing = [param.name for param in self.params if param.name not in arguments and not param.optional]
        if missing:
            raise ArgumentError(Refusal.INVALID_ARGUMENTS, f"missing arguments: {missing}")
        clean: dict[str, Any] = {}
        for param in self.params:
            if param.name in arguments:
                clean[param.name] = param.check(arguments[param.name], clean, vocabulary)
            else:
                clean[param.name] = param.default
        return clean

    def json_schema(self, vocabulary: Vocabulary) -> dict[str, Any]:
        """Return the function schema a tool-calling model receives.

        It is as short as it can be and still say it all.
        """
        parameters: dict[str, Any] = {
            "type": "object",
            "properties": {param.name: param.schema(vocabulary) for param in self.params},
        }
        if required := [param.name for param in self.params if not param.optional]:
            parameters["required"] = required
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    @property
    def signature(self) -> str:
        """How the tool is written in the available/blocked blocks: lift_up(), chat_say(text)."""
        return f"{self.name}({', '.join(self.param_names)})"


_MOVING = frozenset({"opening", "closing"})
_SCRIPT_RUNNING = frozenset({"on"})
_VACUUM_WORKING = frozenset({"cleaning", "returning"})
_LIFT_SCRIPTS = (Target.LIFT_UP_SCRIPT, Target.LIFT_DOWN_SCRIPT)


def _lift(name: str, title: str, description: str, cover_service: str, script: Target, act: Act) -> ToolSpec:
    """Return a lift tool: its cover's service, or else its own script (busy while either script runs)."""
    return ToolSpec(
        name,
        description,
        Safety.REVERSIBLE,
        group=CooldownGroup.LIFT,
        title=title,
        idempotent=True,
        deed=fixed_deed(LIFT, act),
        bindings=(
            Binding(Target.LIFT_COVER, service("cover", cover_service), busy_states=_MOVING),
            Binding(
                script, service("script", "turn_on"), busy_from=_LIFT_SCRIPTS, busy_states=_SCRIPT_RUNNING
            ),
        ),
    )


def _vacuum(
    name: str,
    title: str,
    description: str,
    action: str,
    busy_states: frozenset[str],
    idempotent: bool,
    act: Act,
) -> ToolSpec:
    """Return a vacuum tool: one action on the vacuum entity."""
    return ToolSpec(
        name,
        description,
        Safety.REVERSIBLE,
        group=CooldownGroup.NEATO,
        title=title,
        idempotent=idempotent,
        deed=fixed_deed(VACUUM, act),
        bindings=(Binding(Target.VACUUM, service("vacuum", action), busy_states=busy_states),),
    )


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "chat_say",
        "Say one short line in chat.",
        Safety.READ,
        params=(text_param("text", CHAT_SAY_CHARS), ABOUT),
        effect=lambda _, __: NoEffect(),
        speaks="text",
        title="Say a line",
    ),
    _lift("lift_up", "Raise the lift", "Raise the lift.", "open_cover", Target.LIFT_UP_SCRIPT, Act.OPEN),
    _lift(
        "lift_down", "Lower the lift", "Lower the lift.", "close_cover", Target.LIFT_DOWN_SCRIPT, Act.CLOSE
    ),
    _vacuum(
        "neato_start",
        "Start the vacuum",
        "Start the vacuum.",
        "start",
        _VACUUM_WORKING,
        idempotent=True,
        act=Act.START,
    ),
    # Sending it home is how a run is stopped, so only an ongoing return makes it busy.
    _vacuum(
        "neato_send_home",
        "Send the vacuum home",
        "Send the vacuum to its dock.",
        "return_to_base",
        frozenset({"returning"}),
        idempotent=True,
        act=Act.DOCK,
    ),
    # Every call beeps again.
    _vacuum(
        "neato_locate",
        "Locate the vacuum",
        "Make the vacuum beep.",
        "locate",
        _VACUUM_WORKING,
        idempotent=False,
        act=Act.LOCATE,
    ),
    ToolSpec(
        "neato_clear_errors",
        "Clear the vacuum's errors.",
        Safety.REVERSIBLE,
        group=CooldownGroup.NEATO,
        title="Clear the vacuum's errors",
        idempotent=True,
        deed=fixed_deed(VACUUM, Act.CLEAR),
        bindings=(
            Binding(
                Target.VACUUM_CLEAR_ERRORS_SCRIPT,
                service("script", "turn_on"),
                requires=(Target.VACUUM,),
                busy_from=(Target.VACUUM,),
                busy_states=_VACUUM_WORKING,
            ),
        ),
    ),
    ToolSpec(
        "ha_set_entity",
        "Switch a room light on or off, or set a light to a CSS colour name.",
        Safety.REVERSIBLE,
        params=(LIGHT, LIGHT_STATE),
        group=CooldownGroup.HA,
        bindings=(Binding(Target.LIGHTS, _set_entity),),
        room_control=True,
        title="Set a room light",
        idempotent=True,
        deed=light_deed,
    ),
    # The seed's button box: bounded per call, its own cooldown, the shared budget.
    ToolSpec(
        "counter_adjust",
        "Change the room's counter by delta (a whole number, not 0).",
        Safety.REVERSIBLE,
        params=(DELTA,),
        group=CooldownGroup.COUNTER,
        bindings=(
            Binding(Target.COUNTER, lambda entity_ids, arguments: Adjust(entity_ids[0], arguments["delta"])),
        ),
        title="Adjust the counter",
    ),
    ToolSpec(
        "memory_read",
        "Read the memory slots.",
        Safety.READ,
        effect=lambda _, __: NoEffect(),
        title="Read memory",
        idempotent=True,
    ),
    ToolSpec(
        "memory_write",
        "Replace one memory slot (1-3) with one short line.",
        Safety.REVERSIBLE,
        params=(SLOT, text_param("text", MEMORY_LINE_CHARS)),
        effect=lambda _, arguments: MemoryWrite(arguments["slot"], arguments["text"]),
        title="Write a memory slot",
        idempotent=True,
    ),
    # Triage's own tools share the Home Assistant group: cooldown, budget and site locks apply.
    ToolSpec(
        "asset_refresh",
        "Ask Home Assistant to read the asset's entities again.",
        Safety.REVERSIBLE,
        params=(ASSET,),
        group=CooldownGroup.HA,
        effect=_on_entities("homeassistant", "update_entity"),
        triage_only=True,
        title="Refresh an asset",
        idempotent=True,
    ),
    ToolSpec(
        "asset_restart",
        "Reload the integration the asset belongs to (a person approves it first).",
        Safety.CONSEQUENTIAL,
        params=(ASSET,),
        group=CooldownGroup.HA,
        effect=_on_entities("homeassistant", "reload_config_entry"),
        triage_only=True,
        title="Restart an asset's integration",
    ),
)

TOOLS: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOL_SPECS}
# The chat channel: the tools that say a line rather than act.
CHAT_TOOLS: frozenset[str] = frozenset(spec.name for spec in TOOL_SPECS if spec.speaks is not None)
# The options whose entities some argument may name: the vocabulary's entities come from these.
NAMED_TARGETS: tuple[Target, ...] = tuple(
    dict.fromkeys(param.names for spec in TOOL_SPECS for param in spec.params if param.names is not None)
)


def call_text(name: str, arguments: Mapping[str, Any]) -> str:
    """How a call is written for people: asset_refresh(asset_id=vacuum.neato)."""
    return f"{name}({', '.join(f'{key}={value}' for key, value in arguments.items())})"


def call_for(deed: Deed, offered: Iterable[str]) -> tuple[str, dict[str, Any]] | None:
    """Return the offered call that does the deed (lift_up raises the lift), or None when none does."""
    light = {"entity_id": deed.device, "state": deed.value or ("on" if deed.act is Act.ON else "off")}
    for name in offered:
        spec = TOOLS.get(name)
        if spec is None or spec.deed is None:
            continue
        for arguments in ({}, light):
            if spec.deed(arguments) == deed:
                return name, arguments
    return None


def deed_text(name: str, arguments: Mapping[str, Any]) -> str:
    """Return what a call did, in its title's words: "raise the lift", "set a room light (light.bench, blue)".

    The tool's name is not said: a small model writes it back into its line.
    """
    spec = TOOLS.get(name)
    title = spec.title.lower() if spec is not None and spec.title else name
    values = ", ".join(str(value) for value in arguments.values())
    return f"{title} ({values})" if values else title


def tools_in(group: CooldownGroup) -> tuple[str, ...]:
    """Return the tools that share a group's cooldown, in registry order."""
    return tuple(spec.name for spec in TOOL_SPECS if spec.group is group)
