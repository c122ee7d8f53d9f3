"""One decision: context → model → normalise → execute → post."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from math import inf
from typing import Any

from homeassistant.core import HomeAssistant

from .const import LOGGER, OverseerMode, Phase
from .core.accounts import Phrase, blocked_answer, blocked_why, describe_actions, refusal_answer, state_answer
from .core.acts import Deed, Device, device_name, device_names, expected_state, room_devices, stated_devices
from .core.approvals import ApprovalSource
from .core.audit import AuditRecord, Outcome
from .core.context import (
    LIVELY,
    ChatLine,
    InputSummary,
    after_calls_cue,
    asker,
    build_messages,
    closing_cue,
    describe_trigger,
    label,
    render_moment,
    render_room,
    render_state_update,
    select_transcript,
    summarise,
    tool_turn,
)
from .core.decision import Decision, backed, normalise, with_line
from .core.figures import unshown_figures
from .core.gate import ASKER_CHARS, SOLICITED, Trigger, TriggerKind
from .core.language import LANGUAGE_NAMES, base_language, language_of, say_it_in
from .core.line_rules import Note
from .core.metrics import AddressOutcome, Metrics
from .core.policy import Availability, availability, configured_tools, tool_schemas, vocabulary
from .core.reply import ModelReply, Spent
from .core.requests import asked_deeds, named_devices
from .core.results import call_result
from .core.staleness import Answer, Fact, OwnAction, StaleReason, judge, room_facts
from .core.statements import FalseStatement, false_statements, kind_nouns
from .core.text import one_line
from .core.tools import CHAT_TOOLS, TOOLS, call_for, call_text
from .core.world import World
from .events import fire_chat_message, fire_chat_typing, fire_decision
from .executor import OWN, Caller, Executor
from .phrases import async_phrases, async_state_words
from .providers import ModelError, Provider
from .recognition import async_recogniser
from .room_state import RoomState
from .settings import Settings
from .words import async_words

# A question gets the model twice at most before the fallback line answers it.
ASKS_PER_QUESTION = 2
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
# Results a decision's model reads back at most (max_tool_calls is at most 5; the rest are refusals).
RESULTS_SHOWN = 8
# The request after a false line: that it is not so, what the room shows, what ran; then what to
# do. The false line is its answer just before, and is not quoted again: quoted last, the bundled
# model said it back word for word ("The shelf light is purple." to a shelf light that was off).
NOT_SO = "statement_check: that is not so. "
ROOM_SHOWS = "The room shows {facts}; this decision ran: {ran}. "
# After a deed its own call did, credited to the asker ("You switched the corner light off.").
YOUR_CALL = "Your call did it, not them: say it as yours. "
# After a figure nothing it read holds ("The final score was 10-10."): the figure is not quoted
# back as a fact, only as what it does not know.
FIGURE_UNKNOWN = "Nothing you were shown says {figures}: you do not know it. "
TRUE_LINE_CUE = "Say one short line that is true, or SKIP."
# After a figure it made up for someone who asked, nothing else wrong and no call made: told only
# to say a true line, the bundled model said the same made-up score three times over ("The score
# is 1-1."); told to say it does not know, it did, and with the figure unquoted it did not say it
# back ("no hay nada que indique 10 puntos"): 5 of 5 in a replay of the tuning part's "what is the
# score" and "cuántos puntos". The asker stands apart from the instruction: "Do not know it,
# alex." is no copy of the cue's words.
FIGURE_NOT_KNOWN = (
    "Nothing you were shown holds that figure: you do not know it. {who} asked. Say you do not know"
    " it, in one short line of your own."
)
# How many times a false line is sent back with the facts before it is dropped (after calls: once).
TRUTH_ASKS = 2
# The request after an answer that called nothing when the asker's words asked for an offered call.
# Told "You called nothing." first, the bundled model said "I did not call anything." to the room.
CALL_OR_SAY_WHY = "If you do what {who} asked, call {call} now; if not, say why in one short line."
# The request after an answer to someone that has no line, or one in another language than theirs.
# Told "alex is waiting for your answer", the bundled model said "I'm waiting for your answer.".
LINE_OWED = (
    "Not SKIP: {who} asked you. Answer {who} in one short line of your own: an answer, an opinion or a"
    " verdict."
)
# Told "alex asked in Spanish: say your line again, in Spanish.", it said the same English line
# again or the question back; asked to translate it, it did (6 of 6, a tuning-part lab replay).
LINE_IN_LANGUAGE = "Translate your line into {language} for {who}."
# What a decision's calls did, what its refused calls would have done, and the overseer's deeds
# of earlier decisions: what a line's deeds are held to.
type Deeds = tuple[tuple[Deed, ...], tuple[Deed, ...], tuple[Deed, ...]]
# Audit records looked at for the overseer's own recent actions (the budget bounds how many ran).
OWN_ACTIONS_LOOKED_AT = 20


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
    # After calls: each one's result as the model read it, and its answer (the line).
    tool_results: tuple[str, ...] = ()
    # The states those results reported ("Shelf: off"): said back, they are no line.
    result_states: tuple[str, ...] = ()
    line_reply: ModelReply | None = None
    # The line was said in that answer, knowing the results (not the first answer's, said before).
    line_knew: bool = False
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
    # The lines it posted, in order: the answer Assist returns (at most a few per decision).
    said: list[str] = field(default_factory=list)

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
    # Put a question back for the model once more.
    ask_again: Callable[[Trigger], None]
    # The overseer's own words outside the model's (a call that waits for a person).
    phrase: Phrase


async def async_run_cycle(parts: CycleParts, cycle: Cycle, transcript: Sequence[ChatLine]) -> None:
    """gate_check → awaiting_model → tool_exec → awaiting_model (the results) → posted/idle.

    Seed 000's loop: the model's calls run through the executor and their results, refusals
    included, go back to the model in the same decision, which then says its line knowing them.
    A model failure raises ModelError.
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
    if cycle.trigger.attempt:
        # Asked again, the first answer was unusable, most often a copy of an earlier line: a small
        # model copies what its context holds, so this time it reads only the people.
        lines = [line for line in lines if not line.own]
    cycle.transcript = tuple(lines)
    room_language = _room_language(parts)
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
        cycle.language = language_of(cycle.trigger.question, room_language)
    else:
        cycle.language = room_language
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
        # What the words ask for, recognised before the model is asked: the decision may do
        # that or nothing, never its opposite or something else instead, and nothing to the
        # room when the words ask for nothing ("roast rover 3" once raised the lift).
        recogniser = await async_recogniser(parts.hass, cycle.language)
        named = (settings.name, *settings.gate.aliases)
        cycle.asked = asked_deeds(cycle.trigger.question, room_devices(world), recogniser, named)
    say_it = say_it_in(cycle.language, room_language)
    # The call that does what was asked, if it may run now: the model still decides whether to.
    only = next(iter(cycle.asked)) if cycle.asked and len(cycle.asked) == 1 else None
    suggested = call_for(only, cycle.tools.available) if control and only else None
    cycle.call = call_text(*suggested) if suggested else ""
    cycle.call_name = suggested[0] if suggested else ""
    may_act = control and cycle.asked != frozenset()
    # Said in the cue's language (English) whatever the room's: the cue asks for the asker's.
    english = await _async_phrase_in(parts, "en")
    devices = room_devices(world)
    held = (
        blocked_why(cycle.asked, cycle.tools.blocked, english, device_names(devices), devices)
        if control
        else None
    )
    cue = (
        closing_cue(
            cycle.trigger, settings.name, can_act=may_act, say_it_in=say_it, call=cycle.call, held=held
        )
        or ""
    )
    messages = build_messages(
        parts.prompts[cycle.mode],
        settings.name,
        render_room(world),
        lines,
        cycle.tools,
        cue,
        moment=render_moment(world, trigger_line, state.ledger, settings.limits, started),
    )
    cycle.model_input = summarise(messages)
    schemas = tool_schemas(cycle.tools.available, world, settings.limits)
    cycle.latency = 0.0
    # The room sees the overseer typing from its first request to its line.
    fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=True)
    try:
        decision, ran = await _async_decide(parts, cycle, transcript, lines, messages, schemas, cue)
    finally:
        fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=False)
    cycle.decision = decision = backed(
        decision,
        [record.tool for record in ran if record.outcome in (Outcome.EXECUTED, Outcome.DRY_RUN)],
    )
    finished = parts.now()
    cycle.stale_reason = _judge(parts, cycle, ran, before, finished)
    parts.metrics.record_decision(finished, cycle.latency, decision.mode.value, cycle.stale_reason)
    if Note.REPEAT_DROPPED in decision.notes or Note.CHAT_SAID_BACK in decision.notes:
        parts.metrics.record_chat(finished, repeated=True)
    if Note.UNBACKED_CLAIM_DROPPED in decision.notes:
        parts.metrics.record_unbacked_claim(finished)
    posted = bool(decision.chat) and not cycle.stale and not state.dry_run
    if posted:
        parts.metrics.record_chat(finished, repeated=False)
        _post(parts, cycle, decision.chat or "", fixed=False)
    # The overseer's own words, in the language of whoever asked.
    phrase = await _async_phrase_in(parts, cycle.language)
    # Whatever the model said, the room hears the truth: the call waits for a person.
    waiting = [record for record in ran if record.outcome is Outcome.AWAITING_APPROVAL]
    if (
        waiting
        and not state.dry_run
        and (line := describe_actions(waiting, phrase, device_names(room_devices(parts.world()))))
    ):
        # Not fixed: the model knows of a call waiting for a person only from this line.
        _post(parts, cycle, line, fixed=False)
    if cycle.trigger.owed and not posted and not state.dry_run:
        # The room has not heard the overseer for its quiet limit, and the model gave no line it
        # may post: its own, which states nothing the room could contradict.
        _post(
            parts, cycle, phrase(f"quiet_line_{int(finished // QUIET_LINE_TURN) % QUIET_LINES}"), fixed=True
        )
        posted = True
    # Someone is waiting for a reply; a manual trigger (the service) may well end in a SKIP.
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS and not state.dry_run:
        posted = await _async_answer_the_question(parts, cycle, posted, finished, phrase) or posted
    elif (
        cycle.trigger.kind in LIVELY
        and not cycle.trigger.attempt
        and (Note.REPEAT_DROPPED in decision.notes or Note.CHAT_SAID_BACK in decision.notes)
    ):
        # A lively moment met with a copy of its own line (what a small model does with its lines
        # in view), or of a person's: once more, without its own, if the moment is still fresh.
        parts.ask_again(cycle.trigger)
    fire_decision(
        parts.hass,
        decision_id=cycle.decision_id,
        trigger=cycle.trigger.kind.value,
        mode=decision.mode.value,
        latency_ms=round(cycle.latency * 1000),
        stale=cycle.stale,
        spent=cycle.spent,
        stale_reason=cycle.stale_reason.value if cycle.stale_reason else None,
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
) -> tuple[Decision, list[AuditRecord]]:
    """Ask, run the calls, and after any call ask for the line knowing their results."""
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
    latest = [line.text for index, line in enumerate(own) if index >= last or line.ts >= since]
    # Its own turns it read too: its fixed sentences left out of the window, those reach further back.
    said = list(
        dict.fromkeys([*(line.text for line in lines if line.own), *latest[-OWN_LINES_HELD_UNASKED:]])
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
    )
    cycle.decision = decision = check(
        reply,
        known_tools=configured_tools(world) if control else (),
        shown_tools=cycle.tools.shown,
        # Its instruction, not the question quoted above it (an answer may use the asker's words).
        cue=cue.rpartition("\n")[2],
    )
    ran = await _async_execute(parts, cycle, decision)
    conversation = messages
    if control and cycle.call and not cycle.actions:
        decision, ran, conversation = await _async_call_asked_again(parts, cycle, messages, schemas, check)
        cycle.decision = decision
    if control and cycle.actions:
        decision, conversation = await _async_line_after_calls(parts, cycle, conversation, check)
        check = partial(check, results_read=cycle.result_states)
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
        decision, conversation = await _async_line_owed(parts, cycle, decision, conversation, schemas, check)
    decision = await _async_true_line(parts, cycle, decision, ran, conversation, check)
    return decision, ran


async def _async_call_asked_again(
    parts: CycleParts,
    cycle: Cycle,
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    check: Callable[..., Decision],
) -> tuple[Decision, list[AuditRecord], list[dict[str, Any]]]:
    """Ask once more when the words asked for a call it may make and it made none.

    The bundled 1.5B model, its cue naming the call, answered about two action requests in
    three with a line and no call ("Ok, I will do that."). Told it called nothing, it may call
    now or say why not: the model still decides, the policy still judges the call. The request
    is the first one with two messages more, so a server's prompt cache serves all but those.
    Its answer must be a call (chat_say says the why): asked in words again, the same model
    promised again or said it could not, in one answer out of two.
    """
    first = cycle.decision
    assert first is not None
    who = asker(cycle.trigger, parts.settings.name)
    cue = CALL_OR_SAY_WHY.format(who=who, call=cycle.call) + say_it_in(cycle.language, _room_language(parts))
    again = [
        *messages,
        {"role": "assistant", "content": first.chat or "SKIP"},
        {"role": "user", "content": cue},
    ]
    try:
        # Its answer is the asked call or a line: another tool (memory_write needs no asking) may not
        # stand in for what the asker is waiting for.
        reply = await _async_ask(parts, cycle, again, schemas, must_call=(cycle.call_name, *CHAT_TOOLS))
    except ModelError as err:
        LOGGER.warning("Model call failed (%s) when asked again for the call; its first answer stands", err)
        return first, [], messages
    world = parts.world()
    decision = check(reply, known_tools=configured_tools(world), shown_tools=cycle.tools.shown, cue=cue)
    ran = await _async_execute(parts, cycle, decision)
    # Without a call, its new line says why (the first may have promised what it did not do).
    line = decision.chat if decision.chat is not None or decision.intents else first.chat
    return with_line(decision, line, Note.CALL_ASKED_AGAIN), ran, again


async def _async_line_owed(
    parts: CycleParts,
    cycle: Cycle,
    decision: Decision,
    conversation: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    check: Callable[..., Decision],
) -> tuple[Decision, list[dict[str, Any]]]:
    """Ask once more, held to a line, when someone asked and the answer has none or is in another language.

    Addressed by name, the bundled 1.5B model said SKIP to about one question in six (mostly
    about the room's state), on both of the decisions a question gets, and answered Spanish
    questions in English now and then ("Lift down."): the asker then heard the overseer's own
    sentence, or words they did not ask in. Told so, with its answer before it, it says its line
    (or translates it into their language). The request is the conversation so far and two
    messages more, with the same tools, so a server's prompt cache serves all but those.
    """
    chat = decision.chat
    who = asker(cycle.trigger, parts.settings.name)
    asked_in = base_language(cycle.language)
    if chat is None:
        cue = LINE_OWED.format(who=who) + say_it_in(cycle.language, _room_language(parts))
    elif asked_in in LANGUAGE_NAMES and language_of(chat, asked_in) != asked_in:
        cue = LINE_IN_LANGUAGE.format(who=who, language=LANGUAGE_NAMES[asked_in])
    else:
        return decision, conversation
    world = parts.world()
    # The tools the conversation's last request offered: after calls, only the chat.
    offered = _chat_only(parts, world) if cycle.tool_results else schemas
    again = [
        *conversation,
        {"role": "assistant", "content": chat or "SKIP"},
        {"role": "user", "content": cue},
    ]
    line = await _async_held_to_a_line(parts, cycle, again, offered, check)
    if line is None or line.chat is None:
        return decision, conversation
    # Said with the calls' results in view, it announces nothing they did not do.
    cycle.line_knew = cycle.line_knew or bool(cycle.tool_results)
    return with_line(decision, line.chat, Note.LINE_ASKED_FOR, *line.notes), again


async def _async_held_to_a_line(
    parts: CycleParts,
    cycle: Cycle,
    again: list[dict[str, Any]],
    offered: list[dict[str, Any]],
    check: Callable[..., Decision],
) -> Decision | None:
    """Ask once more, its answer held to chat_say; return the checked answer, None if the model failed.

    again ends with the request's cue, which the check is told so a line saying it back is none.
    """
    try:
        reply = await _async_ask(parts, cycle, again, offered, must_call=tuple(CHAT_TOOLS))
    except ModelError as err:
        LOGGER.warning("Model call failed (%s) when asked again for its line; its answer stands", err)
        return None
    line = check(
        reply, known_tools=configured_tools(parts.world()), shown_tools=CHAT_TOOLS, cue=again[-1]["content"]
    )
    for rejection in line.rejections:
        # Held to a line, it called a room tool (a server that cannot hold it to one): refused and
        # audited, but no act of this decision's: Assist answers from those ("couldn't raise the lift").
        parts.executor.record_rejection(cycle.decision_id, rejection)
    return line


async def _async_true_line(
    parts: CycleParts,
    cycle: Cycle,
    decision: Decision,
    ran: list[AuditRecord],
    conversation: list[dict[str, Any]],
    check: Callable[..., Decision],
) -> Decision:
    """Return the decision with a line the room does not contradict, or with none.

    A line that states a device's state the room contradicts, a deed no call of this decision
    did, or a figure nothing the model read holds (a made-up score), is never posted: the model
    is asked again with the facts, at most TRUTH_ASKS times, and a line still false is dropped
    (the overseer's own account of what ran answers instead).
    """
    if not decision.chat:
        return decision
    done = tuple(deed for record in ran if (deed := _deed(record)) is not None)
    refused = tuple(deed for record in ran if (deed := _deed(record, REFUSED)) is not None)
    earlier = tuple(
        deed
        for record in parts.state.audit.latest(OWN_ACTIONS_LOOKED_AT)
        if record.source in (None, OWN) and record.decision_id != cycle.decision_id
        if (deed := _deed(record)) is not None
    )
    devices = stated_devices(parts.world())
    deeds = (done, refused, earlier)
    # What the model read, not what it said: its own earlier answer holds no fact.
    # A message's text as the model read it: a JSON dump would glue a line's first number to "\n".
    read = [
        content
        if isinstance(content := message.get("content"), str)
        else json.dumps(message, ensure_ascii=False, default=str)
        for message in conversation
        if message.get("role") != "assistant"
    ]
    false, made_up = await _async_not_so(parts, cycle, decision.chat, read, devices, deeds)
    if not false and not made_up:
        return decision
    now = parts.now()
    for statement in false:
        if statement.deed:
            parts.metrics.record_unbacked_claim(now)
        else:
            parts.metrics.record_false_statement(now)
    if made_up:
        parts.metrics.record_false_statement(now)
    # What ran, with the device it left and how: "ran: ha_set_entity" alone named no light.
    ran_now = (
        ", ".join(
            f"{record.tool} ({after})"
            if (after := _state_after(record, parts.world(), done))
            else record.tool
            for record in ran
            if _deed(record)
        )
        or "nothing"
    )
    names = device_names(devices)
    told = conversation
    line: str = decision.chat
    notes: list[str] = []
    # A model that made a figure up once often makes up another ("500 euros", then "100"); told
    # both, it says it does not know. After calls (refused ones too) its line came from the
    # request with their results: one more, as the contract's loop allows.
    for _ask in range(1 if cycle.tool_results else TRUTH_ASKS):
        told_why = NOT_SO
        if false:
            facts = "; ".join(
                dict.fromkeys(f"{label(names.get(item.device, item.device))}: {item.truth}" for item in false)
            )
            told_why += ROOM_SHOWS.format(facts=facts, ran=ran_now)
            if any(item.yours for item in false):
                told_why += YOUR_CALL
        cue = TRUE_LINE_CUE
        if made_up and not false and not cycle.actions and cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS:
            cue = FIGURE_NOT_KNOWN.format(who=asker(cycle.trigger, parts.settings.name))
        elif made_up:
            told_why += FIGURE_UNKNOWN.format(figures=", ".join(made_up))
        told = [
            *told,
            {"role": "assistant", "content": line},
            {
                "role": "user",
                "content": told_why + cue + say_it_in(cycle.language, _room_language(parts)),
            },
        ]
        world = parts.world()
        try:
            reply = await _async_ask(parts, cycle, told, _chat_only(parts, world))
        except ModelError as err:
            # The false line is not posted whatever the model does; what ran is told in its own words.
            LOGGER.warning("Model call failed (%s) after a false line; the line is dropped", err)
            return with_line(decision, None, Note.FALSE_STATEMENT_DROPPED, *notes)
        # The facts it was told are its cue too: "The room shows Lift: open." only says them back.
        again = check(
            reply, known_tools=configured_tools(world), shown_tools=CHAT_TOOLS, cue=told[-1]["content"]
        )
        for rejection in again.rejections:
            # Offered only the chat, it called a room tool: refused and recorded, like any call.
            cycle.actions.append(parts.executor.record_rejection(cycle.decision_id, rejection))
        notes.extend(again.notes)
        if again.chat is None:
            break
        line = again.chat
        false, made_up = await _async_not_so(parts, cycle, line, read, devices, deeds)
        if not false and not made_up:
            said = [*told, {"role": "assistant", "content": line}]
            line, translated = await _async_in_their_language(parts, cycle, said, line, read, deeds, check)
            return with_line(decision, line, Note.FALSE_STATEMENT_ASKED_AGAIN, *notes, *translated)
    return with_line(decision, None, Note.FALSE_STATEMENT_DROPPED, *notes)


async def _async_not_so(
    parts: CycleParts,
    cycle: Cycle,
    line: str,
    read: Sequence[str],
    devices: Sequence[Device],
    deeds: Deeds,
) -> tuple[tuple[FalseStatement, ...], tuple[str, ...]]:
    """Return what the line states that the room contradicts, and the figures it makes up."""
    false = await _async_stated_falsely(parts, cycle.language, line, devices, deeds)
    return false, await _async_made_up(parts, cycle.language, line, read, devices)


async def _async_untrue(
    parts: CycleParts,
    cycle: Cycle,
    line: str,
    read: Sequence[str],
    deeds: Deeds,
) -> bool:
    """Return whether the line makes a figure up or states what the room shows false."""
    return any(await _async_not_so(parts, cycle, line, read, stated_devices(parts.world()), deeds))


async def _async_made_up(
    parts: CycleParts, asked_in: str, line: str, read: Sequence[str], devices: Sequence[Device]
) -> tuple[str, ...]:
    """Return the figures the line makes up: not read, no name's number, no count of the room's things.

    A count is read by the nouns of the asker's language and the line's ("2 rovers", "3 luces").
    """
    if not any(character.isdigit() for character in line):
        return ()
    has = Counter(device.kind for device in devices)
    counts: dict[str, int] = {}
    for language in dict.fromkeys((asked_in, language_of(line, asked_in))):
        nouns = kind_nouns(await async_words(parts.hass, language))
        counts |= {noun: has[kind] for noun, kind in nouns.items() if has[kind]}
    names = (name for device in devices for name in (device.key, *device.names))
    return unshown_figures(line, read, names, counts)


async def _async_in_their_language(
    parts: CycleParts,
    cycle: Cycle,
    said: list[dict[str, Any]],
    line: str,
    read: Sequence[str],
    deeds: Deeds,
    check: Callable[..., Decision],
) -> tuple[str, tuple[str, ...]]:
    """Return the true line said again in the asker's language, or as it is, and the notes of that.

    Asked again with the facts (and to say it in Spanish), the bundled model answered Spanish
    questions in English ("Lifted the elevator.", "OK, I did it."), after the language was
    checked. Asked to translate it, it does; a translation that is not in their language, or
    not true, is not said: the true line is.
    """
    asked_in = base_language(cycle.language)
    if (
        cycle.trigger.kind is not TriggerKind.DIRECT_ADDRESS
        or asked_in not in LANGUAGE_NAMES
        or language_of(line, asked_in) == asked_in
    ):
        return line, ()
    cue = LINE_IN_LANGUAGE.format(
        who=asker(cycle.trigger, parts.settings.name), language=LANGUAGE_NAMES[asked_in]
    )
    translation = await _async_held_to_a_line(
        parts, cycle, [*said, {"role": "user", "content": cue}], _chat_only(parts, parts.world()), check
    )
    if translation is None:
        return line, ()
    translated = translation.chat
    if (
        translated is None
        or language_of(translated, asked_in) != asked_in
        or await _async_untrue(parts, cycle, translated, read, deeds)
    ):
        return line, ()
    return translated, (Note.LINE_ASKED_FOR, *translation.notes)


async def _async_stated_falsely(
    parts: CycleParts,
    asked_in: str,
    line: str,
    devices: Sequence[Device],
    deeds: Deeds,
) -> tuple[FalseStatement, ...]:
    """Return what the line states falsely (deeds: those that ran, were refused, ran earlier).

    Read in the asker's language and in the one it is written in: asked in Spanish, the bundled
    model answered "Lift is open." of a closed lift, which Spanish words never read.
    """
    ran, refused, earlier = deeds
    found: dict[FalseStatement, None] = {}
    for language in dict.fromkeys((asked_in, language_of(line, asked_in))):
        words = await async_words(parts.hass, language)
        found |= dict.fromkeys(false_statements(line, devices, ran, words, refused, earlier))
    return tuple(found)


# Calls that ran (or would have, in a dry run), and calls a guardrail or a person holds back. A
# failed call is neither: the device may have acted.
RAN = frozenset({Outcome.EXECUTED, Outcome.DRY_RUN})
REFUSED = frozenset({Outcome.BLOCKED, Outcome.AWAITING_APPROVAL})


def _deed(record: AuditRecord, outcomes: frozenset[Outcome] = RAN) -> Deed | None:
    """Return what a call with one of these outcomes did (or would have done) to which device, if anything."""
    spec = TOOLS.get(record.tool)
    if record.outcome not in outcomes or spec is None or spec.deed is None:
        return None
    return spec.deed(record.arguments) if isinstance(record.arguments, dict) else None


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


async def _async_line_after_calls(
    parts: CycleParts, cycle: Cycle, messages: list[dict[str, Any]], check: Callable[..., Decision]
) -> tuple[Decision, list[dict[str, Any]]]:
    """Give the model its calls' results and take its line from the answer, with only chat_say offered.

    The decision keeps the first answer's calls; its line is the one said knowing what came of
    them, or, when that answer has none, the first answer's own (still checked against them).
    """
    first = cycle.decision
    assert first is not None
    world = parts.world()
    # The calls the decision asked to run first; a model that wrote dozens reads the first few.
    shown = cycle.actions[:RESULTS_SHOWN]
    done = tuple(deed for record in shown if (deed := _deed(record)) is not None)
    calls = [(record.tool, _sent(record.arguments)) for record in shown]
    states = [_state_after(record, world, done) for record in shown]
    results = [json.dumps(call_result(record, state)[0]) for record, state in zip(shown, states, strict=True)]
    cycle.tool_results = tuple(results)
    cycle.result_states = tuple(state for state in states if state)
    say_it = say_it_in(cycle.language, _room_language(parts))
    ran = any(record.outcome in (Outcome.EXECUTED, Outcome.DRY_RUN) for record in cycle.actions)
    cue = after_calls_cue(cycle.trigger, parts.settings.name, ran, say_it)
    follow = [*messages, *tool_turn(calls, results), {"role": "user", "content": cue}]
    chat_only = _chat_only(parts, world)
    try:
        reply = await _async_ask(parts, cycle, follow, chat_only)
    except ModelError as err:
        # The calls ran or were refused already: asked again, the question would run them again.
        LOGGER.warning("Model call failed (%s) after the decision's calls; answered without it", err)
        return with_line(first, first.chat if ran else None), follow
    cycle.line_reply = reply
    line = check(
        reply,
        known_tools=configured_tools(world),
        shown_tools=CHAT_TOOLS,
        cue=cue,
        results_read=cycle.result_states,
    )
    for rejection in line.rejections:
        # Offered only the chat, it called a room tool: refused and recorded, like any call.
        cycle.actions.append(parts.executor.record_rejection(cycle.decision_id, rejection))
    cycle.line_knew = line.chat is not None
    # Without a line of its own then, the first answer's line stands only beside a call that ran:
    # said before the results, it may announce what a guardrail or a person has not let happen.
    chat = line.chat if line.chat is not None else (first.chat if ran else None)
    return with_line(first, chat, *line.notes), follow


def _chat_only(parts: CycleParts, world: World) -> list[dict[str, Any]]:
    """Return the schemas of the chat tools alone: what a request for a line only offers."""
    return tool_schemas(tuple(CHAT_TOOLS), world, parts.settings.limits)


def _sent(arguments: Any) -> dict[str, Any]:
    """Return a call's arguments as the tool turn repeats them: a refused call's shown text in a field."""
    return arguments if isinstance(arguments, dict) else {"sent": str(arguments)}


def _state_after(record: AuditRecord, world: World, done: tuple[Deed, ...]) -> str:
    """Return the device a call that ran acts on, and its state as the deed leaves it ("Lift: open")."""
    deed = _deed(record)
    if not record.ran or deed is None:
        return ""
    device = next((device for device in room_devices(world) if device.key == deed.device), None)
    if device is None or not device.known:
        return ""
    device = expected_state(device, done)
    # Named: told only "on (purple)" after lighting Aux1, the bundled model said "The bench light
    # is now on." (its earlier line), three times.
    state = f"{device.state} ({device.colour})" if device.colour else device.state
    return f"{label(device_name(device))}: {label(state)}"


def _judge(
    parts: CycleParts, cycle: Cycle, ran: list[AuditRecord], before: dict[str, Fact], finished: float
) -> StaleReason | None:
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
    # The line went with calls and none of them ran: it announces something that did not happen.
    # (Calls the normaliser refused were never offered: a line beside them announces nothing.)
    outcomes = [action.outcome for action in ran]
    refused = bool(outcomes) and not {Outcome.EXECUTED, Outcome.DRY_RUN, Outcome.AWAITING_APPROVAL} & set(
        outcomes
    )
    answer = Answer(
        solicited=cycle.trigger.kind in SOLICITED,
        subject=cycle.trigger.detail,
        line=cycle.decision.chat if cycle.decision else None,
        age=finished - cycle.trigger.since,
        # A line said knowing the calls' results announces nothing they did not do.
        announced_refused=bool(cycle.decision and cycle.decision.chat) and refused and not cycle.line_knew,
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


async def _async_answer_the_question(
    parts: CycleParts, cycle: Cycle, posted: bool, finished: float, phrase: Phrase
) -> bool:
    """Someone asked: a line, or the asked-for action, answers; otherwise ask again, then fall back.

    An action that ran without a true line of the model's is told in the overseer's own words,
    as any Home Assistant agent answers after its tools ran. Returns whether a line of the
    overseer's own (that account, or the fallback) was posted.
    """
    trigger = cycle.trigger
    ran = [action for action in cycle.actions if action.ran]
    # A call that waits for a person answers too: the room was told it waits.
    waiting = any(action.outcome is Outcome.AWAITING_APPROVAL for action in cycle.actions)
    if posted or ran or waiting:
        outcome = AddressOutcome.MODEL_LINE if posted else AddressOutcome.ACTED
        parts.metrics.record_address(finished, outcome)
        if (
            not posted
            and ran
            and (account := describe_actions(ran, phrase, device_names(room_devices(parts.world()))))
        ):
            _post(parts, cycle, account, fixed=True)
            return True
        return False
    # A call a guardrail stopped: the asker hears what was tried and why, not that nothing came of
    # it; asked again, the model would only try the same call on the same guardrail.
    names = device_names(room_devices(parts.world()))
    why = refusal_answer(cycle.actions, trigger.detail, phrase, names) or blocked_answer(
        cycle.asked, cycle.tools.blocked, trigger.detail, phrase, names, room_devices(parts.world())
    )
    if why is None and trigger.attempt < ASKS_PER_QUESTION - 1:
        parts.metrics.record_address(finished, AddressOutcome.ASKED_AGAIN)
        parts.ask_again(trigger)
        return False
    if why is None and cycle.asked == frozenset():
        # Words that ask for no act and name a device: what the room shows of it answers them.
        named = named_devices(trigger.question, room_devices(parts.world()))
        words = await async_state_words(parts.hass, cycle.language) if named else {}
        why = state_answer(named, trigger.detail, words, phrase)
    parts.metrics.record_address(finished, AddressOutcome.FALLBACK)
    fallback = parts.settings.fallback_line
    if phrase is not parts.phrase and fallback == parts.phrase("no_answer", user=ASKER):
        # The built-in line, not one the user wrote: said in the asker's language.
        fallback = phrase("no_answer", user=ASKER)
    _post(parts, cycle, why or fallback.replace(ASKER, trigger.detail or ""), fixed=True)
    return True


def _post(parts: CycleParts, cycle: Cycle, line: str, *, fixed: bool) -> None:
    """Post one of the overseer's lines where every bridge already listens, and keep it as said.

    fixed: a sentence of the overseer's own, not the model's, which the model does not read back.
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
