"""A figure the overseer states must be one it read: a made-up score or bet is no fact."""

from __future__ import annotations

import pytest

from custom_components.overseer.core.figures import unshown_figures

STATE = "\n".join(
    (
        "STATE_UPDATE",
        "time: 2026-10-02T20:10:31-04:00",
        "cooldowns: lift=21s, lights=ready",
        "actions: 0/3 used in 60s",
        "lift: down, busy=false",
        "- rover1: idle, docked=true, charging=true",
        "- rover2: driving, driver=kim",
        "- rover3: idle, docked=true",
        "light.aux2=on",
    )
)
# The demo room's names, as the cycle passes them: its devices' keys, names and aliases.
NAMES = ("rover:rover1", "rover1", "rover:rover2", "rover2", "rover:rover3", "rover3")
NAMES += ("light.aux2", "Auxiliar 2", "luz auxiliar 2")


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
        ("Lift cools down 21s more. 0 of 3 actions spent.", ()),
        ("El ascensor espera 21 segundos; llevo 0/3 acciones.", ()),
        # The overseer's own bookkeeping holds a wait or a share, not a plain figure: the room's
        # "21s" and "0/3" are no lap count, no score, no bet.
        ("Rover 2 did 21 laps last night.", ("21",)),
        ("It ended 0-3.", ("0", "3")),
        ("Kim bet 60 euros.", ("60",)),
        # Its seconds are no share and its share no other share (a hostile review's finds).
        ("Kim won 21 of 60 races.", ("21/60",)),
        ("Kim apostó 3 de 60 euros.", ("3/60",)),
        ("The score was 3 out of 0.", ("3/0",)),
        ("Rover 3 is on its dock. Aux 2 stays lit.", ()),
        ("El rover 1 carga; la luz auxiliar 2 sigue encendida.", ()),
        ("Rover_2 drives.", ()),
        # The numbers of names are the names': they show no score, and no rover the room lacks.
        ("The final score last night was 2-1.", ("2", "1")),
        ("Rover 2 won 5-1.", ("5", "1")),
        ("Rover 7 is on its dock.", ("7",)),
        ("The lift is down. Earn the light.", ()),
        # A time of day is not held to anything.
        ("It's 10:14 and the lift is down.", ()),
    ],
)
def test_a_figure_is_made_up_when_nothing_it_read_holds_it(line, made_up):
    assert unshown_figures(line, [STATE], NAMES) == made_up


@pytest.mark.parametrize(
    "line",
    [
        # Ways people write a name's number (a hostile review's finds, flagged by the first version).
        "Rover #2 is out with kim.",
        "Rover no. 2 is driving.",
        "Rover nº 2 está conduciendo.",
        "El rover número 2 está fuera.",
        "Rover  2 is out.",
        "rover-1 is docked.",
        "ROVER 3 RESTS.",
    ],
)
def test_a_names_number_written_any_way_is_the_name(line):
    assert unshown_figures(line, [STATE], NAMES) == ()


# The nouns a line counts the demo room's things by, as the cycle passes them.
COUNTS = {"rover": 3, "rovers": 3, "light": 6, "lights": 6, "luz": 6, "luces": 6}


@pytest.mark.parametrize(
    ("line", "made_up"),
    [
        ("2 rovers are docked, the other is out.", ()),
        ("Solo 1 rover está fuera; hay 2 luces encendidas.", ()),
        ("2 other rovers rest. 6 lights glow.", ()),
        # A count is the noun's: a number elsewhere in a line naming rovers is a figure.
        ("Rover 2 won 5-1.", ("5", "1")),
        ("The final score last night was 2-1: Rover 3 won.", ("2", "1")),
        ("Rover 3 is 2 laps ahead.", ("2",)),
        ("Kim bet 2 euros on Rover 3.", ("2",)),
        ("El marcador final fue 2-1 para el rover 3.", ("2", "1")),
        # More than the room has is no count of it.
        ("5 rovers are out.", ("5",)),
        ("Rover 7 is on its dock.", ("7",)),
    ],
)
def test_a_count_is_a_number_the_next_noun_counts_up_to_what_the_room_has(line, made_up):
    assert unshown_figures(line, [STATE], NAMES, COUNTS) == made_up


def test_names_and_lines_are_read_folded():
    # A user's room: accents dropped in the line, an underscore in the name.
    assert unshown_figures("Habitacion 2 is warm.", [], ("Habitación 2",)) == ()
    assert unshown_figures("Rover 1 is docked.", ["- rover_1: idle"], ("rover_1",)) == ()


def test_a_number_that_opens_a_line_of_what_it_read_is_shown():
    assert unshown_figures("A clean lap is worth 10 points.", ["House rules:\n10 points a clean lap."]) == ()


def test_a_number_glued_to_a_word_is_a_name_not_a_figure():
    # Without the room's names, "rover1" and "aux2" still show no 1 and no 2.
    assert unshown_figures("It ended 2-1.", [STATE]) == ("2", "1")
    assert unshown_figures("Rover1 is docked.", [STATE]) == ()


def test_a_figure_someone_said_in_the_chat_is_one_it_read():
    chat = ['{"role": "user", "content": "kim: I put 500 on rover 2"}']
    assert unshown_figures("Kim bet 500 on rover 2.", chat) == ()
    assert unshown_figures("Kim bet 600 on rover 2.", chat) == ("600",)


def test_every_figure_of_a_long_line_is_read():
    line = "Rover 3 " * 20 + "and the score was 99-98."
    assert unshown_figures(line, [STATE], NAMES) == ("99", "98")
    assert unshown_figures("9" * 5000, [STATE]) == ("9" * 5000,)


def test_the_overseers_own_action_count_is_no_lap_count():
    # Said in a newcomer run after one action: the STATE_UPDATE showed "actions: 1/3 used in 60s".
    state = STATE.replace("actions: 0/3", "actions: 1/3")
    assert unshown_figures("Rover 2 did 1 lap last night.", [state], NAMES) == ("1",)
    assert unshown_figures("1 of 3 actions spent; the lift waits 21 s.", [state], NAMES) == ()


def test_a_refused_calls_wait_is_no_lap_count():
    # A cooldown refusal's result carries the wait as a field in seconds.
    result = '{"success": false, "tool": "lift_up", "outcome": "blocked", "retry_in_s": 21}'
    assert unshown_figures("Rover 2 did 21 laps last night.", [result], NAMES) == ("21",)
    assert unshown_figures("The lift is ready in 21 s.", [result], NAMES) == ()


def test_a_share_of_the_rooms_things_is_a_count():
    counts = {"rovers": 3}
    assert unshown_figures("2 of 3 rovers are docked.", [], NAMES, counts) == ()
    assert unshown_figures("2 of 30 rovers are docked.", [], NAMES, counts) == ("2/30",)
    assert unshown_figures("9" * 5000 + " of 3 rovers", [], NAMES, counts) == ("9" * 5000 + "/3",)
