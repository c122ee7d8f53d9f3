"""The demo check's question bank and judge helpers, checked without a model.

demo_questions.py is data the demo check trusts: a bank too small, lopsided or leaking tuning
questions into the held-out part, a stock-phrase table that catches the seed's own voice, or a
language guess wrong on the questions themselves would make that check's verdicts meaningless
without failing it. None of these tests uses the model_server fixture, so no model starts.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from itertools import product

import pytest

from . import demo_questions
from .demo_questions import (
    DEVICES,
    HELD_OUT,
    LIFT,
    SEED_VOICE,
    STOCK_PHRASES,
    TUNING,
    Kind,
    Question,
    Want,
    draw,
    in_seed_voice,
    spoken_language,
    stock_phrase,
)

PARTS = {"tuning": TUNING, "held_out": HELD_OUT}
MIN_SIZE = {"tuning": 40, "held_out": 28}
# How the people in the chat address the overseer.
ADDRESSED = re.compile(r"^(@overseer\b|(hey|oye) overseer\b|overseer\b)")
# What each tool of test_demo_room.py's ASKED_FOR leaves the room in.
TOOL_WANTS = {"lift_up": (LIFT, "open"), "lift_down": (LIFT, "closed")}
NEAR_COPY = 0.7
# The 12 questions test_demo_room.py asked before it drew from this bank, and the tool each
# action question asked for (its ASKED_FOR), pinned here: that file no longer holds them.
DEMO_ROOM_QUESTIONS = (
    "overseer, you there?",
    "overseer who is winning",
    "overseer raise the lift",
    "@overseer what do you think of rover 2",
    "overseer make the bench light blue",
    "overseer, say something to the crowd",
    "overseer is the vacuum running?",
    "overseer lower the lift please",
    "overseer, pick a side",
    "hey overseer, rate that last lap",
    "overseer what is the score",
    "overseer turn the corner light off",
)
DEMO_ROOM_ASKED_FOR = {
    "overseer raise the lift": "lift_up",
    "overseer make the bench light blue": "ha_set_entity",
    "overseer lower the lift please": "lift_down",
    "overseer turn the corner light off": "ha_set_entity",
}


def word_set(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.lower()))


def jaccard(a: str, b: str) -> float:
    one, two = word_set(a), word_set(b)
    return len(one & two) / len(one | two)


@pytest.mark.parametrize(("name", "stock"), [(stock.name, stock) for stock in STOCK_PHRASES])
def test_stock_phrase_examples(name, stock):
    assert len(stock.matches) >= 2 and stock.must_not
    for line in stock.matches:
        assert stock.pattern.search(line), f"{name} misses {line!r}"
        assert stock_phrase(line) is not None
        assert not in_seed_voice(line)
    for line in stock.must_not:
        assert not stock.pattern.search(line), f"{name} catches {line!r}"


def test_stock_phrases_cover_the_brief():
    lines = (
        "How can I assist you today?",
        "Sure, here's a joke for you",
        "I'm here, ready to assist.",
        "As an AI, I do not pick sides.",
        "I'm sorry, but I can't help with that.",
        "Is there anything else I can help you with?",
        "Feel free to ask",
        "Certainly!",
        "Of course! Here is the lift.",
        "¿En qué puedo ayudarte?",
        "¿Hay algo más en lo que pueda ayudarte?",
        "Como IA, no tengo equipo.",
        "¡Claro! Aquí tienes un chiste.",
    )
    assert [line for line in lines if stock_phrase(line) is None] == []
    assert len({stock.name for stock in STOCK_PHRASES}) == len(STOCK_PHRASES)


def test_seed_voice_is_never_stock():
    for line in SEED_VOICE:
        assert stock_phrase(line) is None, line
        assert in_seed_voice(line), line


def test_in_seed_voice_length():
    assert in_seed_voice("Lift is staying put.")
    assert not in_seed_voice("")
    assert not in_seed_voice("One. Two. Three.")
    assert not in_seed_voice(" ".join(["word"] * 26))
    assert in_seed_voice(" ".join(["word"] * 25))
    # An ellipsis or a decimal does not end a sentence twice.
    assert in_seed_voice("Wait... the lift is at 2.5 metres.")


@pytest.mark.parametrize("part", PARTS)
def test_bank_sizes_and_mix(part):
    questions = PARTS[part]
    assert len(questions) >= MIN_SIZE[part]
    languages = Counter(q.language for q in questions)
    assert set(languages) == {"en", "es"}
    assert all(count >= 0.4 * len(questions) for count in languages.values()), languages
    kinds = Counter((q.kind, q.language) for q in questions)
    assert all(kinds[pair] for pair in product(Kind, ("en", "es"))), kinds
    # Actions are roughly a third.
    actions = sum(q.kind is Kind.ACTION for q in questions) / len(questions)
    assert 0.28 <= actions <= 0.4, actions


def test_questions_are_well_formed():
    texts = [q.text for q in TUNING + HELD_OUT]
    assert len(set(texts)) == len(texts)
    for q in TUNING + HELD_OUT:
        assert isinstance(q, Question)
        assert ADDRESSED.match(q.text.lower()), q.text
        # Only an action wants something done, and it always does.
        assert bool(q.wants) == (q.kind is Kind.ACTION), q.text
        for want in q.wants:
            assert isinstance(want, Want)
            assert want.entity_id in DEVICES
            if want.attribute:
                assert want.attribute[0] == "color_name" and want.state == "on"
    # Every sort of action the room has, in both parts.
    for part in PARTS.values():
        states = {(w.entity_id.split(".")[0], w.state, bool(w.attribute)) for q in part for w in q.wants}
        expected = {
            ("cover", "open", False),
            ("cover", "closed", False),
            ("light", "on", False),
            ("light", "off", False),
            ("light", "on", True),
            ("vacuum", "cleaning", False),
            ("vacuum", "docked", False),
        }
        assert expected <= states, expected - states


def test_demo_room_questions_are_in_tuning():
    questions, asked_for = DEMO_ROOM_QUESTIONS, DEMO_ROOM_ASKED_FOR
    by_text = {q.text: q for q in TUNING}
    assert len(questions) == 12
    assert list(by_text)[: len(questions)] == list(questions)
    for text in questions:
        q = by_text[text]
        tool = asked_for.get(text)
        assert (q.kind is Kind.ACTION) == (tool is not None), text
        if tool in TOOL_WANTS:
            assert [(w.entity_id, w.state) for w in q.wants] == [TOOL_WANTS[tool]]
        elif tool == "ha_set_entity":
            assert [w.entity_id.split(".")[0] for w in q.wants] == ["light"]
    held = {q.text.lower() for q in HELD_OUT}
    assert not held & {text.lower() for text in questions}


def test_held_out_is_no_near_copy():
    near = [
        (held.text, tuned.text, round(jaccard(held.text, tuned.text), 2))
        for held in HELD_OUT
        for tuned in TUNING
        if jaccard(held.text, tuned.text) >= NEAR_COPY
    ]
    assert near == []


@pytest.mark.parametrize("part", PARTS)
def test_draw_is_seeded_and_guaranteed(part):
    questions = PARTS[part]
    for count, seed in product((4, 8, 12, 20, len(questions) - 3, len(questions)), range(51)):
        drawn = draw(questions, count, seed)
        assert drawn == draw(questions, count, seed)
        assert len(drawn) == count == len(set(drawn))
        assert set(drawn) <= set(questions)
        assert sum(q.kind is Kind.ACTION for q in drawn) >= count // 3, (count, seed)
        assert sum(q.language == "es" for q in drawn) >= count // 4, (count, seed)
    # The first try is the plain seeded sample, in the order drawn, when it already holds enough.
    for seed in range(51):
        plain = random.Random(seed).sample(list(questions), 12)
        if sum(q.kind is Kind.ACTION for q in plain) >= 4 and sum(q.language == "es" for q in plain) >= 3:
            assert draw(questions, 12, seed) == plain


def test_draw_repairs_when_resampling_fails(monkeypatch):
    # No resampling at all: the repair alone must meet both guarantees. Actions only in English,
    # Spanish only in opinions, so both of its steps run and the second must not undo the first.
    monkeypatch.setattr(demo_questions, "RESAMPLES", 0)
    english = [Question(f"overseer, thought {i}?", "en", Kind.OPINION) for i in range(40)]
    actions = [Question(f"overseer, act {i}", "en", Kind.ACTION, (Want(LIFT, "open"),)) for i in range(5)]
    spanish = [Question(f"overseer, ¿idea {i}?", "es", Kind.OPINION) for i in range(5)]
    part = (*english, *actions, *spanish)
    for count, seed in product((6, 12, 20), range(51)):
        drawn = draw(part, count, seed)
        assert drawn == draw(part, count, seed)
        assert len(set(drawn)) == count
        assert sum(q.kind is Kind.ACTION for q in drawn) >= min(count // 3, 5), (count, seed)
        assert sum(q.language == "es" for q in drawn) >= min(count // 4, 5), (count, seed)
    # What the part lacks is not asked for.
    assert len(draw(english, 9, 0)) == 9


def test_spoken_language_on_the_bank():
    wrong = [(q.text, q.language, spoken_language(q.text)) for q in TUNING + HELD_OUT]
    assert [row for row in wrong if row[1] != row[2]] == []


@pytest.mark.parametrize(
    ("line", "language"),
    [
        ("Hecho.", "es"),
        ("Listo, el ascensor sube.", "es"),
        ("Done.", "en"),
        ("Concrete lane stays lit. Earn the darkness.", "en"),
        ("Lift is staying put. Chaos has standards.", "en"),
        ("El caos tiene normas.", "es"),
        ("La luz del banco ya está azul.", "es"),
        ("The bench light is blue now.", "en"),
        ("¡Vale!", "es"),
        # In neither word list: told by the language identifier.
        ("No puedo entender.", "es"),
        ("Alex conduce mejor.", "es"),
        ("Rover two drives cleaner.", "en"),
        ("", None),
        ("Overseer.", None),
        ("42", None),
    ],
)
def test_spoken_language_on_short_lines(line, language):
    assert spoken_language(line) == language
