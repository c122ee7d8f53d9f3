"""Names shared by the demo room's platforms."""

DOMAIN = "overseer_demo"
SIGNAL_ROOM = f"{DOMAIN}_changed"
ROVERS = ("Rover 1", "Rover 2", "Rover 3")
LIGHTS = ("Shelf", "Bench", "Corner", "Aux1", "Aux2", "Window")
PEOPLE = ("alex", "sam", "jo", "kim")
# Other names for the room's devices, set as aliases in Home Assistant's entity registry as a
# household would: Spanish ones, so the overseer knows "la luz del banco" or "el ascensor", and
# the words people use for the Neato ("start the vacuum": Home Assistant's sentences need a name).
ALIASES: dict[str, tuple[str, ...]] = {
    "light.shelf": ("estante", "luz del estante", "estantería", "luz de la estantería"),
    "light.bench": ("banco", "luz del banco"),
    "light.corner": ("rincón", "luz del rincón", "esquina"),
    "light.aux1": ("auxiliar 1", "luz auxiliar 1"),
    "light.aux2": ("auxiliar 2", "luz auxiliar 2"),
    "light.window": ("ventana", "luz de la ventana"),
    "cover.lift": ("elevador", "ascensor"),
    "vacuum.neato": ("vacuum", "robot vacuum", "aspiradora", "robot aspirador"),
}
