"""The simulated room's people and what they and the model say, shared by the soaks."""

PEOPLE = ("alex", "sam", "jo", "kim", "lee")
# Distinct enough that the overseer's anti-repeat rule never has to silence one.
ANSWERS = (
    "I hear you.",
    "The lift answers to me, not to you.",
    "Drive better and we will talk.",
    "Noted.",
    "The dock remembers everything you do.",
    "Chaos has standards.",
    "Earn the darkness first.",
    "Ask again when the lights agree.",
    "Rover two owes me a lap.",
    "Patience is a tool I do not offer.",
    "Watching. Always watching.",
)
CHATTER = ("go go go", "nice drift", "who docked", "lights!", "that was close", "rover 2 again", "lol", "gg")
