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
    ("Lift going up.", ("lift_up",)),
    ("Up it goes.", ("lift_up",)),
    ("alex: Lift lowered, as you wished.", ("lift_down",)),
    ('alex: "Lift lowered, as you wished." Round 2.', ("lift_down",)),
    ("Bench light now blue.", ("light",)),
    ("I turned the corner light off.", ("light",)),
    ("Switching the bench light to red. Dramatic.", ("light",)),
    ("Lights out.", ("light",)),
    ("Red it is.", ("light",)),
    ("Done! I've turned off the kitchen lights.", ("light",)),
    ("Started the vacuum. Mind your toes.", ("vacuum",)),
    ("Vacuum on its way.", ("vacuum",)),
    ("I'll remember that, sam.", ("memory",)),
    ("Saved to memory: sam owes a lap.", ("memory",)),
    ("Lift raised and the bench light now blue.", ("lift_up", "light")),
    # The bundled model's answers with no call at all (the demo check's trace, 0.6.0).
    ("Alex: I'm raising the lift.", ("lift_up",)),
    ("Alex: I'm lowering the lift.", ("lift_down",)),
    ("Alex: I'm setting the bench light to blue.", ("light",)),
    ("We're turning off the lights.", ("light",)),
    ("I am starting the vacuum.", ("vacuum",)),
    ("I'm not raising the lift.", ()),
    ("I'm raising the stakes.", ()),
    ("The lift was lowered.", ("lift_down",)),
    ("The lift has been raised.", ("lift_up",)),
    ("The lift was lowered by Sam.", ()),
    ("I'll call the lift up.", ("lift_up",)),
    ("The corner light is now off.", ("light",)),
    ("The bench light is now blue.", ("light",)),
    ("The corner light was turned off.", ("light",)),
    ("The lift is now up.", ("lift_up",)),
    ("The lift is now moving up.", ("lift_up",)),
    ("The corner light is off.", ()),
    ("The lift is down.", ()),
    ("The bench light's now blue.", ("light",)),
    # Past states and comments (an independent review's cases).
    ("alex: the lift was down", ()),
    ("The light is just gorgeous tonight.", ()),
    ("The light is now the least of your worries.", ()),
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
    ("So it is.", ()),
    ("Red it is not.", ()),
    ("Rover 2 is cheating again, I saw it.", ()),
    ("Kim: The rover 1 is parked on the dock.", ()),
    ("I'm here, what's up?", ()),
    ("The lift stays down, but the lights now red.", ("light",)),
    ("Kim: Lift up.", ("lift_up",)),
    ("Lights on!", ("light",)),
    ("Lift's going up!", ("lift_up",)),
    ("Raising lift now.", ("lift_up",)),
    ("Sending the lift up.", ("lift_up",)),
    ("No problem, raising the lift!", ("lift_up",)),
    ("Don't worry, I'll raise the lift.", ("lift_up",)),
    ("I won't lower the lift, I'll raise the lift.", ("lift_up",)),
    # Someone else's deeds, states, thanks and a true refusal (an independent review's cases).
    ("Someone turned off the lights.", ()),
    ("The lamp was switched off by Sam.", ()),
    ("Alex raised the lift earlier.", ()),
    ("Thanks for turning on the lights, Alex!", ()),
    ("Yes, the lift is going up.", ()),
    ("The vacuum is heading home.", ()),
    ("The lights are now red.", ()),
    ("The lift is going up.", ()),
    ("Sorry, the lights are locked on, so they're going to stay on.", ()),
    ("I'll write you a haiku.", ()),
    ("I'll note that you asked.", ()),
    ("I will save you a seat.", ()),
    ("Is the lift up? Lift up.", ("lift_up",)),
]


@pytest.mark.parametrize(("line", "claims"), PHRASINGS)
def test_a_line_claims_the_actions_it_says_happened(line, claims):
    assert claimed_actions(line) == claims


def test_a_claim_is_backed_only_by_a_call_of_its_own_kind_that_ran():
    assert unbacked_claims("Lift raised.", []) == ("lift_up",)
    assert unbacked_claims("Lift raised.", ["lift_up"]) == ()
    # Another action does not back it, nor does lowering back raising.
    assert unbacked_claims("Lift raised.", ["lift_down", "ha_set_entity"]) == ("lift_up",)
    assert unbacked_claims("Lift raised and the bench light now blue.", ["ha_set_entity"]) == ("lift_up",)
    assert unbacked_claims("Vacuum sent home.", ["neato_send_home"]) == ()
    assert unbacked_claims("The lift is up.", []) == ()
