"""Memory, the audit log and metrics: small, bounded, restorable."""

import pytest

from custom_components.overseer.core.audit import AuditLog, AuditRecord, Outcome
from custom_components.overseer.core.memory import Memory
from custom_components.overseer.core.metrics import AddressOutcome, Metrics


def test_memory_has_exactly_three_one_line_slots():
    memory = Memory()
    assert memory.slots == ("", "", "")
    assert memory.write(2, "alex\ncheats " + "x" * 500).startswith("alex cheats")
    assert len(memory.slots[1]) < 200 and "\n" not in memory.slots[1]
    with pytest.raises(ValueError):
        memory.write(4, "nope")
    memory.clear(2)
    assert memory.slots == ("", "", "")


def test_memory_restores_from_persisted_slots_defensively():
    assert Memory(["a", 5, None, "d"]).slots == ("a", "", "")
    assert Memory(["only one"]).slots == ("only one", "", "")


def test_audit_log_is_a_bounded_ring():
    log = AuditLog(size=3)
    for i in range(10):
        log.add(AuditRecord(float(i), f"d{i}", "lift_up", {}, Outcome.BLOCKED, "cooldown", 30))
    assert len(log) == 3
    assert [r.ts for r in log.latest(2)] == [9, 8]
    assert len(AuditLog([*log.as_list(), "junk", {"tool": "x"}], size=3)) == 3


def test_audit_records_keep_their_stored_form_and_refuse_what_is_not_one():
    record = AuditRecord(12.5, "d1", "ha_set_entity", {"entity_id": "light.bench"}, Outcome.EXECUTED)
    stored = record.as_dict()
    # The store and the status object read the same keys as before records were typed.
    assert stored == {
        "ts": 12.5,
        "decision_id": "d1",
        "tool": "ha_set_entity",
        "arguments": {"entity_id": "light.bench"},
        "outcome": "executed",
        "reason": None,
        "remaining_s": None,
        "source": None,
        "approval": None,
    }
    assert AuditRecord.from_dict(stored) == record and record.ran
    assert AuditLog([{**stored, "extra": "dropped"}]).as_list() == [stored]
    for broken in (
        {**stored, "outcome": "exploded"},
        {**stored, "ts": "noon"},
        {**stored, "ts": True},
        {**stored, "tool": 5},
        "junk",
    ):
        assert AuditRecord.from_dict(broken) is None, broken
    odd = AuditRecord.from_dict({**stored, "remaining_s": "60", "reason": 3, "decision_id": None})
    assert odd is not None and (odd.remaining_s, odd.reason, odd.decision_id) == (None, None, "")


def test_metrics_over_a_bounded_window():
    metrics = Metrics(started=0.0, window=600, size=100)
    metrics.record_decision(10, 2.0, "SKIP")
    metrics.record_decision(20, 4.0, "ACTION", stale_reason="state_changed")
    metrics.record_failure(30, 6.0)
    metrics.record_action(20, "lift_up", "executed")
    metrics.record_action(21, "neato_start", "blocked", "cooldown")
    metrics.record_chat(22, repeated=False)
    metrics.record_chat(23, repeated=True)
    metrics.record_missed_world_event(24)
    figures = metrics.snapshot(60)
    assert figures["llm_calls"] == 3 and figures["llm_calls_per_minute"] == 3.0
    assert figures["llm_latency_avg_s"] == 4.0
    assert figures["skip_ratio"] == 0.5 and figures["stale_rate"] == 0.5
    assert figures["stale_by_reason"] == {"state_changed": 1}
    assert figures["blocked_rate"] == 0.5 and figures["blocked_by_reason"] == {"cooldown": 1}
    assert figures["executed_by_tool"] == {"lift_up": 1}
    assert figures["repeated_line_rate"] == 0.5
    assert figures["missed_world_events"] == 1
    later = metrics.snapshot(10_000)
    assert later["llm_calls"] == 0 and later["skip_ratio"] is None and later["missed_world_events"] == 0


def test_addressed_questions_count_how_they_ended():
    metrics = Metrics(started=0.0, window=600, size=100)
    for ts, outcome in (
        (1, AddressOutcome.MODEL_LINE),
        (3, AddressOutcome.MODEL_LINE),
        (5, AddressOutcome.FALLBACK),
        (6, AddressOutcome.ACTED),
    ):
        metrics.record_address(ts, outcome)
    figures = metrics.snapshot(60)
    assert figures["addressed"] == {"model_line": 2, "fallback": 1, "acted": 1}
    # Four questions ended; two with the model's own words.
    assert figures["addressed_answered_by_model"] == 0.5
    assert metrics.snapshot(10_000)["addressed"] == {}


def test_metrics_memory_is_bounded():
    # 10,000 decisions one second apart: 600 of them are inside the 600 s window, but the
    # window holds at most 50 samples, the newest ones.
    metrics = Metrics(started=0.0, window=600, size=50)
    for i in range(10_000):
        metrics.record_decision(float(i), float(i), "CHAT")
        metrics.record_action(float(i), "lift_up", "blocked", "cooldown")
        metrics.record_chat(float(i), repeated=i % 2 == 1)
        metrics.record_unbacked_claim(float(i))
    figures = metrics.snapshot(9_999.5)
    assert figures["unbacked_claims"] == 50
    assert figures["llm_calls"] == 50 and figures["tool_calls"] == 50
    assert figures["llm_latency_avg_s"] == sum(range(9_950, 10_000)) / 50  # the newest 50: 9950..9999
    assert figures["blocked_by_reason"] == {"cooldown": 50}
    assert figures["repeated_line_rate"] == 0.5
    assert figures["chat_per_minute"] == round(25 / 10, 2)  # 25 posted lines over the 10-minute window
