"""An attack review of the decision loop: its facts, its one request after an unusable answer, and
the asked-for check.

Each test scripts a hostile or broken model (or a plain one the checker could misread) and reads
the room back: what the review found, held to its fix, and the attacks that did not work.
"""

from __future__ import annotations

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, say, setup_overseer, tick


def bot_texts(events) -> list[str]:
    return [event.data["text"] for event in events if event.data.get("bot")]


def outcomes(events) -> list[tuple[str, str, str | None]]:
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


def tool_messages(payload) -> list[dict]:
    return [m for m in payload["messages"] if m["role"] == "tool"]


# --- Truth: what the room hears of itself is the overseer's own facts ----------------------------


async def test_a_colour_outside_the_palette_set_by_its_call_is_stated_as_set(
    hass, freezer, ollama_stub, room
):
    """A CSS colour outside the palette, set by this decision, is stated as the call leaves it."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply(
        "The bench light is turquoise now.",
        call("ha_set_entity", entity_id="light.bench", state="turquoise"),
    )
    say(hass, "alex", "overseer make the bench light turquoise")
    await tick(hass, freezer)
    turned = [c.data for c in room["light.turn_on"]]
    assert turned == [{"entity_id": "light.bench", "color_name": "turquoise"}]
    # The model's sentence names the light: the overseer's fact says it instead.
    [line] = [event.data for event in chat if event.data.get("bot")]
    assert line["text"] == "Bench is on (turquoise)."
    assert [(f["entity_id"], f["state"], f.get("colour"), f.get("outcome")) for f in line["facts"]] == [
        ("light.bench", "on", "turquoise", "executed")
    ]
    assert len(ollama_stub.requests) == 1


async def test_a_false_state_line_is_replaced_by_the_rooms_fact(hass, freezer, ollama_stub, room):
    """The model says the lift is up; it is closed: the room hears the truth, and not the claim."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    decisions = async_capture_events(hass, "overseer_decision")
    ollama_stub.reply("The lift is up.")
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    [line] = [event.data for event in chat if event.data.get("bot")]
    assert line["text"] == "Lift is closed."
    assert "up" not in line["text"]
    assert [(f["entity_id"], f["state"]) for f in line["facts"]] == [("cover.lift", "closed")]
    assert decisions[0].data["quip_dropped"] == ["names_a_device"]
    assert len(ollama_stub.requests) == 1  # nothing is asked again "with the facts"


async def test_the_line_owed_cue_said_back_is_no_line(hass, freezer, ollama_stub, room):
    """The request for a line owed is normalised with its cue: said back, it is no line."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    echo = (
        "Not SKIP: alex asked you. Answer alex in one short line of your own: an answer, an opinion or a"
        " verdict."
    )
    ollama_stub.line_owed(echo)
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    assert ollama_stub.lines_owed[0]["messages"][-1]["content"] == echo  # the cue, word for word
    assert bot_texts(chat) == ["Sorry alex, I have nothing useful to say to that right now."]
    assert len(ollama_stub.requests) == 2


# --- The one request after an unusable answer -------------------------------------------------


async def test_a_model_failure_on_the_second_request_leaves_the_fallback(hass, freezer, ollama_stub, room):
    """The request for the line owed fails: the first answer stands (none), the fallback answers,
    and the question is not put again."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("SKIP")
    ollama_stub.line_owed(status=500)
    say(hass, "alex", "overseer, pick a side")
    await tick(hass, freezer)
    for _ in range(5):
        await tick(hass, freezer, seconds=3)
    assert bot_texts(chat) == ["Sorry alex, I have nothing useful to say to that right now."]
    assert len(ollama_stub.requests) == 2


async def test_a_call_that_ran_is_told_and_the_question_is_not_put_again(hass, freezer, ollama_stub, room):
    """A call ran and the model wrote no line: what ran is told, and nothing more is asked."""
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "cooldown_neato": 0})
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_down"))
    say(hass, "alex", "overseer, lower the lift")
    await tick(hass, freezer)
    for _ in range(5):
        await tick(hass, freezer, seconds=3)
    assert outcomes(actions) == [("lift_down", "executed", None)]
    assert len(room["cover.close_cover"]) == 1
    assert bot_texts(chat) == ["Lift is closed."]
    assert ollama_stub.lines_owed == []
    # Later decisions are the room's own moments (the lift moved), not the question again.
    moments = [decision["messages"][-1]["content"] for decision in ollama_stub.decisions]
    assert "trigger: direct_address" in moments[0]
    assert all("trigger: direct_address" not in moment for moment in moments[1:])


# --- Bounds -----------------------------------------------------------------------------------


async def test_a_flood_of_refused_calls_is_audited_bounded_and_the_asker_still_hears_an_answer(
    hass, freezer, ollama_stub, room
):
    """32 refused calls with long names and arguments: none runs, two requests at most, alex is answered."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    big = "x" * 5000
    calls = [call(f"{'unlock_every_door_' * 5}{i}", payload=big) for i in range(32)]
    ollama_stub.reply("", *calls)
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    assert {outcome for _, outcome, _ in outcomes(actions)} == {"blocked"}
    assert 0 < len(actions) <= 32
    assert len(ollama_stub.requests) <= 2
    [text] = bot_texts(chat)
    assert len(text) < 500


async def test_the_fact_of_a_call_that_ran_states_the_state_it_leaves(hass, freezer, ollama_stub, room):
    """A lift_up that ran is stated as the call leaves the lift: open."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    [line] = [event.data for event in chat if event.data.get("bot")]
    assert line["text"] == "Lift is open."
    assert line["facts"] == [
        {"entity_id": "cover.lift", "state": "open", "deed": "open", "outcome": "executed"}
    ]


# --- Reload mid-decision ------------------------------------------------------------------------


async def test_holds_an_unload_while_the_model_thinks_runs_nothing_and_posts_nothing(
    hass, freezer, ollama_stub, room
):
    """Holds: the room unloads while the decision's request is open; its call never runs and
    nothing is posted."""
    entry = await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    unloaded: list[bool] = []

    async def unload() -> None:
        unloaded.append(await hass.config_entries.async_unload(entry.entry_id))

    ollama_stub.reply("Raised the lift.", call("lift_up"), before=unload)
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert unloaded == [True]
    assert bot_texts(chat) == []
    assert room["cover.open_cover"] == []
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.runtime_data.loop.state.audit.as_list() == []


# --- Recognition -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "overseer, turn on the bench and the shelf",
        "overseer lower the lift or raise it",
        "overseer, don't lower the lift",
        "overseer, alex says lower the lift",
        "overseer tell alex to lower the lift",
        "why did you lower the lift, overseer",
        "overseer, the lift, lower it",
    ],
)
def test_holds_words_that_name_two_things_or_report_someone_ask_for_nothing(question):
    """Holds: no chat line tried here reads as the opposite of what it says; at most the act its
    words say on the devices it names, or any act where they say none."""
    from custom_components.overseer.core.acts import Act, Device, Kind
    from custom_components.overseer.core.requests import asked_deeds
    from custom_components.overseer.recognition import load_recogniser

    devices = (
        Device("lift", Kind.LIFT, ("Lift",), "closed"),
        Device("light.bench", Kind.LIGHT, ("Bench",), "off"),
        Device("light.shelf", Kind.LIGHT, ("Shelf",), "on", "purple"),
        Device("vacuum", Kind.VACUUM, ("Neato",), "docked"),
    )
    asked = asked_deeds(question, devices, load_recogniser("en"), ("Overseer",))
    # Lower, or turn on: never raise, never turn off.
    assert {deed.act for deed in asked} <= {Act.ANY, Act.CLOSE, Act.ON}
