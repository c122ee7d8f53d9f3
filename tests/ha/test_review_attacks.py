"""An attack review of the decision loop after calls, the statement check and the asked-for check.

Each test scripts a hostile or broken model (or a plain one the checker could misread) and reads
the room back: what the review found, held to its fix, and the attacks that did not work.
"""

from __future__ import annotations

import json

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call
from .harness import OPTIONS, ready_in, say, setup_overseer, tick


def bot_texts(events) -> list[str]:
    return [event.data["text"] for event in events if event.data.get("bot")]


def outcomes(events) -> list[tuple[str, str, str | None]]:
    return [(e.data["tool"], e.data["outcome"], e.data.get("reason")) for e in events]


def tool_messages(payload) -> list[dict]:
    return [m for m in payload["messages"] if m["role"] == "tool"]


# --- Truth: false lines that reach the room --------------------------------------------------


async def test_a_true_colour_line_after_its_call_is_posted(hass, freezer, ollama_stub, room):
    """A CSS colour outside the palette, set by this decision, is judged against itself."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("ha_set_entity", entity_id="light.bench", state="turquoise"))
    ollama_stub.after_calls("The bench light is turquoise now.")
    say(hass, "alex", "overseer make the bench light turquoise")
    await tick(hass, freezer)
    turned = [c.data for c in room["light.turn_on"]]
    assert turned == [{"entity_id": "light.bench", "color_name": "turquoise"}]
    assert bot_texts(chat) == ["The bench light is turquoise now."]
    assert len(ollama_stub.requests) == 2  # no statement check: the line is true


async def test_the_after_calls_cue_said_back_is_no_line(hass, freezer, ollama_stub, room):
    """The request after calls is normalised with its cue: said back, it is no line."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("", call("lift_up"))
    echo = "Answer alex now in one short line of your own about what you just did for them."
    ollama_stub.after_calls(echo)
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert ollama_stub.follow_ups[0]["messages"][-1]["content"] == echo  # the cue, word for word
    assert bot_texts(chat) == ["Done: raise the lift."]


async def test_the_statement_checks_instruction_said_back_is_no_line(hass, freezer, ollama_stub, room):
    """The statement-check request is normalised with its instruction as the cue."""
    await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The lift is up.")
    echo = "Say one short line that is true, or SKIP."
    ollama_stub.reply(echo)
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    assert echo not in bot_texts(chat)


# --- Calls in the requests that offer only the chat ------------------------------------------


async def test_a_room_call_in_the_statement_check_reply_is_refused_and_audited(
    hass, freezer, ollama_stub, room
):
    """Offered only the chat, a room call in the statement check's reply is refused and audited."""
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    chat = async_capture_events(hass, "overseer_chat_message")
    ollama_stub.reply("The lift is up.")
    ollama_stub.reply("Chaos has standards.", call("lift_up"), call("neato_start"))
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    offered = [tool["function"]["name"] for tool in ollama_stub.decisions[1].get("tools") or []]
    assert offered == ["chat_say"]
    assert room["cover.open_cover"] == []
    assert bot_texts(chat) == ["Chaos has standards."]
    assert outcomes(actions) == [
        ("lift_up", "blocked", "not_available"),
        ("neato_start", "blocked", "not_available"),
    ]


async def test_holds_calls_in_the_follow_up_never_run(hass, freezer, ollama_stub, room):
    """Holds: a room call made in the request after calls is refused and audited, never run."""
    await setup_overseer(hass, ollama_stub)
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("Up.", call("lift_down"), call("neato_start"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert room["cover.close_cover"] == [] and room["vacuum.start"] == []
    assert outcomes(actions) == [
        ("lift_up", "executed", None),
        ("lift_down", "blocked", "not_available"),
        ("neato_start", "blocked", "not_available"),
    ]


# --- A model failure after the calls ran ------------------------------------------------------


async def test_a_model_failure_after_a_call_ran_tells_what_ran_and_asks_nothing_again(
    hass, freezer, ollama_stub, room
):
    """The request after calls fails: what ran is told, and the question is not put again."""
    await setup_overseer(hass, ollama_stub, options={**OPTIONS, "cooldown_neato": 0})
    hass.states.async_set("cover.lift", "open", {"friendly_name": "Lift"})
    chat = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    ollama_stub.reply("", call("lift_down"))
    ollama_stub.after_calls(status=500)
    say(hass, "alex", "overseer, lower the lift")
    await tick(hass, freezer)
    for _ in range(5):
        await tick(hass, freezer, seconds=3)
    assert outcomes(actions) == [("lift_down", "executed", None)]
    assert len(room["cover.close_cover"]) == 1
    assert bot_texts(chat) == ["Done: lower the lift."]
    # Later decisions are the room's own moments (the lift moved), not the question again.
    later = [decision["messages"][1]["content"] for decision in ollama_stub.decisions[1:]]
    assert all("trigger: direct_address" not in state for state in later)


# --- Bounds -----------------------------------------------------------------------------------


async def test_the_tool_turn_reads_back_a_bounded_number_of_calls(hass, freezer, ollama_stub, room):
    """32 refused calls with long names and arguments: the model reads back the first few."""
    await setup_overseer(hass, ollama_stub)
    big = "x" * 5000
    calls = [call(f"{'unlock_every_door_' * 5}{i}", payload=big) for i in range(32)]
    ollama_stub.reply("", *calls)
    say(hass, "alex", "overseer, how is the room?")
    await tick(hass, freezer)
    [follow_up] = ollama_stub.follow_ups
    assert len(tool_messages(follow_up)) == 8
    turn = next(m for m in follow_up["messages"] if m.get("tool_calls"))
    assert len(turn["tool_calls"]) == 8


async def test_a_tool_result_reports_the_state_the_call_leaves(hass, freezer, ollama_stub, room):
    """The result of a lift_up that ran reads the lift as the call leaves it, as the check judges it."""
    await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("SKIP")
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    [result] = [json.loads(m["content"]) for m in tool_messages(ollama_stub.follow_ups[0])]
    assert result == {"success": True, "tool": "lift_up", "outcome": "executed", "state": "Lift: open"}


# --- Reload mid-decision ------------------------------------------------------------------------


async def test_holds_an_unload_during_the_follow_up_keeps_the_call_and_posts_nothing(
    hass, freezer, ollama_stub, room
):
    """Holds: the room unloads while the request after calls is open; the call that ran is kept
    (its cooldown survives the reload) and nothing is posted after it."""
    entry = await setup_overseer(hass, ollama_stub)
    chat = async_capture_events(hass, "overseer_chat_message")
    unloaded: list[bool] = []

    async def unload() -> None:
        unloaded.append(await hass.config_entries.async_unload(entry.entry_id))

    ollama_stub.reply("", call("lift_up"))
    ollama_stub.after_calls("Raised the lift.", before=unload)
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    assert unloaded == [True]
    assert bot_texts(chat) == []
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert [r["tool"] for r in entry.runtime_data.loop.state.audit.as_list()] == ["lift_up"]
    assert ready_in(hass, "sensor.arena_lift_cooldown") > 50


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
