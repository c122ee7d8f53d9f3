"""Fault detection and the incident book: deterministic, no model, no Home Assistant."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.faults import (
    UNSURE,
    Asset,
    AssetKind,
    FaultCode,
    FaultRules,
    Reading,
    detect,
)
from custom_components.overseer.core.incidents import (
    ACTIVE,
    ASSET_GONE,
    IncidentStatus,
    incident_as_dict,
    incident_from_dict,
    number_of,
    prune_incidents,
    reconcile,
    without_duplicates,
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
        rover("on", "on", 5),  # low but docked
        rover("off", "off", None),  # reports no battery: no guess
        one(AssetKind.VACUUM, "returning", battery_level=9),  # low, and on its way home
        one(AssetKind.ENTITY, "unknown"),  # a normal state for buttons and the like
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
    assert [(c.what, c.incident.incident_id) for c in changes] == [("returned", "INC-0001")]
    assert list(book) == ["INC-0001"] and book["INC-0001"].cleared_at is None


def test_a_fault_gone_for_the_window_resolves_and_a_late_return_is_a_new_incident():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book, _, number = reconcile(book, [], RULES, NOW + 10, number)
    closing = NOW + 10 + RULES.reopen_window
    book, changes, number = reconcile(book, [], RULES, closing, number)
    assert [c.what for c in changes] == ["resolved"]
    resolved = book["INC-0001"]
    assert (resolved.status, resolved.root_cause, resolved.resolution) == (
        IncidentStatus.RESOLVED,
        "vacuum_error",
        "cleared by itself",
    )
    # Back soon after it was closed: the same incident; back long after: a new one.
    book, changes, number = reconcile(book, [fault], RULES, closing + 60, number)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("reopened", "INC-0001")]
    assert book["INC-0001"].resolution == "" and book["INC-0001"].reopened == 1
    book, _, number = reconcile(book, [], RULES, closing + 70, number)
    book, _, number = reconcile(book, [], RULES, closing + 70 + RULES.reopen_window, number)
    book, changes, number = reconcile(book, [fault], RULES, closing + 80 + 3 * RULES.reopen_window, number)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("opened", "INC-0002")]


def test_a_fault_back_soon_after_its_fix_was_verified_reopens_the_same_incident():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book, _, number = reconcile(book, [], RULES, NOW + 10, number)
    # Verification found it cleared and resolved it.
    book = {
        key: replace(incident, status=IncidentStatus.RESOLVED, closed_at=NOW + 40)
        for key, incident in book.items()
    }
    book, changes, number = reconcile(book, [fault], RULES, NOW + 100, number)
    assert [(c.what, c.incident.incident_id) for c in changes] == [("reopened", "INC-0001")]
    assert book["INC-0001"].status is IncidentStatus.OPEN and book["INC-0001"].reopened == 1


def test_while_an_asset_cannot_be_judged_its_incidents_stay_as_they_are():
    error = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [error], RULES, NOW, 1)
    offline = one(AssetKind.VACUUM, "unavailable", since=NOW + 5)
    assert detect(offline, RULES, NOW + 30) is UNSURE  # a blip inside the grace period
    for step in range(1, 30):
        book, changes, number = reconcile(book, [], RULES, NOW + step * 60, number, unsure={"vacuum.x"})
        assert changes == []
    assert book["INC-0001"].status is IncidentStatus.OPEN and book["INC-0001"].cleared_at is None


def test_an_asset_no_longer_watched_closes_its_incidents_and_leaves_no_evidence():
    error = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, number = reconcile({}, [error], RULES, NOW, 1)
    book, changes, number = reconcile(book, [], RULES, NOW + 5, number, watched=set())
    assert [(c.what, c.incident.resolution) for c in changes] == [("resolved", ASSET_GONE)]


def test_a_rover_is_offline_only_when_all_of_it_is_and_undocked_is_not_docked():
    half = Asset(
        "rover_3",
        AssetKind.ROVER,
        (
            Reading("sensor.rover_3_activity", "unavailable", NOW - 500),
            Reading("binary_sensor.rover_3_docked", "on", NOW - 500),
        ),
    )
    assert detect(half, RULES, NOW) is None
    stranded = Asset(
        "rover_4",
        AssetKind.ROVER,
        (
            Reading("sensor.rover_4_activity", "driving", NOW - 5, {"battery_level": 5}),
            Reading("binary_sensor.rover_4_undocked", "on", NOW - 5),
            Reading("binary_sensor.rover_4_docked", "off", NOW - 5),
            Reading("binary_sensor.rover_4_charging", "off", NOW - 5),
        ),
    )
    fault = detect(stranded, RULES, NOW)
    assert fault is not None and fault.code is FaultCode.ROVER_STRANDED


def test_ids_keep_their_order_past_ten_thousand():
    book, number = {}, 9_990
    for step in range(30):
        fault = detect(one(AssetKind.LIGHT, "unavailable", since=NOW - 500), RULES, NOW)
        fault = replace(fault, asset_id=f"light.l{step}")
        book, changes, number = reconcile(book, [fault], RULES, NOW + step, number)
    # The first light's fault holds: checked again past INC-10000, nothing new opens.
    first = replace(
        detect(one(AssetKind.LIGHT, "unavailable", since=NOW - 500), RULES, NOW), asset_id="light.l0"
    )
    book, changes, _ = reconcile(book, [first], RULES, NOW + 100, number)
    assert [c for c in changes if c.what == "opened"] == []
    closed = {k: replace(v, status=IncidentStatus.RESOLVED) for k, v in book.items()}
    kept = prune_incidents(closed, keep_closed=5)
    assert sorted(kept, key=number_of) == ["INC-10015", "INC-10016", "INC-10017", "INC-10018", "INC-10019"]


@pytest.mark.parametrize(
    "broken",
    [
        {"since": "nan"},
        {"since": "inf"},
        {"opened": 1e20},
        {"incident_id": "INC-1; drop"},
        {"incident_id": "'); alert(1)"},
        {"kind": "toaster"},
        {"timeline": [{"ts": "inf", "what": "opened"}]},
        {"since": 10**400},
    ],
)
def test_a_stored_incident_that_was_tampered_with_is_dropped(broken):
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, _ = reconcile({}, [fault], RULES, NOW, 1)
    stored = incident_as_dict(book["INC-0001"])
    assert incident_from_dict(stored) == book["INC-0001"]
    assert incident_from_dict({**stored, **broken}) is None


def test_loading_keeps_one_open_incident_per_fault():
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, _, _ = reconcile({}, [fault], RULES, NOW, 1)
    twin = replace(book["INC-0001"], incident_id="INC-0007")
    assert list(without_duplicates([book["INC-0001"], twin])) == ["INC-0007"]


def test_an_incident_left_to_a_human_does_not_multiply_while_its_fault_holds():
    fault = detect(one(AssetKind.LIFT, "opening", since=NOW - 100), RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    book = {key: replace(incident, status=IncidentStatus.NEEDS_HUMAN) for key, incident in book.items()}
    for step in range(1, 50):
        book, changes, number = reconcile(book, [fault], RULES, NOW + step * 30, number)
        assert changes == []
    assert len(book) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 400)), min_size=1, max_size=80))
def test_flapping_opens_a_new_incident_only_after_a_long_absence(steps):
    """A fault comes and goes at random: one incident per stretch of presence separated by less
    than the reopen window, at most one open at a time."""
    fault = detect(one(AssetKind.VACUUM, "error"), RULES, NOW)
    book, number, now = {}, 1, NOW
    absent_since, long_absences = None, 0
    for present, gap in steps:
        now += gap
        if present and absent_since is not None and now - absent_since >= RULES.reopen_window:
            long_absences += 1
        if present:
            absent_since = None
        elif absent_since is None:
            absent_since = now
        book, _, number = reconcile(book, [fault] if present else [], RULES, now, number)
        assert len([i for i in book.values() if i.status in ACTIVE]) <= 1
    opened = len(book)
    assert opened <= 1 + long_absences


def test_the_book_stays_bounded_whatever_the_history():
    book, number = {}, 1
    for step in range(300):
        fault = replace(
            detect(one(AssetKind.LIGHT, "unavailable", since=NOW - 500), RULES, NOW),
            asset_id=f"light.l{step}",
        )
        book, _, number = reconcile(book, [fault], RULES, NOW + step, number)
        book = prune_incidents(book, keep_closed=50)
    assert len(book) == 300  # all still open: pruning never drops an open incident
