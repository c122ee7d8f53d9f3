"""Claims of remembering: a line that says memory was written is read against the calls that ran.

The device claims the old English reader caught are the statement check's now: the same lines
models wrote (the bundled Qwen2.5-Coder-1.5B in the demo check; a cloud model in
home-assistant/core#177156), read against a room where nothing ran.
"""

import pytest
from home_assistant_intents import get_intents

from custom_components.overseer.core.acts import LIFT, VACUUM, Device, Kind
from custom_components.overseer.core.claims import claimed_actions, unbacked_claims
from custom_components.overseer.core.statements import false_statements, words_for

MEMORY_PHRASINGS = [
    ("I'll remember that, sam.", ("memory",)),
    ("Saved to memory: sam owes a lap.", ("memory",)),
    # The bundled model's answers with no call at all (the demo check's trace, 0.6.0).
    ("I'll note that you asked.", ()),
    ("I will save you a seat.", ()),
    ("I won't remember that.", ()),
    ("Lift raised.", ()),
]


@pytest.mark.parametrize(("line", "claims"), MEMORY_PHRASINGS)
def test_a_line_claims_the_memory_it_says_it_wrote(line, claims):
    assert claimed_actions(line) == claims


def test_a_memory_claim_is_backed_only_by_a_memory_write_that_ran():
    assert unbacked_claims("I'll remember that, sam.", []) == ("memory",)
    assert unbacked_claims("I'll remember that, sam.", ["memory_write"]) == ()
    assert unbacked_claims("I'll remember that, sam.", ["lift_up"]) == ("memory",)


def room(lift: str) -> tuple[Device, ...]:
    return (
        Device(LIFT, Kind.LIFT, ("Lift",), lift),
        Device(VACUUM, Kind.VACUUM, ("Neato", "vacuum"), "docked"),
        Device("light.bench", Kind.LIGHT, ("Bench light",), "on", "purple"),
        Device("light.corner", Kind.LIGHT, ("Corner light",), "on", "white"),
    )


# A deed said done is true of a lift the room shows it left: the lowered lift's lines are read
# with the lift up.
@pytest.mark.parametrize(
    ("line", "lift"),
    [
        ("Lift raised.", "closed"),
        ("Lift lowered.", "open"),
        ("Sure, I'll raise the lift.", "closed"),
        ('"Okay, let\'s lower the lift!"', "closed"),
        ("Raising the lift, hold on to something.", "closed"),
        ("Lift going up.", "closed"),
        ("alex: Lift lowered, as you wished.", "open"),
        ('alex: "Lift lowered, as you wished." Round 2.', "open"),
        ("Bench light now blue.", "closed"),
        ("I turned the corner light off.", "closed"),
        ("Switching the bench light to red. Dramatic.", "closed"),
        ("Started the vacuum. Mind your toes.", "closed"),
        ("Lift raised and the bench light now blue.", "closed"),
        ("Is the lift up? Lift up.", "closed"),
    ],
)
def test_the_device_claims_models_made_are_caught_when_nothing_ran(line, lift):
    assert false_statements(line, room(lift), (), words_for("en", get_intents("en")))
