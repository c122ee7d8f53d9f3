"""One decision: context → model → normalise → execute → facts and voice → post.

The overseer states the room itself: a line opens with the facts it writes from Home Assistant's
own data (core/facts.py), what the decision's calls did or why not and the state of each device
the line is about or the asker named; the model's words follow as its voice, each sentence kept
only when it says nothing of the room (core/voice.py). A decision asks the model once, and once
more only when the first answer is unusable.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from math import inf
from typing import Any

from homeassistant.core import HomeAssistant

from .const import LOGGER, OverseerMode, Phase
from .core.accounts import Phrase, held_call
from .core.acts import Deed, Device, room_devices, shows_done, stated_devices
from .core.approvals import ApprovalSource
from .core.audit import AuditRecord, Outcome
from .core.context import (
    CallTurn,
    ChatLine,
    InputSummary,
    asker,
    build_messages,
    closing_cue,
    describe_trigger,
    render_moment,
    render_room,
    render_state_update,
    select_transcript,
    summarise,
)
from .core.decision import Decision, Mode, normalise, with_line
from .core.facts import NOT_CALLED, Said, call_deed, facts_for
from .core.gate import ASKER_CHARS, SOLICITED, Trigger, TriggerKind
from .core.language import base_language, language_of, say_it_in
from .core.line import about_keys, compose_line
from .core.line_rules import Note
from .core.metrics import AddressOutcome, Metrics
from .core.policy import Availability, availability, configured_tools, tool_schemas, vocabulary
from .core.reply import ModelReply, Spent
from .core.requests import asked_deeds, fulfils, named_devices
from .core.results import call_result
from .core.staleness import Answer, Fact, OwnAction, StaleReason, judge, room_facts
from .core.text import fold, one_line
from .core.tools import CHAT_TOOLS, call_for, call_text
from .core.unseen import asks_unseen
from .core.voice import Dropped, Voice, kinds_named
from .core.world import World
from .events import fire_chat_message, fire_chat_typing, fire_decision
from .executor import OWN, Caller, Executor
from .phrases import async_phrases
from .providers import ModelError, Provider
from .recognition import async_recogniser
from .room_state import RoomState
from .settings import Settings
from .words import async_line_words

# The overseer's own lines for a room owed one (translations quiet_line_0…): the next one every
# few minutes, so the room does not hear the same words twice running.
QUIET_LINES = 3
QUIET_LINE_TURN = 60.0
# Where the fallback line names who asked.
ASKER = "[user]"
# A line nobody asked for that only says again one of the overseer's lines of the transcript's
# window is no new line: scripts/develop said "The lift is already down." three times in eight
# minutes, each out of sight of the last two. An answer is held to the last two only: asked the
# same again, the same answer is the right one.
OWN_LINES_HELD_UNASKED = 12
# The one request after an unusable answer to someone (no call and no line it may post). Told
# "alex is waiting for your answer", the bundled model said "I'm waiting for your answer.".
LINE_OWED = (
    "Not SKIP: {who} asked you. Answer {who} in one short line of your own: an answer, an opinion or a"
    " verdict."
)
# Added when the words ask for an act that may run now: the answer may be its call.
CALL_OWED = " Or do what {who} asked: call {call}."
# The second request after a line with no call, when the words ask for an act that may run now.
CALL_ASKED = "{who} asked you for that, and you may do it now: call {call}, or say in one short line why not."
# Audit records looked at for the overseer's own recent actions (the budget bounds how many ran).
OWN_ACTIONS_LOOKED_AT = 20
# The moment's clock line (core/context.py render_moment).
TIME_LINE = "time:"
# Earlier decisions whose calls the transcript shows, and calls shown of each.
TURNS_SHOWN = 4
CALLS_SHOWN = 4


@dataclass
class Cycle:
    """What one decision saw, asked, got and did: the debug card's main subject."""

    decision_id: str
    trigger: Trigger
    mode: OverseerMode
    state_update: str = ""
    model_input: InputSummary | None = None
    # The bounded transcript the model read, for the card's chat panel.
    transcript: tuple[ChatLine, ...] = ()
    tools: Availability = field(default_factory=lambda: Availability((), ()))
    reply: ModelReply | None = None
    # What each of its calls returned, as the decisions after it read them.
    tool_results: tuple[str, ...] = ()
    # The answer to the decision's second request, when one was made.
    line_reply: ModelReply | None = None
    decision: Decision | None = None
    latency: float | None = None
    # Its requests' tokens: with the latency, what the card and the demo check set beside the floor.
    spent: Spent = field(default_factory=Spent)
    stale_reason: StaleReason | None = None
    actions: list[AuditRecord] = field(default_factory=list)
    # The language the line is asked in: the asker's, else the room's.
    language: str = ""
    # In an answer to someone, the acts on a room device their words ask for (none: no act at
    # all); None when the decision answers nobody.
    asked: frozenset[Deed] | None = None
    # The offered call that does it, written out in the cue, if it may run now, and its tool.
    call: str = ""
    call_name: str = ""
    suggested: tuple[str, dict[str, Any]] | None = None
    # The lines it posted, in order: the answer Assist returns (at most a few per decision).
    said: list[str] = field(default_factory=list)
    # The words ask about a thing no device of the room shows: the model is not asked.
    unseen: bool = False

    @property
    def stale(self) -> bool:
        """The line was judged not to fit the room any more."""
        return self.stale_reason is not None


@dataclass(frozen=True, slots=True)
class CycleParts:
    """What a decision works with: the room's settings, state, model and the shell's hooks."""

    hass: HomeAssistant
    settings: Settings
    state: RoomState
    provider: Provider
    prompts: dict[OverseerMode, str]
    executor: Executor
    metrics: Metrics
    world: Callable[[], World]
    now: Callable[[], float]
    set_phase: Callable[[Phase], None]
    # The model answered: whatever happens next, it is healthy again.
    model_answered: Callable[[], None]
    # The overseer's own words outside the model's (a call that waits for a person).
    phrase: Phrase


async def async_run_cycle(parts: CycleParts, cycle: Cycle, transcript: Sequence[ChatLine]) -> None:
    """gate_check → awaiting_model → tool_exec → posted/idle.

    One request; a second only when the first answer is unusable (someone asked, and it has no
    call and no line). The calls run through the executor; the line is the overseer's facts, then
    the model's voice. A model failure raises ModelError.
    """
    settings, state = parts.settings, parts.state
    parts.set_phase(Phase.GATE_CHECK)
    started = parts.now()
    world = parts.world()
    before = room_facts(world)
    control = cycle.mode is OverseerMode.CONTROL
    if control:
        cycle.tools = availability(world, state.ledger, settings.limits, started)
        if cycle.trigger.owed:
            # A line owed to a quiet room is only a line: nobody asked for anything to be done.
            cycle.tools = cycle.tools.only(tuple(CHAT_TOOLS))
    trigger_line = describe_trigger(cycle.trigger, started)
    cycle.state_update = render_state_update(world, trigger_line, state.ledger, settings.limits, started)
    seen = transcript
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
        # Others' later lines wait for their own turn: shown them, the bundled model answered a
        # question put to it after the one it was asked (an orchestrator's refinement answered the
        # next asker's "is the bench light on?"), then took that one for answered and said SKIP.
        trigger = cycle.trigger
        seen = [
            line
            for line in transcript
            if line.ts <= trigger.since or line.own or one_line(line.user, ASKER_CHARS) == trigger.detail
        ]
    lines = select_transcript(seen, started, settings.bounds)
    cycle.transcript = tuple(lines)
    room_language = _room_language(parts)
    addressed = cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS
    cycle.language = language_of(cycle.trigger.question, room_language) if addressed else room_language
    if addressed:
        # What the words ask for, recognised before the model is asked: the decision may do
        # that or nothing, never its opposite or something else instead, and nothing to the
        # room when the words ask for nothing ("roast rover 3" once raised the lift).
        recogniser = await async_recogniser(parts.hass, cycle.language)
        named = (settings.name, *settings.gate.aliases)
        cycle.asked = asked_deeds(cycle.trigger.question, room_devices(world), recogniser, named)
        cycle.unseen = (
            not cycle.asked
            and not kinds_named(cycle.trigger.question)
            and asks_unseen(cycle.trigger.question, cycle.language, recogniser.unseen, _shown_names(world))
        )
    say_it = say_it_in(cycle.language, room_language)
    # The call that does what was asked, if it may run now and the room does not show it done
    # already: the model still decides whether to.
    only = next(iter(cycle.asked)) if cycle.asked and len(cycle.asked) == 1 else None
    suggested = (
        call_for(only, cycle.tools.available) if control and only and not _shown_done(only, world) else None
    )
    cycle.call = call_text(*suggested) if suggested else ""
    cycle.call_name = suggested[0] if suggested else ""
    cycle.suggested = suggested
    may_act = control and cycle.asked != frozenset()
    cue = closing_cue(cycle.trigger, settings.name, can_act=may_act, say_it_in=say_it, call=cycle.call) or ""
    messages = build_messages(
        parts.prompts[cycle.mode],
        settings.name,
        render_room(world),
        lines,
        cycle.tools,
        cue,
        moment=render_moment(world, trigger_line, state.ledger, settings.limits, started),
        turns=_call_turns(parts, lines),
    )
    cycle.model_input = summarise(messages)
    schemas = tool_schemas(cycle.tools.available, world, settings.limits)
    cycle.latency = 0.0
    if cycle.unseen:
        # Whatever the model said of it would be made up: the room's own answer needs no request.
        decision, asked_with = Decision(Mode.SKIP), messages
    else:
        # The room sees the overseer typing from its first request to its line.
        fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=True)
        try:
            decision, asked_with = await _async_decide(
                parts, cycle, transcript, lines, messages, schemas, cue
            )
        finally:
            fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=False)
    cycle.decision = decision
    finished = parts.now()
    cycle.stale_reason = _judge(parts, cycle, before, finished)
    parts.metrics.record_decision(finished, cycle.latency, decision.mode.value, cycle.stale_reason)
    if Note.REPEAT_DROPPED in decision.notes or Note.CHAT_SAID_BACK in decision.notes:
        parts.metrics.record_chat(finished, repeated=True)
    # The overseer's own words, in the language of whoever asked.
    phrase = await _async_phrase_in(parts, cycle.language)
    said, quip = await _async_line(parts, cycle, decision, asked_with, phrase)
    if cycle.stale and quip.kept:
        # Written for a room that has moved on: the facts, written after, still hold.
        quip = Voice(dropped=(*quip.dropped, *((sentence, Dropped.STALE) for sentence in quip.kept)))
    line = " ".join(part for part in (said.text, quip.text) if part)
    _count_held_back(parts.metrics, finished, quip)
    cycle.decision = with_line(decision, quip.text or None)
    posted = False
    since = finished - settings.bounds.minutes * 60
    if (
        line
        and not state.dry_run
        and (addressed or not cycle.stale)
        and not _said_lately(transcript, cycle, (line, quip.text), since)
    ):
        parts.metrics.record_chat(finished, repeated=False)
        _post(parts, cycle, line, fixed=not quip.kept, facts=said, quip=quip.text)
        posted = True
    if cycle.trigger.owed and not posted and not state.dry_run:
        # The room has not heard the overseer for its quiet limit, and there is no line it may
        # post: its own, which states nothing the room could contradict.
        _post(
            parts, cycle, phrase(f"quiet_line_{int(finished // QUIET_LINE_TURN) % QUIET_LINES}"), fixed=True
        )
        posted = True
    if addressed and not state.dry_run:
        posted = _answer_the_question(parts, cycle, posted, finished, phrase) or posted
    fire_decision(
        parts.hass,
        decision_id=cycle.decision_id,
        trigger=cycle.trigger.kind.value,
        mode=cycle.decision.mode.value,
        latency_ms=round(cycle.latency * 1000),
        stale=cycle.stale,
        spent=cycle.spent,
        stale_reason=cycle.stale_reason.value if cycle.stale_reason else None,
        quip=None if decision.chat is None else "posted" if quip.kept and posted else "dropped",
        quip_dropped=[reason for _, reason in quip.dropped],
    )
    parts.set_phase(Phase.POSTED if posted else Phase.IDLE)


async def _async_decide(
    parts: CycleParts,
    cycle: Cycle,
    transcript: Sequence[ChatLine],
    lines: Sequence[ChatLine],
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    cue: str,
) -> tuple[Decision, list[dict[str, Any]]]:
    """Ask (again if an answer to someone is unusable), run the calls; return the decision and its request."""
    settings = parts.settings
    world = parts.world()
    control = cycle.mode is OverseerMode.CONTROL
    reply = await _async_ask(parts, cycle, messages, schemas)
    cycle.reply = reply
    parts.model_answered()
    # A copy of its last lines (the seed's anti-repeat context), or of someone's line it read, is
    # no new line.
    own = [line for line in transcript if line.own]
    last = len(own) - max(settings.bounds.bot_messages, 2)
    asked = cycle.trigger.kind in SOLICITED
    since = inf if asked else parts.now() - settings.bounds.minutes * 60
    latest = [line.read for index, line in enumerate(own) if index >= last or line.ts >= since]
    # Its own turns it read too: its fixed sentences left out of the window, those reach further back.
    said = list(
        dict.fromkeys([*(line.read for line in lines if line.own), *latest[-OWN_LINES_HELD_UNASKED:]])
    )
    read = [line.text for line in lines if not line.own and not line.bot]
    bots_read = [line.text for line in lines if not line.own and line.bot]
    question = cycle.trigger.question if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS else ""
    check = partial(
        normalise,
        name=settings.name,
        vocabulary=vocabulary(world, settings.limits, include_missing=True),
        own_lines=said,
        chat_read=read,
        bots_read=bots_read,
        rules=settings.rules,
        question=question,
        known_tools=configured_tools(world) if control else (),
        shown_tools=cycle.tools.shown,
    )
    # Its instruction, not the question quoted above it (an answer may use the asker's words).
    decision = check(reply, cue=cue.rpartition("\n")[2])
    asked_with = messages
    # Unusable: an answer to someone with no call and no line, or with no call when the act they
    # asked for may run now (its line would stand beside an act left undone: it is not posted).
    unusable = not decision.intents and (decision.chat is None or bool(cycle.call_name))
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS and unusable:
        decision, asked_with = await _async_line_owed(parts, cycle, decision, messages, schemas, check)
    cycle.decision = decision
    await _async_execute(parts, cycle, decision)
    cycle.tool_results = tuple(
        json.dumps(call_result(record)[0], ensure_ascii=False) for record in cycle.actions
    )
    return decision, asked_with


async def _async_line_owed(
    parts: CycleParts,
    cycle: Cycle,
    decision: Decision,
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    check: Callable[..., Decision],
) -> tuple[Decision, list[dict[str, Any]]]:
    """Ask once more when an answer to someone is unusable: the decision's second request.

    Addressed by name, the bundled 1.5B model said SKIP to about one question in six; told so,
    with its answer before it, it says its line. Asked for an act it may do, it answered about
    two in three with a line and no call, often a promise ("Ok, I will do that."); told so, it
    calls. The request is the first one and two messages more, with the same tools, so a server's
    prompt cache serves all but those. A backend that can hold an answer to a call holds this one
    to a line or the call the words ask for: asked again in words, the bundled model promised
    again or wrote on to the token limit.
    """
    who = asker(cycle.trigger, parts.settings.name)
    if decision.chat is None:
        cue = LINE_OWED.format(who=who) + (CALL_OWED.format(who=who, call=cycle.call) if cycle.call else "")
    else:
        cue = CALL_ASKED.format(who=who, call=cycle.call)
    cue += say_it_in(cycle.language, _room_language(parts))
    answered = decision.chat if decision.chat is not None else "SKIP"
    again = [*messages, {"role": "assistant", "content": answered}, {"role": "user", "content": cue}]
    held_to = (*((cycle.call_name,) if cycle.call_name else ()), *CHAT_TOOLS)
    try:
        reply = await _async_ask(parts, cycle, again, schemas, must_call=held_to)
    except ModelError as err:
        LOGGER.warning("Model call failed (%s) when asked again for its answer; its first stands", err)
        return decision, messages
    second = check(reply, cue=cue)
    if not second.intents and second.chat is None:
        # Nothing more: the first answer stands, its line as it was.
        return with_line(decision, decision.chat, Note.LINE_ASKED_FOR, *second.notes), again
    cycle.line_reply = reply
    return (
        Decision(
            second.mode,
            second.intents,
            second.chat,
            (*decision.rejections, *second.rejections),
            (*decision.notes, Note.LINE_ASKED_FOR, *second.notes),
            second.about,
        ),
        again,
    )


async def _async_line(
    parts: CycleParts, cycle: Cycle, decision: Decision, asked_with: list[dict[str, Any]], phrase: Phrase
) -> tuple[Said, Voice]:
    """Return the line's facts and the model's voice after them (core/line.py composes them).

    Beside the decision's calls: the asked-for act a guardrail held or the model left undone. The
    line is about the devices the model's line names in `about` and those the asker named (by
    name, or by their kind: "the lights").
    """
    world = parts.world()
    devices = stated_devices(world)
    words = await async_line_words(parts.hass, cycle.language, parts.settings.limits.colour_names)
    records = list(cycle.actions)
    for extra in (_held_record(cycle, devices), _undone_record(cycle, records)):
        if extra is not None:
            records.append(extra)
    about: list[str] = []
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
        # What the asker named first: the model's `about` may not crowd it out of the facts' bound.
        question = cycle.trigger.question
        named = [device.key for device, _ in named_devices(question, devices)]
        # A kind named with no device ("are the lights on?") asks of each; "the bench light" of one.
        kinds = frozenset() if named else kinds_named(question)
        about += [*named, *(device.key for device in devices if device.kind.value in kinds)]
    about += about_keys(decision.about, devices)
    if cycle.unseen:
        said = facts_for(records, devices, about, words.facts, phrase)
        return Said(said.facts, (*said.sentences, phrase("fact_unseen"))), Voice()
    # The time's figures are the clock's: "Kim bet 45 euros." at 21:45 was no figure it was shown.
    shown = "\n".join(
        text
        for message in asked_with
        for text in str(message.get("content") or "").splitlines()
        if not text.startswith(TIME_LINE)
    )
    return compose_line(
        decision.chat,
        records,
        devices,
        about,
        words.facts,
        words.voice,
        phrase,
        shown=shown,
        # Its instruction, the request's last line; the question quoted above it an answer may use.
        told=_told(asked_with),
        language=cycle.language,
        asked=cycle.asked,
    )


def _shown_names(world: World) -> list[str]:
    """Return the name and aliases of everything the room shows: its devices, counter and other entities."""
    shown = [name for device in stated_devices(world) for name in device.names]
    entities = [*(entity for rover in world.rovers for _, entity in rover.fields), *world.extras]
    if world.counter is not None:
        entities.append(world.counter)
    return [*shown, *(name for entity in entities for name in (entity.name, *entity.aliases) if name)]


def _shown_done(deed: Deed, world: World) -> bool:
    """Return whether the room shows an asked-for act done already ("raise the lift" with the lift up)."""
    device = next((device for device in stated_devices(world) if device.key == deed.device), None)
    return device is not None and shows_done(device, deed)


def _undone_record(cycle: Cycle, records: Sequence[AuditRecord]) -> AuditRecord | None:
    """Return the asked-for act the model could do and left undone, as a record of that, if it did.

    "overseer raise the lift" answered "Ok, I will do that." with no call: the room hears that the
    overseer decided not to, never the promise.
    """
    if cycle.suggested is None or not cycle.asked:
        return None
    for record in records:
        deed = call_deed(record)
        if deed is not None and fulfils(cycle.asked, deed):
            return None
    tool, arguments = cycle.suggested
    return AuditRecord(0.0, cycle.decision_id, tool, arguments, Outcome.BLOCKED, NOT_CALLED)


def _call_turns(parts: CycleParts, lines: Sequence[ChatLine]) -> list[CallTurn]:
    """Return the overseer's own calls of the decisions the chat's window spans, with their results.

    At most TURNS_SHOWN decisions and each one's first CALLS_SHOWN calls: the model reads what
    came of its calls as seed 000's step 7 has it, the transcript's bound holds.
    """
    if not lines:
        return []
    since = lines[0].ts
    by_decision: dict[str, list[AuditRecord]] = {}
    # Oldest first: each decision's calls in the order it made them.
    for record in reversed(parts.state.audit.latest(OWN_ACTIONS_LOOKED_AT)):
        if record.source in (None, OWN) and record.ts >= since and isinstance(record.arguments, dict):
            by_decision.setdefault(record.decision_id, []).append(record)
    turns = [
        CallTurn(
            records[0].ts,
            tuple((record.tool, record.arguments) for record in records[:CALLS_SHOWN]),
            tuple(json.dumps(call_result(record)[0], ensure_ascii=False) for record in records[:CALLS_SHOWN]),
        )
        for records in by_decision.values()
    ]
    return sorted(turns, key=lambda turn: turn.ts)[-TURNS_SHOWN:]


def _count_held_back(metrics: Metrics, now: float, quip: Voice) -> None:
    """Count the model's words held back, under the contract's two metrics.

    unbacked_claims: a line written before its calls' results, held back beside a call that did
    not run; false_statements: a sentence that spoke of the room, where the facts speak.
    """
    reasons = {reason for _, reason in quip.dropped}
    if Dropped.BEFORE_RESULTS in reasons:
        metrics.record_unbacked_claim(now)
    if reasons & {Dropped.NAMES_A_DEVICE, Dropped.STATES}:
        metrics.record_false_statement(now)


def _held_record(cycle: Cycle, devices: Sequence[Device]) -> AuditRecord | None:
    """Return the one asked-for act a guardrail holds, as the refusal it would meet, when no call tried it.

    With the call only listed as blocked, the bundled model claimed the deed or said SKIP; the
    asker is told why it cannot be done, as a fact.
    """
    if cycle.mode is not OverseerMode.CONTROL or any(
        record.tool not in CHAT_TOOLS for record in cycle.actions
    ):
        return None
    found = held_call(cycle.asked, cycle.tools.blocked, devices)
    if found is None:
        return None
    tool, arguments, block = found
    return AuditRecord(
        0.0, cycle.decision_id, tool, arguments, Outcome.BLOCKED, block.reason, block.remaining
    )


async def _async_ask(
    parts: CycleParts,
    cycle: Cycle,
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    *,
    must_call: tuple[str, ...] = (),
) -> ModelReply:
    """Ask the model once; its time adds to the decision's."""
    parts.set_phase(Phase.AWAITING_MODEL)
    clock = time.monotonic()
    try:
        reply = await parts.provider.async_decide(messages, schemas, must_call=must_call)
    finally:
        cycle.latency = (cycle.latency or 0.0) + time.monotonic() - clock
    cycle.spent = cycle.spent.add(reply)
    return reply


def _judge(parts: CycleParts, cycle: Cycle, before: dict[str, Fact], finished: float) -> StaleReason | None:
    """Whether the decision's line still fits the room it would be posted in."""
    window = finished - parts.settings.stale_after
    own = [
        OwnAction(record.tool, record.ts)
        for record in parts.state.audit.latest(OWN_ACTIONS_LOOKED_AT)
        if record.ran
        and record.ts > window
        # Another agent's action changes the room under the overseer like a person's would.
        and record.source in (None, OWN)
    ]
    answer = Answer(
        solicited=cycle.trigger.kind in SOLICITED,
        subject=cycle.trigger.detail,
        line=cycle.decision.chat if cycle.decision else None,
        age=finished - cycle.trigger.since,
    )
    return judge(answer, before, room_facts(parts.world()), own, parts.settings.stale_after)


def _room_language(parts: CycleParts) -> str:
    """Return the room's language: its option, else Home Assistant's."""
    return parts.settings.language or parts.hass.config.language


async def _async_phrase_in(parts: CycleParts, language: str) -> Phrase:
    """Return the overseer's own phrases in language: the room's are loaded already."""
    if base_language(language) == base_language(_room_language(parts)):
        return parts.phrase
    return await async_phrases(parts.hass, language)


def _said_lately(transcript: Sequence[ChatLine], cycle: Cycle, line: tuple[str, str], since: float) -> bool:
    """Return whether a line nobody asked for is one the overseer said since then.

    line: the whole line and the model's words in it (the transcript keeps those alone of a line
    that has them). Two world events a minute apart each stated "Lift is closed.": the room heard
    it already.
    """
    if cycle.trigger.kind in SOLICITED:
        return False
    wanted = {fold(text) for text in line if text}
    return any(
        said.own and said.ts >= since and bool({fold(said.text), fold(said.read)} & wanted)
        for said in transcript
    )


def _told(messages: Sequence[dict[str, Any]]) -> str:
    """Return what a request told the model: its rules, and its instruction (the last line).

    The question quoted above the instruction is the asker's, whose words an answer may use.
    """
    if not messages:
        return ""
    rules = str(messages[0].get("content") or "")
    return f"{rules}\n{str(messages[-1].get('content') or '').rpartition(chr(10))[2]}"


def _answer_the_question(
    parts: CycleParts, cycle: Cycle, posted: bool, finished: float, phrase: Phrase
) -> bool:
    """Someone asked: a line answers (the overseer's facts, the model's words); else the fallback does.

    Returns whether the fallback was posted.
    """
    if posted:
        outcome = (
            AddressOutcome.MODEL_LINE if cycle.decision and cycle.decision.chat else AddressOutcome.ACTED
        )
        parts.metrics.record_address(finished, outcome)
        return False
    parts.metrics.record_address(finished, AddressOutcome.FALLBACK)
    fallback = parts.settings.fallback_line
    if phrase is not parts.phrase and fallback == parts.phrase("no_answer", user=ASKER):
        # The built-in line, not one the user wrote: said in the asker's language.
        fallback = phrase("no_answer", user=ASKER)
    _post(parts, cycle, fallback.replace(ASKER, cycle.trigger.detail or ""), fixed=True)
    return True


def _post(
    parts: CycleParts, cycle: Cycle, line: str, *, fixed: bool, facts: Said | None = None, quip: str = ""
) -> None:
    """Post one of the overseer's lines where every bridge already listens, and keep it as said.

    fixed: no word of it is the model's, and the model does not read it back; facts: what it
    states, carried as data too; quip: the model's words at its end.
    """
    settings = parts.settings
    cycle.said.append(line)
    fire_chat_message(
        parts.hass,
        room=settings.room,
        user=settings.name,
        text=line,
        bot=True,
        decision_id=cycle.decision_id,
        # An answer to an orchestrated question belongs to its pipeline, like the other bots' answers.
        pipeline_id=cycle.trigger.pipeline_id or None,
        fixed=fixed,
        facts=[fact.as_event() for fact in facts.facts] if facts is not None else [],
        quip=quip,
    )


async def _async_execute(parts: CycleParts, cycle: Cycle, decision: Decision) -> list[AuditRecord]:
    """Audit what the normaliser refused, then run each intent through the guarded executor.

    Returns the records of the intents, the calls the decision really asked to run.
    """
    parts.set_phase(Phase.TOOL_EXEC)
    offered = frozenset(cycle.tools.available)
    for rejection in decision.rejections:
        cycle.actions.append(parts.executor.record_rejection(cycle.decision_id, rejection))
    trigger = cycle.trigger
    caller = Caller(
        OWN,
        asks_as=ApprovalSource.ASSIST if trigger.via_assist else ApprovalSource.CHAT,
        asker=trigger.detail if trigger.kind is TriggerKind.DIRECT_ADDRESS else "",
        # Only the one who asked may run on their grant: a moment nobody asked for is no one's.
        identity=trigger.identity if trigger.kind is TriggerKind.DIRECT_ADDRESS else "",
        asked=cycle.asked,
    )
    ran = []
    for intent in decision.intents:
        record = await parts.executor.async_execute(
            cycle.decision_id, intent.name, intent.arguments, offered, parts.state.dry_run, caller
        )
        ran.append(record)
        cycle.actions.append(record)
    return ran
