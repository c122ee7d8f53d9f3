"""The line layer's table: every rule shows lines it keeps and drops, and the normaliser does so.

Each example goes through the real normaliser as a model's whole reply, said after the rule's
source text when the rule is an echo.
"""

import pytest

from custom_components.overseer.core.decision import Decision, DecisionRules, Mode, normalise
from custom_components.overseer.core.language import language_of
from custom_components.overseer.core.line_rules import LINE_RULES, LineRule, Source
from custom_components.overseer.core.policy import Limits, configured_tools, vocabulary
from custom_components.overseer.core.reply import ModelReply

from .worlds import demo_world

WORLD = demo_world()


def said(line: str, rule: LineRule) -> Decision:
    """The decision on a reply of the line alone, after the rule's source text if it has one."""
    match rule.source:
        case Source.OWN_LINES:
            after = {"own_lines": (rule.after,)}
        case Source.CHAT_READ:
            after = {"chat_read": (rule.after,)}
        case Source.BOTS_READ:
            after = {"bots_read": (rule.after,)}
        case Source.QUESTION:
            after = {"question": rule.after}
        case Source.CUE:
            after = {"cue": rule.after}
        case Source.RESULTS:
            after = {"results_read": (rule.after,)}
        case None:
            after = {}
    return normalise(
        ModelReply(text=line),
        name="Overseer",
        known_tools=configured_tools(WORLD),
        vocabulary=vocabulary(WORLD, Limits(colour_names=frozenset({"red", "blue"})), include_missing=True),
        own_lines=after.pop("own_lines", ()),
        chat_read=after.pop("chat_read", ()),
        rules=DecisionRules(),
        **after,
    )


def label(rule: LineRule) -> str:
    return rule.note or rule.drops


KEPT = [pytest.param(rule, line, id=f"{label(rule)}: {line}") for rule in LINE_RULES for line in rule.keeps]
DROPPED = [
    pytest.param(rule, line, id=f"{label(rule)}: {line}")
    for rule in LINE_RULES
    for line in rule.drops_examples
]


@pytest.mark.parametrize("rule", LINE_RULES, ids=label)
def test_every_rule_says_what_it_drops_and_shows_a_line_it_keeps_and_one_it_drops(rule):
    assert rule.drops.strip()
    assert rule.keeps, f"{label(rule)} keeps no example line"
    assert rule.drops_examples, f"{label(rule)} drops no example line"
    # An echo's examples are said after something: its source's text.
    assert bool(rule.after) is (rule.source is not None)


@pytest.mark.parametrize(("rule", "line"), KEPT)
def test_a_line_a_rule_keeps_is_posted_as_said(rule, line):
    decision = said(line, rule)
    assert (decision.mode, decision.chat, decision.notes) == (Mode.CHAT, line, ())


@pytest.mark.parametrize(("rule", "line"), DROPPED)
def test_a_line_a_rule_drops_is_not_posted_and_noted_as_that_rules(rule, line):
    decision = said(line, rule)
    # The rule's own note and no other: no earlier rule took the line first.
    assert (decision.mode, decision.chat) == (Mode.SKIP, None)
    assert decision.notes == ((rule.note,) if rule.note else ())


@pytest.mark.parametrize("rule", [rule for rule in LINE_RULES if rule.languages is not None], ids=label)
def test_a_rule_for_some_languages_keeps_a_line_of_another(rule):
    assert any(language_of(line, "") not in rule.languages for line in rule.keeps)
