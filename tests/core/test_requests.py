"""Requests: the act on a room device the asker's words ask for, in Home Assistant's own sentences."""

import pytest
from home_assistant_intents import get_intents, get_languages

from custom_components.overseer.core.acts import LIFT, VACUUM, Act, Deed, Device, Kind
from custom_components.overseer.core.requests import asked_deeds, fulfils, named_devices, recogniser_for


def light(name: str, *aliases: str) -> Device:
    return Device(f"light.{name.lower()}", Kind.LIGHT, (name, *aliases), "off")


# The demo room, with the aliases a household might give its devices in Home Assistant.
DEVICES = (
    Device(LIFT, Kind.LIFT, ("Lift", "elevador", "ascensor", "Aufzug", "ascenseur"), "closed"),
    Device(VACUUM, Kind.VACUUM, ("Neato", "aspiradora", "Staubsauger", "aspirateur"), "docked"),
    light("Shelf", "estante", "Regal", "étagère"),
    light("Bench", "banco", "luz del banco", "Werkbank", "établi"),
    light("Corner", "rincón", "Ecke", "coin"),
    light("Aux1"),
    light("Aux2"),
    light("Window", "ventana", "Fenster", "fenêtre"),
)
OVERSEER = ("Overseer", "Ovi")

UP, DOWN = Deed(LIFT, Act.OPEN), Deed(LIFT, Act.CLOSE)
NOTHING: frozenset[Deed] = frozenset()
START, DOCK = Deed(VACUUM, Act.START), Deed(VACUUM, Act.DOCK)


def on(name: str) -> Deed:
    return Deed(f"light.{name}", Act.ON)


def off(name: str) -> Deed:
    return Deed(f"light.{name}", Act.OFF)


def named(key: str) -> Deed:
    """Words no sentence reads that name the device: any act on it may be what they mean."""
    return Deed(key if key in (LIFT, VACUUM) else f"light.{key}", Act.ANY)


def colour(name: str, value: str) -> Deed:
    return Deed(f"light.{name}", Act.COLOUR, value)


REQUESTS = {
    "en": [
        ("overseer, lower the lift", DOWN),
        ("overseer raise the lift", UP),
        ("overseer make the bench light blue", colour("bench", "blue")),
        ("hey overseer lower the lift please", DOWN),
        ("Overseer, can you put the lift up?", UP),
        ("could you bring down the lift for me", DOWN),
        ("lower the lift, overseer", DOWN),
        ("Ovi: raise the lift", UP),
        ("open the lift", UP),
        ("close the lift", DOWN),
        ("turn on the corner light", on("corner")),
        ("please turn off the shelf light", off("shelf")),
        ("turn the window light off", off("window")),
        ("switch on aux2", on("aux2")),
        ("set the bench light to red", colour("bench", "red")),
        ("turn the corner light green", colour("corner", "green")),
        ("start neato", START),
        ("turn on the neato", START),
        ("send neato home", DOCK),
        ("send the neato back to its base", DOCK),
        ("what do you think of us?", None),
        ("is the lift up?", None),
        ("is the bench light on?", None),
        ("the lift is down", DOWN),
        ("don't lower the lift", None),
        ("do not: lower the lift", None),
        ("roast rover 3, don't touch the lift", None),
        ("never, ever, lower the lift", None),
        ("can you not lower the lift?", None),
        ("why did you raise the lift?", None),
        # Words no sentence reads that say an act ask for that act or nothing, never its opposite.
        ("I lowered the lift", DOWN),
        ("lower the bench light", None),
        ("turn on the lights", None),
        ("turn off all the lights", None),
        ("set the bench light brightness to 50%", named("bench")),
        ("overseer", None),
    ],
    "es": [
        ("apaga la luz del banco", off("bench")),
        ("¿Overseer, puedes bajar el elevador?", DOWN),
        ("overseer, baja el ascensor por favor", DOWN),
        ("sube el elevador", UP),
        ("levanta el ascensor", UP),
        ("¿me puedes subir el elevador?", UP),
        ("enciende la luz del rincón", on("corner")),
        ("prende la lampara del rincon", on("corner")),
        ("pon la luz del banco en azul", colour("bench", "blue")),
        ("pon azul la luz del banco", colour("bench", "blue")),
        ("pon la luz del banco roja", colour("bench", "red")),
        ("pon la aspiradora", START),
        ("enciende la aspiradora", START),
        ("oye overseer, pon en marcha la aspiradora", START),
        ("manda la aspiradora a limpiar", START),
        ("manda la aspiradora a su base", DOCK),
        ("devuelve la aspiradora a la base", DOCK),
        ("¿está encendida la luz del banco?", None),
        ("¿el elevador está arriba?", None),
        ("elige un bando", None),
        ("no bajes el elevador", None),
        ("no apagues la luz del banco", None),
        ("baja la luz del banco", named("bench")),
        ("apaga todas las luces", None),
        ("¿qué opinas de nosotros?", None),
    ],
    "de": [
        ("Overseer, fahr den Aufzug hoch", UP),
        ("hoch mit dem Aufzug", UP),
        ("runter mit dem Aufzug, bitte", DOWN),
        ("fahre den Aufzug runter", DOWN),
        ("schalte die Werkbank aus", off("bench")),
        ("schalte die Ecke an", on("corner")),
        ("mach die Werkbank blau", colour("bench", "blue")),
        ("starte den Staubsauger", START),
        ("schick den Staubsauger zurück zur Basis", DOCK),
        ("ist der Aufzug oben?", None),
        ("fahr den Aufzug bloß nicht hoch", None),
        ("was hältst du von uns?", None),
    ],
    "fr": [
        ("monte l'ascenseur", UP),
        ("Overseer, descends l'ascenseur s'il te plaît", DOWN),
        ("fais descendre l'ascenseur", DOWN),
        ("allume le coin", on("corner")),
        ("éteins la fenêtre", off("window")),
        ("mets la lampe de l'établi en bleu", colour("bench", "blue")),
        ("démarre l'aspirateur", START),
        ("renvoie l'aspirateur à sa base", DOCK),
        ("l'ascenseur est-il en haut ?", None),
        ("ne descends pas l'ascenseur", None),
        ("que penses-tu de nous ?", None),
    ],
}
CASES = [(language, text, deed) for language, cases in REQUESTS.items() for text, deed in cases]
IDS = [f"{language}: {text}" for language, text, _ in CASES]


@pytest.fixture(scope="module")
def recognisers():
    return {language: recogniser_for(language, get_intents(language)) for language in REQUESTS}


@pytest.mark.parametrize(("language", "text", "deed"), CASES, ids=IDS)
def test_the_words_ask_for_this_act_or_none(recognisers, language, text, deed):
    expected = NOTHING if deed is None else {deed}
    assert asked_deeds(text, DEVICES, recognisers[language], OVERSEER) == expected


def test_a_name_two_devices_share_asks_for_either(recognisers):
    devices = (*DEVICES[:5], light("Aux1", "aux"), light("Aux2", "aux"))
    assert asked_deeds("turn on the aux light", devices, recognisers["en"]) == {on("aux1"), on("aux2")}
    assert asked_deeds("turn on aux1", devices, recognisers["en"]) == {on("aux1")}


@pytest.mark.parametrize(
    ("text", "deeds"),
    [
        ("this is alex: raise the lift", {UP}),
        ("ok. lower the lift, please!", {DOWN}),
        ("lower the lift, make the bench light blue", {DOWN, colour("bench", "blue")}),
        ("raise the lift. no, lower the lift", set()),
        ("lower the lift, turn on the lights", {DOWN}),
        ("lower the lift, no, raise the lift", set()),
        ("roast rover 3, and the lift is down", {DOWN}),
        ("lower the lift and make the bench light blue", {DOWN}),
    ],
)
def test_words_that_do_not_match_whole_are_read_clause_by_clause(recognisers, text, deeds):
    assert asked_deeds(text, DEVICES, recognisers["en"], OVERSEER) == deeds


@pytest.mark.parametrize(
    ("text", "deeds"),
    [
        ("roast rover 3", set()),
        ("the neato needs its dock", {DOCK}),
        ("the lift, lower it", {DOWN}),
        ("the neato, again", {Deed(VACUUM, Act.ANY)}),
        ("is the lift up or down right now?", set()),
        ("¿de qué color está la luz del rincón?", set()),
    ],
)
def test_words_no_sentence_reads_may_ask_only_for_the_devices_they_name(recognisers, text, deeds):
    assert asked_deeds(text, DEVICES, recognisers["en"], OVERSEER) == deeds
    assert fulfils(frozenset(deeds), UP) is any(
        deed.device == LIFT and deed.act in (Act.ANY, Act.OPEN) for deed in deeds
    )


@pytest.mark.parametrize(
    ("language", "text", "deeds"),
    [
        ("en", "dock the neato right now", {DOCK}),
        ("en", "lower the lift for us, please", {DOWN}),
        ("es", "baja el elevador del todo", {DOWN}),
        ("es", "arranca la aspiradora para que limpie", {START}),
        # A condition makes the order wait: no sentence reads it, the act it says is all it may ask.
        ("en", "raise the lift if sam wins", {UP}),
        # Spanish's imperatives are not among our deed words yet: any act on the lift, as before.
        ("es", "sube el elevador cuando gane sam", {named(LIFT)}),
        # Too many words after it: the order is not read off them, its act is.
        ("en", "lower the lift so the crowd can see it", {DOWN}),
        # No act sentence opens a question about a state.
        ("en", "is the lift up right now?", set()),
        # Words after it that name a device or say a deed are a second order, not read off.
        ("en", "turn on the bench and the shelf", {on("bench"), on("shelf")}),
        # Two opposite acts on one device: neither is surely what is asked.
        ("en", "lower the lift or raise it", set()),
    ],
)
def test_a_few_words_after_an_order_are_read_off_it(recognisers, language, text, deeds):
    assert asked_deeds(text, DEVICES, recognisers[language], OVERSEER) == deeds


# Words that mention an act without asking for it: a how-to question, reported speech, a
# quotation. Each named the lift and no sentence read it whole, so it once let an answer do any
# act on the lift ("overseer, how do I lower the lift" raised it).
MENTIONS = [
    # A question opening with a question word, with or without its mark, accents or not.
    ("en", "overseer, how do I lower the lift"),
    ("en", "ok, so how can the lift go down"),
    ("en", "will you lower the lift and turn on the bench light"),
    ("es", "oye overseer, como bajo el ascensor"),
    ("es", "cómo se baja el ascensor"),
    ("de", "wie fahre ich den Aufzug runter"),
    ("fr", "comment descendre l'ascenseur"),
    # Reported speech, and an order passed on: someone else's words.
    ("en", "sam says lower the lift"),
    ("en", "sam said the lift should go down"),
    ("en", "lower the lift sam says"),
    ("en", "tell me how to lower the lift"),
    ("en", "explain how to lower the lift"),
    ("es", "sam dice que bajes el ascensor"),
    ("es", "explícame cómo bajar el ascensor"),
    ("de", "Sam sagt, fahr den Aufzug runter"),
    ("fr", "Sam dit de descendre l'ascenseur"),
    # A clause that only says who speaks reports the clause next to it, before or after.
    ("en", "sam says: lower the lift"),
    ("en", "lower the lift, says sam"),
    ("es", "sam dice: baja el ascensor"),
    # Quoted words, in any language's marks, in a clause of their own or not.
    ("en", 'sam says "lower the lift"'),
    ("en", 'sam says: "lower the lift"'),
    ("en", "sam says ‘lower the lift’"),
    ("en", "overseer, “lower the lift”"),
    ("es", "sam dice «baja el ascensor»"),
    ("de", "Sam sagt „fahr den Aufzug runter“"),
    ("de", "Sam sagt: »fahr den Aufzug runter«"),
    ("fr", "Sam dit : « descends l'ascenseur »"),
]


@pytest.mark.parametrize(
    ("language", "text"), MENTIONS, ids=[f"{language}: {text}" for language, text in MENTIONS]
)
def test_words_that_quote_report_or_ask_about_an_act_ask_for_nothing(recognisers, language, text):
    asked = asked_deeds(text, DEVICES, recognisers[language], OVERSEER)
    assert asked == NOTHING
    assert not fulfils(asked, UP) and not fulfils(asked, DOWN)


# The asker's own order still counts, next to words that quote or report someone's, after a
# question a sentence reads as a request, and with a name or a word in marks.
OWN_ORDERS = [
    ("en", "lower the lift", DOWN),
    ("en", "overseer, lower the lift now", DOWN),
    ("en", "sam says hi, lower the lift", DOWN),
    ("en", 'sam says "hi", lower the lift', DOWN),
    ("en", "raise the lift, sam says hi", UP),
    ("en", "how was your day? lower the lift", DOWN),
    ("en", "can you lower the lift", DOWN),
    ("en", "lower the lift “now”", DOWN),
    ("en", 'turn on "Aux1"', on("aux1")),
    ("en", "turn on the 'bench' light", on("bench")),
    ("es", "baja el ascensor", DOWN),
    ("es", "sam dice hola, baja el ascensor", DOWN),
    ("es", "¿puedes bajar el ascensor?", DOWN),
    ("de", "Sam sagt hallo, fahr den Aufzug runter", DOWN),
    ("fr", "Sam dit bonjour, descends l'ascenseur", DOWN),
    ("fr", "Overseer, descends l'ascenseur s'il te plaît", DOWN),
]


@pytest.mark.parametrize(
    ("language", "text", "deed"), OWN_ORDERS, ids=[f"{language}: {text}" for language, text, _ in OWN_ORDERS]
)
def test_an_order_in_the_askers_own_words_still_counts(recognisers, language, text, deed):
    assert asked_deeds(text, DEVICES, recognisers[language], OVERSEER) == {deed}


def test_a_device_is_asked_for_by_its_names_only(recognisers):
    assert asked_deeds("lower the elevator", DEVICES, recognisers["en"]) == NOTHING
    lift = Device(LIFT, Kind.LIFT, ("Lift", "elevator"), "open")
    assert asked_deeds("lower the elevator", (lift,), recognisers["en"]) == {DOWN}
    assert asked_deeds("lower the lift", (), recognisers["en"]) == NOTHING


def test_without_the_overseer_named_in_addressed_as_its_name_is_words_like_any_other(recognisers):
    assert asked_deeds("overseer lower the lift", DEVICES, recognisers["en"]) == {DOWN}
    assert asked_deeds("Ovi, lower the lift", DEVICES, recognisers["en"], ("ovi",)) == {DOWN}


def test_a_long_text_asks_for_nothing(recognisers):
    padding = "please " * 50
    assert asked_deeds(f"{padding}lower the lift", DEVICES, recognisers["en"]) == NOTHING


def test_a_regional_language_reads_its_language_and_one_without_sentences_reads_nothing():
    assert asked_deeds("baja el elevador", DEVICES, recogniser_for("es-419", get_intents("es"))) == {DOWN}
    assert asked_deeds("lower the lift", DEVICES, recogniser_for("xx", None)) == NOTHING


def test_every_language_home_assistant_speaks_builds_and_reads_without_failing():
    for language in get_languages():
        recogniser = recogniser_for(language, get_intents(language))
        for text in ("lower the lift", "Neato", "turn on the bench light", "?"):
            asked_deeds(text, DEVICES, recogniser, OVERSEER)


@pytest.mark.parametrize(
    ("asked", "done", "fulfilled"),
    [
        (DOWN, DOWN, True),
        (DOWN, UP, False),
        (on("bench"), on("bench"), True),
        (on("bench"), colour("bench", "blue"), True),
        (on("bench"), off("bench"), False),
        (on("bench"), on("corner"), False),
        (off("bench"), colour("bench", "blue"), False),
        (colour("bench", "blue"), colour("bench", "blue"), True),
        (colour("bench", "blue"), colour("bench", "red"), False),
        (colour("bench", "blue"), on("bench"), False),
        (colour("bench", "blue"), colour("corner", "blue"), False),
        (START, START, True),
        (START, DOCK, False),
        (DOCK, Deed(VACUUM, Act.LOCATE), False),
    ],
)
def test_fulfils(asked, done, fulfilled):
    assert fulfils(frozenset({asked}), done) is fulfilled


def test_words_that_ask_for_nothing_are_fulfilled_by_no_act():
    assert not fulfils(NOTHING, DOWN)
    assert fulfils(frozenset({on("aux1"), on("aux2")}), on("aux2"))


def test_sentences_that_read_what_we_lack_or_name_no_device_of_ours_ask_for_nothing():
    intents = {
        "language": "en",
        "intents": {
            "HassTurnOn": {
                "data": [
                    {"sentences": ["hoist {name}"], "requires_context": {"domain": "cover"}},
                    {"sentences": ["<heave> {name}"]},
                    {"sentences": ["raise ({spot}|{name})"]},
                ]
            }
        },
        "lists": {"spot": {"values": ["everything"]}},
    }
    recogniser = recogniser_for("en", intents)
    assert asked_deeds("hoist lift", DEVICES, recogniser) == {UP}
    assert asked_deeds("heave lift", DEVICES, recogniser) == {named(LIFT)}
    assert asked_deeds("raise everything", DEVICES, recogniser) == NOTHING
    assert asked_deeds("raise lift", DEVICES, recogniser) == {UP}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("@overseer ¿el elevador está arriba o abajo?", [(LIFT, "elevador")]),
        ("overseer, is the bench light on?", [("light.bench", "Bench")]),
        ("¿la luz del rincón está apagada?", [("light.corner", "rincón")]),
        ("overseer, who drives better, alex or jo?", []),
        ("is the lift up and the neato docked?", [(LIFT, "Lift"), (VACUUM, "Neato")]),
    ],
)
def test_the_devices_words_name_come_with_the_name_they_use(text, named):
    assert [(device.key, name) for device, name in named_devices(text, DEVICES)] == named


@pytest.mark.parametrize(
    "text",
    [
        "lower the lift, I said",
        "as I said, lower the lift",
        "like I said, lower the lift",
        "I ask you to lower the lift",
    ],
)
def test_the_askers_own_saying_is_their_order_not_a_report(recognisers, text):
    assert asked_deeds(text, DEVICES, recognisers["en"], OVERSEER) == {DOWN}


@pytest.mark.parametrize(
    "text",
    ["show me how to lower the lift", "sam wants you to lower the lift", "i wonder how to lower the lift"],
)
def test_a_mention_no_sentence_reads_may_ask_for_its_act_never_the_opposite(recognisers, text):
    asked = asked_deeds(text, DEVICES, recognisers["en"], OVERSEER)
    assert not fulfils(asked, UP)
