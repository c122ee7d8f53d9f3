"""A figure the overseer states must be one it read: a made-up score or bet is no fact."""

from __future__ import annotations

import pytest

from custom_components.overseer.core.figures import unshown_figures

STATE = "\n".join(
    (
        "STATE_UPDATE",
        "time: 2026-10-02T20:10:31-04:00",
        "lift: closed (cooldown 21 s)",
        "rover3 docked",
        "light aux2: on",
    )
)


@pytest.mark.parametrize(
    ("line", "made_up"),
    [
        # Said by the bundled model to questions about facts the room does not hold.
        ("The final score was 10-10.", ("10",)),
        ("El dinero apostado por Jo fue de 500 euros.", ("500",)),
        ("El calor hace 20 grados.", ("20",)),
        ("It's 18,5 degrees outside.", ("18", "5")),
        # The clock in the state shows none of its numbers: 10, 20 and 31 are not shown by it.
        ("The score is 20 to 31, 10 laps in.", ("20", "31", "10")),
        ("Kim bet 09 euros on 2026.", ("9", "2026")),
        # Figures it was shown, and the digits of names, are what it read.
        ("I can't lower the lift yet: it is cooling down for 21 s.", ()),
        ("Rover 3 is on its dock. Aux 2 stays lit.", ()),
        ("The lift is down. Earn the light.", ()),
        # A time of day is not held to anything.
        ("It's 10:14 and the lift is down.", ()),
    ],
)
def test_a_figure_is_made_up_when_nothing_it_read_holds_it(line, made_up):
    assert unshown_figures(line, [STATE]) == made_up


def test_a_figure_someone_said_in_the_chat_is_one_it_read():
    chat = ['{"role": "user", "content": "kim: I put 500 on rover 2"}']
    assert unshown_figures("Kim bet 500 on rover 2.", chat) == ()
    assert unshown_figures("Kim bet 600 on rover 2.", chat) == ("600",)


def test_every_figure_of_a_long_line_is_read():
    line = "Rover 3 " * 20 + "and the score was 99-98."
    assert unshown_figures(line, [STATE]) == ("99", "98")
    assert unshown_figures("9" * 5000, [STATE]) == ("9" * 5000,)
