"""Approvals: single use, expiring, bounded, and what policy says about a consequential call."""

from __future__ import annotations

import json
import math
import string
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.approvals import (
    ARGUMENTS_CHARS,
    KEEP_DECIDED,
    MAX_GRANTS,
    AnswerRefused,
    Approval,
    ApprovalSource,
    ApprovalStatus,
    Grant,
    Requester,
    answer_refused,
    approval_as_dict,
    approval_from_dict,
    covering_grant,
    decided,
    grant_as_dict,
    grant_from_dict,
    has_room,
    live_grants,
    overdue,
    pending,
    prune_approvals,
    waiting_for,
)
from custom_components.overseer.core.policy import Ledger, Limits, check_call, configured_tools, room_tools
from custom_components.overseer.core.text import LATEST_TS
from custom_components.overseer.core.tools import TOOLS, Refusal, Safety
from custom_components.overseer.core.world import SiteMode

from .worlds import demo_world

NOW = 1_800_000_000.0
TIMEOUT = 600.0
NONCE = "k3Jx_9-QpLm2ZtRw8vBn4cYh"


def approval(number: int = 1, created: float = NOW, **changes) -> Approval:
    made = Approval(
        f"APR-{number:08x}",
        NONCE,
        "INC-0001",
        "asset_restart",
        {"asset_id": "vacuum.neato"},
        created,
        created + TIMEOUT,
    )
    return replace(made, **changes)


DECIDED = [status for status in ApprovalStatus if status is not ApprovalStatus.PENDING]


# Whether an answer can be taken.


def test_an_answer_is_taken_only_while_pending_and_before_expiry():
    waiting = approval()
    assert answer_refused(waiting, NOW) is None
    assert answer_refused(waiting, NOW + TIMEOUT - 0.001) is None
    assert answer_refused(waiting, NOW + TIMEOUT) is AnswerRefused.EXPIRED
    assert answer_refused(waiting, NOW + 10**6) is AnswerRefused.EXPIRED
    assert answer_refused(None, NOW) is AnswerRefused.NOT_FOUND


@pytest.mark.parametrize("status", DECIDED)
def test_a_decided_approval_is_never_taken_again_whether_or_not_its_time_is_up(status):
    answered = decided(approval(), status, NOW, "alice")
    assert answer_refused(answered, NOW) is AnswerRefused.ALREADY_DECIDED
    assert answer_refused(answered, NOW + 10**6) is AnswerRefused.ALREADY_DECIDED
    assert overdue([answered], NOW + 10**6) == []


ANSWERS = st.lists(
    st.tuples(
        st.sampled_from(["approve", "deny", "sweep"]),
        st.floats(0, 2 * TIMEOUT),
        st.sampled_from(["alice", "bob", ""]),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(ANSWERS)
def test_an_approval_is_taken_at_most_once_and_never_after_it_expired(answers):
    """Answers and expiry sweeps in any order, as the shell applies them."""
    book = approval()
    taken = []
    for what, offset, user in sorted(answers, key=lambda answer: answer[1]):
        now = NOW + offset
        if what == "sweep":
            for late in overdue([book], now):
                book = decided(late, ApprovalStatus.EXPIRED, now)
            continue
        if answer_refused(book, now) is None:
            taken.append((what, now))
            status = ApprovalStatus.APPROVED if what == "approve" else ApprovalStatus.DENIED
            book = decided(book, status, now, user)
            if status is ApprovalStatus.APPROVED:  # the executor runs it at once
                book = decided(book, ApprovalStatus.EXECUTED, now)
    assert len(taken) <= 1
    assert all(now < book.expires for _, now in taken)
    if taken:
        assert book.status is not ApprovalStatus.EXPIRED
    # Bound to what it was made for, whatever happened to it.
    assert (book.incident_id, book.tool, book.arguments) == (
        "INC-0001",
        "asset_restart",
        {"asset_id": "vacuum.neato"},
    )


def test_pending_is_oldest_first_and_per_incident():
    # Ids are random: the order is the order they were asked in.
    first = approval(0xF0, NOW - 50, incident_id="INC-0002")
    second = approval(0x0A, NOW - 20)
    third = approval(0x3C, NOW - 10, incident_id="INC-0002")
    done = decided(approval(4, NOW - 60), ApprovalStatus.DENIED, NOW, "bob")
    assert pending([third, done, second, first]) == [first, second, third]
    assert pending([third, done, second, first], "INC-0002") == [first, third]
    assert pending([done], "INC-0001") == []


def test_overdue_lists_only_pending_approvals_whose_time_is_up():
    early, late = approval(1, NOW - TIMEOUT), approval(2, NOW - 1)
    assert overdue([late, early], NOW) == [early]
    assert overdue([late, early], NOW - 1) == []
    assert overdue([late, early], NOW + TIMEOUT) == [early, late]


def test_who_answered_is_kept_when_the_call_runs_and_the_reason_is_what_policy_said_last():
    approved = decided(approval(), ApprovalStatus.APPROVED, NOW, "alice", "Alice")
    blocked = decided(approved, ApprovalStatus.BLOCKED, NOW + 1, reason="policy_lock:site_mode_lockdown")
    assert (blocked.status, blocked.decided_by, blocked.decided_name, blocked.reason) == (
        ApprovalStatus.BLOCKED,
        "alice",
        "Alice",
        "policy_lock:site_mode_lockdown",
    )
    assert blocked.decided_at == NOW + 1
    expired = decided(approval(), ApprovalStatus.EXPIRED, NOW + TIMEOUT)
    assert expired.decided_by == "" and expired.decided_at == NOW + TIMEOUT


# The book stays bounded.


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(list(ApprovalStatus)), st.integers(0, 10_000)),
        max_size=3 * KEEP_DECIDED,
    )
)
def test_prune_never_drops_a_pending_approval_and_keeps_only_the_newest_decided(made):
    book = {}
    for number, (status, created) in enumerate(made):
        item = approval(number, float(created), status=status)
        book[item.approval_id] = item
    kept = prune_approvals(book)
    assert {key: book[key] for key in kept} == kept  # nothing changed, only dropped
    is_pending = {key for key, item in book.items() if item.status is ApprovalStatus.PENDING}
    assert is_pending <= set(kept)
    kept_done = [item for key, item in kept.items() if key not in is_pending]
    dropped = [item for key, item in book.items() if key not in kept]
    assert len(kept_done) == min(KEEP_DECIDED, len(book) - len(is_pending))
    if dropped:
        assert min(item.created for item in kept_done) >= max(item.created for item in dropped)
    assert prune_approvals(kept) == kept


def test_prune_keeps_twenty_decided_however_many_pending_wait():
    book = {}
    for number in range(40):
        status = ApprovalStatus.PENDING if number % 3 == 0 else ApprovalStatus.EXECUTED
        item = approval(number, NOW + number, status=status)
        book[item.approval_id] = item
    kept = prune_approvals(book)
    assert sum(item.status is ApprovalStatus.PENDING for item in kept.values()) == 14
    assert sum(item.status is ApprovalStatus.EXECUTED for item in kept.values()) == KEEP_DECIDED
    assert approval(39).approval_id in kept and approval(1).approval_id not in kept


# The store and the status object.


def test_the_nonce_stays_in_the_store():
    item = approval()
    shown = approval_as_dict(item, with_nonce=False)
    assert "nonce" not in shown and NONCE not in json.dumps(shown)
    assert approval_as_dict(item)["nonce"] == NONCE
    # What the status object shows cannot be loaded back as an approval someone could answer.
    assert approval_from_dict(shown) is None


_WORD = string.ascii_letters + string.digits + "_.:-"
arguments = st.dictionaries(
    st.text(_WORD, min_size=1, max_size=12),
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(_WORD, max_size=40),
    max_size=5,
)


@st.composite
def approvals(draw) -> Approval:
    """Approvals as the shell makes them: every field within its bounds."""
    created = draw(st.floats(0, LATEST_TS - TIMEOUT))
    source = draw(st.sampled_from(ApprovalSource))
    incident = f"INC-{draw(st.integers(1, 10**9 - 1)):04d}"
    return Approval(
        f"APR-{draw(st.integers(0, 2**32 - 1)):08x}",
        draw(st.text(string.ascii_letters + string.digits + "_-", min_size=16, max_size=64)),
        incident if source is ApprovalSource.TRIAGE else draw(st.sampled_from(["", incident])),
        draw(st.sampled_from(sorted(TOOLS))),
        draw(arguments),
        created,
        created + draw(st.floats(0, TIMEOUT)),
        # Approved is a moment, never a stored state: see the test after the next.
        draw(st.sampled_from([s for s in ApprovalStatus if s is not ApprovalStatus.APPROVED])),
        draw(st.text(_WORD, max_size=64)),
        draw(st.text(_WORD, max_size=200)),
        source=source,
        caller=draw(st.text(_WORD, max_size=64)),
        asker=draw(st.text(_WORD, max_size=64)),
        user_id=draw(st.text(_WORD, max_size=64)),
        identity=draw(st.text(_WORD, max_size=128)),
    )


@settings(max_examples=300, deadline=None)
@given(approvals())
def test_a_stored_approval_comes_back_exactly(item):
    stored = json.loads(json.dumps(approval_as_dict(item)))
    assert approval_from_dict(stored) == item


def test_an_approval_stored_between_the_answer_and_the_run_comes_back_blocked():
    """Home Assistant stopped while the approved call ran: it did not run, and is never taken again."""
    stored = approval_as_dict(decided(approval(), ApprovalStatus.APPROVED, NOW, "alice"))
    back = approval_from_dict(stored)
    assert (back.status, back.reason) == (ApprovalStatus.BLOCKED, "interrupted")
    assert answer_refused(back, NOW) is AnswerRefused.ALREADY_DECIDED


# One tampered value each: the whole approval is dropped (never repaired into something answerable).
TAMPERED = [
    ("approval_id", "APR-1234"),
    ("approval_id", "APR-0123ABCD"),
    ("approval_id", "apr-0123abcd"),
    ("approval_id", "APR-0123abcd\n"),
    ("approval_id", "APR-0123abcdef"),
    ("approval_id", None),
    ("nonce", "short"),
    ("nonce", "x" * 15),
    ("nonce", "x" * 65),
    ("nonce", "k3Jx 9-QpLm2ZtRw8vBn"),
    ("nonce", "k3Jx/9+QpLm2ZtRw8vBn=="),
    ("nonce", ""),
    ("created", math.nan),
    ("created", math.inf),
    ("created", -math.inf),
    ("created", -1),
    ("created", LATEST_TS + 1),
    ("created", 10**400),
    ("created", "soon"),
    ("created", None),
    ("expires", math.nan),
    ("expires", math.inf),
    ("expires", 1e300),
    ("expires", [NOW]),
    ("arguments", ["asset_id", "vacuum.neato"]),
    ("arguments", "asset_id=vacuum.neato"),
    ("arguments", None),
    ("arguments", {"asset_id": "x" * ARGUMENTS_CHARS}),
    ("arguments", {"asset_id": {"nested": ["x" * 200] * 5}}),
    ("arguments", {"asset_id": 2**70}),  # no double holds it: the status could not be sent
    ("arguments", {"asset_id": math.nan}),
    ("status", "approved_by_root"),
    ("status", "PENDING"),
    ("status", None),
    ("status", ["pending"]),
    ("source", "admin"),
    ("source", None),
    # Triage's approvals belong to an incident.
    ("incident_id", ""),
]


@pytest.mark.parametrize(("key", "value"), TAMPERED)
def test_a_tampered_stored_value_drops_the_approval(key, value):
    stored = approval_as_dict(approval())
    assert approval_from_dict(stored) == approval()
    stored[key] = value
    assert approval_from_dict(stored) is None


@pytest.mark.parametrize(
    "key", ["approval_id", "nonce", "incident_id", "tool", "arguments", "created", "expires", "status"]
)
def test_a_stored_approval_missing_a_field_is_dropped(key):
    stored = approval_as_dict(approval())
    del stored[key]
    assert approval_from_dict(stored) is None


@pytest.mark.parametrize("stored", [None, [], "APR-0123abcd", 42, [approval_as_dict(approval())], {}])
def test_a_stored_approval_that_is_not_an_object_is_dropped(stored):
    assert approval_from_dict(stored) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8,
)
FIELDS = ["approval_id", "nonce", "incident_id", "tool", "arguments", "created", "expires", "status"]


@settings(max_examples=100, deadline=None)
@given(json_values, st.dictionaries(st.sampled_from([*FIELDS, "decided_by", "reason"]), json_values))
def test_whatever_the_store_holds_loading_never_raises_and_keeps_bounds(anything, overrides):
    for data in (anything, {**approval_as_dict(approval()), **overrides}):
        item = approval_from_dict(data)
        if item is None:
            continue
        assert 0 <= item.created <= LATEST_TS and 0 <= item.expires <= LATEST_TS
        assert isinstance(item.arguments, dict) and len(json.dumps(item.arguments)) <= ARGUMENTS_CHARS
        assert item.status in ApprovalStatus
        for text in (item.incident_id, item.tool, item.decided_by, item.reason):
            assert "\n" not in text and len(text) <= 250


def test_stored_text_comes_back_as_one_bounded_line():
    stored = approval_as_dict(approval())
    stored |= {"reason": "blocked\n" * 500, "decided_by": "eve\u202e\n" * 50}
    item = approval_from_dict(stored)
    assert item is not None
    assert "\n" not in item.reason and "\u202e" not in item.decided_by
    # A tool name or incident id that is not one, a text or boolean time, or an expiry before
    # the asking: not an approval the overseer wrote.
    for tampered in (
        {"tool": "x\ny"},
        {"incident_id": "INC-1; DROP"},
        {"created": "1800000000"},
        {"expires": True},
        {"expires": stored["created"] - 1},
    ):
        assert approval_from_dict({**stored, **tampered}) is None, tampered


# Policy: a consequential call runs only once a person approved it.


def restart(world=None, ledger=Ledger(), limits=Limits(), claimed=Safety.READ, approved=False, **arguments):
    world = world or demo_world()
    offered = frozenset(room_tools(world, triage=True))
    verdict = check_call(
        "asset_restart",
        arguments or {"asset_id": "vacuum.neato"},
        offered,
        world,
        ledger,
        limits,
        NOW,
        claimed,
        approved,
    )
    return verdict.refusal.reason if verdict.refusal else None


def test_a_restart_waits_for_approval_whatever_the_model_claims():
    for claimed in Safety:
        assert restart(claimed=claimed) is Refusal.NEEDS_APPROVAL
        assert restart(claimed=claimed, approved=True) is None


def test_an_approved_restart_is_still_checked_at_that_instant():
    assert restart(world=demo_world(site_mode=SiteMode.LOCKDOWN), approved=True) is Refusal.SITE_MODE_LOCKDOWN
    cooling = Ledger().after_execution("asset_refresh", NOW - 1, Limits())
    assert restart(ledger=cooling, approved=True) is Refusal.COOLDOWN
    assert restart(limits=Limits(action_budget=0), approved=True) is Refusal.RATE_LIMIT
    # The vacuum left the options between the request and the answer.
    assert restart(world=demo_world(vacuum=None), approved=True) is Refusal.NOT_ALLOWLISTED
    assert restart(asset_id="sensor.freezer", approved=True) is Refusal.NOT_ALLOWLISTED


def check(name, arguments, claimed=Safety.READ, approved=False, limits=Limits()):
    world = demo_world()
    offered = frozenset(room_tools(world, triage=True))
    verdict = check_call(name, arguments, offered, world, Ledger(), limits, NOW, claimed, approved)
    return verdict.refusal.reason if verdict.refusal else None


def test_a_claim_or_the_approval_tools_option_can_raise_a_tool_to_consequential():
    refresh = {"asset_id": "rover2"}
    assert check("asset_refresh", refresh) is None
    assert check("asset_refresh", refresh, claimed=Safety.REVERSIBLE) is None
    assert check("asset_refresh", refresh, claimed=Safety.CONSEQUENTIAL) is Refusal.NEEDS_APPROVAL
    assert check("asset_refresh", refresh, claimed=Safety.CONSEQUENTIAL, approved=True) is None
    marked = Limits(consequential=frozenset({"asset_refresh", "lift_up"}))
    assert check("asset_refresh", refresh, limits=marked) is Refusal.NEEDS_APPROVAL
    assert check("lift_up", {}, limits=marked) is Refusal.NEEDS_APPROVAL
    assert check("lift_up", {}, limits=marked, approved=True) is None
    assert check("lift_up", {}, claimed=Safety.CONSEQUENTIAL) is Refusal.NEEDS_APPROVAL
    assert check("lift_down", {}, claimed=Safety.CONSEQUENTIAL) is Refusal.NEEDS_APPROVAL


def valid_arguments(name: str) -> dict:
    return {
        "chat_say": {"text": "hello"},
        "memory_write": {"slot": 1, "text": "note"},
        "ha_set_entity": {"entity_id": "light.shelf", "state": "off"},
        "asset_refresh": {"asset_id": "rover2"},
        "asset_restart": {"asset_id": "vacuum.neato"},
    }.get(name, {})


@st.composite
def situations(draw):
    """A room in some state, one call in it, and whatever policy options a user chose."""
    world = demo_world(
        site_mode=draw(st.sampled_from(list(SiteMode))),
        lights_locked_on=draw(st.booleans()),
    )
    names = configured_tools(world, triage=True)
    limits = Limits(
        action_budget=draw(st.integers(0, 3)),
        consequential=frozenset(draw(st.lists(st.sampled_from(names), max_size=3))),
    )
    ledger = Ledger()
    for name, at in draw(st.lists(st.tuples(st.sampled_from(names), st.floats(NOW - 400, NOW)), max_size=3)):
        ledger = ledger.after_execution(name, at, limits)
    offered = frozenset(
        draw(st.sets(st.sampled_from(names))) | set(draw(st.just(names))[: draw(st.integers(0, 12))])
    )
    name = draw(st.sampled_from(names))
    arguments = draw(st.sampled_from([valid_arguments(name), {"asset_id": "rover9"}, {"bogus": 1}]))
    return world, ledger, limits, offered, name, arguments


@settings(max_examples=300, deadline=None)
@given(situations(), st.sampled_from(list(Safety)))
def test_no_claim_lowers_the_policys_class_and_an_approval_only_lifts_the_wait_for_it(situation, claimed):
    world, ledger, limits, offered, name, arguments = situation

    def verdict(claim, approved):
        return check_call(name, arguments, offered, world, ledger, limits, NOW, claim, approved).refusal

    plain = verdict(Safety.READ, False)
    raised = verdict(claimed, False)
    # A claim never turns a refusal into an allowance, and never changes a refusal's reason
    # except to ask for approval.
    if plain is not None:
        assert raised == plain
    else:
        assert raised is None or raised.reason is Refusal.NEEDS_APPROVAL
    if limits.safety(name) is Safety.CONSEQUENTIAL or claimed is Safety.CONSEQUENTIAL:
        assert raised is not None
    # An approval lifts the wait for a person and nothing else.
    approved = verdict(claimed, True)
    if raised is not None and raised.reason is Refusal.NEEDS_APPROVAL:
        assert approved is None
    else:
        assert approved == raised


def test_an_approval_stored_before_other_callers_could_ask_is_triages():
    stored = approval_as_dict(approval())
    for key in ("source", "caller", "asker", "user_id"):
        del stored[key]
    assert approval_from_dict(stored) == approval()


def test_only_triage_may_store_an_approval_without_an_incident():
    chat = approval(incident_id="", source=ApprovalSource.CHAT, caller="overseer", asker="alex")
    assert approval_from_dict(approval_as_dict(chat)) == chat
    assert approval_from_dict({**approval_as_dict(chat), "source": "triage"}) is None


# Asking twice, and grants.

LIFT = ("lift_up", {})
AGENT = Requester(ApprovalSource.LLM_API, "agent:mcp_server", "", "user-alice")


def test_the_same_call_by_the_same_requester_finds_the_one_that_waits():
    first = approval(
        1, tool="lift_up", arguments={}, incident_id="", source=ApprovalSource.LLM_API,
        caller="agent:mcp_server", user_id="user-alice",
    )  # fmt: skip
    assert first.requester == AGENT
    book = [first, replace(first, approval_id="APR-00000002", status=ApprovalStatus.DENIED)]
    assert waiting_for(book, *LIFT, AGENT) == first
    # Another user of the same client, another client, another source, other arguments or a
    # decided one: a request of its own.
    assert waiting_for(book, *LIFT, replace(AGENT, user_id="user-bob")) is None
    assert waiting_for(book, *LIFT, replace(AGENT, caller="agent:ollama")) is None
    assert waiting_for(book, *LIFT, replace(AGENT, source=ApprovalSource.CHAT)) is None
    assert waiting_for(book, "lift_up", {"x": 1}, AGENT) is None
    assert waiting_for(book[1:], *LIFT, AGENT) is None


CHAT = Requester(ApprovalSource.CHAT, "overseer", "alex", identity="automation.relay|alex")
LONGEST = 30 * 60


def grant(number: int = 1, created: float = NOW, minutes: float = 10, **changes) -> Grant:
    made = Grant(
        f"GRT-{number:08x}",
        f"APR-{number:08x}",
        "lift_up",
        {},
        CHAT,
        created,
        created + minutes * 60,
        "user-1",
        "Kim",
    )
    return replace(made, **changes)


def test_a_grant_covers_only_its_own_call_by_its_own_requester_until_it_expires():
    given = grant()
    assert covering_grant([given], *LIFT, CHAT, NOW, LONGEST) == given
    assert covering_grant([given], *LIFT, CHAT, NOW + 599, LONGEST) == given
    assert covering_grant([given], *LIFT, CHAT, NOW + 600, LONGEST) is None
    # sam asking in the same chat is not alex; Assist is not the chat; an agent is not the overseer.
    for other in (
        replace(CHAT, asker="sam"),
        replace(CHAT, source=ApprovalSource.ASSIST),
        replace(CHAT, caller="agent:ollama"),
        replace(CHAT, user_id="user-2"),
        replace(CHAT, identity="user:someone-else"),  # the same name from another identity
    ):
        assert covering_grant([given], *LIFT, other, NOW, LONGEST) is None, other
    assert covering_grant([given], "lift_down", {}, CHAT, NOW, LONGEST) is None
    lights = grant(tool="ha_set_entity", arguments={"entity_id": "light.a", "state": "red"})
    blue = {"entity_id": "light.a", "state": "blue"}
    assert covering_grant([lights], "ha_set_entity", blue, CHAT, NOW, LONGEST) is None
    # Triage's grant is its incident's.
    triage = Requester(ApprovalSource.TRIAGE, "triage", incident_id="INC-0001")
    restart = grant(tool="asset_restart", arguments={"asset_id": "vacuum.neato"}, requester=triage)
    later = replace(triage, incident_id="INC-0002")
    assert (
        covering_grant([restart], "asset_restart", {"asset_id": "vacuum.neato"}, later, NOW, LONGEST) is None
    )


def test_a_grant_for_a_moment_nobody_asked_for_covers_nothing():
    """A heartbeat's or a chat burst's call has no identity: a grant for it would cover them all."""
    nobody = replace(CHAT, asker="", identity="")
    given = grant(requester=nobody)
    assert covering_grant([given], *LIFT, nobody, NOW, LONGEST) is None


def test_a_grant_longer_than_the_room_allows_now_no_longer_counts():
    given = grant(minutes=20)
    assert covering_grant([given], *LIFT, CHAT, NOW, LONGEST) == given
    assert covering_grant([given], *LIFT, CHAT, NOW, 10 * 60) is None  # the bound was lowered
    assert covering_grant([given], *LIFT, CHAT, NOW, 0) is None  # grants turned off
    assert covering_grant([given], *LIFT, CHAT, NOW - 1, LONGEST) is None  # a clock set back


def test_expired_grants_go_and_at_most_the_newest_twenty_stay():
    book = {g.grant_id: g for g in (grant(n, created=NOW + n) for n in range(1, MAX_GRANTS + 5))}
    book["GRT-ffffffff"] = grant(0xFFFFFFFF, created=NOW - 700)  # expired
    kept = live_grants(book, NOW + 30)
    assert len(kept) == MAX_GRANTS and "GRT-ffffffff" not in kept
    assert min(g.created for g in kept.values()) == NOW + 5


def test_a_stored_grant_comes_back_exactly_and_a_tampered_one_is_dropped():
    given = grant(arguments={"entity_id": "light.a", "state": "red"}, requester=replace(CHAT, user_id="u9"))
    stored = json.loads(json.dumps(grant_as_dict(given)))
    assert grant_from_dict(stored) == given
    for key, value in [
        ("grant_id", "GRT-1"),
        ("approval_id", "APR-xyz"),
        ("tool", "Lift Up"),
        ("arguments", "all"),
        ("source", "root"),
        ("expires", NOW - 1),
        ("created", math.nan),
    ]:
        assert grant_from_dict({**stored, key: value}) is None, key
    assert grant_from_dict(None) is None and grant_from_dict({}) is None


def test_callers_cannot_fill_the_book_that_triage_needs():
    from_agents = [
        approval(n, incident_id="", source=ApprovalSource.LLM_API, caller="agent:x") for n in range(1, 8)
    ]
    assert not has_room(from_agents, ApprovalSource.LLM_API)
    assert not has_room(from_agents, ApprovalSource.CHAT)
    assert has_room(from_agents, ApprovalSource.TRIAGE)
    full = from_agents + [approval(n) for n in range(8, 11)]
    assert not has_room(full, ApprovalSource.TRIAGE)
    six_and_three = [*from_agents[:6], *full[7:]]
    assert has_room(six_and_three, ApprovalSource.CHAT)
    assert not has_room([*six_and_three, approval(11)], ApprovalSource.CHAT)  # ten wait: no more
