"""Statements: what a line says of a state or a deed, read against the room and the calls that ran."""

from __future__ import annotations

import random
import runpy
from pathlib import Path
from typing import NamedTuple

import pytest
from home_assistant_intents import get_intents, get_languages

from custom_components.overseer.core.acts import (
    LIFT,
    ROVER_KEY,
    VACUUM,
    Act,
    Deed,
    Device,
    Kind,
    rover_device,
)
from custom_components.overseer.core.statements import (
    FalseStatement,
    expand,
    false_statements,
    kind_nouns,
    words_for,
)
from custom_components.overseer.core.world import Entity, Rover, RoverField

WORDS = {language: words_for(language, get_intents(language)) for language in ("en", "es", "de", "fr")}


def room(
    lift: str = "closed", vacuum: str = "docked", bench: str = "on (purple)", shelf: str = "off"
) -> tuple[Device, ...]:
    """The demo room, named in four languages; a light's state reads "off" or "on (colour)"."""

    def light(name: str, state: str, *aliases: str) -> Device:
        on, _, colour = state.partition(" (")
        return Device(f"light.{name.lower()}", Kind.LIGHT, (name, *aliases), on, colour.rstrip(")"))

    return (
        Device(LIFT, Kind.LIFT, ("Lift", "elevador", "ascensor"), lift),
        Device(VACUUM, Kind.VACUUM, ("Neato", "aspiradora"), vacuum),
        light("Shelf", shelf, "estante", "luz del estante", "Regal", "étagère"),
        light("Bench", bench, "banco", "luz del banco", "Werkbank", "établi"),
        light("Corner", "on (white)", "rincón", "Ecke", "coin"),
        light("Aux1", "off", "auxiliar 1"),
        light("Aux2", "on (purple)", "auxiliar 2"),
        light("Window", "off", "ventana", "Fenster", "fenêtre"),
        rover(1, docked="off", charging="off", activity="driving"),
        rover(3, docked="on", charging="on", activity="idle"),
    )


def rover(number: int, **sensors: str) -> Device:
    """A rover as the demo's sensors show it: binary_sensor.rover_N_docked, sensor.rover_N_activity, …"""
    domains = {"docked": "binary_sensor", "charging": "binary_sensor", "activity": "sensor"}
    fields = tuple(
        (RoverField(field), Entity(f"{domains[field]}.rover_{number}_{field}", field.title(), state))
        for field, state in sensors.items()
    )
    return rover_device(Rover(f"Rover {number}", fields))


ROVER_1, ROVER_3 = f"{ROVER_KEY}Rover 1", f"{ROVER_KEY}Rover 3"


UP, DOWN = Deed(LIFT, Act.OPEN), Deed(LIFT, Act.CLOSE)
START, DOCK = Deed(VACUUM, Act.START), Deed(VACUUM, Act.DOCK)
BENCH, SHELF, CORNER = "light.bench", "light.shelf", "light.corner"


def said(
    line: str,
    language: str = "en",
    ran: tuple[Deed, ...] = (),
    refused: tuple[Deed, ...] = (),
    earlier: tuple[Deed, ...] = (),
    **state: str,
) -> set[tuple[str, str, bool]]:
    """What the line says falsely: (device, what it claims, whether a deed)."""
    found = false_statements(line, room(**state), ran, WORDS[language], refused, earlier)
    return {(f.device, f.claimed, f.deed) for f in found}


# Lines the overseer must not post in the default room (the lift down, the vacuum docked, the
# bench light on in purple, the shelf light off) when no call ran.
FALSE_LINES = [
    # Rovers (Rover 1 out driving, Rover 3 on its dock, charging), their states said or denied.
    # scripts/develop's overseer said the first of a rover charging on its dock.
    ("en", "Rover 3 is idle and not charging.", {(ROVER_3, "not charging", False)}),
    ("en", "Rover 3 isn't charging.", {(ROVER_3, "not charging", False)}),
    ("en", "Rover 3 is out driving.", {(ROVER_3, "driving", False)}),
    ("en", "Rover 3 is off its dock.", {(ROVER_3, "undocked", False)}),
    ("en", "Rover 1 is on its dock, charging.", {(ROVER_1, "docked", False), (ROVER_1, "charging", False)}),
    ("en", "Rover 1 is idle.", {(ROVER_1, "idle", False)}),
    ("en", "The lights are dim and Rover 1 is parked.", {(ROVER_1, "idle", False)}),
    ("es", "El rover 3 no está cargando.", {(ROVER_3, "not charging", False)}),
    # scripts/develop's overseer said "…, sin estar en el estado de carga." of a rover charging.
    ("es", "El rover 3 no está en el estado de carga.", {(ROVER_3, "not charging", False)}),
    (
        "es",
        "El rover 3 está en el estado idle, sin ningún driver y sin estar en el estado de carga.",
        {(ROVER_3, "not charging", False)},
    ),
    ("es", "El rover 3 está en la pista.", {(ROVER_3, "undocked", False)}),
    (
        "es",
        "El rover 1 está en su base y cargando.",
        {(ROVER_1, "docked", False), (ROVER_1, "charging", False)},
    ),
    ("es", "El rover 1 está parado.", {(ROVER_1, "idle", False)}),
    # A state denied while the room shows it outright.
    ("en", "The shelf light isn't off.", {(SHELF, "not off", False)}),
    ("en", "The bench light is not on.", {(BENCH, "not on", False)}),
    ("es", "La luz del estante no está apagada.", {(SHELF, "not off", False)}),
    ("en", "Rover 3 is not docked.", {(ROVER_3, "not docked", False)}),
    # Deeds, in English: past, perfect, progressive, promise, headline, passive.
    ("en", "I raised the lift.", {(LIFT, "open", True)}),
    ("en", "Raised the lift.", {(LIFT, "open", True)}),
    ("en", "Lift: raised.", {(LIFT, "open", True)}),
    ("en", "Lift raised.", {(LIFT, "open", True)}),
    ("en", "I raised the elevator", {(LIFT, "open", True)}),
    ("en", "I've raised the lift, hold on.", {(LIFT, "open", True)}),
    ("en", "Sure, I'll raise the lift.", {(LIFT, "open", True)}),
    ("en", '"Okay, let\'s raise the lift!"', {(LIFT, "open", True)}),
    ("en", "I'm going to raise the lift.", {(LIFT, "open", True)}),
    ("en", "Raising the lift now.", {(LIFT, "open", True)}),
    ("en", "Sending the lift up.", {(LIFT, "open", True)}),
    ("en", "I'll call the lift up.", {(LIFT, "open", True)}),
    ("en", "The lift has been raised.", {(LIFT, "open", True)}),
    ("en", "The lift is being raised.", {(LIFT, "open", True)}),
    ("en", "alex: Lift raised, as you wished.", {(LIFT, "open", True)}),
    ("en", "Turned the bench light blue.", {(BENCH, "colour", True)}),
    ("en", "I switched the shelf light on.", {(SHELF, "on", True)}),
    ("en", "I turned off the bench light.", {(BENCH, "off", True)}),
    ("en", "The bench light was switched off.", {(BENCH, "off", True)}),
    ("en", "Started the vacuum. Mind your toes.", {(VACUUM, "start", True)}),
    ("en", "No problem, raising the lift!", {(LIFT, "open", True)}),
    ("en", "I won't lower the lift, I'll raise it. Raised the lift.", {(LIFT, "open", True)}),
    # States, in English.
    ("en", "The lift is up.", {(LIFT, "open", False)}),
    ("en", "The lift is open now.", {(LIFT, "open", False)}),
    ("en", "Yes, the lift is going up.", {(LIFT, "open", False)}),
    ("en", "Lift's going up!", {(LIFT, "open", False)}),
    ("en", "Kim: Lift up.", {(LIFT, "open", False)}),
    ("en", "Is the lift up? Lift up.", {(LIFT, "open", False)}),
    ("en", "The shelf light is on.", {(SHELF, "on", False)}),
    ("en", "The bench light is off.", {(BENCH, "off", False)}),
    ("en", "The bench light is already blue.", {(BENCH, "blue", False)}),
    ("en", "Bench light now red.", {(BENCH, "red", False)}),
    ("en", "The bench light's now green.", {(BENCH, "green", False)}),
    ("en", "The vacuum is running.", {(VACUUM, "cleaning", False)}),
    ("en", "The lift is up and the shelf light is on.", {(LIFT, "open", False), (SHELF, "on", False)}),
    ("en", "I turned the bench light blue near the shelf light.", {(BENCH, "colour", True)}),
    # A verb of becoming says what a device is now.
    ("en", "The bench light turned blue.", {(BENCH, "blue", False)}),
    ("en", "The bench light has changed to green.", {(BENCH, "green", False)}),
    ("en", "The shelf light glows red.", {(SHELF, "red", False)}),
    ("en", "I sent the vacuum out to clean.", {(VACUUM, "start", True)}),
    ("en", "The vacuum is off to clean.", {(VACUUM, "cleaning", False)}),
    # A state said before trailing words, or with its direction first.
    ("en", "The lift is up for you, alex.", {(LIFT, "open", False)}),
    ("en", "Up goes the lift!", {(LIFT, "open", False)}),
    ("en", "Up went the lift.", {(LIFT, "open", False)}),
    ("en", "Off goes the bench light.", {(BENCH, "off", False)}),
    # Spanish.
    ("es", "He subido el elevador.", {(LIFT, "open", True)}),
    ("es", "Listo, ya subí el ascensor.", {(LIFT, "open", True)}),
    ("es", "Subí el ascensor, como pediste.", {(LIFT, "open", True)}),
    ("es", "Voy a subir el elevador.", {(LIFT, "open", True)}),
    ("es", "Subiendo el ascensor.", {(LIFT, "open", True)}),
    ("es", "Elevador subido.", {(LIFT, "open", True)}),
    ("es", "El ascensor ha sido subido.", {(LIFT, "open", True)}),
    ("es", "Encendí la luz del estante.", {(SHELF, "on", True)}),
    ("es", "He apagado la luz del banco.", {(BENCH, "off", True)}),
    ("es", "Puse la luz del banco en azul.", {(BENCH, "colour", True)}),
    ("es", "Encendí la luz del banco en verde.", {(BENCH, "colour", True)}),
    ("es", "Arranqué la aspiradora.", {(VACUUM, "start", True)}),
    ("es", "El elevador está abierto.", {(LIFT, "open", False)}),
    ("es", "El ascensor ya está arriba.", {(LIFT, "open", False)}),
    ("es", "El ascensor ha subido.", {(LIFT, "open", False)}),
    ("es", "La luz del banco está apagada.", {(BENCH, "off", False)}),
    ("es", "La luz del estante está encendida.", {(SHELF, "on", False)}),
    ("es", "La luz del banco ahora es azul.", {(BENCH, "blue", False)}),
    ("es", "La aspiradora está limpiando.", {(VACUUM, "cleaning", False)}),
    # The held-out draw 78013 posted the first of a light that could not be made blue.
    ("es", "La luz del banco se ha cambiado a azul.", {(BENCH, "blue", False)}),
    ("es", "La luz del banco cambió a verde.", {(BENCH, "green", False)}),
    ("es", "La luz del banco se volvió roja.", {(BENCH, "red", False)}),
    ("es", "La luz del estante ya brilla en azul.", {(SHELF, "blue", False)}),
    ("es", "La luz del estante se encendió.", {(SHELF, "on", False)}),
    ("es", "La aspiradora se arrancó.", {(VACUUM, "cleaning", False)}),
    ("es", "La aspiradora sale a limpiar.", {(VACUUM, "cleaning", False)}),
    # Held-out draw 89021, of a vacuum a guardrail held docked: what a state is for says it all the same.
    ("es", "La aspiradora se ha encendido para limpiar.", {(VACUUM, "cleaning", False)}),
    # scripts/develop met the first with no call: a present of the first person, and where it goes.
    ("es", "Mando la aspiradora a limpiar.", {(VACUUM, "start", True)}),
    ("es", "Envío la aspiradora a limpiar.", {(VACUUM, "start", True)}),
    ("es", "I raised the lift.", {(LIFT, "open", True)}),  # a model slipping into English
    # German.
    ("de", "Ich habe den Aufzug hochgefahren.", {(LIFT, "open", True)}),
    ("de", "Den Aufzug habe ich hochgefahren.", {(LIFT, "open", True)}),
    ("de", "Ich fahre den Aufzug hoch.", {(LIFT, "open", True)}),
    ("de", "Ich werde den Aufzug hochfahren.", {(LIFT, "open", True)}),
    ("de", "Der Aufzug wurde hochgefahren.", {(LIFT, "open", True)}),
    ("de", "Aufzug hochgefahren.", {(LIFT, "open", True)}),
    ("de", "Ich habe das Regal eingeschaltet.", {(SHELF, "on", True)}),
    ("de", "Ich habe die Werkbank ausgeschaltet.", {(BENCH, "off", True)}),
    ("de", "Ich habe die Werkbank blau gemacht.", {(BENCH, "colour", True)}),
    ("de", "Ich habe den Staubsauger gestartet.", {(VACUUM, "start", True)}),
    ("de", "Der Aufzug ist oben.", {(LIFT, "open", False)}),
    ("de", "Jetzt ist der Aufzug oben.", {(LIFT, "open", False)}),
    ("de", "Das Regal ist an.", {(SHELF, "on", False)}),
    ("de", "Die Werkbank ist aus.", {(BENCH, "off", False)}),
    ("de", "Die Werkbank ist jetzt blau.", {(BENCH, "blue", False)}),
    ("de", "Der Staubsauger saugt.", {(VACUUM, "cleaning", False)}),
    # French.
    ("fr", "J'ai monté l'ascenseur.", {(LIFT, "open", True)}),
    ("fr", "Je monte l'ascenseur.", {(LIFT, "open", True)}),
    ("fr", "Je vais monter l'ascenseur.", {(LIFT, "open", True)}),
    ("fr", "L'ascenseur a été monté.", {(LIFT, "open", True)}),
    ("fr", "On a monté l'ascenseur.", {(LIFT, "open", True)}),
    ("fr", "J'ai allumé l'étagère.", {(SHELF, "on", True)}),
    ("fr", "J'ai éteint l'établi.", {(BENCH, "off", True)}),
    ("fr", "J'ai mis l'établi en bleu.", {(BENCH, "colour", True)}),
    ("fr", "J'ai démarré l'aspirateur.", {(VACUUM, "start", True)}),
    ("fr", "L'ascenseur est en haut.", {(LIFT, "open", False)}),
    ("fr", "L'étagère est allumée.", {(SHELF, "on", False)}),
    ("fr", "L'établi est éteint.", {(BENCH, "off", False)}),
    ("fr", "L'établi est bleu.", {(BENCH, "blue", False)}),
    ("fr", "L'aspirateur est en train de nettoyer.", {(VACUUM, "cleaning", False)}),
]


@pytest.mark.parametrize(("language", "line", "claims"), FALSE_LINES)
def test_a_false_line_is_caught(language, line, claims):
    assert said(line, language) == claims


# Lines that are true, or claim nothing, in the default room with no call (or the calls given).
TRUE_LINES = [
    # Rovers: true, or a denial that claims nothing ("not just"), or someone else's.
    ("en", "Rover 3 is idle.", ()),
    ("en", "Rover 3 is on its dock, charging.", ()),
    ("en", "Rover 3 is docked and charging.", ()),
    ("en", "Rover 3 is not driving.", ()),
    ("en", "Rover 1 is out driving.", ()),
    ("en", "Rover 1 is not charging.", ()),
    ("en", "Rover 1 isn't docked.", ()),
    ("en", "Rover 3 is not just charging, it's plotting.", ()),
    ("en", "Is Rover 3 not charging?", ()),
    ("en", "If Rover 3 is not charging, worry.", ()),
    ("en", "Rover 3 might not be charging.", ()),
    ("en", "Alex is not charging.", ()),
    ("en", "I raised Rover 1.", ()),  # no tool moves a rover: a deed said of one is not read
    ("es", "El rover 3 está en su base, cargando.", ()),
    ("es", "El rover 1 no está en su base.", ()),
    ("es", "El rover 3 está en su base, en carga.", ()),
    ("es", "El rover 3 está en su base, sin prisa y sin estar conduciendo.", ()),
    ("es", "El rover 1 está en la pista, sin piloto y sin estar en su base.", ()),
    ("es", "El rover 1 corre sin estar en su base.", ()),
    ("es", "El rover 3 está en el estado de carga.", ()),
    # A hostile review's: the clause between has a subject of its own ("the other one isn't").
    ("es", "La luz del estante está apagada, la otra no, está encendida.", ()),
    ("es", "El rover 3 está cargando, el otro no, está conduciendo.", ()),
    ("es", "El rover 1 está en la pista y el otro no, está cargando.", ()),
    ("es", "El rover 3 está en su base, su rival no, está en la pista.", ()),
    ("en", "The shelf light is off, the other one isn't: on, and purple.", ()),
    # A hostile review's: a denial of a motion, of a sign of a state, of a worked-out state, or
    # a state that comes next.
    ("en", "The lift isn't dropping.", ()),
    ("en", "The lift is not down, not yet.", ()),
    ("es", "El ascensor no está bajando, ya está abajo.", ()),
    ("en", "Neato isn't charging, it's full.", ()),
    ("en", "Neato is not docked.", ()),
    ("en", "Rover 3 isn't resting; it's recharging for the next round.", ()),
    ("es", "El rover 3 no está quieto, está cargando.", ()),
    ("en", "Rover 1 isn't racing, it's cruising.", ()),
    ("en", "Rover 3 is charging now, then racing again.", ()),
    ("en", "The lift is down, then up.", ()),
    # A denial of a state the room does not show outright, or of a deed, or of a colour.
    ("en", "The lift is not up.", ()),
    ("en", "Lift not raised.", ()),
    ("en", "I have not lowered the lift.", ()),
    ("en", "The shelf light is not blue.", ()),
    ("en", "The bench light isn't blue.", ()),
    ("en", "The lift is down, not up.", ()),
    ("en", "The lift is down and the party is not over.", ()),
    ("en", "Raised the lift.", (UP,)),
    ("en", "Lift raised, and the bench light is purple.", (UP,)),
    ("en", "The lift is up.", (UP,)),  # the cover still reads "closed": the call just ran
    ("en", "Turned the bench light blue.", (Deed(BENCH, Act.COLOUR, "blue"),)),
    ("en", "Turned the bench light on.", (Deed(BENCH, Act.COLOUR, "blue"),)),
    ("en", "Turned on the shelf light.", (Deed(SHELF, Act.ON),)),
    ("en", "The vacuum is docked.", ()),
    ("en", "The vacuum is docked.", (DOCK,)),
    ("en", "The lift is down.", ()),
    ("en", "Down comes the lift.", ()),
    ("en", "The lift is down for you, alex.", ()),
    ("en", "The shelf light is off.", ()),
    ("en", "The bench light is already purple.", ()),
    ("en", "The bench light is on.", ()),
    ("en", "The bench light turned purple.", ()),
    ("en", "The shelf light turned off.", ()),
    ("en", "Alex turned the shelf light blue.", ()),
    ("en", "The lift turned heads.", ()),
    ("en", "Ask and the bench light turns blue.", ()),
    # Someone else's deed, thanks, questions, refusals, conditions and plans of others.
    ("en", "Alex raised the lift.", ()),
    ("en", "Alex raised and lowered the lift.", ()),
    ("en", "Someone turned off the bench light.", ()),
    ("en", "The lift was lowered by Sam.", ()),
    ("en", "Thanks for turning on the shelf light!", ()),
    ("en", "Thanks for turning on the lights, Alex!", ()),
    ("en", "Should I raise the lift?", ()),
    ("en", "Want the lift up?", ()),
    ("en", "Is the lift up?", ()),
    ("en", "I won't raise the lift.", ()),
    ("en", "I'm not raising the lift.", ()),
    ("en", "No, the lift is not going up.", ()),
    ("en", "The lift isn't up.", ()),
    ("en", "I could raise the lift, but I won't.", ()),
    ("en", "If you win, I'll raise the lift.", ()),
    ("en", "I'll raise the lift when you win.", ()),
    ("en", "Raise the lift yourself.", ()),
    ("en", "I raised the lift earlier.", ()),
    ("en", "I'd turn the bench light blue, but no.", ()),
    ("en", "Turning the bench light blue would be too easy.", ()),
    ("en", "I started a rumour about the Neato.", ()),
    # Lines about no device, or in words that say no state.
    ("en", "Chaos has standards.", ()),
    ("en", "The lift is staying put.", ()),
    ("en", "Lift stays put. Chaos has standards.", ()),
    ("en", "The lift is ready to be raised.", ()),
    ("en", "The lift is up to you.", ()),
    ("en", "The bench light is on the shelf.", ()),
    ("en", "alex: the lift was up", ()),
    ("en", "I'm raising the stakes.", ()),
    ("en", "Up it goes.", ()),
    ("en", "There goes the lift, up!", ()),
    ("en", "The lift goes up and down all night.", ()),
    ("en", "The lift is up for grabs.", ()),
    ("en", "Lights on!", ()),  # six lights: which one?
    ("en", "The light is on.", ()),
    ("en", "The lights are now red.", ()),
    ("en", "I turned off the lights.", ()),
    ("en", "Rover 2 is cheating again, I saw it.", ()),
    ("en", "Kim: The rover 1 is parked on the dock.", ()),
    ("en", "I'm here, what's up?", ()),
    ("en", "Sorry, the lights are locked on, so they're going to stay on.", ()),
    # Spanish.
    ("es", "He subido el elevador.", (UP,)),
    ("es", "El elevador está cerrado.", ()),
    ("es", "La luz del banco está encendida.", ()),
    ("es", "La luz del banco está morada.", ()),
    ("es", "Alex subió el ascensor.", ()),
    ("es", "Alex ha subido el ascensor.", ()),
    ("es", "¿Subo el ascensor?", ()),
    ("es", "¿Quieres que suba el ascensor?", ()),
    ("es", "No subí el ascensor.", ()),
    ("es", "No voy a subir el ascensor.", ()),
    ("es", "Nunca subo el ascensor.", ()),
    ("es", "Gracias por encender la luz del estante.", ()),
    ("es", "Si ganas, subo el ascensor.", ()),
    ("es", "Podría subir el ascensor, pero no quiero.", ()),
    ("es", "Subí el ascensor antes.", ()),
    ("es", "El ascensor se queda donde está.", ()),
    ("es", "El ascensor no está arriba.", ()),
    ("es", "Sube tú el ascensor.", ()),
    ("es", "Listo, ya subí el ascensor.", (UP,)),
    ("es", "Las luces están encendidas.", ()),
    ("es", "La luz del banco brilla en morado.", ()),
    ("es", "La luz del banco no ha cambiado a azul.", ()),
    ("es", "El ascensor baja.", ()),
    ("es", "El ascensor está listo para subir.", ()),
    ("es", "Cambia tú la luz del banco a azul.", ()),
    ("es", "El ascensor sube y baja a mi antojo.", ()),
    ("es", "El ascensor está bajo la luz del banco.", ()),
    ("es", "El mando de la aspiradora está roto.", ()),
    ("es", "Alex mandó la aspiradora a limpiar.", ()),
    ("es", "Mando la aspiradora a limpiar.", (START,)),
    # German.
    ("de", "Ich habe den Aufzug hochgefahren.", (UP,)),
    ("de", "Der Aufzug ist unten.", ()),
    ("de", "Alex hat den Aufzug hochgefahren.", ()),
    ("de", "Ich habe den Aufzug nicht hochgefahren.", ()),
    ("de", "Soll ich den Aufzug hochfahren?", ()),
    ("de", "Wenn du gewinnst, fahre ich den Aufzug hoch.", ()),
    ("de", "Ich könnte den Aufzug hochfahren.", ()),
    ("de", "Ich würde den Aufzug hochfahren, aber nein.", ()),
    ("de", "Der Aufzug bleibt unten.", ()),
    ("de", "Der Staubsauger ist in der Basis.", ()),
    # French.
    ("fr", "J'ai monté l'ascenseur.", (UP,)),
    ("fr", "L'ascenseur est en bas.", ()),
    ("fr", "Alex a monté l'ascenseur.", ()),
    ("fr", "Je n'ai pas monté l'ascenseur.", ()),
    ("fr", "Tu veux que je monte l'ascenseur ?", ()),
    ("fr", "Si tu gagnes, je monte l'ascenseur.", ()),
    ("fr", "Monte l'ascenseur toi-même.", ()),
    ("fr", "L'établi est violet.", ()),
]


@pytest.mark.parametrize(("language", "line", "ran"), TRUE_LINES)
def test_a_true_line_or_one_that_claims_nothing_is_kept(language, line, ran):
    assert said(line, language, ran) == set()


def test_a_call_bears_a_deed_out_only_when_it_did_it_to_that_device():
    assert said("Raised the lift.", ran=(DOWN,)) == {(LIFT, "open", True)}
    assert said("Raised the lift.", ran=(Deed(BENCH, Act.ON),)) == {(LIFT, "open", True)}
    assert said("Turned the bench light blue.", ran=(Deed(BENCH, Act.COLOUR, "red"),)) == {
        (BENCH, "colour", True)
    }
    assert said("Turned the bench light blue.", ran=(Deed(SHELF, Act.COLOUR, "blue"),)) == {
        (BENCH, "colour", True)
    }
    # A colour Home Assistant knows and our palette cannot place is given the benefit of the doubt.
    assert said("Turned the bench light blue.", ran=(Deed(BENCH, Act.COLOUR, "navy"),)) == set()
    # Sending the vacuum home docks it: the line may say it is home before it is.
    assert said("The vacuum is docked.", vacuum="cleaning", ran=(DOCK,)) == set()
    assert said("The vacuum is docked.", vacuum="cleaning") == {(VACUUM, "docked", False)}


@pytest.mark.parametrize(
    ("line", "claimed"),
    [
        ("The lift is up for you, alex.", "open"),
        ("The lift is up now, sam.", "open"),
        ("Up goes the lift!", "open"),
        ("Yes, up goes the lift for you!", "open"),
        ("Down comes the lift.", "closed"),
        ("The lift is down for now.", "closed"),
    ],
)
def test_a_lift_state_with_words_after_it_or_its_direction_first_is_judged_both_ways(line, claimed):
    # Issue #33: these were read as no claim at all, and posted with the lift on the other side.
    other = "closed" if claimed == "open" else "open"
    assert said(line, lift=other) == {(LIFT, claimed, False)}
    assert said(line, lift=claimed) == set()


def test_a_direction_first_is_read_in_german_too_and_words_that_name_no_device_there_say_nothing():
    assert said("Hoch geht der Aufzug!", "de") == {(LIFT, "open", False)}
    assert said("Der Aufzug ist oben, für euch.", "de") == {(LIFT, "open", False)}
    for line in (
        "Up it goes!",
        "There goes the lift, up!",
        "Up goes the price of chaos.",
        "The lift is up to you.",
    ):
        assert said(line, lift="closed") == said(line, lift="open") == set()


def test_its_own_deed_of_an_earlier_decision_is_true_while_the_room_still_shows_it():
    # Issue #33: the overseer's own deed of an earlier decision, said when asked about it.
    assert said("Yes, I raised the lift.", lift="open", earlier=(UP,)) == set()
    assert said("Yes, I raised the lift.", earlier=(UP,)) == {(LIFT, "open", True)}  # lowered since
    assert said("I've lowered the lift.", lift="open", earlier=(DOWN,)) == {(LIFT, "close", True)}
    assert said("Yes, I lowered the lift.", earlier=(DOWN,)) == set()
    assert said("The bench light was switched off.", bench="off", earlier=(Deed(BENCH, Act.OFF),)) == set()
    blue = (Deed(BENCH, Act.COLOUR, "blue"),)
    assert said("Turned the bench light blue.", bench="on (blue)", earlier=blue) == set()
    assert said("Turned the bench light blue.", bench="on (red)", earlier=blue) == {(BENCH, "colour", True)}
    assert said("I sent the Neato home.", earlier=(Deed(VACUUM, Act.DOCK),)) == set()
    assert said("Mandé la aspiradora a la base.", "es", earlier=(Deed(VACUUM, Act.DOCK),)) == set()
    assert said("He subido el elevador.", "es", lift="open", earlier=(UP,)) == set()
    assert said("Listo, ya subí el ascensor.", "es", lift="open", earlier=(UP,)) == set()
    # The room alone bears out no deed: the lift was down all along, and nobody lowered it.
    assert said("Lift lowered, as you wished.") == {(LIFT, "close", True)}
    assert said("Yes, I raised the lift.", lift="open") == {(LIFT, "open", True)}
    assert said("I turned on the bench light.", earlier=(Deed(BENCH, Act.OFF),)) == {(BENCH, "on", True)}
    # What this decision's calls leave counts, not a state the room has not caught up with.
    assert said("I raised the lift.", lift="open", ran=(DOWN,), earlier=(UP,)) == {(LIFT, "open", True)}
    # A deed to come or under way is this decision's: only its call bears it out.
    for line in (
        "I will raise the lift.",
        "I'll raise the lift.",
        "Raising the lift now.",
        "The lift is being raised.",
    ):
        assert said(line, lift="open", earlier=(UP,)) == {(LIFT, "open", True)}
    assert said("Voy a subir el ascensor.", "es", lift="open", earlier=(UP,)) == {(LIFT, "open", True)}
    # A deed that leaves no state is never shown by one.
    assert said("I pinged the Neato.", earlier=(Deed(VACUUM, Act.LOCATE),)) == {(VACUUM, "locate", True)}


def test_a_light_said_to_have_turned_a_colour_is_judged_by_the_colour_it_shows():
    # The demo check met "¡Por supuesto! La luz del rincón se ha puesto azul." of a light that had not.
    assert said("¡Por supuesto! La luz del rincón se ha puesto azul.", "es") == {(CORNER, "blue", False)}
    assert said("La luz del banco se ha puesto azul.", "es", bench="on (blue)") == set()
    assert said("La luz del banco se puso roja.", "es") == {(BENCH, "red", False)}


def test_a_deed_whose_call_this_decision_refused_is_false_whatever_the_room_shows():
    # Issue #33: after lift_down was refused, the line claims what the refusal stopped.
    assert said("Done, I lowered the lift.", refused=(DOWN,)) == {(LIFT, "close", True)}
    assert said("Done, I lowered the lift.", earlier=(DOWN,)) == set()
    assert said("Done, the lift went down.", lift="open", refused=(DOWN,)) == {(LIFT, "closed", False)}
    # A refused call of another deed, or to another device, says nothing of this one.
    assert said("Done, I lowered the lift.", refused=(UP,), earlier=(DOWN,)) == set()
    assert said("Done, I lowered the lift.", refused=(Deed(BENCH, Act.OFF),), earlier=(DOWN,)) == set()


OFF_CORNER, RED_BENCH = Deed(CORNER, Act.OFF), Deed(BENCH, Act.COLOUR, "red")


@pytest.mark.parametrize(
    ("language", "line", "ran", "claims"),
    [
        # The last newcomer runs: the overseer's own call did it, and its line credited the asker.
        ("en", "You switched the corner light off.", (OFF_CORNER,), {(CORNER, "off", True)}),
        ("en", "You turned the bench light red.", (RED_BENCH,), {(BENCH, "colour", True)}),
        ("en", "Done! You've raised the lift.", (UP,), {(LIFT, "open", True)}),
        ("es", "Apagaste la luz del rincón.", (OFF_CORNER,), {(CORNER, "off", True)}),
        ("es", "Tú pusiste la luz del banco en rojo.", (RED_BENCH,), {(BENCH, "colour", True)}),
        ("es", "Has subido el ascensor.", (UP,), {(LIFT, "open", True)}),
        ("fr", "Tu as monté l'ascenseur.", (UP,), {(LIFT, "open", True)}),
        # The asker's deed where no call of this decision did it: they may have, out of its sight.
        ("en", "You switched the corner light off.", (), set()),
        ("en", "You switched the corner light off.", (Deed(SHELF, Act.OFF),), set()),
        ("es", "Apagaste la luz del rincón.", (), set()),
        # Not the asker's deed done: an order, a promise, a question, a condition, the overseer's.
        ("en", "You can switch the corner light off yourself.", (OFF_CORNER,), set()),
        ("en", "You'll see the lift go up.", (UP,), set()),
        ("en", "Did you switch the corner light off?", (OFF_CORNER,), set()),
        ("en", "If you win, I'll raise the lift.", (UP,), set()),
        ("en", "You asked, and I switched the corner light off.", (OFF_CORNER,), set()),
        ("en", "I switched the corner light off for you.", (OFF_CORNER,), set()),
        ("en", "Thank you: corner light switched off.", (OFF_CORNER,), set()),
        ("es", "Como pediste, apagué la luz del rincón.", (OFF_CORNER,), set()),
        ("fr", "Je vous ai monté l'ascenseur.", (UP,), set()),
        # A hostile review's: the asker as an object, a passive's, or a state's, never the doer.
        ("de", "Ihr Aufzug wurde hochgefahren.", (UP,), set()),
        ("es", "Para usted he subido el ascensor.", (UP,), set()),
        ("es", "A usted le he subido el ascensor.", (UP,), set()),
        ("es", "Para usted el ascensor fue subido.", (UP,), set()),
        ("fr", "L'ascenseur vous a été monté.", (UP,), set()),
        ("en", "You now have the lift raised, alex.", (UP,), set()),
        ("en", "There, you have the lift raised.", (UP,), set()),
        ("en", "You got the lift raised.", (UP,), set()),
        ("en", "You all set the bench light red.", (RED_BENCH,), set()),
        # Its call did something else to that device: what the asker is credited with is not so.
        (
            "en",
            "You turned the bench light red.",
            (Deed(BENCH, Act.COLOUR, "blue"),),
            {(BENCH, "colour", True)},
        ),
        ("en", "You raised the lift.", (DOWN,), {(LIFT, "open", True)}),
    ],
)
def test_a_deed_its_own_call_did_said_as_the_askers_is_not_so(language, line, ran, claims):
    assert said(line, language, ran) == claims
    assert all(found.yours for found in false_statements(line, room(), ran, WORDS[language]))


def test_a_state_is_judged_by_the_side_the_device_is_on():
    assert said("The lift is up.", lift="opening") == set()
    assert said("The lift is moving up.", lift="opening") == set()
    assert said("The lift is down.", lift="opening") == {(LIFT, "closed", False)}
    assert said("The lift is down.", lift="closing") == set()
    assert said("The bench light is blue.", bench="on (blue)") == set()
    assert said("The bench light is blue.", bench="off") == {(BENCH, "blue", False)}
    # A colour the palette shows as another: violet reads as pink or purple.
    assert said("The bench light is violet.", bench="on (pink)") == set()
    assert said("The bench light is violet.", bench="on (green)") == {(BENCH, "violet", False)}


def test_a_denied_state_is_judged_by_what_the_room_shows_outright_and_never_after_a_call_on_it():
    # On its way home, or rising after this decision's call: "not there yet" is so.
    assert said("Neato is not docked yet.", vacuum="returning") == set()
    assert said("The lift is not up.", lift="opening") == set()
    assert said("The lift is not up.", lift="open") == set()
    assert said("The shelf light is not on.", ran=(Deed(SHELF, Act.ON),), shelf="on (white)") == set()
    assert said("The shelf light is not on.", shelf="on (white)") == {(SHELF, "not on", False)}


def test_a_rover_fact_no_sensor_shows_is_never_judged():
    blind = rover(2, docked="unavailable", charging="at_dock", activity="lap 3")
    assert not blind.known
    assert false_statements("Rover 2 is docked and not charging.", (blind,), (), WORDS["en"]) == ()
    half = rover(2, docked="off", activity="lap 3")
    assert dict(half.facts) == {"docked": False, "undocked": True}
    assert false_statements("Rover 2 is driving. Rover 2 is charging.", (half,), (), WORDS["en"]) == ()
    assert false_statements("Rover 2 is on its dock.", (half,), (), WORDS["en"]) == (
        FalseStatement(half.key, "Rover 2 is on its dock", "docked", False, "not docked"),
    )
    # Docked and driving: leaving or arriving, which one nothing says.
    leaving = rover(2, docked="on", activity="driving")
    assert false_statements("Rover 2 is out driving. Rover 2 is docked.", (leaving,), (), WORDS["en"]) == ()


def test_a_false_rover_line_tells_the_model_every_fact_the_room_shows():
    (statement,) = false_statements("Rover 3 is idle and not charging.", room(), (), WORDS["en"])
    assert statement.truth == "docked, charging, not driving, idle"


def test_a_device_that_cannot_be_read_has_its_states_unjudged_but_not_its_deeds():
    lift = Device(LIFT, Kind.LIFT, ("Lift",), "unknown", known=False)
    assert false_statements("The lift is up.", (lift,), (), WORDS["en"]) == ()
    assert false_statements("Lift raised.", (lift,), (), WORDS["en"]) == (
        FalseStatement(LIFT, "Lift raised", "open", True, "unknown"),
    )
    assert false_statements("Lift raised.", (lift,), (UP,), WORDS["en"]) == ()


def test_a_state_that_is_neither_side_is_never_judged():
    odd = (
        Device(LIFT, Kind.LIFT, ("Lift",), "stopped"),
        Device(VACUUM, Kind.VACUUM, ("Neato",), "mopping"),
        Device(BENCH, Kind.LIGHT, ("Bench",), "flickering"),
    )
    for line in (
        "The lift is up.",
        "The vacuum is docked.",
        "The bench light is on.",
        "The bench light is red.",
    ):
        assert false_statements(line, odd, (), WORDS["en"]) == ()


def test_a_false_statement_says_the_clause_as_written_and_the_truth():
    found = false_statements(
        "Listo, ya subí el ascensor. La luz del banco está apagada.", room(), (), WORDS["es"]
    )
    assert found == (
        FalseStatement(LIFT, "ya subí el ascensor", "open", True, "closed"),
        FalseStatement(BENCH, "La luz del banco está apagada", "off", False, "on (purple)"),
    )


def test_a_name_of_several_words_counts_run_together_and_the_longest_name_wins():
    aux = (
        Device("light.aux", Kind.LIGHT, ("Aux",), "off"),
        Device("light.aux_2", Kind.LIGHT, ("Aux 2",), "on", "white"),
        Device("light.aux3", Kind.LIGHT, ("Aux3",), "on", "white"),
        Device("light.bench", Kind.LIGHT, ("Bench Light",), "off"),
    )

    def named(line: str) -> list[str]:
        return [f.device for f in false_statements(line, aux, (), WORDS["en"])]

    assert named("The aux 2 light is off.") == ["light.aux_2"]
    assert named("Aux2 is off.") == ["light.aux_2"]
    assert named("The aux 3 light is off.") == ["light.aux3"]
    assert named("The benchlight is on.") == ["light.bench"]


def test_a_kind_noun_names_a_device_only_when_the_room_has_one_of_that_kind():
    one = (Device("light.lamp", Kind.LIGHT, ("Desk",), "off"),)
    assert said("The light is on.") == set()
    assert [f.device for f in false_statements("The light is on.", one, (), WORDS["en"])] == ["light.lamp"]
    assert [f.device for f in false_statements("La luz está encendida.", one, (), WORDS["es"])] == [
        "light.lamp"
    ]


def test_words_are_compared_folded():
    assert said("EL ASCENSOR ESTÁ ARRIBA.", "es") == {(LIFT, "open", False)}
    assert said("el ascensor esta arriba", "es") == {(LIFT, "open", False)}
    assert said("Subi el ascensor", "es") == {(LIFT, "open", True)}
    assert said("The l\u200bift is up.") == {(LIFT, "open", False)}  # an invisible character
    assert said("I\u2019ve raised the lift.") == {(LIFT, "open", True)}


def test_any_text_is_read_without_error():
    pick = random.Random(7)
    vocabulary = (
        [" ".join(phrase) for phrase in WORDS["es"].lexicon] + list("?¿,:.!—'’()\u200b") + ["lift", "banco"]
    )
    for _ in range(2000):
        line = " ".join(pick.choice(vocabulary) for _ in range(pick.randint(0, 25)))
        false_statements(line, room(), (UP,), WORDS["es"])
        noise = "".join(chr(pick.randint(0, 0x2FFF)) for _ in range(pick.randint(0, 60)))
        false_statements(noise, room(), (), WORDS["en"])


def test_a_deed_at_the_end_of_a_long_line_is_still_read():
    words = WORDS["en"]
    devices = room()
    line = "Alex, the lift and the bench light and the vacuum, " * 200 + "I raised the lift."
    # Read once, in one pass: the deed at the end of ten kilobytes is still found.
    assert {f.claimed for f in false_statements(line, devices, (), words)} == {"open"}
    nested = "((((((((((a|b)|c)|d)|e)|f)|g)|h)|i)|j)|k)[l][m][n][o][p][q][r][s][t][u][v][w][x][y][z]"
    assert len(expand(nested)) <= 256


# --- Every demo name and alias, every state word and deed phrasing, both ways -----------------------
#
# The lines are built here from templates of this test, and judged by how they were built: the
# judge knows what each template claims and shares no word or rule with the module.

DEMO = runpy.run_path(str(Path(__file__).parents[2] / "config/custom_components/overseer_demo/const.py"))


def demo_devices(lift: str, light: tuple[str, str], vacuum: str) -> tuple[Device, ...]:
    """The demo room with its registry aliases, every light in the same state."""
    return (
        Device(LIFT, Kind.LIFT, ("Lift", *DEMO["ALIASES"]["cover.lift"]), lift),
        Device(VACUUM, Kind.VACUUM, ("Neato", *DEMO["ALIASES"]["vacuum.neato"]), vacuum),
        *(
            Device(key, Kind.LIGHT, (name, *DEMO["ALIASES"][key]), light[0], light[1])
            for name in DEMO["LIGHTS"]
            for key in [f"light.{name.lower()}"]
        ),
    )


class Done(NamedTuple):
    """A deed said as done ("I raised the lift"): with no earlier deed, only a call bears it out."""

    act: Act


# What a template claims: a state (with the value the API reports), a state denied ("not"), or a
# deed (an Act, or Done: one said as done); None: nothing.
UP_, DOWN_, ON_, OFF_ = ("state", "open"), ("state", "closed"), ("state", "on"), ("state", "off")
NOT_ON = ("not", "on")
CLEANING, DOCKED = ("state", "cleaning"), ("state", "docked")
COLOUR_STATE = ("state", "{colour}")

TEMPLATES = {
    ("en", Kind.LIFT): [
        ("{The} is up.", UP_),
        ("{The} is open now.", UP_),
        ("{The} is raised.", UP_),
        ("{The}'s up.", UP_),
        ("Yes, {the} is already up.", UP_),
        ("{The} is down.", DOWN_),
        ("{The} is closed.", DOWN_),
        ("{The} is lowered.", DOWN_),
        ("{The} is now down.", DOWN_),
        ("I raised {the}.", Done(Act.OPEN)),
        ("Raised {the}.", Done(Act.OPEN)),
        ("I've raised {the}.", Done(Act.OPEN)),
        ("I'll raise {the}.", Act.OPEN),
        ("Raising {the} now.", Act.OPEN),
        ("I'm sending {the} up.", Act.OPEN),
        ("{The} has been raised.", Done(Act.OPEN)),
        ("{The} was raised.", Done(Act.OPEN)),
        ("Done, {the} is being raised.", Act.OPEN),
        ("I lowered {the}.", Done(Act.CLOSE)),
        ("Lowered {the}.", Done(Act.CLOSE)),
        ("I'll lower {the}.", Act.CLOSE),
        ("Lowering {the}.", Act.CLOSE),
        ("{The} was lowered.", Done(Act.CLOSE)),
        ("I brought {the} down.", Done(Act.CLOSE)),
        ("Alex raised {the}.", None),
        ("Should I raise {the}?", None),
        ("I won't raise {the}.", None),
        ("{The} is staying put.", None),
        ("Thanks for raising {the}!", None),
        ("I could lower {the}.", None),
        ("Sam lowered {the} by hand.", None),
        ("If you win, I'll raise {the}.", None),
        ("Is {the} up?", None),
        ("{The} isn't up.", None),
        ("Raise {the} yourself.", None),
        ("{The} was lowered by Sam.", None),
    ],
    ("en", Kind.LIGHT): [
        ("{The} is on.", ON_),
        ("{The} is now on.", ON_),
        ("{The} is off.", OFF_),
        ("{The} is dark.", OFF_),
        ("{The} is {colour}.", COLOUR_STATE),
        ("{The} is now {colour}.", COLOUR_STATE),
        ("I turned on {the}.", Done(Act.ON)),
        ("I switched {the} on.", Done(Act.ON)),
        ("Turned {the} on.", Done(Act.ON)),
        ("I'll turn on {the}.", Act.ON),
        ("I turned off {the}.", Done(Act.OFF)),
        ("Switched off {the}.", Done(Act.OFF)),
        ("{The} was switched off.", Done(Act.OFF)),
        ("I'm turning {the} off.", Act.OFF),
        ("I turned {the} {colour}.", Done(Act.COLOUR)),
        ("I set {the} to {colour}.", Act.COLOUR),
        ("Alex turned on {the}.", None),
        ("Should I turn {the} off?", None),
        ("I won't turn off {the}.", None),
        ("Thanks for turning on {the}!", None),
        ("{The} isn't on.", NOT_ON),
        ("Turn {the} off.", None),
        ("Set {the} to {colour} if you like.", None),
    ],
    ("en", Kind.VACUUM): [
        ("{The} is cleaning.", CLEANING),
        ("{The} is running.", CLEANING),
        ("{The} is docked.", DOCKED),
        ("{The} is charging.", DOCKED),
        ("I started {the}.", Done(Act.START)),
        ("Started {the}.", Done(Act.START)),
        ("I'll start {the}.", Act.START),
        ("I sent {the} home.", Done(Act.DOCK)),
        ("Sent {the} back to its dock.", Done(Act.DOCK)),
        ("Alex started {the}.", None),
        ("Should I start {the}?", None),
        ("I won't start {the}.", None),
    ],
    ("es", Kind.LIFT): [
        ("{The} está arriba.", UP_),
        ("{The} está abierto.", UP_),
        ("{The} ya está arriba.", UP_),
        ("{The} está subido.", UP_),
        ("{The} está abajo.", DOWN_),
        ("{The} está cerrado.", DOWN_),
        ("{The} está bajado.", DOWN_),
        ("He subido {the}.", Done(Act.OPEN)),
        ("Subí {the}.", Done(Act.OPEN)),
        ("Listo, ya subí {the}.", Done(Act.OPEN)),
        ("Voy a subir {the}.", Act.OPEN),
        ("Subiendo {the}.", Act.OPEN),
        ("Levanté {the}.", Done(Act.OPEN)),
        ("{The} ha sido subido.", Done(Act.OPEN)),
        ("He bajado {the}.", Done(Act.CLOSE)),
        ("Bajé {the}.", Done(Act.CLOSE)),
        ("Voy a bajar {the}.", Act.CLOSE),
        ("Bajando {the}.", Act.CLOSE),
        ("Alex subió {the}.", None),
        ("¿Subo {the}?", None),
        ("No voy a subir {the}.", None),
        ("No subí {the}.", None),
        ("Gracias por subir {the}.", None),
        ("Si ganas, subo {the}.", None),
        ("Podría bajar {the}.", None),
        ("{The} no está arriba.", None),
        ("¿Quieres que baje {the}?", None),
        ("Sube tú {the}.", None),
    ],
    ("es", Kind.LIGHT): [
        ("{The} está encendida.", ON_),
        ("{The} ya está encendida.", ON_),
        ("{The} está apagada.", OFF_),
        ("{The} está {colour}.", COLOUR_STATE),
        ("{The} ahora es {colour}.", COLOUR_STATE),
        ("Encendí {the}.", Done(Act.ON)),
        ("He encendido {the}.", Done(Act.ON)),
        ("Voy a encender {the}.", Act.ON),
        ("Prendí {the}.", Done(Act.ON)),
        ("Apagué {the}.", Done(Act.OFF)),
        ("He apagado {the}.", Done(Act.OFF)),
        ("Voy a apagar {the}.", Act.OFF),
        ("Puse {the} en {colour}.", Done(Act.COLOUR)),
        ("Cambié {the} a {colour}.", Done(Act.COLOUR)),
        ("Alex encendió {the}.", None),
        ("¿Enciendo {the}?", None),
        ("No apagué {the}.", None),
        ("Gracias por encender {the}.", None),
        ("{The} no está encendida.", NOT_ON),
    ],
    ("es", Kind.VACUUM): [
        ("{The} está limpiando.", CLEANING),
        ("{The} está en su base.", DOCKED),
        ("{The} está cargando.", DOCKED),
        ("Arranqué {the}.", Done(Act.START)),
        ("He puesto {the} a limpiar.", Done(Act.START)),
        ("Mandé {the} a la base.", Done(Act.DOCK)),
        ("He mandado {the} a casa.", Done(Act.DOCK)),
        ("Alex arrancó {the}.", None),
        ("¿Arranco {the}?", None),
        ("No arranqué {the}.", None),
    ],
}
# Colour words of this test: the light's colour as said in each language.
COLOURS = {
    "en": {"blue": "blue", "red": "red", "purple": "purple"},
    "es": {"blue": "azul", "red": "roja", "purple": "morada"},
}


def noun_phrase(language: str, kind: Kind, name: str) -> str:
    """How a line of this test names a device: "the Bench light", "la luz del banco", "el ascensor"."""
    if language == "en":
        return f"the {name} light" if kind is Kind.LIGHT else f"the {name}"
    if kind is Kind.LIGHT:
        return f"la {name}" if name.startswith("luz") else f"la luz {name}"
    return f"{'la' if name.endswith('a') else 'el'} {name}"


# The side each act leaves its device on.
RESULTS = {
    Act.OPEN: "open",
    Act.CLOSE: "closed",
    Act.ON: "on",
    Act.OFF: "off",
    Act.COLOUR: "on",
    Act.START: "cleaning",
    Act.DOCK: "docked",
}


def effective(device: Device, ran: tuple[Deed, ...]) -> tuple[str, str]:
    """What the device is after the calls: its side and its colour."""
    side, colour = device.state, device.colour
    for deed in ran:
        if deed.device == device.key:
            side = RESULTS[deed.act]
            colour = deed.value if deed.act is Act.COLOUR else colour
    return side, colour


def judge(claim, device: Device, ran: tuple[Deed, ...], colour: str) -> set[tuple[str, str, bool]]:
    """What the built line says falsely, known from how it was built."""
    if claim is None:
        return set()
    side, shown = effective(device, ran)
    if isinstance(claim, Done):
        return judge(claim.act, device, ran, colour)
    if isinstance(claim, Act):
        done = any(
            deed.device == device.key
            and (deed.act is claim or (claim is Act.ON and deed.act is Act.COLOUR))
            and (claim is not Act.COLOUR or deed.value == colour)
            for deed in ran
        )
        return set() if done else {(device.key, claim.value, True)}
    if claim[0] == "not":
        # Denied, a state is false only where the room shows it and no call of the line's touched it.
        touched = any(deed.device == device.key for deed in ran)
        return {(device.key, f"not {claim[1]}", False)} if device.state == claim[1] and not touched else set()
    value = claim[1].format(colour=colour)
    if value in COLOURS["en"]:
        # A light turned on from off shows a colour no one has read yet: the line may be right.
        true = side == "on" and shown in (value, "")
    else:
        true = side == value
    return set() if true else {(device.key, value, False)}


def cases(language: str):
    """Every line of the language's templates for every device name, in every room state."""
    states = {
        Kind.LIFT: [{"lift": side} for side in ("open", "closed")],
        Kind.LIGHT: [{"light": light} for light in (("off", ""), ("on", "purple"), ("on", "blue"))],
        Kind.VACUUM: [{"vacuum": side} for side in ("cleaning", "docked")],
    }
    # The kinds a call acts on; a rover's lines are in FALSE_LINES and TRUE_LINES.
    for kind, sides in states.items():
        for template, claim in TEMPLATES[language, kind]:
            colours = COLOURS[language].items() if "{colour}" in template else [("", "")]
            for state in sides:
                room_now = demo_devices(
                    **{"lift": "closed", "light": ("off", ""), "vacuum": "docked", **state}
                )
                for device in (d for d in room_now if d.kind is kind):
                    for name in device.names:
                        phrase = noun_phrase(language, kind, name)
                        for colour, word in colours:
                            line = template.format(
                                the=phrase, The=phrase[0].upper() + phrase[1:], colour=word
                            )
                            for ran in ran_variants(device, colour):
                                yield line, room_now, device, ran, claim, colour


def ran_variants(device: Device, colour: str) -> list[tuple[Deed, ...]]:
    """No call, each call this device takes (a colour the line says and another), a call to another device."""
    acts = {
        Kind.LIFT: (Act.OPEN, Act.CLOSE),
        Kind.LIGHT: (Act.ON, Act.OFF, Act.COLOUR),
        Kind.VACUUM: (Act.START, Act.DOCK),
    }
    calls = [
        (Deed(device.key, act, (colour or "blue") if act is Act.COLOUR else ""),) for act in acts[device.kind]
    ]
    other = (Deed(device.key, Act.COLOUR, "red" if colour != "red" else "blue"),)
    return [(), *calls, *([other] if device.kind is Kind.LIGHT else []), (Deed("light.elsewhere", Act.ON),)]


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_demo_name_state_word_and_deed_phrasing_is_judged_right(language):
    words = words_for(language, get_intents(language))
    wrong, count = [], 0
    for line, devices, device, ran, claim, colour in cases(language):
        count += 1
        expected = judge(claim, device, ran, colour)
        found = {(f.device, f.claimed, f.deed) for f in false_statements(line, devices, ran, words)}
        if found != expected:
            wrong.append(
                f"{line!r} {device.key}={device.state}/{device.colour} ran={ran}: {found} != {expected}"
            )
    assert count > 5000
    assert wrong == [], f"{len(wrong)} of {count} wrong, e.g.:\n" + "\n".join(wrong[:40])


# --- Home Assistant's language data ------------------------------------------------------------------


def test_templates_expand_as_home_assistant_writes_them():
    assert set(expand("(encendid|prendid)(o|a)[s]")) >= {"encendido", "prendidas", "encendida"}
    assert set(expand("verja[s]|cancela[s]|portón")) == {"verja", "verjas", "cancela", "cancelas", "portón"}
    assert set(expand("[am ]öffnen")) == {"am öffnen", "öffnen"}
    assert set(expand("Tür[e|en]")) == {"Tür", "Türe", "Türen"}
    assert set(expand("<y_e>", {"y_e": "(ý|ej)"})) == {"ý", "ej"}
    assert set(expand("(a;b)")) == {"a b", "b a"}
    assert expand("{name} is on") == ()
    assert set(expand("(unbalanced|text")) == {"unbalanced", "text"}


def test_spanish_words_come_from_home_assistant_and_ours():
    words = WORDS["es"]
    assert words.meaning("anaranjado").colour == "orange"
    assert words.meaning("naranja").colour == "orange"
    assert words.meaning("morado").colour == "purple"
    assert (Kind.LIGHT, "on") in words.meaning("Encendidas").states
    assert (Kind.LIFT, "open") in words.meaning("abierto").states
    assert (Kind.LIFT, "closed") in words.meaning("cerrándose").states
    assert (Kind.LIFT, "open") in words.meaning("arriba").states
    assert words.meaning("elevador").kind is Kind.LIFT
    assert words.meaning("ascensor").kind is Kind.LIFT
    assert words.meaning("aspiradora").kind is Kind.VACUUM
    assert words.meaning("lámpara").kind is Kind.LIGHT
    assert {form.acts for form in words.meaning("subí").deeds} == {frozenset({Act.OPEN})}
    assert {form.acts for form in words.meaning("apagué").deeds} == {frozenset({Act.OFF})}
    # English underneath, for a model that slips into it.
    assert {form.acts for form in words.meaning("raised").deeds} == {frozenset({Act.OPEN})}


@pytest.mark.parametrize("language", get_languages())
def test_every_language_of_the_package_builds_its_words(language):
    intents = get_intents(language)
    words = words_for(language, intents)
    lists = intents.get("lists", {})
    for name, kind in (("on_off_states", Kind.LIGHT), ("cover_states", Kind.LIFT)):
        if name in lists:
            values = {value for meaning in words.lexicon.values() for k, value in meaning.states if k is kind}
            assert values >= ({"on", "off"} if kind is Kind.LIGHT else {"open", "closed"}), name
    if "color" in lists:
        assert {meaning.colour for meaning in words.lexicon.values()} >= {"red", "blue", "green"}


@pytest.mark.parametrize(
    ("language", "line", "names", "state", "claimed"),
    [
        ("it", "La luce del banco è accesa.", ("Luce del banco",), "off", "on"),
        ("it", "La luce del banco è spenta.", ("Luce del banco",), "on", "off"),
        ("it", "Il banco è rosso.", ("Banco",), "on", "red"),
        ("it", "La luce del banco non è accesa.", ("Luce del banco",), "on", None),
        ("nl", "De bureaulamp is aan.", ("Bureaulamp",), "off", "on"),
        ("nl", "De bureaulamp is blauw.", ("Bureaulamp",), "on", "blue"),
        ("nl", "De bureaulamp is niet aan.", ("Bureaulamp",), "off", None),
        ("sv", "Bänklampan är tänd.", ("Bänklampan",), "off", "on"),
        ("it", "I turned on the desk lamp.", ("Desk lamp",), "off", "on"),
    ],
)
def test_another_language_has_its_states_from_home_assistants_data(language, line, names, state, claimed):
    lamp = Device("light.desk", Kind.LIGHT, names, state, "purple" if state == "on" else "")
    found = false_statements(line, (lamp,), (), words_for(language, get_intents(language)))
    assert [f.claimed for f in found] == ([claimed] if claimed else [])


def test_a_language_without_data_reads_english_underneath():
    words = words_for("tlh", None)
    assert said("I raised the lift.") == {(LIFT, "open", True)}
    assert false_statements("I raised the lift.", room(), (), words)[0].claimed == "open"
    assert words_for("es-419", get_intents("es")).meaning("subí") == WORDS["es"].meaning("subí")


@pytest.mark.parametrize(
    ("language", "nouns"),
    [
        ("en", {"rovers": Kind.ROVER, "lights": Kind.LIGHT, "lift": Kind.LIFT, "vacuum": Kind.VACUUM}),
        ("es", {"rovers": Kind.ROVER, "luces": Kind.LIGHT, "luz": Kind.LIGHT, "ascensor": Kind.LIFT}),
    ],
)
def test_a_language_counts_the_rooms_things_by_its_kind_nouns(language, nouns):
    assert kind_nouns(words_for(language, get_intents(language))).items() >= nouns.items()


def test_the_demo_names_the_shelf_light_as_spanish_speakers_do():
    # A newcomer run: "enciende la luz de la estantería en verde" was no device, so no call, and
    # "La luz de la estantería se encendió en verde." went unread of a light still purple.
    purple = demo_devices("closed", ("on", "purple"), "docked")
    line = "La luz de la estantería se encendió en verde."
    assert {(f.device, f.claimed) for f in false_statements(line, purple, (), WORDS["es"])} >= {
        ("light.shelf", "green")
    }
