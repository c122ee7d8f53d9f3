"""Figures a line states that nothing the model read holds: a made-up score, bet or temperature.

Asked "how much money did kim bet?" and "what was the final score last night?", the bundled
model answered "500 euros" and "10-10": the room holds no bet and no score, and no device state
contradicts a made-up one. A figure (a number in digits) the overseer states must be one it was
shown: in the room's state, the chat, a call's result. Two kinds of number are no figure: the
number of a name ("Rover 3", "rover3", "luz auxiliar 2"), on either side, and a count the noun
after it says, up to how many the room has ("2 rovers", "3 luces encendidas"). Names showed
every small number before: "The final score last night was 2-1." passed in a room of rovers 1
to 3. A number the room shows in seconds or as a share ("lift=21s", "actions: 1/3") holds only a
line's seconds or share. Not read: numbers in words ("ten"), and dates and times written as
2026-05-02 or 10:14, on either side ("10 pm" is a figure).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .text import fold

# A date or a time of day. The room's state carries the clock ("time: 2026-05-02T22:14:10-04:00"),
# which would show every number up to 59 at some moment; a line telling the time is not held to it.
_CLOCK = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?"
    r"|(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)",
    re.IGNORECASE,
)
# A run of digits not after a letter: one that ends a word ("sensor.rover1_docked") is part of
# an identifier, one a unit follows ("21s", "87%") is a figure. Every run is one figure: "21.5"
# and "21,5" are 21 and 5 on both sides, alike.
_DIGITS = re.compile(r"(?<![^\W\d])\d+")
# A word and the number after it, as names are written: "rover1", "rover_1", "rover #1", "rover
# no. 1", "rover numero 1" (folded). It starts only where a word does, so it reads a word once.
_WORD_AND_NUMBER = re.compile(r"(?<![^\W\d_])([^\W\d_]+)[\s_#.-]{0,3}(?:(?:no|numero)\.?\s{0,2})?(\d+)")
# The noun a count counts: the next word, or the one after it ("2 rovers", "2 other rovers").
_NEXT_WORDS = re.compile(r"\s+([^\W\d_]+)(?:\s+([^\W\d_]+))?")
# A count says how many of something there are: no room has a thousand rovers.
_COUNT_DIGITS = 3
# Numbers measured in seconds ("21s", "21 segundos", a result's "retry_in_s": 21) and shares of
# another ("0/3", "1 of 3", "1 de 3") are read as such. The overseer's own bookkeeping is written
# so ("cooldowns: lift=21s", "actions: 1/3 used in 60s"): it holds a line's wait or that share,
# never a plain "1 lap" or "2-1" ("Rover 2 did 1 lap last night." passed while the room showed
# "actions: 1/3").
SECONDS = "seconds"
SHARE = "share"
_SECONDS_AFTER = re.compile(r" ?(?:s|secs?|seconds?|segs?|segundos?)\b")
# A field named in seconds, as the room's results and tool blocks name them.
_SECONDS_FIELD = re.compile(r"_s\"? ?[:=] ?$")
_SECONDS_FIELD_LOOKBACK = 8
_SHARE = re.compile(r"(?<![^\W\d])(\d+) ?(?:/|(?:out )?of|de) ?(\d+)")


def _number(digits: str) -> str:
    # Leading zeros say nothing ("09" is 9); no int(): a run of thousands of digits is text too.
    return digits.lstrip("0") or "0"


def _name_numbers(names: Iterable[str]) -> frozenset[tuple[str, str]]:
    """Each name's word and number: "Rover 1" -> ("rover", "1"), "light.aux2" -> ("aux", "2")."""
    return frozenset(
        (word, _number(digits)) for name in names for word, digits in _WORD_AND_NUMBER.findall(fold(name))
    )


def _figures(
    text: str, name_numbers: frozenset[tuple[str, str]], counts: Mapping[str, int] | None = None
) -> list[tuple[str, str | None]]:
    """Return the text's figures, in order, each with how it is measured (SECONDS, SHARE or None).

    counts: a noun and how many of it the room has; a count of them is no figure.
    """
    text = _CLOCK.sub(" ", fold(text))
    named = {
        match.start(2)
        for match in _WORD_AND_NUMBER.finditer(text)
        if (match[1], _number(match[2])) in name_numbers
    }
    found: list[tuple[int, str, str | None]] = []
    in_shares: set[int] = set()
    for match in _SHARE.finditer(text):
        if match.start(1) in named or match.start(2) in named:
            continue
        part, whole = _number(match[1]), _number(match[2])
        in_shares.update((match.start(1), match.start(2)))
        # "2 of 3 rovers": a count of the room's things, part of it a count too.
        counted = counts and _is_count(whole, text, match.end(), counts) and len(part) <= _COUNT_DIGITS
        if not (counted and int(part) <= int(whole)):
            found.append((match.start(), f"{part}/{whole}", SHARE))
    for match in _DIGITS.finditer(text):
        if match.start() in named or match.start() in in_shares:
            continue
        number = _number(match.group())
        if not (counts and _is_count(number, text, match.end(), counts)):
            found.append((match.start(), number, SECONDS if _in_seconds(text, match) else None))
    return [(figure, kind) for _, figure, kind in sorted(found)]


def _in_seconds(text: str, match: re.Match[str]) -> bool:
    return bool(
        _SECONDS_AFTER.match(text, match.end())
        or _SECONDS_FIELD.search(text, max(0, match.start() - _SECONDS_FIELD_LOOKBACK), match.start())
    )


def _is_count(number: str, text: str, end: int, counts: Mapping[str, int]) -> bool:
    after = _NEXT_WORDS.match(text, end)
    if after is None or len(number) > _COUNT_DIGITS:
        return False
    most = max((counts.get(noun, 0) for noun in after.groups() if noun), default=0)
    return int(number) <= most


def unshown_figures(
    line: str, shown: Iterable[str], names: Iterable[str] = (), counts: Mapping[str, int] | None = None
) -> tuple[str, ...]:
    """Return the figures the line states that none of the shown texts holds, in order, once each.

    names: the room's names (its devices', its rovers'). counts: the nouns a line counts the
    room's things by (folded) and how many it has of each ("rovers": 3, "luces": 6).
    """
    name_numbers = _name_numbers(names)
    stated = _figures(line, name_numbers, counts)
    if not stated:
        return ()
    seen: dict[str | None, set[str]] = {None: set(), SECONDS: set(), SHARE: set()}
    for text in shown:
        for figure, kind in _figures(text, name_numbers):
            seen[kind].add(figure)
    # A plain figure holds any; a measured one holds only its kind: the room's "1/3" is no "1 lap".
    return tuple(
        dict.fromkeys(
            figure
            for figure, kind in stated
            if figure not in seen[None]
            and figure not in seen[kind]
            and not (kind is SHARE and set(figure.split("/")) <= seen[None])
        )
    )
