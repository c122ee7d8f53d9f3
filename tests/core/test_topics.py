"""Topic change: a shift in the human lines triggers once; a steady topic never does."""

import random

from config.custom_components.overseer_demo import CROWD_LINES
from custom_components.overseer.core.gate import Gate, GateConfig, TriggerKind
from custom_components.overseer.core.topics import TopicWatch, content_words

# A race night in the seed's room, written the way its chat reads (seed 000's transcript lines
# among them): the same few things come back in other words, as they do in a real room.
RACE = [
    "overseer you watching this drift?",
    "dont kill my lights again",
    "rover2 is way too fast on the corner",
    "sam is about to bonk the dock",
    "that drift on the corner was clean",
    "who parked rover3 on the dock again",
    "lap three, alex still leading",
    "my rover keeps pulling left on the corner",
    "bot pick a side",
    "alex cut the corner, that lap should not count",
    "rover1 battery is low, dock it",
    "i dare you to make this harder",
    "last lap, everyone to the line",
    "sam you drift like a shopping cart",
    "the lift is in the way of the lap",
    "rover2 back on the dock, charging",
    "alex wins the lap by a wheel",
    "rematch, same corner, same rovers",
    "lights are too dim on the corner",
    "who is driving rover3 next lap",
]
# The same room, ten minutes later: the race is over and food is the topic.
DINNER = [
    "ok im starving",
    "pizza after this?",
    "yes pizza, pepperoni for me",
    "who is ordering the pizza",
    "get two pizza boxes, sam pays",
    "pineapple on pizza is a crime",
    "garlic bread too",
    "pizza is 20 minutes out",
]


def test_words_that_carry_no_topic_are_left_out():
    assert content_words("go go go") == frozenset()
    assert content_words("Overseer, is the PIZZA here?", ignore=["overseer"]) == {"pizza"}


def test_a_steady_topic_never_triggers():
    watch = TopicWatch(ignore=["Overseer"])
    assert [watch.observe(line) for line in RACE * 3] == [None] * len(RACE) * 3
    # The demo's crowd, a thousand lines drawn at random from its ten: one topic, never a change.
    for seed in range(5):
        pick, crowd = random.Random(seed), TopicWatch(ignore=["Overseer"])
        assert not any(crowd.observe(pick.choice(CROWD_LINES)) for _ in range(1000)), seed


def test_a_change_of_topic_triggers_once():
    watch = TopicWatch(ignore=["Overseer"])
    seen = [watch.observe(line) for line in RACE + DINNER + DINNER[1:5]]
    changes = [(index - len(RACE), topic) for index, topic in enumerate(seen) if topic]
    assert len(changes) == 1
    at, topic = changes[0]
    assert 0 < at < len(DINNER) and "pizza" in topic


def test_the_gate_names_a_topic_change_between_a_challenge_and_a_world_event():
    gate = Gate(GateConfig(min_gap=0), now=0)
    for second, line in enumerate(RACE, 1):
        gate.observe_chat("alex", line, bot=False, now=second)
        trigger = gate.tick(second)  # bursts and heartbeats come and go meanwhile
        if line == "i dare you to make this harder":
            assert trigger.kind is TriggerKind.CHALLENGE
    for second, line in enumerate(DINNER[:4], 100):
        gate.observe_chat("sam", line, bot=False, now=second)
    gate.observe_world("docked", "rover1", now=104)
    trigger = gate.tick(104)
    assert trigger.kind is TriggerKind.TOPIC_CHANGE and "pizza" in trigger.detail
    assert TriggerKind.WORLD_EVENT in trigger.coalesced
