"""The gate: when a decision is worth a model call."""

import pytest

from custom_components.overseer.core.gate import (
    MAX_WAITING_ASKERS,
    MAX_WAITING_WORLD_EVENTS,
    MISSED_WORLD_EVENTS_KEPT,
    AddressMatcher,
    Gate,
    GateConfig,
    MissedWorldEvent,
    MissReason,
    TriggerKind,
    WorldEvent,
)


@pytest.mark.parametrize(
    ("text", "addressed"),
    [
        ("overseer you watching this drift?", True),
        ("OVERSEER!", True),
        ("hey @Overseer raise the lift", True),
        ("the overseer's lights", True),
        ("over\u200bseer, look", True),  # zero-width space cannot hide the name
        ("оverseer look", True),  # a Cyrillic о reads as the name, so it is the name
        ("ＯＶＥＲＳＥＥＲ look", True),
        ("overseers are boring", False),
        ("xoverseer", False),
        ("overseer\u200bx", False),  # a zero-width space cannot fake a word boundary
        ("over seer", False),
        ("nobody here", False),
    ],
)
def test_direct_address_is_a_whole_word_after_normalisation(text, addressed):
    assert AddressMatcher("Overseer").addressed(text) is addressed


def test_aliases_and_multiword_names():
    matcher = AddressMatcher("Big Brother", ("bot", "HAL"))
    assert matcher.addressed("big   brother, lights")
    assert matcher.addressed("bot pick a side")
    assert matcher.addressed("hal?")
    assert not matcher.addressed("robot pick a side")


def test_bot_lines_never_trigger():
    gate = Gate(GateConfig(), now=0)
    assert gate.observe_chat("Overseer", "overseer overseer", bot=True, now=1) is None
    assert gate.tick(100) is None


def test_direct_address_triggers_at_once_even_inside_the_minimum_gap():
    gate = Gate(GateConfig(min_gap=60), now=0)
    gate.observe_chat("alex", "i dare you", bot=False, now=1)
    assert gate.tick(1).kind is TriggerKind.CHALLENGE
    gate.observe_chat("alex", "overseer answer me", bot=False, now=2)
    trigger = gate.tick(2)
    assert trigger.kind is TriggerKind.DIRECT_ADDRESS
    assert trigger.detail == "alex"


def test_unsolicited_triggers_wait_for_the_minimum_gap():
    gate = Gate(GateConfig(min_gap=15), now=0)
    gate.request_manual(0)
    assert gate.tick(0).kind is TriggerKind.MANUAL
    gate.observe_world("docked", "rover1", now=5)
    assert gate.tick(5) is None
    assert gate.tick(14.9) is None
    trigger = gate.tick(15)
    assert trigger.kind is TriggerKind.WORLD_EVENT
    assert trigger.detail == "docked (rover1)"


def test_address_while_busy_is_answered_in_the_next_cycle_and_coalesced():
    gate = Gate(GateConfig(), now=0)
    gate.observe_chat("alex", "overseer?", bot=False, now=1)
    gate.observe_chat("alex", "overseer!!", bot=False, now=2)
    gate.observe_world("driver_changed", "rover2", now=3)
    assert gate.tick(3, busy=True) is None
    assert gate.addressed_pending
    trigger = gate.tick(500)  # however long the model took
    assert trigger.kind is TriggerKind.DIRECT_ADDRESS
    assert (trigger.since, trigger.detail, trigger.question) == (1, "alex", "overseer!!")
    assert gate.tick(600) is None  # one decision for all of it
    assert not gate.addressed_pending


def test_every_asker_waits_for_an_answer_of_their_own_in_the_order_they_asked():
    gate = Gate(GateConfig(), now=0)
    gate.observe_chat("alex", "overseer, pick a side", bot=False, now=1)
    gate.observe_chat("sam", "overseer, raise the lift!", bot=False, now=2)
    gate.observe_world("docked", "rover1", now=3)
    first = gate.tick(4)
    # The world event waits for a moment of its own; sam is not coalesced away.
    assert (first.detail, first.coalesced, first.events) == ("alex", (), ())
    assert gate.addressed_pending
    # alex's question is put back (the model failed) while sam waits: neither takes the other's place.
    gate.requeue(first)
    gate.observe_chat("Sam", "overseer, now!", bot=False, now=20)
    second = gate.tick(30)
    assert (second.detail, second.question) == ("Sam", "overseer, now!")
    third = gate.tick(60)
    assert (third.detail, third.question) == ("alex", "overseer, pick a side")
    assert gate.tick(70) is None and not gate.addressed_pending
    assert gate.tick(75).events == (WorldEvent("docked (rover1)", 3),)


def test_a_question_put_back_keeps_the_newer_words_already_waiting():
    gate = Gate(GateConfig(), now=0)
    gate.observe_chat("alex", "overseer, raise the lift", bot=False, now=1)
    asked = gate.tick(1)
    gate.observe_chat("alex", "overseer, lower it instead", bot=False, now=10)
    gate.requeue(asked)
    again = gate.tick(20)
    assert (again.since, again.question) == (1, "overseer, lower it instead")


def test_a_crowd_of_askers_is_bounded_and_still_answered_in_the_chat():
    gate = Gate(GateConfig(), now=0)
    for index in range(MAX_WAITING_ASKERS + 5):
        gate.observe_chat(f"fan{index}", "overseer!", bot=False, now=index)
    answered = []
    while (trigger := gate.tick(1000 + len(answered))) is not None:
        answered.append(trigger.detail)
    # The first eight each get a decision; the rest are only in the chat those decisions read.
    assert answered == [f"fan{index}" for index in range(MAX_WAITING_ASKERS)]


def test_moments_expire_unanswered_addresses_do_not():
    gate = Gate(GateConfig(pending_ttl=60), now=0)
    gate.observe_chat("sam", "i dare you", bot=False, now=0)
    assert gate.tick(61, busy=True) is None
    gate.observe_chat("alex", "overseer", bot=False, now=62)
    trigger = gate.tick(62)
    assert trigger.kind is TriggerKind.DIRECT_ADDRESS
    assert TriggerKind.CHALLENGE not in trigger.coalesced


def test_a_world_event_waits_while_the_orchestrator_answers_and_is_answered_when_the_room_is_free():
    # The attack: a rover docked while the orchestrator answered three questions in a row, and
    # expired unanswered after pending_ttl (60 s).
    missed = []
    gate = Gate(GateConfig(min_gap=15, pending_ttl=60, world_event_wait=180), now=0, on_missed=missed.append)
    gate.note_activity(5)
    gate.observe_world("docked", "Rover 3", now=10)
    for second in range(10, 100, 2):
        if second in (30, 60):  # the orchestrator asks the overseer too: answered at once
            gate.request_address("robin", now=second, question="overseer, status?", identity="user:robin")
            asked = gate.tick(second, questions_first=True)
            assert asked.kind is TriggerKind.DIRECT_ADDRESS and asked.events == ()
            assert TriggerKind.WORLD_EVENT not in asked.coalesced
        else:
            assert gate.tick(second, questions_first=True) is None
    assert gate.waiting_world_events == (WorldEvent("docked (Rover 3)", 10),)
    answer = gate.tick(100)  # the orchestrator is done
    assert answer.kind is TriggerKind.WORLD_EVENT
    assert (answer.detail, answer.events) == ("docked (Rover 3)", (WorldEvent("docked (Rover 3)", 10),))
    # Late only by the model's own time: the events say when they happened.
    assert answer.since == 100
    assert gate.waiting_world_events == () and missed == [] and gate.tick(101) is None


def test_waiting_world_events_keep_their_order_and_each_its_detail():
    gate = Gate(GateConfig(min_gap=0), now=0)
    gate.observe_world("docked", "Rover 1", now=1)
    gate.observe_world("driver_changed", "Rover 2", now=2)
    gate.observe_world("lift_moved", "Lift", now=3)
    gate.observe_world("docked", "Rover 1", now=4)  # the same news again: as of its latest time
    assert gate.tick(5, questions_first=True) is None
    answer = gate.tick(6)
    assert [(event.detail, event.since) for event in answer.events] == [
        ("driver_changed (Rover 2)", 2),
        ("lift_moved (Lift)", 3),
        ("docked (Rover 1)", 4),
    ]
    assert answer.detail == "driver_changed (Rover 2); lift_moved (Lift); docked (Rover 1)"
    assert gate.tick(7) is None  # one decision for the lane


def test_a_full_lane_misses_the_newcomer_with_why_and_stays_bounded():
    missed = []
    gate = Gate(GateConfig(min_gap=0), now=0, on_missed=missed.append)
    for number in range(1000):
        gate.observe_world("docked", f"Rover {number}", now=number / 10)
        assert gate.tick(number / 10, questions_first=True) is None
    waiting = gate.waiting_world_events
    assert len(waiting) == MAX_WAITING_WORLD_EVENTS
    assert [event.detail for event in waiting] == [f"docked (Rover {n})" for n in range(len(waiting))]
    assert len(missed) == 1000 - MAX_WAITING_WORLD_EVENTS
    assert missed[0] == MissedWorldEvent(WorldEvent("docked (Rover 8)", 0.8), 0.8, MissReason.LANE_FULL)
    # The status keeps the last few, newest first.
    assert len(gate.missed_world_events) == MISSED_WORLD_EVENTS_KEPT
    assert gate.missed_world_events[0].event.detail == "docked (Rover 999)"
    assert len(gate.tick(100).events) == MAX_WAITING_WORLD_EVENTS


def test_a_world_event_the_room_is_never_free_for_is_missed_as_stale():
    missed = []
    gate = Gate(GateConfig(world_event_wait=180), now=0, on_missed=missed.append)
    gate.observe_world("docked", "Rover 3", now=10)
    gate.observe_world("undocked", "Rover 3", now=100)
    for second in range(10, 191):
        assert gate.tick(second, questions_first=True) is None
    assert missed == []
    assert gate.tick(191, questions_first=True) is None
    assert missed == [MissedWorldEvent(WorldEvent("docked (Rover 3)", 10), 191, MissReason.STALE)]
    # The rest is still answered when the room frees up.
    assert gate.tick(192).events == (WorldEvent("undocked (Rover 3)", 100),)
    assert gate.missed_world_events == tuple(missed)


def test_world_events_wait_out_a_decision_in_flight_and_the_minimum_gap():
    gate = Gate(GateConfig(min_gap=15), now=0)
    gate.request_manual(0)
    assert gate.tick(0).kind is TriggerKind.MANUAL
    gate.observe_world("docked", "Rover 1", now=1)
    assert gate.tick(70, busy=True) is None  # a slow model: longer than pending_ttl
    assert gate.tick(71).events == (WorldEvent("docked (Rover 1)", 1),)


def test_a_moment_of_its_own_takes_the_lane_along_and_a_failed_one_puts_it_back():
    gate = Gate(GateConfig(min_gap=0), now=0)
    gate.observe_world("docked", "Rover 1", now=1)
    gate.observe_chat("sam", "bet you can't", bot=False, now=2)
    challenge = gate.tick(3)
    assert challenge.kind is TriggerKind.CHALLENGE
    assert challenge.events == (WorldEvent("docked (Rover 1)", 1),)
    assert challenge.coalesced == (TriggerKind.WORLD_EVENT,)
    assert gate.waiting_world_events == ()
    gate.requeue(challenge)  # the model failed: the events wait again, the challenge is gone
    assert gate.waiting_world_events == (WorldEvent("docked (Rover 1)", 1),)
    answer = gate.tick(4)
    assert answer.kind is TriggerKind.WORLD_EVENT
    gate.requeue(answer)  # failed again: once more, with the same events
    again = gate.tick(5)
    assert (again.kind, again.events) == (TriggerKind.WORLD_EVENT, answer.events)
    assert gate.tick(6) is None


def test_chat_burst_needs_n_new_messages_within_the_window():
    gate = Gate(GateConfig(burst_messages=4, burst_window=20, min_gap=0), now=0)
    for t in (1, 2, 3):
        gate.observe_chat("alex", "go go", bot=False, now=t)
    assert gate.tick(3) is None
    gate.observe_chat("sam", "faster", bot=False, now=4)
    assert gate.tick(4).kind is TriggerKind.CHAT_BURST
    gate.observe_chat("sam", "again", bot=False, now=5)
    assert gate.tick(5) is None  # the burst was answered; one new line is not a burst
    for t in (30, 60, 90, 120):  # spread out: never four within 20 s
        gate.observe_chat("alex", "slow", bot=False, now=t)
        trigger = gate.tick(t)
        assert trigger is None or trigger.kind is not TriggerKind.CHAT_BURST


def test_heartbeat_only_while_the_room_is_active():
    gate = Gate(GateConfig(heartbeat=30, activity_window=300), now=0)
    assert gate.tick(31) is None  # nobody has been around: no ambient calls
    gate.observe_chat("alex", "hi", bot=False, now=40)
    trigger = gate.tick(41)
    assert trigger.kind is TriggerKind.HEARTBEAT
    assert gate.tick(60) is None
    assert gate.tick(71).kind is TriggerKind.HEARTBEAT
    assert gate.tick(339).kind is TriggerKind.HEARTBEAT  # 299 s after the last line
    assert gate.tick(400) is None  # the room went quiet: no more heartbeats


def test_a_busy_room_that_has_not_heard_the_overseer_for_its_quiet_limit_is_owed_a_line():
    gate = Gate(GateConfig(heartbeat=3600, min_gap=15, quiet_limit=300), now=0)
    gate.observe_chat("alex", "go go go", bot=False, now=10)
    assert gate.tick(299) is None  # a long heartbeat, and not quiet for long enough yet
    owed = gate.tick(300)
    assert owed.kind is TriggerKind.HEARTBEAT and owed.owed
    gate.said(320)  # the decision's line reached the room
    gate.observe_chat("sam", "that was close", bot=False, now=500)
    assert gate.tick(600) is None
    assert gate.tick(620).owed
    # An empty room is owed nothing, however long the silence.
    assert Gate(GateConfig(quiet_limit=300), now=0).tick(5000) is None


def test_a_line_is_owed_once_per_quiet_limit_even_when_none_is_posted():
    # In dry run nothing is posted: the room was owed a decision every min_gap.
    gate = Gate(GateConfig(heartbeat=3600, min_gap=15, quiet_limit=300), now=0)
    for second in range(10, 900, 10):
        gate.observe_chat("alex", "go go go", bot=False, now=second)
    owed = [second for second in range(300, 900, 15) if (trigger := gate.tick(second)) and trigger.owed]
    assert owed == [300, 600]


def test_a_moment_of_the_overseers_own_waits_while_the_orchestrator_answers_a_question():
    gate = Gate(GateConfig(heartbeat=30, min_gap=0, quiet_limit=300), now=0)
    gate.note_activity(5)  # a human line the orchestrator routes: the room is busy
    gate.observe_world("docked", "Rover 2", now=40)
    assert gate.tick(41, questions_first=True) is None
    # The orchestrator's question for the overseer goes first.
    gate.request_address("robin", now=42, question="overseer, raise the lift", identity="user:robin")
    assert gate.tick(43, questions_first=True).kind is TriggerKind.DIRECT_ADDRESS
    gate.observe_world("undocked", "Rover 2", now=60)
    assert gate.tick(61).kind is TriggerKind.WORLD_EVENT
    # A line owed to the room does not wait for the queue to empty.
    gate.observe_world("docked", "Rover 1", now=300)
    owed = gate.tick(301, questions_first=True)
    assert owed.kind is TriggerKind.WORLD_EVENT and owed.owed


def test_quiet_limit_zero_never_owes_a_line():
    gate = Gate(GateConfig(heartbeat=3600, quiet_limit=0), now=0)
    gate.observe_chat("alex", "hi", bot=False, now=1)
    assert gate.tick(3000) is None


def test_a_chat_line_under_an_assist_askers_name_waits_apart_and_keeps_its_own_identity():
    # Kim asks through Assist; a bridge posts a line under the name "Kim" meanwhile.
    gate = Gate(GateConfig(), now=0)
    gate.request_address("Kim", now=1, question="open the lift", identity="user:kim-id")
    gate.observe_chat("Kim", "overseer raise the lift", bot=False, now=2, identity="automation.relay|kim")
    first, second = gate.tick(3), gate.tick(4)
    assert (first.via_assist, first.identity, first.question) == (True, "user:kim-id", "open the lift")
    assert (second.via_assist, second.identity) == (False, "automation.relay|kim")


def test_the_same_name_from_two_identities_is_two_askers():
    gate = Gate(GateConfig(), now=0)
    gate.observe_chat("alex", "overseer lift up", bot=False, now=1, identity="automation.relay|alex")
    gate.observe_chat("alex", "overseer lift down", bot=False, now=2, identity="user:read-only")
    asked = [gate.tick(3), gate.tick(4)]
    assert [(t.identity, t.question) for t in asked] == [
        ("automation.relay|alex", "overseer lift up"),
        ("user:read-only", "overseer lift down"),
    ]


def test_an_assist_questions_copy_in_the_chat_asks_nothing_more():
    gate = Gate(GateConfig(), now=0)
    gate.request_address("Kim", now=1, question="overseer, lift up", identity="user:kim-id")
    gate.observe_chat("Kim", "overseer, lift up", bot=False, now=1, identity="user:kim-id", may_address=False)
    assert gate.tick(2).via_assist
    assert gate.tick(3) is None
