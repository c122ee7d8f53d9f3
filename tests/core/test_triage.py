"""Incident triage as plain functions: which incident goes next, what a reply leads to, verification."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core import triage
from custom_components.overseer.core.faults import Asset, AssetKind, FaultCode, FaultRules, Reading, detect
from custom_components.overseer.core.incidents import Incident, IncidentStatus, reconcile
from custom_components.overseer.core.policy import (
    Ledger,
    Limits,
    availability,
    check_call,
    configured_tools,
    room_tools,
)
from custom_components.overseer.core.reasoning import Hypothesis, ReasoningResponse, ToolIntent
from custom_components.overseer.core.text import CUT_MARKER
from custom_components.overseer.core.tools import Refusal, Safety
from custom_components.overseer.core.triage import (
    MAX_ATTEMPTS,
    NOTE_CHARS,
    NOTHING_SAFE,
    RETRY_AFTER,
    RETRY_AT_MOST,
    TRIED_KEPT,
    IntentOutcome,
    IntentResult,
    due,
    executed,
    goes_first,
    rejected,
    started,
    to_human,
    triaged,
    verified,
)
from custom_components.overseer.core.world import SiteMode

from ..contract import TRIAGE_TOOLS
from .worlds import demo_world

RULES = FaultRules()
NOW = 10_000.0
VERIFY_AFTER = 30.0
# The longest note a timeline line may carry: the cut text and the marker naming what was lost.
NOTE_AT_MOST = NOTE_CHARS + len(CUT_MARKER.format(10**9))


def jammed_vacuum(at: float = NOW) -> Incident:
    """The incident the rules open for a vacuum whose brush is stuck, as the shell gets it."""
    reading = Reading("vacuum.neato", "error", at - 5, {"error": "Brush stuck"})
    fault = detect(Asset("vacuum.neato", AssetKind.VACUUM, (reading,)), RULES, at)
    book, _, _ = reconcile({}, [fault], RULES, at, 1)
    return book["INC-0001"]


def numbered(number: int, **changes) -> Incident:
    return replace(jammed_vacuum(), incident_id=f"INC-{number:04d}", **changes)


def reply(*hypotheses: tuple[str, float], recommended: str = "Clear the brush by hand") -> ReasoningResponse:
    return ReasoningResponse(
        tuple(Hypothesis(fault, confidence, "because") for fault, confidence in hypotheses),
        (ToolIntent("asset_refresh", {"asset_id": "vacuum.neato"}),),
        recommended,
        0.9,
        Safety.REVERSIBLE,
    )


def awaiting(outcomes) -> bool:
    """The approval book as the shell reads it: pending when one of the intents asked a person."""
    return any(outcome.result is IntentResult.AWAITING_APPROVAL for outcome in outcomes)


REFRESH = "asset_refresh(asset_id=vacuum.neato)"
RESTART = "asset_restart(asset_id=vacuum.neato)"


def steps(incident: Incident) -> list[str]:
    return [step.what for step in incident.timeline]


# Which incident is due, and whether it gets the flight.


def test_the_oldest_waiting_incident_is_triaged_first_by_its_number_not_its_text():
    older, newer = numbered(9999), numbered(10000)
    assert due([newer, older], NOW) == older
    assert due([newer], NOW) == newer
    assert due([], NOW) is None


@pytest.mark.parametrize(
    "changes",
    [
        {"status": IncidentStatus.TRIAGING},
        {"status": IncidentStatus.AWAITING_APPROVAL},
        {"status": IncidentStatus.VERIFYING, "verify_at": NOW + 30},
        {"status": IncidentStatus.NEEDS_HUMAN},
        {"status": IncidentStatus.RESOLVED},
        {"cleared_at": NOW - 1},  # the fault went away: nothing to ask the model about
        {"retry_at": NOW + 0.5},  # backing off after a rejected reply
        {"attempts": MAX_ATTEMPTS},
    ],
)
def test_only_an_open_incident_whose_fault_holds_and_whose_back_off_is_over_is_due(changes):
    skipped = numbered(1, **changes)
    waiting = numbered(2)
    assert due([skipped], NOW) is None
    assert due([skipped, waiting], NOW) == waiting


def test_a_waiting_question_puts_a_due_triage_off_once_then_the_triage_goes():
    assert goes_first(addressed_pending=False, deferred_once=False)
    assert goes_first(addressed_pending=False, deferred_once=True)
    assert not goes_first(addressed_pending=True, deferred_once=False)
    assert goes_first(addressed_pending=True, deferred_once=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_with_questions_arriving_at_random_triage_never_waits_more_than_one_flight(questions):
    """The shell's use of goes_first: a deferral is remembered until the triage has gone."""
    deferred, waited = False, 0
    for addressed_pending in questions:
        if goes_first(addressed_pending, deferred):
            deferred, waited = False, 0
        else:
            deferred, waited = True, waited + 1
            assert addressed_pending  # nobody waiting: nothing may put the triage off
        assert waited <= 1


# Rejected replies: back off, then a person.


def test_rejected_replies_back_off_then_a_person_takes_over():
    incident, now = jammed_vacuum(), NOW
    incident = started(incident, now, "812 chars; knowledge: none")
    assert incident.status is IncidentStatus.TRIAGING
    assert due([incident], now + 10_000) is None  # never asked twice at once

    incident = rejected(incident, now, "InvalidResponse: not JSON")
    assert (incident.status, incident.attempts, incident.retry_at) == (IncidentStatus.OPEN, 1, now + 60)
    assert due([incident], now + 59.9) is None
    assert due([incident], now + 60) == incident

    now += 60
    incident = rejected(started(incident, now, "again"), now, "ModelError: timeout")
    assert (incident.status, incident.attempts, incident.retry_at) == (IncidentStatus.OPEN, 2, now + 120)
    assert due([incident], now + 119.9) is None

    now += 120
    incident = rejected(started(incident, now, "again"), now, "InvalidResponse: missing safety_class")
    assert incident.status is IncidentStatus.NEEDS_HUMAN
    assert incident.attempts == MAX_ATTEMPTS
    assert incident.timeline[-1].what == "needs_human"
    assert incident.timeline[-1].detail == f"no usable triage after {MAX_ATTEMPTS} tries"
    assert steps(incident).count("rejected") == MAX_ATTEMPTS
    assert due([incident], now + 10**6) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 400), st.floats(0, 120), st.text(max_size=300)),
        min_size=0,
        max_size=30,
    )
)
def test_whatever_the_rejections_never_asked_before_retry_at_and_a_person_after_exactly_max_attempts(
    ticks,
):
    """The shell's loop: at each tick the due incident is asked and its reply rejected."""
    incident, now, asked = jammed_vacuum(), NOW, 0
    # Ticks at random, then enough late ones to use up every attempt.
    for gap, latency, reason in [*ticks, *[(RETRY_AT_MOST, 1.0, "late")] * (MAX_ATTEMPTS + 1)]:
        now += gap
        if incident.status is IncidentStatus.OPEN and asked:
            assert due([incident], incident.retry_at - 0.001) is None
        chosen = due([incident], now)
        if chosen is None:
            continue
        assert now >= chosen.retry_at
        assert asked < MAX_ATTEMPTS
        # The model takes a while to answer: the back-off counts from its answer.
        now += latency
        incident = rejected(started(chosen, now - latency, "request"), now, reason)
        asked += 1
        assert incident.attempts == asked
        if asked < MAX_ATTEMPTS:
            assert incident.status is IncidentStatus.OPEN
            assert incident.retry_at == now + min(RETRY_AFTER * 2 ** (asked - 1), RETRY_AT_MOST)
        else:
            assert incident.status is IncidentStatus.NEEDS_HUMAN
        for step in incident.timeline:
            assert "\n" not in step.detail and len(step.detail) <= NOTE_AT_MOST
    assert asked == MAX_ATTEMPTS
    assert incident.status is IncidentStatus.NEEDS_HUMAN


def test_the_back_off_doubles_from_a_minute_up_to_half_an_hour(monkeypatch):
    """Three tries never reach the ceiling; with more allowed the wait stops doubling at 1800 s."""
    monkeypatch.setattr(triage, "MAX_ATTEMPTS", 10)
    incident, waits = jammed_vacuum(), []
    for _ in range(9):
        incident = rejected(started(incident, NOW, "request"), NOW, "no")
        waits.append(incident.retry_at - NOW)
    assert waits == [60, 120, 240, 480, 960, 1800, 1800, 1800, 1800]
    assert rejected(incident, NOW, "no").status is IncidentStatus.NEEDS_HUMAN


def test_a_rejection_reason_is_noted_as_one_bounded_line():
    flood = "InvalidResponse: " + "x\n<|im_start|>system\n" * 5000
    incident = rejected(started(jammed_vacuum(), NOW, "request"), NOW, flood)
    note = incident.timeline[-1]
    assert note.what == "rejected"
    assert "\n" not in note.detail and len(note.detail) <= NOTE_AT_MOST


# A valid reply whose intents went through policy.


def test_an_executed_intent_is_verified_later_and_the_leading_hypothesis_is_the_diagnosis():
    incident = started(jammed_vacuum(), NOW, "request")
    response = reply(("battery_low", 0.2), ("brush_jam", 0.9), ("firmware", 0.5))
    outcomes = [
        IntentOutcome(REFRESH, IntentResult.EXECUTED),
        IntentOutcome("neato_start()", IntentResult.BLOCKED, "busy"),
    ]
    after = triaged(incident, response, outcomes, NOW + 2, VERIFY_AFTER, awaiting(outcomes))
    assert after.status is IncidentStatus.VERIFYING
    assert after.verify_at == NOW + 2 + VERIFY_AFTER
    assert after.tried == (REFRESH,)
    assert after.diagnosis == "brush_jam"
    assert after.timeline[-3].detail == "brush_jam (0.90)"  # the response step keeps how sure
    assert after.recommended == "Clear the brush by hand"
    assert steps(after)[-3:] == ["response", "intent", "intent"]
    assert [step.detail for step in after.timeline[-2:]] == [
        f"{REFRESH}: executed",
        "neato_start(): blocked (busy)",
    ]


def test_a_consequential_intent_waits_for_a_person():
    outcomes = [IntentOutcome(RESTART, IntentResult.AWAITING_APPROVAL, "APR-0123abcd")]
    after = triaged(
        started(jammed_vacuum(), NOW, "r"), reply(("brush_jam", 0.9)), outcomes, NOW, 30, awaiting(outcomes)
    )
    assert after.status is IncidentStatus.AWAITING_APPROVAL
    assert after.verify_at is None and after.tried == ()
    assert after.timeline[-1].detail == f"{RESTART}: awaiting_approval (APR-0123abcd)"
    assert due([after], NOW + 10**6) is None


@pytest.mark.parametrize("result", [IntentResult.BLOCKED, IntentResult.FAILED, IntentResult.DRY_RUN, None])
def test_when_nothing_ran_or_waits_a_person_is_told_what_the_model_recommended(result):
    outcomes = [] if result is None else [IntentOutcome(REFRESH, result, "why")]
    incident = started(jammed_vacuum(), NOW, "r")
    after = triaged(incident, reply(("brush_jam", 0.9)), outcomes, NOW, VERIFY_AFTER, awaiting(outcomes))
    assert after.status is IncidentStatus.NEEDS_HUMAN
    assert after.timeline[-1].what == "needs_human"
    assert after.timeline[-1].detail == "Clear the brush by hand"
    speechless = triaged(incident, reply(recommended=""), outcomes, NOW, VERIFY_AFTER, awaiting(outcomes))
    assert speechless.status is IncidentStatus.NEEDS_HUMAN
    assert speechless.timeline[-1].detail == NOTHING_SAFE
    assert speechless.diagnosis == ""
    assert any(step.what == "response" and step.detail == "no hypothesis" for step in speechless.timeline)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list(IntentResult)), max_size=6))
def test_what_a_reply_leads_to_is_decided_by_its_intents_outcomes(results):
    """Something ran: verify it. Else something waits for approval: wait. Else: a person."""
    outcomes = [IntentOutcome(f"call{i}()", result) for i, result in enumerate(results)]
    after = triaged(
        started(jammed_vacuum(), NOW, "r"), reply(("x", 0.5)), outcomes, NOW, VERIFY_AFTER, awaiting(outcomes)
    )
    if IntentResult.EXECUTED in results:
        assert after.status is IncidentStatus.VERIFYING
        ran = tuple(o.call for o in outcomes if o.result is IntentResult.EXECUTED)
        assert after.tried == ran[-TRIED_KEPT:]
    elif IntentResult.AWAITING_APPROVAL in results:
        assert after.status is IncidentStatus.AWAITING_APPROVAL
    else:
        assert after.status is IncidentStatus.NEEDS_HUMAN
    assert steps(after).count("intent") == len(results)
    assert (after.verify_at is not None) == (after.status is IncidentStatus.VERIFYING)


def test_a_model_cannot_flood_the_incident_card():
    flood = "é\u202e<|im_start|> " * 400
    response = ReasoningResponse((Hypothesis(flood, 1.0, flood),), (), flood, 1.0, Safety.READ)
    outcomes = [IntentOutcome(flood, IntentResult.FAILED, flood)]
    after = triaged(jammed_vacuum(), response, outcomes, NOW, VERIFY_AFTER, awaiting(outcomes))
    for text in (after.diagnosis, after.recommended, *(step.detail for step in after.timeline)):
        assert len(text) <= NOTE_AT_MOST and "\n" not in text and "\u202e" not in text


def test_only_the_latest_calls_tried_are_kept():
    incident = jammed_vacuum()
    for i in range(TRIED_KEPT + 3):
        incident = executed(incident, [f"call{i}()"], NOW + i, VERIFY_AFTER)
    assert incident.tried == tuple(f"call{i}()" for i in range(3, TRIED_KEPT + 3))
    assert incident.verify_at == NOW + TRIED_KEPT + 2 + VERIFY_AFTER


# Verification: the rules are asked again once the call has had time to work.


def running(**changes) -> Incident:
    incident = started(jammed_vacuum(), NOW, "r")
    outcomes = [IntentOutcome(REFRESH, IntentResult.EXECUTED)]
    return replace(
        triaged(incident, reply(("brush_jam", 0.9)), outcomes, NOW, VERIFY_AFTER, awaiting(outcomes)),
        **changes,
    )


def test_nothing_is_verified_before_its_time_or_twice():
    incident = running(cleared_at=NOW + 5)
    assert verified(incident, NOW + VERIFY_AFTER - 0.001, False) is None
    resolved = verified(incident, NOW + VERIFY_AFTER, False)
    assert resolved is not None and resolved.status is IncidentStatus.RESOLVED
    assert verified(resolved, NOW + 10**6, False) is None
    assert verified(jammed_vacuum(), NOW + 10**6, False) is None  # open: nothing ran
    assert verified(running(verify_at=None), NOW + 10**6, False) is None


def test_a_fault_that_cleared_after_a_call_is_resolved_with_what_ran_and_the_diagnosis():
    incident = executed(running(cleared_at=NOW + 10), [RESTART], NOW + 40, VERIFY_AFTER)
    resolved = verified(incident, NOW + 70, approvals_pending=True)
    assert resolved.status is IncidentStatus.RESOLVED
    assert resolved.root_cause == "brush_jam"
    assert resolved.resolution == f"{REFRESH}, {RESTART} ran and the fault cleared"
    assert resolved.closed_at == NOW + 70 and resolved.verify_at is None
    assert resolved.timeline[-1].what == "verified"
    without_diagnosis = verified(replace(incident, diagnosis=""), NOW + 70, False)
    assert without_diagnosis.root_cause == FaultCode.VACUUM_ERROR.value


def test_a_fault_still_there_goes_back_to_its_approval_or_to_a_person():
    incident = running()
    waiting = verified(incident, NOW + VERIFY_AFTER, approvals_pending=True)
    assert waiting.status is IncidentStatus.AWAITING_APPROVAL and waiting.verify_at is None
    assert waiting.timeline[-1].detail == "the fault is still there"
    human = verified(incident, NOW + VERIFY_AFTER, approvals_pending=False)
    assert human.status is IncidentStatus.NEEDS_HUMAN and human.verify_at is None
    assert human.timeline[-1].detail == "Clear the brush by hand"
    silent = verified(replace(incident, recommended=""), NOW + VERIFY_AFTER, False)
    assert silent.timeline[-1].detail == f"still faulty after {REFRESH}"


def test_to_human_stops_verification_and_says_why():
    human = to_human(running(), NOW, "a\nb")
    assert human.status is IncidentStatus.NEEDS_HUMAN and human.verify_at is None
    assert human.timeline[-1].detail == "a b"


def test_the_whole_path_from_a_jammed_brush_to_resolved_and_back_to_triage_when_it_jams_again():
    """Rules open it, a refresh runs, the rules see the fault gone, the incident is resolved."""
    reading = Reading("vacuum.neato", "error", NOW - 5, {"error": "Brush stuck"})
    vacuum = Asset("vacuum.neato", AssetKind.VACUUM, (reading,))
    fault = detect(vacuum, RULES, NOW)
    book, _, number = reconcile({}, [fault], RULES, NOW, 1)
    incident = due(book.values(), NOW)
    assert incident is not None
    book[incident.incident_id] = started(incident, NOW, "request")
    outcomes = [IntentOutcome(REFRESH, IntentResult.EXECUTED)]
    book["INC-0001"] = triaged(
        book["INC-0001"], reply(("brush_jam", 0.9)), outcomes, NOW + 3, 30, awaiting(outcomes)
    )
    book, _, number = reconcile(book, [], RULES, NOW + 20, number)  # docked again: the fault cleared
    assert verified(book["INC-0001"], NOW + 20, False) is None  # not yet its time
    book["INC-0001"] = verified(book["INC-0001"], NOW + 33, False)
    assert book["INC-0001"].status is IncidentStatus.RESOLVED
    assert due(book.values(), NOW + 40) is None
    # It jams again soon after: the same incident reopens, and triage starts over from scratch.
    book, _, number = reconcile(book, [fault], RULES, NOW + 60, number)
    again = due(book.values(), NOW + 60)
    assert again is not None and again.incident_id == "INC-0001"
    assert (again.status, again.attempts, again.verify_at) == (IncidentStatus.OPEN, 0, None)


# The triage tools in the policy.


def test_triage_tools_are_offered_to_triage_only():
    world = demo_world()
    assert not TRIAGE_TOOLS & set(configured_tools(world))
    assert set(configured_tools(world, triage=True)) >= TRIAGE_TOOLS
    assert set(room_tools(world, triage=True)) >= TRIAGE_TOOLS
    chat_offer = frozenset(availability(world, Ledger(), Limits(), NOW).available)
    assert not TRIAGE_TOOLS & chat_offer
    # The chat model naming one anyway: never its to call.
    verdict = check_call("asset_refresh", {"asset_id": "rover2"}, chat_offer, world, Ledger(), Limits(), NOW)
    assert verdict.refusal.reason is Refusal.NOT_AVAILABLE


def refresh(asset_id, world=None, ledger=Ledger(), limits=Limits()):
    world = world or demo_world()
    offered = frozenset(room_tools(world, triage=True))
    verdict = check_call("asset_refresh", {"asset_id": asset_id}, offered, world, ledger, limits, NOW)
    return verdict.refusal.reason if verdict.refusal else None


@pytest.mark.parametrize("asset_id", ["rover2", "vacuum.neato", "cover.lift", "light.shelf", "switch.fan"])
def test_a_watched_asset_can_be_refreshed(asset_id):
    assert asset_id in demo_world().assets()
    assert refresh(asset_id) is None


@pytest.mark.parametrize(
    "asset_id",
    [
        "rover9",
        "Rover 2",
        "ROVER2",
        "rover2 ",
        "sensor.freezer",
        "lock.front_door",
        "*",
        "",
        2,
        None,
        ["rover2"],
    ],
)
def test_an_asset_that_is_not_watched_is_not_allowlisted(asset_id):
    assert refresh(asset_id) is Refusal.NOT_ALLOWLISTED


def test_an_extra_watched_entity_is_an_asset_and_a_missing_argument_is_invalid():
    with_freezer = demo_world(asset_entities=("sensor.freezer",))
    assert refresh("sensor.freezer", with_freezer) is None
    offered = frozenset(room_tools(with_freezer, triage=True))
    for arguments in ({}, {"asset_id": "rover2", "force": True}, None, ["rover2"]):
        verdict = check_call("asset_refresh", arguments, offered, with_freezer, Ledger(), Limits(), NOW)
        assert verdict.refusal.reason is Refusal.INVALID_ARGUMENTS, arguments


def test_triage_tools_obey_site_locks_cooldown_and_budget_of_the_ha_group():
    assert refresh("rover2", demo_world(site_mode=SiteMode.LOCKDOWN)) is Refusal.SITE_MODE_LOCKDOWN
    assert refresh("rover2", demo_world(site_mode=SiteMode.ADMIN)) is Refusal.SITE_MODE_ADMIN
    assert refresh("rover2", demo_world(lights_locked_on=True)) is None  # not a room control
    limits = Limits()
    light_switched = Ledger().after_execution("ha_set_entity", NOW - 1, limits)
    assert refresh("rover2", ledger=light_switched, limits=limits) is Refusal.COOLDOWN
    no_budget = Limits(action_budget=0)
    assert refresh("rover2", limits=no_budget) is Refusal.RATE_LIMIT


def test_steps_refused_only_for_now_are_asked_about_again_when_the_wait_is_over():
    incident = started(jammed_vacuum(), NOW, "request")
    waiting = [
        IntentOutcome(REFRESH, IntentResult.BLOCKED, "cooldown", 12),
        IntentOutcome("neato_send_home()", IntentResult.BLOCKED, "rate_limit", 40),
        IntentOutcome("lift_up()", IntentResult.BLOCKED, "not_allowlisted"),
    ]
    later = triaged(incident, reply(("brush_jam", 0.9)), waiting, NOW, VERIFY_AFTER, awaiting(waiting))
    assert (later.status, later.attempts, later.retry_at) == (IncidentStatus.OPEN, 1, NOW + 40)
    assert due([later], NOW + 39) is None and due([later], NOW + 40) == later
    # A wait of no seconds still waits a little: never a triage loop within one flight.
    soon = triaged(
        incident,
        reply(),
        [IntentOutcome(REFRESH, IntentResult.BLOCKED, "busy")],
        NOW,
        30,
        awaiting([IntentOutcome(REFRESH, IntentResult.BLOCKED, "busy")]),
    )
    assert soon.retry_at == NOW + triage.SOONEST_RETRY
    # A room that stays busy hands it to a person, like replies that keep being wrong.
    for _ in range(MAX_ATTEMPTS - 1):
        later = triaged(
            started(later, NOW, "request"), reply(), waiting, NOW, VERIFY_AFTER, awaiting(waiting)
        )
    assert later.status is IncidentStatus.NEEDS_HUMAN


def test_only_refusals_that_waiting_cures_bring_the_incident_back():
    incident = started(jammed_vacuum(), NOW, "request")
    refused = [
        IntentOutcome(REFRESH, IntentResult.BLOCKED, reason)
        for reason in ("not_allowlisted", "policy_lock:site_mode_lockdown", "invalid_arguments")
    ]
    assert (
        triaged(incident, reply(), refused, NOW, VERIFY_AFTER, awaiting(refused)).status
        is IncidentStatus.NEEDS_HUMAN
    )


@pytest.mark.parametrize(
    ("reason", "policy", "claimed", "asked"),
    [
        ("needs_approval", Safety.REVERSIBLE, Safety.READ, True),
        ("cooldown", Safety.CONSEQUENTIAL, Safety.READ, True),
        ("rate_limit", Safety.REVERSIBLE, Safety.CONSEQUENTIAL, True),
        ("busy", Safety.CONSEQUENTIAL, Safety.READ, True),
        ("cooldown", Safety.REVERSIBLE, Safety.READ, False),
        ("policy_lock:site_mode_lockdown", Safety.CONSEQUENTIAL, Safety.CONSEQUENTIAL, False),
        ("not_allowlisted", Safety.CONSEQUENTIAL, Safety.CONSEQUENTIAL, False),
    ],
)
def test_a_consequential_step_asks_a_person_unless_something_but_waiting_stands_in_its_way(
    reason, policy, claimed, asked
):
    assert triage.asks_a_person(reason, policy, claimed) is asked
