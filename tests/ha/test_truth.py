"""A false line of the model's is never posted: the overseer states the room itself.

Scripted lines the demo's model really said ("The bench light is already blue." while it was
off, "The lift is raised." with the lift down, deeds said in Spanish that nothing did) are the
model's answers here. What the room reads opens with the overseer's facts, written from the
room's states and the decision's calls in the asker's language; of the model's words only the
sentences that say nothing of the room follow. A sentence that states the room is dropped and a
device it named gets its fact; a figure nothing showed the model, and a sentence in another
language than the asker's, are dropped too. A decision asks the model once.
"""

from __future__ import annotations

import pytest
from homeassistant.helpers import entity_registry as er
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import say, setup_overseer, tick

# The overseer's line when nothing else answers, in English and Spanish.
FALLBACK = "Sorry alex, I have nothing useful to say to that right now."
FALLBACK_ES = "Lo siento, alex: ahora mismo no tengo nada útil que decir a eso."


def bot_lines(events) -> list[dict]:
    return [event.data for event in events if event.data.get("bot")]


def bot_texts(events) -> list[str]:
    return [line["text"] for line in bot_lines(events)]


def facts_of(events, entity_id: str) -> list[dict]:
    """The facts the posted lines state of one entity."""
    return [
        fact for line in bot_lines(events) for fact in line.get("facts", ()) if fact["entity_id"] == entity_id
    ]


def shown(fact: dict) -> str:
    """A fact's state as Home Assistant holds it (a light's colour aside)."""
    return fact["state"].partition(":")[0]


def quips(events) -> list[tuple[str | None, list[str] | None]]:
    """What came of the model's words, decision by decision, and why sentences were dropped."""
    return [(event.data.get("quip"), event.data.get("quip_dropped")) for event in events]


async def spanish_names(hass) -> None:
    """The lift and the bench light with the Spanish names a household gave them."""
    registry = er.async_get(hass)
    for entity_id, alias, state in (
        ("cover.lift", "elevador", "closed"),
        ("light.bench", "luz del banco", "off"),
    ):
        domain, _, object_id = entity_id.partition(".")
        hass.states.async_remove(entity_id)
        entry = registry.async_get_or_create(domain, "test", object_id, suggested_object_id=object_id)
        registry.async_update_entity(entry.entity_id, aliases={alias})
        hass.states.async_set(entity_id, state, {"friendly_name": object_id.capitalize()})


@pytest.mark.parametrize(
    ("line", "entity_id", "posted"),
    [
        ("The lift is raised.", "cover.lift", "Lift is closed."),
        ("The lift is up.", "cover.lift", "Lift is closed."),
        ("The lift is open now.", "cover.lift", "Lift is closed."),
        # An attack review's: a motion in the past, said of a lift that is down.
        ("The lift went up.", "cover.lift", "Lift is closed."),
        ("The shelf light is off.", "light.shelf", "Shelf is on (purple)."),
        ("The bench light is already blue.", "light.bench", "Bench is off."),
    ],
)
async def test_a_state_the_room_contradicts_is_never_posted(
    hass, freezer, ollama_stub, room, line, entity_id, posted
):
    await setup_overseer(hass, ollama_stub)
    assert hass.states.get("cover.lift").state == "closed"
    assert hass.states.get("light.shelf").state == "on" and hass.states.get("light.bench").state == "off"
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply(line)
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    # The device the line named, as the room shows it, in the overseer's words alone.
    assert bot_texts(chat) == [posted]
    [fact] = facts_of(chat, entity_id)
    assert shown(fact) == hass.states.get(entity_id).state
    assert bot_lines(chat)[0]["fixed"] is True
    assert quips(decisions) == [("dropped", ["names_a_device"])]
    assert len(ollama_stub.requests) == 1


async def test_a_rover_state_its_sensors_contradict_is_never_posted(hass, freezer, ollama_stub, room):
    # scripts/develop's overseer said "Rover 3 is idle and not charging." of a rover on its dock, charging.
    hass.states.async_set("binary_sensor.rover1_docked", "on", {"friendly_name": "rover1 docked"})
    hass.states.async_set("sensor.rover1_activity", "idle", {"friendly_name": "rover1 activity"})
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("rover1 is idle and off its dock. Waiting.")
    say(hass, "alex", "overseer, what about rover1?")
    await tick(hass, freezer)
    # Its sensors said, and the sentence of the model's that names nothing of the room.
    assert bot_texts(chat) == ["Rover1: docked, not driving, idle. Waiting."]
    assert len(ollama_stub.requests) == 1


@pytest.mark.parametrize(
    ("line", "posted"),
    [
        ("The lift is up.", "Lift is closed."),
        # The bundled model answered the facts with "The room shows Lift: open." in the demo: the
        # model's own words of a device are not posted even when they are true.
        ("Lift is closed.", "Lift is closed."),
        ("Chaos has standards.", "Lift is closed. Chaos has standards."),
    ],
)
async def test_asked_of_a_device_the_asker_hears_its_fact_whatever_the_model_said(
    hass, freezer, ollama_stub, room, line, posted
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "overseer, is the lift up?")
    await tick(hass, freezer)
    assert bot_texts(chat) == [posted]
    assert [shown(fact) for fact in facts_of(chat, "cover.lift")] == ["closed"]
    assert len(ollama_stub.requests) == 1


async def test_a_false_line_in_another_language_than_the_question_gives_way_to_a_fact_in_the_askers(
    hass, freezer, ollama_stub, room
):
    # Asked in Spanish to raise the lift, the bundled model called nothing and said "Lift is open."
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Lift is open.")
    say(hass, "alex", "oye overseer, levanta el elevador")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["El dispositivo Lift está cerrado."]
    assert room["cover.open_cover"] == []


async def test_a_false_sentence_is_dropped_and_the_rest_of_the_line_stands(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("The bench light is already blue. Earn it.")
    say(hass, "alex", "overseer, what about the bench?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Bench is off. Earn it."]
    assert quips(decisions) == [("posted", ["names_a_device"])]
    # Nothing asked again: one request, and nothing done.
    assert len(ollama_stub.requests) == 1
    assert room["light.turn_on"] == []


async def test_asked_for_a_colour_a_line_claiming_it_done_gives_way_to_the_overseer_deciding_not_to(
    hass, freezer, ollama_stub, room
):
    # Asked for the act it could call, the model called nothing and said the room already shows it.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("The bench light is already blue. Earn it.")
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer)
    [said] = bot_texts(chat)
    assert said.startswith("I decided not to set a room light (Bench, blue).")
    assert "already" not in said and "Earn it" not in said
    [fact] = facts_of(chat, "light.bench")
    assert (fact["state"], fact["deed"], fact["outcome"]) == ("off", "colour:blue", "not_called")
    assert quips(decisions) == [("dropped", ["asked_act_not_done"])]
    # Asked once more to call it or say why not (a SKIP to that): the bound of two requests.
    assert len(ollama_stub.requests) == 2
    assert room["light.turn_on"] == []


async def test_asked_of_one_light_the_asker_does_not_hear_every_other_light(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Earn it.")
    say(hass, "alex", "overseer make the bench light blue")
    await tick(hass, freezer)
    assert facts_of(chat, "light.bench")
    assert not facts_of(chat, "light.shelf") and not facts_of(chat, "input_boolean.fan")


async def test_true_lines_of_the_room_are_said_in_the_overseers_words_the_rest_as_said(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    for line in ("The lift is down.", "The shelf light is on.", "Chaos has standards."):
        ollama_stub.reply(line)
        say(hass, "alex", f"overseer, tell me something {len(line)}")
        await tick(hass, freezer, seconds=20)
    assert bot_texts(chat) == ["Lift is closed.", "Shelf is on (purple).", "Chaos has standards."]
    # The first two hold no word of the model's.
    assert [line.get("fixed") for line in bot_lines(chat)] == [True, True, None]
    assert len(ollama_stub.requests) == 3


async def test_a_deed_its_call_did_is_stated_as_a_fact(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Raised the lift. The lift is up, alex.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    # The cover still reads closed (the scripted room does not move it): the deed that ran counts.
    assert hass.states.get("cover.lift").state == "closed"
    assert bot_texts(chat) == ["Lift is open."]
    [fact] = facts_of(chat, "cover.lift")
    assert (fact["state"], fact["deed"], fact["outcome"]) == ("open", "open", "executed")
    assert len(room["cover.open_cover"]) == 1 and len(ollama_stub.requests) == 1


async def test_beside_a_call_a_false_line_of_another_device_gives_way_to_its_fact(
    hass, freezer, ollama_stub, room
):
    # Told only "this decision ran: ha_set_entity" after lighting Aux1, the bundled model said
    # "The bench light is now on." (its earlier line about the bench) three times.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The bench light is on.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Lift is open. Bench is off."]
    assert [shown(fact) for fact in facts_of(chat, "light.bench")] == ["off"]
    # A decision whose call ran makes one request: its line was written with the call.
    assert len(ollama_stub.requests) == 1


async def test_a_deed_its_call_did_said_as_the_askers_is_not_posted(hass, freezer, ollama_stub, room):
    # A newcomer run: "switch the corner light off" ran, and the line credited the asker.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("You raised the lift, alex.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Lift is open."]
    assert [fact["outcome"] for fact in facts_of(chat, "cover.lift")] == ["executed"]


async def test_beside_a_call_to_no_tool_a_made_up_figure_is_never_posted_and_the_asker_hears_an_answer(
    hass, freezer, ollama_stub, room
):
    # A call no tool answers is the model's slip: refused and audited, never said; the line's
    # made-up figure is dropped, and the asker, left with nothing, hears the fallback.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Kim bet 500 euros.", call("fly_to_the_moon"))
    say(hass, "alex", "overseer, fly me to the moon")
    await tick(hass, freezer)
    assert [(e.data["tool"], e.data["outcome"]) for e in actions] == [("fly_to_the_moon", "blocked")]
    assert bot_texts(chat) == [FALLBACK]
    # Written beside a call that did not run, none of its words stand (its made-up figure neither).
    assert quips(decisions) == [("dropped", ["written_before_results"])]
    assert len(ollama_stub.requests) == 1


@pytest.mark.parametrize(
    ("line", "posted"),
    [
        ("He subido el elevador.", "El dispositivo Lift está cerrado."),
        ("Listo, ya subí el elevador.", "El dispositivo Lift está cerrado."),
        ("El elevador está abierto.", "El dispositivo Lift está cerrado."),
        ("I raised the elevador.", "El dispositivo Lift está cerrado."),
        ("Lift: raised.", "El dispositivo Lift está cerrado."),
        ("La luz del banco está encendida.", "El dispositivo Bench está apagado."),
    ],
)
async def test_deeds_and_states_said_to_a_spanish_asker_give_way_to_spanish_facts(
    hass, freezer, ollama_stub, room, line, posted
):
    await setup_overseer(hass, ollama_stub)
    await spanish_names(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "¿overseer, qué tal la sala?")
    await tick(hass, freezer)
    assert bot_texts(chat) == [posted]
    assert room["cover.open_cover"] == [] and room["light.turn_on"] == []


@pytest.mark.parametrize(
    ("raised_earlier", "lift"),
    [(True, "open"), (True, "closed"), (False, "open")],
)
async def test_asked_of_its_own_earlier_deed_the_asker_hears_the_lift_as_it_is(
    hass, freezer, ollama_stub, room, raised_earlier, lift
):
    # Issue #33: an earlier decision raised the lift; asked about it, the true answer was dropped.
    await setup_overseer(hass, ollama_stub)
    if raised_earlier:
        ollama_stub.reply("", call("lift_up"))
        say(hass, "alex", "overseer, raise the lift")
        await tick(hass, freezer)
    # The lift as it is now: still up, or lowered since by someone else; or up all along.
    hass.states.async_set("cover.lift", lift, {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Yes, I raised the lift.")
    say(hass, "sam", "overseer, who raised the lift?")
    await tick(hass, freezer, seconds=20)
    [said] = bot_texts(chat)
    assert said.startswith(f"Lift is {lift}.")
    if not (raised_earlier and lift == "open"):
        assert "I raised the lift" not in said


async def test_a_line_that_claims_what_a_refused_call_would_have_done_is_never_posted(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Done, the lift went down.", call("lift_down"))
    say(hass, "alex", "overseer, raise the lift")
    await tick(hass, freezer)
    assert [(e.data["tool"], e.data["outcome"]) for e in actions] == [("lift_down", "blocked")]
    # The call nobody asked for is the model's slip, refused and not said; the lift the asker
    # named, as it is (up already: nothing was left undone), never the deed the line claimed.
    assert bot_texts(chat) == ["Lift is open."]
    [fact] = facts_of(chat, "cover.lift")
    assert fact == {"entity_id": "cover.lift", "state": "open"}
    assert [quip for quip, _ in quips(decisions)] == ["dropped"]
    assert len(ollama_stub.requests) == 1


async def test_a_line_that_claims_a_lowering_it_was_not_asked_for_gives_way_to_the_overseer_deciding_not_to(
    hass, freezer, ollama_stub, room
):
    # The lift down, asked up: the model called the wrong way and claimed it; nothing ran.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Done, the lift went up.", call("lift_down"))
    say(hass, "alex", "overseer, raise the lift")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["I decided not to raise the lift."]
    [fact] = facts_of(chat, "cover.lift")
    assert (fact["state"], fact["outcome"]) == ("closed", "not_called")
    assert quips(decisions) == [("dropped", ["asked_act_not_done"])]
    assert room["cover.open_cover"] == [] and room["cover.close_cover"] == []


async def test_a_question_of_what_the_room_cannot_see_is_answered_by_the_overseer_alone(
    hass, freezer, ollama_stub, room
):
    # The demo's model answered "what was the final score last night?" with a score the room does not hold.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The final score was 10-10.")
    say(hass, "alex", "overseer, what was the final score last night?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Nothing in this room shows that, so I cannot tell you."]
    assert ollama_stub.requests == []


async def test_a_figure_nothing_it_read_holds_is_never_posted(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    # Figures no clock holds: the request shows the time, and its figures count as shown.
    ollama_stub.reply("The final score last night was 77-75. Sleep well.")
    ollama_stub.reply("Kim bet 500 euros.")
    say(hass, "alex", "overseer, anything new?")
    await tick(hass, freezer, seconds=20)
    say(hass, "alex", "overseer, what did kim do?")
    await tick(hass, freezer, seconds=20)
    # The rest of a line stands; a line that is only the figure leaves the asker the fallback.
    assert bot_texts(chat) == ["Sleep well.", FALLBACK]
    assert quips(decisions) == [("posted", ["unseen_figure"]), ("dropped", ["unseen_figure"])]
    assert len(ollama_stub.requests) == 2


async def test_a_figure_made_up_beside_a_deed_is_dropped_and_the_deed_stated(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("It sweeps for 75 minutes. Dust, beware.", call("neato_start"))
    say(hass, "alex", "overseer start neato")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Neato is cleaning. Dust, beware."]
    assert [fact["outcome"] for fact in facts_of(chat, "vacuum.neato")] == ["executed"]


async def test_the_number_of_a_rovers_name_is_no_score(hass, freezer, ollama_stub, room):
    # "The final score last night was 2-1." passed while the demo's rovers were called rover1..3.
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The final score last night was 1-1.")
    say(hass, "alex", "overseer, anything new?")
    await tick(hass, freezer)
    assert not [text for text in bot_texts(chat) if "1-1" in text]


async def test_a_figure_of_the_clock_is_no_bet(hass, freezer, ollama_stub, room):
    freezer.move_to("2026-12-07 21:45:00+00:00")
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("Kim bet 45 euros.")
    say(hass, "alex", "overseer, what did kim do?")
    await tick(hass, freezer)
    assert not [text for text in bot_texts(chat) if "45" in text]


async def test_a_count_of_the_rooms_lights_speaks_of_the_room_and_is_not_posted(
    hass, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("2 lights here; 1 light burns. Guess which.")
    say(hass, "alex", "overseer, which lights are on?")
    await tick(hass, freezer)
    assert not [text for text in bot_texts(chat) if "light" in text]
    assert len(ollama_stub.requests) == 1


async def test_asked_which_lights_are_on_the_asker_hears_the_lights(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("2 lights here; 1 light burns. Guess which.")
    say(hass, "alex", "overseer, which lights are on?")
    await tick(hass, freezer)
    assert facts_of(chat, "light.shelf") and facts_of(chat, "light.bench")


async def test_a_figure_someone_said_in_the_chat_is_posted_as_said(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    say(hass, "kim", "I put 500 on rover 2")
    await tick(hass, freezer, seconds=5)
    ollama_stub.reply("Kim said 500. Bold.")
    say(hass, "alex", "overseer, what did kim say?")
    await tick(hass, freezer)
    assert bot_texts(chat) == ["Kim said 500. Bold."]


@pytest.mark.parametrize(
    ("line", "posted"),
    [
        ("El elevador está arriba.", "El dispositivo Lift está cerrado."),
        ("El elevador está abajo.", "El dispositivo Lift está cerrado."),
        ("The lift is down, my friend.", "El dispositivo Lift está cerrado."),
        ("El caos tiene sus reglas.", "El dispositivo Lift está cerrado. El caos tiene sus reglas."),
        # The demo's model answered Spanish questions in English: a quip in another language is dropped.
        ("Chaos has its standards, my friend.", "El dispositivo Lift está cerrado."),
    ],
)
async def test_a_spanish_asker_hears_spanish_facts_and_no_words_in_another_language(
    hass, freezer, ollama_stub, room, line, posted
):
    await setup_overseer(hass, ollama_stub)
    await spanish_names(hass)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "overseer, ¿dónde está el elevador?")
    await tick(hass, freezer)
    assert bot_texts(chat) == [posted]
    # Nothing is asked again, and nothing translated.
    assert len(ollama_stub.requests) == 1


@pytest.mark.parametrize(
    "line",
    [
        "What a noise.",
        # The control: the same kind of remark, no word opening like a state or a colour.
        "Nobody asked me.",
    ],
)
async def test_a_quip_whose_words_only_open_like_a_state_word_is_posted(
    hass, freezer, ollama_stub, room, line
):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(line)
    say(hass, "alex", "overseer, anything new?")
    await tick(hass, freezer)
    assert bot_texts(chat) == [line]


async def test_a_quip_in_another_language_than_the_askers_is_dropped(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("Chaos has its standards, my friend.")
    ollama_stub.reply("El caos tiene sus reglas.")
    say(hass, "alex", "¿overseer, qué tal la sala?")
    await tick(hass, freezer, seconds=20)
    say(hass, "alex", "¿overseer, y ahora qué?")
    await tick(hass, freezer, seconds=20)
    # Nothing else to say: the asker's fallback, in Spanish; then a Spanish quip, as said.
    assert bot_texts(chat) == [FALLBACK_ES, "El caos tiene sus reglas."]
    assert quips(decisions) == [("dropped", ["another_language"]), ("posted", None)]
