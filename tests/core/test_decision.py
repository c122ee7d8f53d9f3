"""The normaliser: raw model output to one of four modes, never an exception."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.decision import (
    NOTE_CHAT_CUT,
    NOTE_JSON_TEXT_DROPPED,
    NOTE_REPEAT_DROPPED,
    DecisionRules,
    Mode,
    normalise,
    parse_json_decision,
)
from custom_components.overseer.core.policy import configured_tools, usable_allowlist
from custom_components.overseer.core.tools import Refusal

from .worlds import demo_world

WORLD = demo_world()


def decide(text=None, calls=None, recent=(), **rules):
    return normalise(
        text,
        calls,
        name="Overseer",
        known_tools=configured_tools(WORLD),
        allowlist=usable_allowlist(WORLD, include_missing=True),
        recent_bot_lines=recent,
        rules=DecisionRules(**rules),
    )


def call(name, **arguments):
    return {"function": {"name": name, "arguments": arguments}}


def test_four_modes():
    assert decide("SKIP").mode is Mode.SKIP
    assert decide("").mode is Mode.SKIP
    assert decide(None, None).mode is Mode.SKIP
    chat = decide("Lift is staying put.")
    assert (chat.mode, chat.chat) == (Mode.CHAT, "Lift is staying put.")
    action = decide("", [call("lift_up")])
    assert action.mode is Mode.ACTION and action.intents[0].name == "lift_up" and action.chat is None
    both = decide("Up you go.", [call("lift_up")])
    assert both.mode is Mode.ACTION_CHAT


def test_chat_say_is_chat_not_an_action():
    decision = decide("ignored", [call("chat_say", text="Earn the darkness.")])
    assert (decision.mode, decision.chat) == (Mode.CHAT, "Earn the darkness.")


def test_openai_style_string_arguments_and_bare_calls():
    decision = decide(
        None,
        [
            {
                "type": "function",
                "function": {
                    "name": "ha_set_entity",
                    "arguments": '{"entity_id": "light.shelf", "state": "red"}',
                },
            }
        ],
    )
    assert decision.intents[0].arguments == {"entity_id": "light.shelf", "state": "red"}
    assert decide(None, {"name": "lift_down", "arguments": {}}).intents[0].name == "lift_down"


def test_rejections_carry_the_contract_codes():
    decision = decide(
        None,
        [
            call("launch_missiles"),
            call("ha_set_entity", entity_id="lock.front_door", state="off"),
            call("memory_write", slot=7, text="x"),
            call("lift_up"),
            call("lift_down"),
            "garbage",
        ],
    )
    assert [r.reason for r in decision.rejections] == [
        Refusal.NOT_ALLOWLISTED,
        Refusal.NOT_ALLOWLISTED,
        Refusal.INVALID_ARGUMENTS,
        Refusal.MAX_TOOL_CALLS,
        Refusal.NOT_ALLOWLISTED,
    ]
    assert [i.name for i in decision.intents] == ["lift_up"]
    assert decision.rejections[0].name == "launch_missiles"


def test_echoed_name_thinking_and_skip_variants_are_cleaned():
    assert decide("Overseer: Chaos has standards.").chat == "Chaos has standards."
    assert decide("<think>they want the lift</think>Overseer: No.").chat == "No."
    assert decide("  skip ").mode is Mode.SKIP
    assert decide("[SKIP]").mode is Mode.SKIP


def test_tool_call_written_as_text_is_neither_chat_nor_action():
    decision = decide('{"name": "lift_up", "arguments": {}}')
    assert decision.mode is Mode.SKIP
    assert NOTE_JSON_TEXT_DROPPED in decision.notes


def test_rambling_is_cut_at_a_word_boundary():
    decision = decide("word " * 200, max_chat_chars=50)
    assert len(decision.chat) <= 50 and decision.chat.endswith("…")
    assert NOTE_CHAT_CUT in decision.notes


def test_repeats_of_recent_bot_lines_are_dropped_and_counted():
    recent = ["Lift is staying put. Chaos has standards."]
    decision = decide("lift is staying put, chaos has standards!", recent=recent)
    assert decision.mode is Mode.SKIP and NOTE_REPEAT_DROPPED in decision.notes
    fresh = decide("The dock is hungry tonight.", recent=recent)
    assert fresh.mode is Mode.CHAT


def test_conversation_agent_json_replies():
    chat, calls = parse_json_decision(
        '```json\n{"chat": "Up.", "tool_calls": [{"name": "lift_up", "arguments": {}}]}\n```'
    )
    decision = decide(chat, calls)
    assert decision.mode is Mode.ACTION_CHAT
    assert parse_json_decision('{"mode": "SKIP", "chat": "x"}') == (None, None)
    assert parse_json_decision("Just words.") == ("Just words.", None)
    assert parse_json_decision("{not json") == ("{not json", None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30,
)
tool_names = st.sampled_from(["lift_up", "ha_set_entity", "memory_write", "chat_say", "nope", ""]) | st.text(
    max_size=8
)
call_shapes = st.fixed_dictionaries({"name": tool_names, "arguments": json_values}) | st.fixed_dictionaries(
    {
        "function": st.fixed_dictionaries(
            {"name": tool_names, "arguments": json_values | json_values.map(json.dumps)}
        )
    }
)


@settings(max_examples=500, deadline=None)
@given(json_values | st.text(), json_values | st.lists(call_shapes | json_values, max_size=40))
def test_the_normaliser_never_raises_on_arbitrary_json(text, calls):
    decision = decide(text, calls)
    assert decision.mode in Mode
    assert len(decision.intents) <= 1
    assert decision.chat is None or len(decision.chat) <= 280
    assert all(r.reason in Refusal for r in decision.rejections)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_json_decision_parser_never_raises(text):
    decide(*parse_json_decision(text))


def test_deeply_nested_json_is_refused_not_raised():
    deep = "[" * 100_000 + "]" * 100_000
    assert decide(deep, [{"name": "lift_up", "arguments": deep}]).mode is Mode.SKIP
