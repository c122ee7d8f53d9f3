"""A model's reply as typed values: what every provider hands to the normaliser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call as the model wrote it: a name and an argument object (not yet checked)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MalformedCall:
    """A call the provider could not read: no name, or arguments that are not an object."""

    name: str
    # Bounded and printable, for the audit log.
    shown: str


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What a model answered, before the normaliser looks at it."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    malformed: tuple[MalformedCall, ...] = ()
    # The provider saw more calls than it read (a looping model).
    calls_cut: bool = False
    # What came over the wire, bounded, for the debug card.
    raw: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
