"""The normaliser: a typed model reply to one of four modes, never an exception.

Most cases go in through the providers' wire reader, as a real reply does.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.decision import Decision, DecisionRules, Mode, normalise
from custom_components.overseer.core.line_rules import Note
from custom_components.overseer.core.policy import Limits, configured_tools, vocabulary
from custom_components.overseer.core.reply import MalformedCall, ModelReply, ToolCall
from custom_components.overseer.core.tools import Refusal
from custom_components.overseer.providers.wire import MAX_CALLS, json_decision_reply, typed_reply

from .worlds import demo_world

WORLD = demo_world()


COLOURS = frozenset({"red", "blue", "purple"})


def normalise_reply(reply, own=(), read=(), bots_read=(), **rules):
    """The decision on a reply, after the overseer's own lines and the people's and bots' lines it read."""
    return normalise(
        reply,
        name="Overseer",
        known_tools=configured_tools(WORLD),
        vocabulary=vocabulary(WORLD, Limits(colour_names=COLOURS), include_missing=True),
        own_lines=own,
        chat_read=read,
        bots_read=bots_read,
        rules=DecisionRules(**rules),
    )


def decide(text=None, calls=None, own=(), read=(), **rules):
    """A reply in any wire shape, read as a provider reads it, then normalised."""
    return normalise_reply(typed_reply(text, calls), own, read, **rules)


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
        Refusal.NOT_ALLOWLISTED,  # "garbage", unreadable at the wire
        Refusal.NOT_ALLOWLISTED,
        Refusal.NOT_ALLOWLISTED,
        Refusal.INVALID_ARGUMENTS,
        Refusal.MAX_TOOL_CALLS,
    ]
    assert [i.name for i in decision.intents] == ["lift_up"]
    assert decision.rejections[1].name == "launch_missiles"


def test_the_normaliser_takes_typed_values_only():
    reply = ModelReply(
        text="Lights up.",
        tool_calls=(ToolCall("ha_set_entity", {"entity_id": "light.shelf", "state": "Blue"}),),
        malformed=(MalformedCall("lift_up", "[1, 2]"), MalformedCall("rm_rf", "{}")),
    )
    decision = normalise_reply(reply)
    assert decision.mode is Mode.ACTION_CHAT
    assert decision.intents[0].arguments == {"entity_id": "light.shelf", "state": "blue"}
    assert [(r.name, r.reason) for r in decision.rejections] == [
        ("lift_up", Refusal.INVALID_ARGUMENTS),
        ("rm_rf", Refusal.NOT_ALLOWLISTED),
    ]


def test_colours_are_the_ones_the_shell_hands_in():
    assert decide(None, [call("ha_set_entity", entity_id="light.shelf", state="purple")]).intents
    unknown = decide(None, [call("ha_set_entity", entity_id="light.shelf", state="chartreuse")])
    assert unknown.rejections[0].reason is Refusal.INVALID_ARGUMENTS
    # A switch takes on and off only, whatever colours the lights know.
    switch = decide(None, [call("ha_set_entity", entity_id="switch.fan", state="red")])
    assert switch.rejections[0].reason is Refusal.INVALID_ARGUMENTS


def test_a_looping_model_is_read_only_so_far():
    decision = decide(None, [call("lift_up")] * (MAX_CALLS + 5))
    assert "calls_ignored" in decision.notes
    assert len(decision.rejections) == MAX_CALLS - 1


def test_echoed_name_thinking_and_skip_variants_are_cleaned():
    assert decide("Overseer: Chaos has standards.").chat == "Chaos has standards."
    assert decide("<think>they want the lift</think>Overseer: No.").chat == "No."
    assert decide("  skip ").mode is Mode.SKIP
    assert decide("[SKIP]").mode is Mode.SKIP


# Refusals Qwen2.5-Coder-1.5B wrote in the demo check: once one is in the transcript as the
# overseer's own line, the model says it again to every question.
STOCK_REFUSALS = [
    "I'm sorry, but I can't assist with that.",
    "sam: I'm sorry, but I can't assist with that.",
    "I apologize, but I can't assist with that request right now.",
    "I’m sorry, I’m unable to assist with that command.",
    "Overseer: Sorry, I cannot help with that.",
    # After the name of someone in the chat, as in 0.6.0's demo check.
    "Sam, I'm sorry, but I can't assist with that.",
    # Its apology for anything, said while the tool was free; asked again, it acted.
    "Alex: I'm sorry, but I can't raise the lift right now.",
    "alex: I'm sorry, but I cannot pick a side right now.",
    "I'm sorry, but I can't turn the corner light off right now.",
    "Sorry, I am unable to start the vacuum at the moment.",
    "I'm sorry, but I can't lower the lift right now. Please try again later.",
    # With an assistant's sign-off, in 0.7.0's demo check: once posted, it was said again to the next.
    "I'm sorry, but I can't assist with that. Please let me know if you have any other questions.",
    "I'm sorry, but I can't assist with that. Please try again.",
]
IN_CHARACTER = [
    "Sorry alex, the lift stays down. I can't help you there.",
    "Sorry sam, no.",
    "I can't help it.",
    "I'm sorry, alex. I can't let you do that.",
    "Sorry, the lift can't go up right now: it is cooling down.",
    "Sorry, the lift can't go up right now.",
    # A reason or a name between the apology and the "can't" (an independent review's cases).
    "Sorry sam, the lift is on cooldown, I can't raise it right now.",
    "Sorry alex, the lift is cooling down. I can't raise it right now.",
    "I'm sorry, alex. I can't raise the lift right now.",
]


def test_a_call_written_as_a_function_to_someone_is_no_line():
    # Qwen2.5-Coder-1.5B in the demo check, asked to turn the corner light off.
    decision = decide('alex: ha_set_entity("light.corner", "off")')
    assert decision.chat is None and "tool_text_dropped" in decision.notes
    assert decide("alex: Lift up.").chat == "alex: Lift up."


# Qwen2.5-Coder-1.5B in 0.6.0's demo check, asked to make a light blue or to lower the lift: it
# told the room about the call instead of making it.
NARRATED_CALLS = [
    "I will call the ha_set_entity function to set the bench light to blue.",
    "I will call the lift_down() function to lower the lift.",
    "Note: lift_up is ready.",
    "alex: Use Chat_Say to talk to me.",
]


def test_a_line_that_names_a_tool_is_no_line():
    for text in NARRATED_CALLS:
        decision = decide(text)
        assert decision.mode is Mode.SKIP and "tool_text_dropped" in decision.notes, text
    # The things themselves, in words, are what the room hears.
    assert decide("The lift is up, chat is say-so.").chat == "The lift is up, chat is say-so."
    assert decide("ha! set that entity yourself.").chat == "ha! set that entity yourself."


def test_a_line_the_model_put_in_quotes_is_posted_without_them():
    # Qwen2.5-Coder-1.5B in the demo check, once its quoted lines were in the transcript.
    assert decide('Overseer: "The score is 0-0."').chat == "The score is 0-0."
    assert decide('alex: "Hey everyone! Eyes on rover 2. "').chat == "alex: Hey everyone! Eyes on rover 2."
    assert decide('He said "no" twice.').chat == 'He said "no" twice.'
    assert decide('"Overseer: Up it goes, alex."').chat == "Up it goes, alex."
    # A call after whom it is for: the call runs, the label alone is no line.
    labelled = decide('alex: {"name": "lift_up", "arguments": {}}')
    assert ([i.name for i in labelled.intents], labelled.chat) == (["lift_up"], None)
    assert decide("alex:").chat is None
    assert decide('"No," he said, "never."').chat == '"No," he said, "never."'


def test_a_chat_assistants_stock_refusal_is_no_line_but_a_refusal_in_character_is():
    for text in STOCK_REFUSALS:
        decision = decide(text)
        assert decision.mode is Mode.SKIP and "stock_refusal_dropped" in decision.notes, text
    for text in IN_CHARACTER:
        assert decide(text).chat == text


# Replies Qwen2.5-Coder (1.5B and 0.5B) wrote on llama.cpp's server in the demo check (issue 21):
# their calls in the text, in the shapes their chat template taught them.
SMALL_MODEL_TEXT_CALLS = [
    ('{{"name": "chat_say", "arguments": {"text": "I\'m watching the lift."}}}', "chat_say"),
    ('<tool_call>\n{"name": "chat_say", "arguments": {"text": "I\'m so bored."}}\n</tool_call>', "chat_say"),
    ('{"name": "lift_up", "arguments": {}}', "lift_up"),
    ('```json\n{"name": "lift_up", "arguments": {}}\n```', "lift_up"),
    # After the transcript's label for its own lines, copied (asked to turn the corner light off).
    (
        'Overseer: {"name": "ha_set_entity", "arguments": {"entity_id": "light.corner", "state": "off"}}',
        "ha_set_entity",
    ),
]


def test_a_small_models_calls_written_as_text_are_calls_under_the_same_checks():
    for text, tool in SMALL_MODEL_TEXT_CALLS:
        decision = decide(text)
        if tool == "chat_say":  # the line, never the JSON
            assert decision.mode is Mode.CHAT and decision.chat.startswith("I'm "), text
        else:
            assert [intent.name for intent in decision.intents] == [tool] and decision.chat is None, text
    # The same strict checks as the structured channel: an unknown name is refused and audited,
    # bad arguments too, and neither the JSON nor the refusal becomes a line.
    unknown = decide('```json {"name": "chat_say(text)", "arguments": {"text": "Available tools"}}```')
    assert unknown.mode is Mode.SKIP
    assert [(r.name, r.reason) for r in unknown.rejections] == [("chat_say(text)", Refusal.NOT_ALLOWLISTED)]
    shaped = decide('{"name": "lift_up", "arguments": {"type": "object"}}')
    assert shaped.intents == () and shaped.rejections[0].reason is Refusal.INVALID_ARGUMENTS
    # Words beside a call stay the line; a call the model wrote both ways is one call.
    both = decide(
        'Up it goes. <tool_call>{"name": "lift_up", "arguments": {}}</tool_call>', [call("lift_up")]
    )
    assert (both.mode, both.chat, len(both.intents), both.rejections) == (
        Mode.ACTION_CHAT,
        "Up it goes.",
        1,
        (),
    )
    # What a model only thought about is not a call; a cut-off call is neither a call nor a line.
    assert decide('<think>{"name": "lift_up", "arguments": {}}</think>No.').intents == ()
    cut = decide('{"name": "chat_say", "arguments": {"text": "I\'m so')
    assert cut.mode is Mode.SKIP and Note.JSON_TEXT_DROPPED in cut.notes
    # A JSON object that is no call is not read as one.
    assert decide('{"name": "alex"} said hi').chat == '{"name": "alex"} said hi'


def test_only_a_call_where_calls_are_written_is_one_and_its_json_is_never_a_line():
    # Named inside a sentence, a call is words; its JSON does not reach the room either.
    quoted = decide('I will not call {"name": "lift_up", "arguments": {}} today.')
    assert (quoted.mode, quoted.intents) == (Mode.SKIP, ())
    assert decide('Sure!\n{"name": "lift_up", "arguments": {}}').intents[0].name == "lift_up"
    # A label is one word and a colon: words before the colon are a sentence.
    assert decide('I will call: {"name": "lift_up", "arguments": {}}').intents == ()
    # Cut off in the new shapes: neither a call nor a line.
    for text in (
        '<tool_call>\n{"name": "chat_say", "arguments": {"text": "I\'m so',
        '```json\n{"name": "lift_up", "arguments": {',
        '{{"name": "chat_say", "arguments": {"text": "Hal',
    ):
        assert decide(text).mode is Mode.SKIP, text
    # Doubled braces are no misses: nine doubled calls are nine calls, one run, none posted.
    doubled = decide('{{"name": "lift_up", "arguments": {}}} ' * 9)
    assert (len(doubled.intents), len(doubled.rejections), doubled.chat) == (1, 8, None)
    # Reasoning whose block the template opened in the prompt leaves only its closing tag.
    reasoned = decide('they want it up {"name": "lift_up", "arguments": {}} </think>Fine.')
    assert (reasoned.intents, reasoned.chat) == ((), "Fine.")


def test_a_conversation_agents_chat_field_is_words_even_when_it_names_a_call():
    reply = json_decision_reply(
        '{"chat": "Alex asked for {\\"name\\": \\"lift_up\\", \\"arguments\\": {}}.", "tool_calls": []}'
    )
    assert reply.tool_calls == ()
    decision = normalise_reply(reply, ())
    assert decision.intents == () and decision.mode is Mode.SKIP


def test_reading_calls_from_text_is_bounded():
    looping = decide('{"name": "lift_up", "arguments": {}} ' * (MAX_CALLS + 10))
    assert "calls_ignored" in looping.notes and looping.chat is None
    assert len(looping.intents) + len(looping.rejections) == MAX_CALLS
    # Braces that open no call make the reader give up soon, whatever follows.
    assert decide('{"a": 1} ' * 20 + '{"name": "lift_up", "arguments": {}}').intents == ()


def test_rambling_is_cut_at_a_word_boundary():
    decision = decide("word " * 200, max_chat_chars=50)
    assert len(decision.chat) <= 50 and decision.chat.endswith("…")
    assert Note.CHAT_CUT in decision.notes


@pytest.mark.parametrize(
    ("said", "posted"),
    [
        ("¡Por supuesto! He cambiado la luz del rincón a azul.", "He cambiado la luz del rincón a azul."),
        ("Overseer: Certainly! Lift is up.", "Lift is up."),
        ("Of course!! The dock waits.", "The dock waits."),
        ("Certainly not. Earn it.", "Certainly not. Earn it."),
        ("Claro que no.", "Claro que no."),
    ],
)
def test_an_eager_opener_is_cut_from_the_front_of_a_line(said, posted):
    decision = decide(said)
    assert decision.chat == posted
    assert (Note.OPENER_CUT in decision.notes) is (said != posted)


@pytest.mark.parametrize(
    ("said", "posted", "note"),
    [
        # The refusal goes on to say something: the keeper says it without the apology.
        (
            "I'm sorry, but I can't lower the lift. It sleeps.",
            "I can't lower the lift. It sleeps.",
            Note.APOLOGY_CUT,
        ),
        (
            "sam: I\u2019m so sorry, I can\u2019t paint it: red bores me.",
            "sam: I can\u2019t paint it: red bores me.",
            Note.APOLOGY_CUT,
        ),
        (
            "Nice try. Sorry, but I cannot help you cheat.",
            "Nice try. I cannot help you cheat.",
            Note.APOLOGY_CUT,
        ),
        (
            "Lo siento, pero no puedo subirlo. El ascensor duerme.",
            "No puedo subirlo. El ascensor duerme.",
            Note.APOLOGY_CUT,
        ),
        # A bare apology and refusal is a stock refusal, asked again; an apology that refuses nothing stays.
        ("I'm sorry, but I can't raise the lift right now.", None, Note.STOCK_REFUSAL_DROPPED),
        (
            "I'm sorry, but I can't: the lift is cooling down.",
            "I can't: the lift is cooling down.",
            Note.APOLOGY_CUT,
        ),
        (
            "Sorry, I can't lower it because the budget is spent.",
            "I can't lower it because the budget is spent.",
            Note.APOLOGY_CUT,
        ),
        ("I'm sorry, alex. I can't let you do that.", "I'm sorry, alex. I can't let you do that.", None),
        ("Sorry sam, no.", "Sorry sam, no.", None),
        (
            "Sam, I'm sorry, but I can't raise it. It sleeps.",
            "Sam, I can't raise it. It sleeps.",
            Note.APOLOGY_CUT,
        ),
        (
            "I'm sorry, I\u2019m unable to raise it: it sleeps.",
            "I\u2019m unable to raise it: it sleeps.",
            Note.APOLOGY_CUT,
        ),
        ("I'm sorry, I won't do it again.", "I'm sorry, I won't do it again.", None),
        ("I'm sorry for rover 3. It can't drive.", "I'm sorry for rover 3. It can't drive.", None),
    ],
)
def test_an_apology_is_cut_from_the_front_of_a_refusal(said, posted, note):
    decision = decide(said)
    assert decision.chat == posted
    assert [n for n in decision.notes if n in (Note.APOLOGY_CUT, Note.STOCK_REFUSAL_DROPPED)] == (
        [note] if note else []
    )


@pytest.mark.parametrize(
    ("said", "posted", "note"),
    [
        ("I'm here to help!", None, Note.HELP_DESK_DROPPED),
        ("Sam: Let me know if you need anything. ", None, Note.HELP_DESK_DROPPED),
        ("Encantado de ayudarte.", None, Note.HELP_DESK_DROPPED),
        # The offer's sentence, or its clause, goes; the rest of the line and whom it is for stay.
        ("I'm bored, but I'm here to help.", "I'm bored.", Note.HELP_OFFER_CUT),
        ("alex: The lift is up. Feel free to ask!", "alex: The lift is up.", Note.HELP_OFFER_CUT),
        ("alex: Feel free to ask. The lift stays.", "alex: The lift stays.", Note.HELP_OFFER_CUT),
        ("The lift is up, let me know if you need anything else.", "The lift is up.", Note.HELP_OFFER_CUT),
        ("La luz está apagada. Estoy aquí para ayudarte.", "La luz está apagada.", Note.HELP_OFFER_CUT),
        # The keeper's own use of the words.
        ("Help? The lift helps nobody.", "Help? The lift helps nobody.", None),
        ("Feel free to beg, alex.", "Feel free to beg, alex.", None),
        ("Let me know if you dare.", "Let me know if you dare.", None),
        ("I'm happy to help you fall.", "I'm happy to help you fall.", None),
        ("I am not here to help you, alex.", "I am not here to help you, alex.", None),
        ("Happy to help? Never.", "Happy to help? Never.", None),
    ],
)
def test_a_help_desks_offer_is_cut_and_a_line_of_nothing_else_is_not_said(said, posted, note):
    decision = decide(said)
    assert decision.chat == posted
    cut = {Note.HELP_OFFER_CUT, Note.HELP_DESK_DROPPED} & set(decision.notes)
    assert cut == ({note} if note else set())


def test_repeats_of_recent_bot_lines_are_dropped_and_counted():
    own = ["Lift is staying put. Chaos has standards."]
    decision = decide("lift is staying put, chaos has standards!", own=own)
    assert decision.mode is Mode.SKIP and Note.REPEAT_DROPPED in decision.notes
    fresh = decide("The dock is hungry tonight.", own=own)
    assert fresh.mode is Mode.CHAT
    # Said to someone else, the same words are the same line (the demo check's "Kim: Lower the
    # lift." after "Alex: Lower the lift.").
    again = decide("Overseer: Kim: the score is 100.", own=["Alex: The score is 100."])
    assert again.mode is Mode.SKIP and Note.REPEAT_DROPPED in again.notes


def test_a_line_that_says_a_persons_line_back_is_dropped_and_noted_apart_from_a_repeat():
    # Someone's line said back with their name, as the bundled model did to a rover docking.
    parrot = decide("Overseer: alex: go go go", read=["go go go"])
    assert (parrot.mode, parrot.notes) == (Mode.SKIP, (Note.CHAT_SAID_BACK,))
    # The same words after its own line are a repeat, and what neither holds is a line.
    assert decide("Overseer: alex: go go go", own=["go go go"]).notes == (Note.REPEAT_DROPPED,)
    fresh = decide("Go go go yourself, alex.", own=["Lift is up."], read=["go go go"])
    assert (fresh.mode, fresh.notes) == (Mode.CHAT, ())
    # A copy of both is its own line again first: the seed's anti-repeat context comes first.
    both = decide("go go go", own=["Go go go!"], read=["go go go"])
    assert (both.mode, both.notes) == (Mode.SKIP, (Note.REPEAT_DROPPED,))


@pytest.mark.parametrize(
    ("line", "person_said"),
    [
        # A hostile review's: an answer in the words of the asker's own line, which it read.
        ("La luz del banco está encendida.", "overseer: ¿la luz del banco está encendida?"),
        ("Sí, la luz del banco está encendida.", "Hola overseer. ¿La luz del banco está encendida?"),
        ("Lowering the lift.", "overseer! lower the lift"),
        ("Encendiendo la luz del banco.", "Hola overseer. Enciende la luz del banco."),
    ],
)
def test_an_answer_in_the_words_of_a_persons_line_is_not_said_back(line, person_said):
    decision = decide(line, read=[person_said])
    assert (decision.mode, decision.chat) == (Mode.CHAT, line)


def test_a_sentence_of_another_bots_line_said_back_is_dropped_but_not_one_of_a_persons():
    guide = "To add what the track shows: Rover 3 is on its dock, charging."
    copy = normalise_reply(typed_reply("Rover 3 is on its dock, charging.", None), bots_read=[guide])
    assert (copy.mode, copy.notes) == (Mode.SKIP, (Note.CHAT_SAID_BACK,))
    told = decide("The lift is down.", read=["Lap done. The lift is down."])
    assert told.chat == "The lift is down."


@pytest.mark.parametrize(
    ("line", "question", "said_back"),
    [
        # The bundled model's echoes in the demo check.
        ("Overseer: Alex: Pick a side.", "overseer, pick a side", True),
        ("Alex: Lower the lift.", "overseer lower the lift please", True),
        ("Overseer, raise the lift!", "overseer raise the lift", True),
        # Answers that share the question's words, and a line with nobody asking.
        ("Pick a side? I pick chaos.", "overseer, pick a side", False),
        ("The lift stays down, alex.", "overseer lower the lift please", False),
        ("Pick a side.", "", False),
        # The same words in another order answer a yes-or-no question.
        ("The vacuum is running.", "overseer is the vacuum running?", False),
        ("Is the vacuum running?", "overseer is the vacuum running?", True),
        # Spanish asks yes or no, or this or that, in the answer's order: a statement answers.
        ("La luz del banco está encendida.", "oye overseer, ¿la luz del banco está encendida?", False),
        ("El ascensor está arriba.", "overseer, ¿el ascensor está arriba o abajo?", False),
        ("¿La luz del banco está encendida?", "oye overseer, ¿la luz del banco está encendida?", True),
        # A question word opens a question with or without its marks (an independent review's cases).
        ("Alex: which side are you on.", "overseer, which side are you on?", True),
        ("¿De qué lado estás.", "overseer, ¿de qué lado estás?", True),
        ("What do you think of the lift", "overseer, what do you think of the lift?", True),
        # Short answers in the question's words (an independent review's cases).
        ("alex: Blue.", "overseer, red or blue?", False),
        ("Yes.", "overseer, yes or no?", False),
        ("Lift up.", "overseer is the lift up?", False),
    ],
)
def test_a_line_that_only_says_the_question_back_is_no_answer(line, question, said_back):
    decision = normalise(
        typed_reply(line, None),
        name="Overseer",
        known_tools=configured_tools(WORLD),
        vocabulary=vocabulary(WORLD, Limits(colour_names=COLOURS), include_missing=True),
        own_lines=(),
        chat_read=(),
        rules=DecisionRules(),
        question=question,
    )
    assert (Note.QUESTION_SAID_BACK in decision.notes) is said_back
    assert (decision.chat is None) is said_back


def answer_to(question: str, line: str, **told) -> Decision:
    """A line said to someone who asked, by a decision told what it was told."""
    return normalise(
        typed_reply(line, None),
        name="Overseer",
        known_tools=("chat_say",),
        vocabulary=vocabulary(WORLD, Limits(colour_names=COLOURS), include_missing=True),
        own_lines=(),
        chat_read=(),
        rules=DecisionRules(),
        question=question,
        **told,
    )


def test_conversation_agent_json_replies():
    reply = json_decision_reply(
        '```json\n{"chat": "Up.", "tool_calls": [{"name": "lift_up", "arguments": {}}]}\n```'
    )
    assert normalise_reply(reply).mode is Mode.ACTION_CHAT
    skipped = json_decision_reply('{"mode": "SKIP", "chat": "x"}')
    assert (skipped.text, skipped.tool_calls) == ("", ())
    assert json_decision_reply("Just words.").text == "Just words."
    assert json_decision_reply("{not json").text == "{not json"


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
    assert normalise_reply(json_decision_reply(text)).mode in Mode


def test_deeply_nested_json_is_refused_not_raised():
    deep = "[" * 100_000 + "]" * 100_000
    assert decide(deep, [{"name": "lift_up", "arguments": deep}]).mode is Mode.SKIP


def test_a_small_models_near_miss_keeps_its_line_and_the_call_stays_refused():
    misnamed = decide(None, [call("chat_say", message="Good lap, Sam.")])
    assert (misnamed.mode, misnamed.chat) == (Mode.CHAT, "Good lap, Sam.")
    assert "chat_salvaged" in misnamed.notes
    assert misnamed.rejections[0].reason is Refusal.INVALID_ARGUMENTS  # still audited as refused
    unparsable = decide("", [{"name": "chat_say", "arguments": "Nice one, alex"}])
    assert unparsable.chat == "Nice one, alex"
    # The salvaged line passes the same rules as any other: no JSON, no SKIP, no repeat.
    assert decide(None, [call("chat_say", message='{"a": 1}')]).mode is Mode.SKIP
    assert decide(None, [call("chat_say", message="SKIP")]).mode is Mode.SKIP
    assert decide(None, [call("chat_say", message="Same old.")], own=["Same old."]).chat is None
    assert decide(None, [call("chat_say", message="Go go go!")], read=["go go go!"]).chat is None
    # A real text beside it wins; tool calls stay strict either way.
    assert decide("Hello.", [call("chat_say", message="Other.")]).chat == "Hello."
    assert decide(None, [call("lift_up", speed="fast")]).intents == ()


def test_a_tool_call_written_as_text_is_not_posted():
    for text in ("functions.lift_up:", "lift_up()", "neato_start: {}", " functions.chat_say: "):
        decision = decide(text)
        assert decision.mode is Mode.SKIP and "tool_text_dropped" in decision.notes, text
    assert decide("lift up, please").chat == "lift up, please"  # words, not a call
    assert decide("Raise: the lift").chat == "Raise: the lift"


CUE = (
    "Answer sam now, in one short line of your own: an answer, an opinion or a verdict"
    " (and call a tool if you act)."
)


@pytest.mark.parametrize(
    ("line", "said_back"),
    [
        # The bundled model's answers to "what do you think of sam's driving" in the demo.
        ("An answer, an opinion or a verdict (and call a tool if you act).", True),
        ("An opinion, an answer or a verdict.", True),
        # Its own words, a few of them the cue's; and a line too short to call a copy.
        ("An opinion? Sam drives like a dropped toolbox.", False),
        ("Your call.", False),
    ],
)
def test_a_line_of_the_cues_words_alone_is_no_line(line, said_back):
    decision = answer_to("overseer what do you think of sam's driving", line, cue=CUE)
    assert (Note.CUE_SAID_BACK in decision.notes) is said_back
    assert (decision.chat is None) is said_back
