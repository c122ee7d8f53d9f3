"""Figures a line states that nothing the model read holds: a made-up score, bet or temperature.

Asked "how much money did kim bet?" and "what was the final score last night?", the bundled
model answered "500 euros" and "10-10": the room holds no bet and no score, and no device state
contradicts a made-up one. A figure (a number in digits) the overseer states must be one it was
shown: in the room's state, the chat, a call's result. The digits of a name ("Rover 3", "aux 2")
are in what it read too, so a name passes. Not read: numbers in words ("ten"), and dates and
times of day, on either side.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A date or a time of day. The room's state carries the clock ("time: 2026-05-02T22:14:10-04:00"),
# which would show every number up to 59 at some moment; a line telling the time is not held to it.
_CLOCK = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?"
    r"|(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)"
)
# Every run of digits is one figure: "21.5" and "21,5" are 21 and 5 on both sides, alike.
_DIGITS = re.compile(r"\d+")


def _figures(text: str) -> list[str]:
    # Leading zeros say nothing ("09" is 9); no int(): a run of thousands of digits is text too.
    return [digits.lstrip("0") or "0" for digits in _DIGITS.findall(_CLOCK.sub(" ", text))]


def unshown_figures(line: str, shown: Iterable[str]) -> tuple[str, ...]:
    """Return the figures the line states that none of the shown texts holds, in order, once each."""
    stated = dict.fromkeys(_figures(line))
    if not stated:
        return ()
    seen: set[str] = set()
    for text in shown:
        seen.update(_figures(text))
    return tuple(figure for figure in stated if figure not in seen)
