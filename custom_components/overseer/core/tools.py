"""The tool surface: names, groups, safety classes, argument rules and JSON schemas."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .text import one_line


class Group(StrEnum):
    """Tools that share a cooldown; chat and memory never touch the room."""

    CHAT = "chat"
    MEMORY = "memory"
    LIFT = "lift"
    NEATO = "neato"
    HA = "ha"


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


ROOM_GROUPS = frozenset({Group.LIFT, Group.NEATO, Group.HA})
MEMORY_SLOTS = 3
MEMORY_LINE_CHARS = 160
CHAT_SAY_CHARS = 2000  # the normaliser cuts to the configured length later

# CSS colour names Home Assistant's light.turn_on accepts as color_name.
CSS_COLOURS = frozenset(
    """aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue
    blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk
    crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki
    darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue
    dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
    gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
    lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
    lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen
    magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
    mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
    mistyrose moccasin navajowhite navy navyblue oldlace olive olivedrab orange orangered orchid
    palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
    powderblue purple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell
    sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan teal
    thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen""".split()
)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: what it touches, how risky it is and what it takes."""

    name: str
    group: Group
    safety: Safety
    description: str
    params: tuple[str, ...] = ()
    # Device states in which the call makes no sense right now.
    busy_states: frozenset[str] = frozenset()


_MOVING = frozenset({"opening", "closing"})
_VACUUM_WORKING = frozenset({"cleaning", "returning"})

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("chat_say", Group.CHAT, Safety.READ, "Say one short line in chat.", ("text",)),
        ToolSpec("lift_up", Group.LIFT, Safety.REVERSIBLE, "Raise the lift.", busy_states=_MOVING),
        ToolSpec("lift_down", Group.LIFT, Safety.REVERSIBLE, "Lower the lift.", busy_states=_MOVING),
        ToolSpec(
            "neato_start",
            Group.NEATO,
            Safety.REVERSIBLE,
            "Start the vacuum.",
            busy_states=_VACUUM_WORKING,
        ),
        # Sending it home is how a run is stopped, so only an ongoing return makes it busy.
        ToolSpec(
            "neato_send_home",
            Group.NEATO,
            Safety.REVERSIBLE,
            "Send the vacuum to its dock.",
            busy_states=frozenset({"returning"}),
        ),
        ToolSpec(
            "neato_locate",
            Group.NEATO,
            Safety.REVERSIBLE,
            "Make the vacuum beep.",
            busy_states=_VACUUM_WORKING,
        ),
        ToolSpec(
            "neato_clear_errors",
            Group.NEATO,
            Safety.REVERSIBLE,
            "Clear the vacuum's errors.",
            busy_states=_VACUUM_WORKING,
        ),
        ToolSpec(
            "ha_set_entity",
            Group.HA,
            Safety.REVERSIBLE,
            "Switch a room light on or off, or set a light to a CSS colour name.",
            ("entity_id", "state"),
        ),
        ToolSpec("memory_read", Group.MEMORY, Safety.READ, "Read the memory slots."),
        ToolSpec(
            "memory_write",
            Group.MEMORY,
            Safety.REVERSIBLE,
            "Replace one memory slot (1-3) with one short line.",
            ("slot", "text"),
        ),
    )
}


class ArgumentError(ValueError):
    """A call's arguments were refused; carries the contract's reason code."""

    def __init__(self, reason: Refusal, detail: str) -> None:
        """Keep the code apart from the human-readable detail."""
        super().__init__(detail)
        self.reason = reason


def validate_arguments(name: str, arguments: Any, allowlist: Mapping[str, str]) -> dict[str, Any]:
    """Return clean arguments for a known tool or raise ArgumentError.

    allowlist maps each entity ha_set_entity may touch to its domain.
    """
    spec = TOOLS[name]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "arguments are not an object")
    extra = set(arguments) - set(spec.params)
    if extra:
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, f"unexpected arguments: {sorted(map(str, extra))}")
    missing = [param for param in spec.params if param not in arguments]
    if missing:
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, f"missing arguments: {missing}")
    if name == "chat_say":
        return {"text": _text(arguments["text"], CHAT_SAY_CHARS)}
    if name == "memory_write":
        return {"slot": parse_slot(arguments["slot"]), "text": _text(arguments["text"], MEMORY_LINE_CHARS)}
    if name == "ha_set_entity":
        return _entity_target(arguments["entity_id"], arguments["state"], allowlist)
    return {}


def _text(value: Any, limit: int) -> str:
    """A non-empty single line of text."""
    if not isinstance(value, str) or not value.strip():
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "text must be a non-empty string")
    return one_line(value, limit)


def parse_slot(value: Any) -> int:
    """A memory slot number; small models often send it as a string."""
    if isinstance(value, bool):
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "slot must be 1, 2 or 3")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 1 <= value <= MEMORY_SLOTS:
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "slot must be 1, 2 or 3")
    return value


def _entity_target(entity_id: Any, state: Any, allowlist: Mapping[str, str]) -> dict[str, Any]:
    """An allowlisted entity and a state it can take."""
    if not isinstance(entity_id, str) or entity_id not in allowlist:
        raise ArgumentError(Refusal.NOT_ALLOWLISTED, f"entity {str(entity_id)[:80]!r} is not allowlisted")
    if not isinstance(state, str):
        raise ArgumentError(Refusal.INVALID_ARGUMENTS, "state must be a string")
    wanted = state.strip().lower().replace(" ", "")
    if wanted in ("on", "off"):
        return {"entity_id": entity_id, "state": wanted}
    if allowlist[entity_id] == "light" and wanted in CSS_COLOURS:
        return {"entity_id": entity_id, "state": wanted}
    raise ArgumentError(Refusal.INVALID_ARGUMENTS, f"state {state[:40]!r} is not on, off or a colour name")


def signature(name: str) -> str:
    """How a tool is written in the available/blocked blocks: lift_up(), chat_say(text)."""
    return f"{name}({', '.join(TOOLS[name].params)})"


def json_schema(name: str, allowlist: Mapping[str, str]) -> dict[str, Any]:
    """The function schema a tool-calling model receives: as short as it can be and still say it all."""
    spec = TOOLS[name]
    properties: dict[str, Any] = {}
    if name == "chat_say":
        properties = {"text": {"type": "string"}}
    elif name == "memory_write":
        properties = {
            "slot": {"type": "integer", "enum": list(range(1, MEMORY_SLOTS + 1))},
            "text": {"type": "string"},
        }
    elif name == "ha_set_entity":
        entities = sorted(allowlist)
        properties = {
            # Some clients drop "enum" (the ollama client does), so the choices are in the description too.
            "entity_id": {"type": "string", "enum": entities, "description": ", ".join(entities)},
            "state": {"type": "string", "description": "on, off or a CSS colour name"},
        }
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if spec.params:
        parameters["required"] = list(spec.params)
    return {
        "type": "function",
        "function": {"name": name, "description": spec.description, "parameters": parameters},
    }
