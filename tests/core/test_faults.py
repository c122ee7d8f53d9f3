"""Fault detection and the incident book: deterministic, no model, no Home Assistant."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.faults import (
    ACTIVE,
    Asset,
    AssetKind,
    FaultCode,
    FaultRules,
    IncidentStatus,
    Reading,
    detect,
    prune,
    reconcile,
)

RULES = FaultRules()
NOW = 10_000.0


def one(kind: AssetKind, state: str, since: float = NOW - 5, **attributes) -> Asset:
    return Asset(f"{kind.value}.x", kind, (Reading(f"{kind.value}.x", state, since, attributes),))


def rover(docked: str, charging: str, battery: float | None, since: float = NOW - 5) -> Asset:
    extra = {} if battery is None else {"battery_level": battery}
    return Asset(
        "rover_1",
        AssetKind.ROVER,
        (
            Reading("sensor.rover_1_activity", "driving", since, extra),
            Reading("binary_sensor.rover_1_docked", docked, since),
            Reading("binary_sensor.rover_1_charging", charging, since),
        ),
    )


@pytest.mark.parametrize(
    ("asset", "code"),
    [
        (one(AssetKind.VACUUM, "error", error="Brush stuck"), FaultCode.VACUUM_ERROR),
        (one(AssetKind.VACUUM, "returning", since=NOW - 901), FaultCode.VACUUM_STUCK_RETURNING),
        (one(AssetKind.VACUUM, "cleaning", battery_level=9), FaultCode.BATTERY_LOW),
        (one(AssetKind.LIFT, "opening", since=NOW - 61), FaultCode.LIFT_STUCK),
        (one(AssetKind.LIFT, "closing", since=NOW - 61), FaultCode.LIFT_STUCK),
        (one(AssetKind.LIGHT, "unavailable", since=NOW - 121), FaultCode.UNAVAILABLE),
        (one(AssetKind.ENTITY, "on", device_class="problem"), FaultCode.PROBLEM_REPORTED),
        (one(AssetKind.ENTITY, "7", device_class="battery"), FaultCode.BATTERY_LOW),
        (rover("off", "off", 10), FaultCode.ROVER_STRANDED),
    ],
)
def test_each_rule_names_its_fault_and_the_checks_that_failed(asset, code):
    fault = detect(asset, RULES, NOW)
    assert fault is not None and fault.code is code and fault.asset_id == asset.asset_id
    assert fault.checks and not all(fault.checks.values())


@pytest.mark.parametrize(
    "asset",
    [
        one(AssetKind.VACUUM, "docked", battery_level=5),  # low but on its dock, charging
        one(AssetKind.VACUUM, "returning", since=NOW - 60),  # on its way
        one(AssetKind.LIFT, "opening", since=NOW - 10),  # still moving normally
        one(AssetKind.LIGHT, "unavailable", since=NOW - 30),  # a blip inside the grace period
        rover("on", "on", 5),  # low but docked
        rover("off", "off", None),  # reports no battery: no guess
        rover("off", "off", 80),
        one(AssetKind.ENTITY, "off", device_class="problem"),
    ],
)
def test_healthy_or_not_yet_faulty_assets_pass(asset):
    assert detect(asset, RULES, NOW) is None


def test_a_rover_that_drops_off_the_network_is_unavailable_after_the_grace_period():
    dropped = Asset(
        "rover_2",
        AssetKind.ROVER,
        (
            Reading("sensor.rover_2_activity", "unavailable", NOW - 200),
            Reading("binary_sensor.rover_2_docked", "unavailable", NOW - 200),
        ),
    )
    fault = detect(dropped, RULES, NOW)
    assert fault is not None and fault.code is FaultCode.UNAVAILABLE
    assert fault.checks == {
        "sensor.rover_2_activity available": False,
        "binary_sensor.rover_2_docked available": False,
    }


def test_one_fault_is_one_incident_while_it_holds_and_when_it_flaps():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, changes, number = reconcile({}, [fault], RULES, NOW, 1)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("opened", "INC-0001")]
    book, changes, number = reconcile(book, [fault], RULES, NOW + 10, number)
    assert changes == [] and len(book) == 1
    # It clears, comes back a minute later: the same incident, still open.
    book, changes, number = reconcile(book, [], RULES, NOW + 20, number)
    assert [c.what for c in changes] == ["cleared"]
    book, changes, number = reconcile(book, [fault], RULES, NOW + 80, number)
    assert changes == [] and list(book) == ["INC-0001"] and book["INC-0001"].cleared_at is None


def test_a_fault_gone_for_the_window_resolves_and_a_late_return_is_a_new_incident():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book, _, number = reconcile(book, [], RULES, NOW + 10, number)
    book, changes, number = reconcile(book, [], RULES, NOW + 10 + RULES.reopen_window, number)
    assert [c.what for c in changes] == ["resolved"]
    assert book["INC-0001"].status is IncidentStatus.RESOLVED
    book, changes, number = reconcile(book, [fault], RULES, NOW + 20 + RULES.reopen_window, number)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("opened", "INC-0002")]


def test_a_fault_back_soon_after_its_fix_was_verified_reopens_the_same_incident():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book, _, number = reconcile(book, [], RULES, NOW + 10, number)
    # Verification found it cleared and resolved it.
    book = {key: replace(incident, status=IncidentStatus.RESOLVED) for key, incident in book.items()}
    book, changes, number = reconcile(book, [fault], RULES, NOW + 100, number)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("reopened", "INC-0001")]
    assert book["INC-0001"].status is IncidentStatus.OPEN and book["INC-0001"].reopened == 1


def test_an_incident_left_to_a_human_does_not_multiply_while_its_fault_holds():
    fault = detect(one(AssetKind.LIFT, "opening", since=NOW - 100), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book = {key: replace(incident, status=IncidentStatus.NEEDS_HUMAN) for key, incident in book.items()}
    for step in range(1, 50):
        book, changes, number = reconcile(book, [fault], RULES, NOW + step * 30, number)
        assert changes == []
    assert len(book) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(1, 400)), min_size=1, max_size=80))
def test_flapping_never_opens_a_second_incident_inside_the_window(steps):
    """Two assets' faults come and go at random: at most one active incident per asset and fault."""
    faults = {
        "vacuum": detect(one(AssetKind.VACUUM, "error"), RULES, NOW),
        "lift": detect(one(AssetKind.LIFT, "opening", since=NOW - 100), RULES, NOW),
    }
    book, number, now = {}, 1, NOW
    for vacuum_faulty, lift_faulty, gap in steps:
        now += gap
        seen = [f for f, on in ((faults["vacuum"], vacuum_faulty), (faults["lift"], lift_faulty)) if on]
        book, _, number = reconcile(book, seen, RULES, now, number)
        active = [(i.asset_id, i.code) for i in book.values() if i.status in ACTIVE]
        assert len(active) == len(set(active))
        for fault in seen:
            assert (fault.asset_id, fault.code) in active or any(
                i.asset_id == fault.asset_id and i.cleared_at is None for i in book.values()
            )


def test_the_book_stays_bounded_whatever_the_history():
    book, number = {}, 1
    for step in range(300):
        fault = detect(
            Asset(f"light.l{step}", AssetKind.LIGHT, (Reading(f"light.l{step}", "unavailable", NOW - 500),)),
            RULES,
            NOW,
        )
        book, _, number = reconcile(book, [fault], RULES, NOW + step, number)
        book = prune(book, keep_closed=50)
    assert len(book) == 300  # all still active: pruning never drops an active incident
    closed = {k: replace(v, status=IncidentStatus.RESOLVED) for k, v in book.items()}
    assert sorted(prune(closed, keep_closed=50)) == sorted(closed)[-50:]
