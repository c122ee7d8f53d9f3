"""A call's arguments as the records keep them: bounded and JSON-safe, whoever sent them.

Arguments reach the audit, the status object, the overseer_action event and the store. Any
caller (a model, another agent through the LLM API, an MCP client) can send what JSON allows:
megabytes of text, nesting deeper than Home Assistant's JSON encoder goes, integers no double
holds; and from Python, values JSON has no form for. Each call's arguments are copied once,
where they come in, within these bounds; a copy that is not what was sent says so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from typing import Any, cast

MAX_ARGUMENT_BYTES = 8192
MAX_ARGUMENT_DEPTH = 16
MAX_ARGUMENT_TEXT = 2048
# The integers a double holds exactly, so every JSON reader reads the same number.
MAX_ARGUMENT_INTEGER = 2**53
# What stands in for a container nested deeper than the bound.
TOO_DEEP = "<nested too deep>"
TOO_BIG = "<integer beyond ±2**53>"
_END = object()


@dataclass(frozen=True, slots=True)
class Arguments:
    """A JSON-safe copy of a call's arguments, and whether it is not all that was sent."""

    value: Any
    truncated: bool = False


def bounded_arguments(value: Any) -> Arguments:
    """Return a JSON-safe copy of value within the bounds; never raises, whatever the value holds.

    Text is cut to MAX_ARGUMENT_TEXT characters (a lone surrogate, which no UTF-8 encoder
    takes, becomes "?"); containers deeper than MAX_ARGUMENT_DEPTH and integers beyond
    ±MAX_ARGUMENT_INTEGER become a note; once the copy would pass MAX_ARGUMENT_BYTES of
    compact JSON the rest is left out. Values JSON has no form for (NaN, infinities, sets,
    bytes, objects, keys that are not text) become text or a list. Tuples become lists, as
    JSON writes them, without counting as a change. The walk keeps its own stack and stops at
    the depth bound, so no nesting (a structure that holds itself included) reaches Python's
    recursion limit, and it stops reading once the bytes are spent, so a huge input costs no
    more than a small one.
    """
    walk = _Walk()
    fits, root, children = walk.copy(value, 1, 0)
    if not fits:
        return Arguments(None, truncated=True)
    stack: list[tuple[Any, Iterator[Any], int]] = [] if children is None else [(root, children, 1)]
    while stack:
        parent, siblings, depth = stack[-1]
        item = next(siblings, _END)
        if item is _END:
            stack.pop()
            continue
        separator = 1 if parent else 0
        key = ""
        if isinstance(parent, dict):
            raw_key, item = cast(tuple[Any, Any], item)
            key = walk.key(raw_key)
            separator += _size(key) + 1
        fits, child, grandchildren = walk.copy(item, depth + 1, separator)
        if not fits:
            break  # the bytes are spent: everything after this is left out
        if isinstance(parent, dict):
            parent[key] = child
        else:
            parent.append(child)
        if grandchildren is not None:
            stack.append((child, grandchildren, depth + 1))
    return Arguments(root, walk.cut)


class _Walk:
    """One copy under way: the bytes it may still take, and whether anything was cut or changed."""

    def __init__(self) -> None:
        self.room = MAX_ARGUMENT_BYTES
        self.cut = False

    def copy(self, value: Any, depth: int, separator: int) -> tuple[bool, Any, Iterator[Any] | None]:
        """(whether it fits, the copy, the items still to copy into it when it is a container)."""
        if isinstance(value, Mapping | list | tuple | Set):
            if depth > MAX_ARGUMENT_DEPTH:
                self.cut = True
                return self._spend(separator + _size(TOO_DEEP)), TOO_DEEP, None
            if isinstance(value, Mapping):
                return self._spend(separator + 2), {}, iter(value.items())
            if isinstance(value, Set):  # JSON has no sets: a list of its items
                self.cut = True
            return self._spend(separator + 2), [], iter(value)
        scalar = self._scalar(value)
        return self._spend(separator + _size(scalar)), scalar, None

    def key(self, key: Any) -> str:
        """Return an object key as text: JSON knows no other (and Home Assistant's encoder takes no other)."""
        if isinstance(key, str):
            return self._text(key)
        self.cut = True
        scalar = self._scalar(key)
        return scalar if isinstance(scalar, str) else json.dumps(scalar)

    def _scalar(self, value: Any) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            if -MAX_ARGUMENT_INTEGER <= value <= MAX_ARGUMENT_INTEGER:
                return int(value)
            self.cut = True
            return TOO_BIG
        if isinstance(value, float):
            if math.isfinite(value):
                return float(value)
            self.cut = True
            return f"<{value}>"
        if isinstance(value, str):
            return self._text(value)
        self.cut = True
        return f"<{type(value).__name__}>"

    def _text(self, value: str) -> str:
        kept = value[:MAX_ARGUMENT_TEXT].encode("utf-8", "replace").decode("utf-8")
        if kept != value:
            self.cut = True
        return kept

    def _spend(self, size: int) -> bool:
        if size > self.room:
            self.cut = True
            return False
        self.room -= size
        return True


def _size(scalar: Any) -> int:
    """Bytes of a scalar's compact JSON, as Home Assistant writes it (UTF-8, not escaped)."""
    return len(json.dumps(scalar, ensure_ascii=False).encode("utf-8"))
