"""Records any caller can break: arguments are bounded and JSON-safe, and what ran stays audited.

A caller (a model, another agent, an MCP client) may send what JSON allows and more. Whatever
it sends, the copy the records keep encodes with Home Assistant's encoder (orjson, which
stops at 255 levels and 64-bit integers and refuses lone surrogates), stays within its bytes,
and says when it is not all that was sent.
"""

import json
import math

import orjson
import pytest

from custom_components.overseer.core.arguments import (
    MAX_ARGUMENT_BYTES,
    MAX_ARGUMENT_DEPTH,
    MAX_ARGUMENT_TEXT,
    Arguments,
    bounded_arguments,
)
from custom_components.overseer.core.audit import AuditLog, AuditRecord, Outcome
from custom_components.overseer.core.decision import DecisionRules, normalise
from custom_components.overseer.core.policy import Limits, configured_tools, vocabulary
from custom_components.overseer.core.reply import ModelReply, ToolCall
from custom_components.overseer.core.tools import Refusal

from .worlds import demo_world


def nested(levels: int) -> dict:
    """{"x": {"x": ... {}}} levels deep: valid JSON an MCP client may send."""
    value: dict = {}
    for _ in range(levels - 1):
        value = {"x": value}
    return value


def depth(value) -> int:
    """Nesting of a JSON value, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


HOSTILE = {
    "two_megabytes": {"entity_id": "x" * 2_000_000},
    "400_levels": nested(400),
    "2**70": {"delta": 2**70},
    "a_million_items": {"entity_id": list(range(1_000_000))},
    "many_keys": {f"key{i}": "v" * 100 for i in range(10_000)},
    "not_json": {"nan": math.nan, "inf": -math.inf, "set": {1, 2}, "bytes": b"\x00", 3: "int key"},
    "lone_surrogate": {"state": "\ud800on"},
    "wide_text": {"state": ["é" * MAX_ARGUMENT_TEXT] * 10},
}


@pytest.mark.parametrize("sent", HOSTILE.values(), ids=HOSTILE.keys())
def test_whatever_is_sent_the_copy_encodes_within_the_bounds_and_says_it_was_cut(sent):
    kept = bounded_arguments(sent)
    encoded = orjson.dumps(kept.value)  # raises on what Home Assistant's encoder refuses
    assert len(encoded) <= MAX_ARGUMENT_BYTES
    assert depth(kept.value) <= MAX_ARGUMENT_DEPTH
    assert kept.truncated
    assert bounded_arguments(kept.value) == Arguments(kept.value)  # the copy is final


def test_arguments_within_the_bounds_are_kept_as_they_were():
    sent = {
        "entity_id": "light.bench",
        "state": "é" * MAX_ARGUMENT_TEXT,
        "delta": -(2**53),
        "ratio": 1e308,
        "zero": -0.0,
        "flags": [True, None, (1, 2)],
        "deep": nested(MAX_ARGUMENT_DEPTH - 1),
    }
    kept = bounded_arguments(sent)
    assert not kept.truncated
    assert kept.value == json.loads(json.dumps(sent))
    assert bounded_arguments(None) == Arguments(None)


def test_a_structure_that_holds_itself_ends_at_the_depth_bound():
    looped: list = []
    looped.append(looped)
    kept = bounded_arguments(looped)
    assert kept.truncated and depth(kept.value) == MAX_ARGUMENT_DEPTH


def test_a_call_the_model_sent_past_the_bounds_is_refused_and_only_a_cut_copy_is_kept():
    world = demo_world()
    decision = normalise(
        ModelReply(
            tool_calls=(
                ToolCall("ha_set_entity", {"entity_id": "light.bench", "state": "x" * 2_000_000}),
                ToolCall("ha_set_entity", nested(400)),
                ToolCall("counter_adjust", {"delta": 2**70}),
            )
        ),
        name="Overseer",
        known_tools=configured_tools(world),
        vocabulary=vocabulary(world, Limits(), include_missing=True),
        own_lines=(),
        chat_read=(),
        rules=DecisionRules(),
    )
    assert decision.intents == ()
    assert [(r.reason, r.truncated) for r in decision.rejections] == [(Refusal.INVALID_ARGUMENTS, True)] * 3
    assert all(len(r.arguments) < 300 for r in decision.rejections)  # as every rejection is shown


def record(ts: float, outcome: Outcome, arguments=None) -> AuditRecord:
    return AuditRecord(ts, f"d{ts:g}", "lift_up", arguments or {}, outcome)


def test_refused_calls_never_push_what_ran_out_of_the_audit():
    log = AuditLog()
    log.add(record(0, Outcome.EXECUTED))
    log.add(record(1, Outcome.FAILED))
    for i in range(250):
        log.add(record(2 + i, Outcome.BLOCKED))
    kept = log.as_list()
    assert [(r["ts"], r["outcome"]) for r in kept[:2]] == [(0, "executed"), (1, "failed")]
    assert len(kept) == 2 + 200  # the refusals have their own 200
    # Read back in the order they came, as the store and the status see them.
    assert [r["ts"] for r in kept] == sorted(r["ts"] for r in kept)
    assert [r.ts for r in log.latest(3)] == [251, 250, 249]
    assert [r.ts for r in AuditLog(kept).latest(300)][-2:] == [1, 0]


def test_refusals_still_age_out_among_themselves_and_so_do_executions():
    log = AuditLog(size=3)
    for i in range(5):
        log.add(record(2 * i, Outcome.EXECUTED))
        log.add(record(2 * i + 1, Outcome.DRY_RUN))
    assert [r.ts for r in log.latest(10)] == [9, 8, 7, 6, 5, 4]


def test_a_cut_copy_carries_truncated_beside_its_arguments_and_a_store_cannot_break_it():
    cut = AuditRecord(
        1.0, "d1", "lift_up", {"height": "x"}, Outcome.BLOCKED, "invalid_arguments", truncated=True
    )
    assert cut.as_dict()["truncated"] is True
    assert AuditRecord.from_dict(cut.as_dict()) == cut
    assert "truncated" not in record(1, Outcome.EXECUTED).as_dict()
    # A hand-edited store: what it holds is bounded as it is read back.
    stored = {**record(2, Outcome.EXECUTED).as_dict(), "arguments": {"x": nested(300), "n": 2**70}}
    restored = AuditRecord.from_dict(stored)
    assert restored is not None and restored.truncated
    assert len(orjson.dumps(AuditLog([stored]).as_list())) < 2 * MAX_ARGUMENT_BYTES
