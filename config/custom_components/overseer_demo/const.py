"""Names shared by the demo room's platforms."""

DOMAIN = "overseer_demo"
SIGNAL_ROOM = f"{DOMAIN}_changed"
ROVERS = ("Rover 1", "Rover 2", "Rover 3")
LIGHTS = ("Shelf", "Bench", "Corner", "Aux1", "Aux2", "Window")
PEOPLE = ("alex", "sam", "jo", "kim")
