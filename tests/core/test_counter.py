"""The button box's counter tool: off until configured, bounded per call, moved from its value now."""

from __future__ import annotations

from dataclasses import replace

import pytest

from custom_components.overseer.core.policy import (
    Ledger,
    Limits,
    check_call,
    configured_tools,
    planned_effect,
    tool_schemas,
)
from custom_components.overseer.core.tools import Adjust, CooldownGroup, Refusal, ServiceCall, adjusted
from custom_components.overseer.core.world import Entity

from .worlds import demo_world

NOW = 1_000.0
COUNT = Entity("counter.buttons", "Button box", "7")
LIMITS = Limits(counter_max_step=3)


def counting():
    return replace(demo_world(), counter=COUNT)


def test_there_is_no_counter_tool_until_a_counter_is_configured():
    assert "counter_adjust" not in configured_tools(demo_world())
    assert "counter_adjust" in configured_tools(counting())


@pytest.mark.parametrize(
    ("delta", "clean"),
    [(1, 1), (-3, -3), ("2", 2), ("-1", -1), (2.0, 2), (" +3 ", 3)],
)
def test_a_change_within_the_step_is_taken_as_a_whole_number(delta, clean):
    verdict = check_call(
        "counter_adjust", {"delta": delta}, ("counter_adjust",), counting(), Ledger(), LIMITS, NOW
    )
    assert verdict.refusal is None and verdict.arguments == {"delta": clean}


@pytest.mark.parametrize("delta", [0, 4, -4, 1.5, "ten", True, None, [1], "1e3", 10**9])
def test_a_change_past_the_step_or_not_a_whole_number_is_refused(delta):
    verdict = check_call(
        "counter_adjust", {"delta": delta}, ("counter_adjust",), counting(), Ledger(), LIMITS, NOW
    )
    assert verdict.refusal is not None and verdict.refusal.reason is Refusal.INVALID_ARGUMENTS


def test_it_has_its_own_cooldown_and_the_model_is_told_the_step():
    ledger = Ledger().after_execution("counter_adjust", NOW, LIMITS)
    assert ledger.remaining(CooldownGroup.COUNTER, NOW + 1) == 29
    assert ledger.remaining(CooldownGroup.LIFT, NOW + 1) == 0
    refused = check_call(
        "counter_adjust", {"delta": 1}, ("counter_adjust",), counting(), ledger, LIMITS, NOW + 1
    )
    assert refused.refusal is not None and refused.refusal.reason is Refusal.COOLDOWN
    [schema] = tool_schemas(("counter_adjust",), counting(), LIMITS)
    assert schema["function"]["parameters"]["properties"]["delta"]["minimum"] == -3
    assert schema["function"]["parameters"]["properties"]["delta"]["maximum"] == 3


def test_the_effect_moves_the_counter_from_its_value_at_that_instant_within_its_bounds():
    assert planned_effect("counter_adjust", {"delta": -2}, counting()) == Adjust("counter.buttons", -2)
    effect = Adjust("counter.buttons", 3)
    assert adjusted(effect, "7", {}) == ServiceCall(
        "counter", "set_value", {"entity_id": "counter.buttons", "value": 10}
    )
    assert adjusted(effect, "9", {"maximum": 10}).data["value"] == 10
    assert adjusted(Adjust("counter.buttons", -3), "1", {"minimum": 0}).data["value"] == 0
    # An input_number keeps its bounds under other names, and may hold a fraction.
    number = adjusted(Adjust("input_number.score", 2), "4.5", {"min": 0, "max": 5})
    assert number == ServiceCall("input_number", "set_value", {"entity_id": "input_number.score", "value": 5})
    assert adjusted(Adjust("input_number.score", -1), "4.5", {"min": 0, "max": 9}).data["value"] == 3.5


@pytest.mark.parametrize("state", ["unknown", "unavailable", "", "nan", "inf"])
def test_a_counter_without_a_number_is_not_moved(state):
    with pytest.raises(ValueError):
        adjusted(Adjust("counter.buttons", 1), state, {})
