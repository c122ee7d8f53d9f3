"""Unbacked claims: a line that says an action happened is read against the calls that ran."""

import pytest

from custom_components.overseer.core.claims import claimed_actions, unbacked_claims

# Lines models wrote (the bundled Qwen2.5-Coder-1.5B in the demo check, issue 21; a cloud model
# in home-assistant/core#177156) and lines in the overseer's voice, with what each claims.
PHRASINGS = [
    ("Lift raised.", ("lift_up",)),
    ("Lift lowered.", ("lift_down",)),
    ("Sure, I'll raise the lift.", ("lift_up",)),
    ('"Okay, let\'s lower the lift!"', ("lift_down",)),
    ("Raising the lift, hold on to something.", ("lift_up",)),
    ("The lift is going up.", ("lift_up",)),
    ("Up it goes.", ("lift_up",)),
    ("alex: Lift lowered, as you wished.", ("lift_down",)),
    ("Bench light is now blue.", ("light",)),
    ("I turned the corner light off.", ("light",)),
    ("Switching the bench light to red. Dramatic.", ("light",)),
    ("Lights out.", ("light",)),
    ("Done! I've turned off the kitchen lights.", ("light",)),
    ("Started the vacuum. Mind your toes.", ("vacuum",)),
    ("The vacuum is on its way.", ("vacuum",)),
    ("I'll remember that, sam.", ("memory",)),
    ("Lift raised and the bench light is now blue.", ("lift_up", "light")),
    # States, refusals, questions and plans for later claim nothing.
    ("The lift is up.", ()),
    ("The vacuum is running.", ()),
    ("Alex: The vacuum is running.", ()),
    ("The lift is ready to be raised.", ()),
    ("Lift stays put. Chaos has standards.", ()),
    ("I won't raise the lift for you, alex.", ()),
    ("No, the lift is not going up.", ()),
    ("Should I raise the lift?", ()),
    ("Want the lights off?", ()),
    ("Lights look great tonight.", ()),
    ("Rover 2 is cheating again, I saw it.", ()),
    ("Kim: The rover 1 is parked on the dock.", ()),
    ("I'm here, what's up?", ()),
    ("The lift stays down, but the lights are now red.", ("light",)),
]


@pytest.mark.parametrize(("line", "claims"), PHRASINGS)
def test_a_line_claims_the_actions_it_says_happened(line, claims):
    assert claimed_actions(line) == claims


def test_a_claim_is_backed_only_by_a_call_of_its_own_kind_that_ran():
    assert unbacked_claims("Lift raised.", []) == ("lift_up",)
    assert unbacked_claims("Lift raised.", ["lift_up"]) == ()
    # Another action does not back it, nor does lowering back raising.
    assert unbacked_claims("Lift raised.", ["lift_down", "ha_set_entity"]) == ("lift_up",)
    assert unbacked_claims("Lift raised and the bench light is now blue.", ["ha_set_entity"]) == ("lift_up",)
    assert unbacked_claims("Vacuum sent home.", ["neato_send_home"]) == ()
    assert unbacked_claims("The lift is up.", []) == ()
