"""Figures a line states that nothing the model read holds: a made-up score, bet or temperature.

Asked "how much money did kim bet?" and "what was the final score last night?", the bundled
model answered "500 euros" and "10-10": the room holds no bet and no score, and no device state
contradicts a made-up one. A figure (a number in digits) the overseer states must be one it was
shown: in the room's state, the chat, a call's result. The number of a name ("Rover 3",
"rover3", "aux 2") is the name's, not a figure, on either side: the room's rovers showed every
small number, and "The final score last night was 2-1." passed. Not read: numbers in words
("ten"), and dates and times of day, on either side. The room's own counts ground like any
figure: "actions: 0/3" shows 0 and 3.
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
# A run of digits not after a letter: one that ends a word ("rover1", "light.aux2") is part of a
# name, one a unit follows ("21s", "87%") is a figure. Every run is one figure: "21.5" and "21,5"
# are 21 and 5 on both sides, alike.
_DIGITS = re.compile(r"(?<![^\W\d])\d+")
# A name's word and its number: "rover1" -> ("rover", "1"), "luz auxiliar 2" -> ("auxiliar", "2").
_NAMED_NUMBER = re.compile(r"([^\W\d]+)[\s_]?(\d+)(?!\d)")


def _figures(text: str) -> list[str]:
    # Leading zeros say nothing ("09" is 9); no int(): a run of thousands of digits is text too.
    return [digits.lstrip("0") or "0" for digits in _DIGITS.findall(_CLOCK.sub(" ", text))]


def _names_numbers(names: Iterable[str]) -> re.Pattern[str] | None:
    """Match a name's number as a line or a state writes it: "Rover 1", "rover1", "rover_1"."""
    pairs = {
        (word.casefold(), digits.lstrip("0") or "0")
        for name in names
        for word, digits in _NAMED_NUMBER.findall(name)
    }
    if not pairs:
        return None
    spelled = "|".join(
        rf"{re.escape(word)}[\s_]?0*{digits}"
        for word, digits in sorted(pairs, key=lambda pair: -len(pair[0]))
    )
    return re.compile(rf"(?<![^\W\d])(?:{spelled})(?!\d)", re.IGNORECASE)


def unshown_figures(line: str, shown: Iterable[str], names: Iterable[str] = ()) -> tuple[str, ...]:
    """Return the figures the line states that none of the shown texts holds, in order, once each.

    names: the room's names (its devices', its rovers'); their numbers are no figure.
    """
    named = _names_numbers(names)

    def unnamed(text: str) -> str:
        return named.sub(" ", text) if named else text

    stated = dict.fromkeys(_figures(unnamed(line)))
    if not stated:
        return ()
    seen: set[str] = set()
    for text in shown:
        seen.update(_figures(unnamed(text)))
    return tuple(figure for figure in stated if figure not in seen)
