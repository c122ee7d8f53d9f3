"""One decision: context → model → normalise → execute → post."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from homeassistant.core import HomeAssistant

from .const import OverseerMode, Phase
from .core.accounts import Phrase, describe_actions, refusal_answer
from .core.approvals import ApprovalSource
from .core.audit import AuditRecord, Outcome
from .core.context import (
    LIVELY,
    ChatLine,
    InputSummary,
    build_messages,
    closing_cue,
    deeds_told,
    describe_trigger,
    render_state_update,
    select_transcript,
    summarise,
)
from .core.decision import NOTE_REPEAT_DROPPED, NOTE_UNBACKED_CLAIM_DROPPED, Decision, backed, normalise
from .core.gate import SOLICITED, Deed, Trigger, TriggerKind
from .core.metrics import AddressOutcome, Metrics
from .core.policy import Availability, availability, configured_tools, tool_schemas, vocabulary
from .core.reply import ModelReply
from .core.staleness import Answer, Fact, OwnAction, StaleReason, judge, room_facts
from .core.tools import CHAT_TOOLS, deed_text
from .core.world import World
from .events import fire_chat_message, fire_chat_typing, fire_decision
from .executor import OWN, Caller, Executor
from .providers import Provider
from .room_state import RoomState
from .settings import Settings

# A question gets the model twice at most before the fallback line answers it.
ASKS_PER_QUESTION = 2
# Where the fallback line names who asked.
ASKER = "[user]"
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
    decision: Decision | None = None
    latency: float | None = None
    stale_reason: StaleReason | None = None
    actions: list[AuditRecord] = field(default_factory=list)

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
    """gate_check → awaiting_model → tool_exec → posted/idle; a model failure raises ModelError."""
    settings, state = parts.settings, parts.state
    parts.set_phase(Phase.GATE_CHECK)
    started = parts.now()
    world = parts.world()
    before = room_facts(world)
    control = cycle.mode is OverseerMode.CONTROL
    if control:
        cycle.tools = availability(world, state.ledger, settings.limits, started)
        if cycle.trigger.acted:
            # What was asked for already ran: this decision is for the line. Offered its tools
            # again, a small model acts again (the same memory_write twice) instead of speaking.
            cycle.tools = cycle.tools.only(tuple(CHAT_TOOLS))
    cycle.state_update = render_state_update(
        world, describe_trigger(cycle.trigger), state.ledger, settings.limits, started
    )
    lines = select_transcript(transcript, started, settings.bounds)
    if cycle.trigger.attempt:
        # Asked again, the first answer was unusable, most often a copy of an earlier line: a small
        # model copies what its context holds, so this time it reads only the people.
        lines = [line for line in lines if not line.own]
    cycle.transcript = tuple(lines)
    cue = closing_cue(cycle.trigger, lines, settings.name, can_act=control) or ""
    messages = build_messages(
        parts.prompts[cycle.mode], settings.name, cycle.state_update, lines, cycle.tools, cue
    )
    cycle.model_input = summarise(messages)
    schemas = tool_schemas(cycle.tools.available, world, settings.limits)
    parts.set_phase(Phase.AWAITING_MODEL)
    fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=True)
    clock = time.monotonic()
    try:
        reply = await parts.provider.async_decide(messages, schemas)
    finally:
        cycle.latency = time.monotonic() - clock
        fire_chat_typing(parts.hass, room=settings.room, user=settings.name, typing=False)
    cycle.reply = reply
    parts.model_answered()
    # A copy of its last lines (the seed's anti-repeat context), or of someone's line it read, is
    # no new line.
    said = [line.text for line in transcript if line.own][-max(settings.bounds.bot_messages, 2) :]
    recent = said + [line.text for line in lines if not line.own]
    cycle.decision = decision = normalise(
        reply,
        name=settings.name,
        known_tools=configured_tools(world) if control else (),
        shown_tools=cycle.tools.shown,
        vocabulary=vocabulary(world, settings.limits, include_missing=True),
        recent_lines=recent,
        rules=settings.rules,
        question=cycle.trigger.question if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS else "",
        deeds_told=deeds_told(cycle.trigger),
        # Its instruction, not the question quoted above it (an answer may use the asker's words).
        cue=cue.rpartition("\n")[2],
    )
    # Run first: whether an announced action was refused decides whether its line still fits.
    ran = await _async_execute(parts, cycle, decision)
    # A line about what the question's earlier decision did is backed by that deed.
    cycle.decision = decision = backed(
        decision,
        [record.tool for record in ran if record.outcome in (Outcome.EXECUTED, Outcome.DRY_RUN)]
        + [deed.tool for deed in cycle.trigger.acted],
    )
    finished = parts.now()
    cycle.stale_reason = _judge(parts, cycle, ran, before, finished)
    parts.metrics.record_decision(finished, cycle.latency, decision.mode.value, cycle.stale_reason)
    if NOTE_REPEAT_DROPPED in decision.notes:
        parts.metrics.record_chat(finished, repeated=True)
    if NOTE_UNBACKED_CLAIM_DROPPED in decision.notes:
        parts.metrics.record_unbacked_claim(finished)
    posted = bool(decision.chat) and not cycle.stale and not state.dry_run
    if posted:
        parts.metrics.record_chat(finished, repeated=False)
        _post(parts, decision.chat or "", cycle.decision_id)
    # Whatever the model said, the room hears the truth: the call waits for a person.
    waiting = [record for record in ran if record.outcome is Outcome.AWAITING_APPROVAL]
    if waiting and not state.dry_run and (line := describe_actions(waiting, parts.phrase)):
        _post(parts, line, cycle.decision_id)
    # Someone is waiting for a reply; a manual trigger (the service) may well end in a SKIP.
    if cycle.trigger.kind is TriggerKind.DIRECT_ADDRESS and not state.dry_run:
        posted = _answer_the_question(parts, cycle, posted, finished) or posted
    elif cycle.trigger.kind in LIVELY and not cycle.trigger.attempt and NOTE_REPEAT_DROPPED in decision.notes:
        # A lively moment met with a copy of its own line (what a small model does with its lines
        # in view): once more, without them, if the moment is still fresh by then.
        parts.ask_again(cycle.trigger)
    fire_decision(
        parts.hass,
        decision_id=cycle.decision_id,
        trigger=cycle.trigger.kind.value,
        mode=decision.mode.value,
        latency_ms=round(cycle.latency * 1000),
        stale=cycle.stale,
        stale_reason=cycle.stale_reason.value if cycle.stale_reason else None,
    )
    parts.set_phase(Phase.POSTED if posted else Phase.IDLE)


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
        announced_refused=bool(cycle.decision and cycle.decision.chat) and refused,
    )
    return judge(answer, before, room_facts(parts.world()), own, parts.settings.stale_after)


def _answer_the_question(parts: CycleParts, cycle: Cycle, posted: bool, finished: float) -> bool:
    """Someone asked: a line, or the asked-for action, answers; otherwise ask again, then fall back.

    An action that ran without a line is followed by a decision for the line, so the asker hears
    from the overseer, as from any Home Assistant agent after its tools ran; the room saw the deed
    already, so that line is tried once more at most and never falls back. Returns whether a
    fallback line was posted.
    """
    trigger = cycle.trigger
    if trigger.acted:
        if not posted and trigger.attempt < ASKS_PER_QUESTION:
            parts.ask_again(trigger)
        return False
    ran = [action for action in cycle.actions if action.ran]
    # A call that waits for a person answers too: the room was told it waits.
    waiting = any(action.outcome is Outcome.AWAITING_APPROVAL for action in cycle.actions)
    if posted or ran or waiting:
        outcome = AddressOutcome.MODEL_LINE if posted else AddressOutcome.ACTED
        parts.metrics.record_address(finished, outcome)
        if not posted and ran:
            parts.ask_again(
                # Counted afresh: the line gets its two tries whichever try acted.
                replace(
                    trigger, attempt=0, acted=tuple(Deed(r.tool, deed_text(r.tool, r.arguments)) for r in ran)
                )
            )
        return False
    if trigger.attempt < ASKS_PER_QUESTION - 1:
        parts.metrics.record_address(finished, AddressOutcome.ASKED_AGAIN)
        parts.ask_again(trigger)
        return False
    parts.metrics.record_address(finished, AddressOutcome.FALLBACK)
    # A call a guardrail stopped: the asker hears what was tried and why, not that nothing came of it.
    line = refusal_answer(
        cycle.actions, trigger.detail, parts.phrase
    ) or parts.settings.fallback_line.replace(ASKER, trigger.detail or "")
    _post(parts, line, cycle.decision_id)
    return True


def _post(parts: CycleParts, line: str, decision_id: str) -> None:
    """One of the overseer's lines, where every bridge already listens."""
    settings = parts.settings
    fire_chat_message(
        parts.hass, room=settings.room, user=settings.name, text=line, bot=True, decision_id=decision_id
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
    )
    ran = []
    for intent in decision.intents:
        record = await parts.executor.async_execute(
            cycle.decision_id, intent.name, intent.arguments, offered, parts.state.dry_run, caller
        )
        ran.append(record)
        cycle.actions.append(record)
    return ran
