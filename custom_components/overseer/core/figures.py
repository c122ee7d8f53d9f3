"""Figures a line states that nothing the model read holds: a made-up score, bet or temperature.

Asked "how much money did kim bet?" and "what was the final score last night?", the bundled
model answered "500 euros" and "10-10": the room holds no bet and no score, and no device state
contradicts a made-up one. A figure (a number in digits) the overseer states must be one it was
shown: in the room's state, the chat, a call's result. The digits of a name ("Rover 3", "aux 2")
are in what it read too, so a name passes. A number in words ("ten") is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A number in digits, with its decimals: "10", "21.5", "3,5" (a decimal comma), "1 000" is two.
_FIGURE = re.compile(r"\d+(?:[.,]\d+)?")
# Figures read from a line at most: a longer list is not a statement a person reads as facts.
MAX_FIGURES = 20


def _figures(text: str) -> list[str]:
    return [figure.replace(",", ".") for figure in _FIGURE.findall(text)]


def unshown_figures(line: str, shown: Iterable[str]) -> tuple[str, ...]:
    """Return the figures the line states that none of the shown texts holds, in order, once each."""
    stated = _figures(line)[:MAX_FIGURES]
    if not stated:
        return ()
    seen: set[str] = set()
    for text in shown:
        seen.update(_figures(text))
    return tuple(dict.fromkeys(figure for figure in stated if figure not in seen))
