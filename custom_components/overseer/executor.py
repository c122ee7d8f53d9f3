"""The guarded executor: every call is asked of policy again at the instant it would run."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from homeassistant.core import Context, HomeAssistant

from .const import LOGGER, OverseerMode
from .core.acts import Deed
from .core.approvals import Approval, ApprovalSource, ApprovalStatus, Requester, covering_grant
from .core.arguments import bounded_arguments
from .core.audit import AuditRecord, Failure, Outcome
from .core.decision import RejectedCall
from .core.metrics import Metrics
from .core.policy import Verdict, check_call, planned_effect, room_tools
from .core.tools import Adjust, MemoryWrite, Refusal, Safety, ServiceCall, adjusted
from .core.world import World
from .events import fire_action
from .handover import Change, Handover, Room
from .room_state import RoomState
from .settings import Settings

SERVICE_TIMEOUT = 15
# How long unloading waits for the calls in flight: most have ended by then. One still running
# (a slow lift) is handed to the room that loads next rather than cut short, so a reload is held
# no longer than this, and whatever the call does is still recorded as it happened.
HANDOVER_AFTER = 5
# Who asked for a call, in the audit: the overseer itself, or another agent through the API.
OWN = "overseer"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a call runs for: the audit's source, and the context services are called with.

    asks_as is how a consequential call of theirs asks a person (None: it is only refused);
    asker the person whose words led to it, identity whose request it is (identity.py), and
    incident_id the incident triage works on.
    """

    source: str = OWN
    context: Context | None = None
    asks_as: ApprovalSource | None = None
    asker: str = ""
    incident_id: str = ""
    identity: str = ""
    # In an answer to someone, the acts on a room device their words ask for (core/requests.py);
    # None when the call answers nobody's words.
    asked: frozenset[Deed] | None = None

    @property
    def requester(self) -> Requester:
        """Who asks, as an approval or a grant is bound to them: the Home Assistant user too."""
        user_id = (self.context.user_id if self.context else None) or ""
        source = self.asks_as or ApprovalSource.TRIAGE
        return Requester(source, self.source, self.asker, user_id, self.incident_id, self.identity)


OVERSEER = Caller()

# Asks a person about one checked call; None when too many wait already.
type AskPerson = Callable[[str, dict[str, Any], Caller], Approval | None]


class Executor:
    """Runs intents for one room and records every attempt."""

    def __init__(
        self,
        hass: HomeAssistant,
        settings: Settings,
        state: RoomState,
        metrics: Metrics,
        world_now: Callable[[], World],
        changed: Callable[[], None],
        now: Callable[[], float],
        ask: AskPerson,
        handover: Handover,
    ) -> None:
        """Share the room's persistent state; changed() persists and refreshes entities.

        handover takes what the calls still running when the room stops come to.
        """
        self._now = now
        self._handover = handover
        self._ask = ask
        self._hass = hass
        self._settings = settings
        self._state = state
        self._metrics = metrics
        self.world_now = world_now
        self._changed = changed
        # From the policy check to the ledger update, one call at a time: calls that overlap
        # (an agent's parallel tool calls, or one beside the overseer's own) must each see the
        # cooldowns and budget the others spent.
        self._lock = asyncio.Lock()
        # The tasks inside async_execute, from whichever caller: unloading waits for them.
        self._in_flight: set[asyncio.Task[Any]] = set()
        # The Home Assistant calls running, each in a task of its own (_async_send).
        self._sending: set[asyncio.Task[AuditRecord]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False
        # Those of both still running when the room stopped: what they come to goes to the next.
        self._handed: frozenset[asyncio.Task[Any]] = frozenset()

    @property
    def closing(self) -> bool:
        """The room is stopping: every call from now on is refused."""
        return self._closing

    async def async_close(self) -> None:
        """Refuse new calls, wait a little for those in flight, then hand on the ones still running.

        What ended by then is in the state the room writes last. A call still running goes on
        under its own bound, its cooldown and budget in that state already (counted when it was
        sent); its record, and the approval it runs for, go to the room loaded when it returns.
        """
        self._closing = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(HANDOVER_AFTER):
                await self._idle.wait()
        self._handed = frozenset({*self._in_flight, *self._sending})
        if self._sending:
            LOGGER.info("%d call(s) still running: handed to the room that loads next", len(self._sending))
        # The next room reads an approval left approved as cut short by a crash; this one runs on.
        for approval in self._state.approvals.values():
            if approval.status is ApprovalStatus.APPROVED:
                self.hand_on(partial(_resume, approval))

    @property
    def handing_on(self) -> bool:
        """Whether the current task's call outlived this room: what it comes to goes to the next."""
        return asyncio.current_task() in self._handed

    def hand_on(self, change: Change) -> None:
        """Give a change to the room of this entry loaded now (or the next one to load)."""
        self._handover.deliver(change)

    @contextlib.asynccontextmanager
    async def _call_in_flight(self) -> AsyncIterator[None]:
        """Count the current task's call as in flight until it has been recorded."""
        task = asyncio.current_task()
        assert task is not None, "called from a task"
        self._in_flight.add(task)
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight.discard(task)
            if not self._in_flight:
                self._idle.set()

    def _service_call(self, effect: ServiceCall | Adjust) -> ServiceCall:
        """Return the Home Assistant action to call.

        An adjustment starts from the entity's value at this instant, not the one the model read;
        ValueError when it has none.
        """
        if not isinstance(effect, Adjust):
            return effect
        state = self._hass.states.get(effect.entity_id)
        if state is None:
            raise ValueError(f"{effect.entity_id} does not exist")
        return adjusted(effect, state.state, state.attributes)

    async def _async_call(self, effect: ServiceCall, caller: Caller) -> None:
        """One Home Assistant action, bounded in time."""
        async with asyncio.timeout(SERVICE_TIMEOUT):
            await self._hass.services.async_call(
                effect.domain, effect.service, effect.data, blocking=True, context=caller.context
            )

    async def _async_send(
        self, name: str, call: ServiceCall, caller: Caller, outcome: Callable[[Failure | None], AuditRecord]
    ) -> AuditRecord:
        """Run the call in a task of its own and return its record, made by outcome when it ends.

        Its caller cancelled while the room stops (the decision an unload cancels) leaves it
        running: a reload never cuts a call short. Any other cancellation (a mode flip, an
        approver who went away) stops it, and it is audited as cancelled before this returns.
        """
        sent = self._hass.async_create_task(self._async_sent(name, call, caller, outcome), f"overseer {name}")
        self._sending.add(sent)
        sent.add_done_callback(self._sending.discard)
        try:
            return await asyncio.shield(sent)
        except asyncio.CancelledError:
            if not self._closing:
                sent.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sent
            raise

    async def _async_sent(
        self, name: str, call: ServiceCall, caller: Caller, outcome: Callable[[Failure | None], AuditRecord]
    ) -> AuditRecord:
        """Wait for the call (bounded) and record how it ended."""
        try:
            await self._async_call(call, caller)
        except asyncio.CancelledError:
            # Stopped mid-call: the command may have gone out, so the audit says what was sent.
            outcome(Failure.CANCELLED)
            raise
        except TimeoutError:
            LOGGER.warning("%s failed: no answer within %s s", name, SERVICE_TIMEOUT)
            return outcome(Failure.TIMEOUT)
        except Exception as err:  # whatever a service raises, it was called
            LOGGER.warning("%s failed: %s", name, err)
            return outcome(Failure.ERROR)
        return outcome(None)

    def triage_offer(self) -> frozenset[str]:
        """Return what a triage step or an approved step may call: the room's tools and triage's own.

        Triage is the control overseer's: off or in commentary, nothing is offered.
        """
        if self._state.mode is not OverseerMode.CONTROL:
            return frozenset()
        return frozenset(room_tools(self.world_now(), triage=True))

    def room_offer(self) -> frozenset[str]:
        """Return what another agent, or an approved call of the chat loop, may call: the room's tools.

        Every one of them in control mode (policy at the instant names the precise reason); none
        in commentary or off (that room acts for no one).
        """
        if self._state.mode is not OverseerMode.CONTROL:
            return frozenset()
        return frozenset(room_tools(self.world_now()))

    def offer_for(self, source: ApprovalSource) -> frozenset[str]:
        """Return what an approved call may run as, by who asked for it."""
        return self.triage_offer() if source is ApprovalSource.TRIAGE else self.room_offer()

    def record(
        self,
        decision_id: str,
        tool: str,
        arguments: Any,
        outcome: Outcome,
        reason: str | None = None,
        remaining: int | None = None,
        source: str = OWN,
        approval: str | None = None,
        truncated: bool = False,
    ) -> AuditRecord:
        """Audit one attempt (with the seconds to wait, when waiting helps), count it, tell automations.

        What the audit, the status and the event hold of the arguments is their bounded copy,
        whoever handed them in; truncated says they were cut before they got here.
        """
        kept = bounded_arguments(arguments)
        record = AuditRecord(
            self._now(),
            decision_id,
            tool,
            kept.value,
            outcome,
            reason,
            remaining,
            source,
            approval,
            truncated or kept.truncated,
        )
        if self.handing_on:  # this room has stopped: the one loaded now keeps the record
            self.hand_on(lambda room: room.records.adopt(record))
            fire_action(self._hass, record)
            return record
        self._keep(record)
        fire_action(self._hass, record)
        self._changed()
        return record

    def adopt(self, record: AuditRecord) -> None:
        """Keep the record of a call the room before this one handed on: it came back now."""
        self._keep(record)
        self._changed()

    def _keep(self, record: AuditRecord) -> None:
        self._state.audit.add(record)
        self._metrics.record_action(record.ts, record.tool, record.outcome.value, record.reason)

    def record_rejection(self, decision_id: str, rejection: RejectedCall) -> AuditRecord:
        """Audit a call the normaliser refused like one refused at execution."""
        return self.record(
            decision_id,
            rejection.name,
            rejection.arguments,
            Outcome.BLOCKED,
            rejection.reason.value,
            truncated=rejection.truncated,
        )

    async def async_execute(
        self,
        decision_id: str,
        name: str,
        arguments: dict[str, Any],
        offered: frozenset[str],
        dry_run: bool,
        caller: Caller = OVERSEER,
        claimed: Safety = Safety.READ,
        approval: str | None = None,
    ) -> AuditRecord:
        """Check, then run one call for its caller; never raises.

        claimed is the proposer's safety class (it can only raise the policy's); approval names
        the approval a person gave, which lets a consequential call run. Without one, a grant
        for this very call lets it run, or else a caller who may ask gets an approval request
        (outcome awaiting_approval, its id in the record's approval).
        """
        async with self._call_in_flight(), self._lock:
            # The room is stopping: the room that loads next takes calls. Arguments past the
            # bounds are judged as sent: more than the bounds hold is more than any tool takes.
            if self._closing or bounded_arguments(arguments).truncated:
                why = Refusal.NOT_AVAILABLE if self._closing else Refusal.INVALID_ARGUMENTS
                return self.record(
                    decision_id,
                    name,
                    arguments,
                    Outcome.BLOCKED,
                    why.value,
                    source=caller.source,
                    approval=approval,
                )
            now = self._now()
            world = self.world_now()
            limits = self._settings.limits
            verdict = check_call(
                name,
                arguments,
                offered,
                world,
                self._state.ledger,
                limits,
                now,
                claimed,
                approval is not None,
                caller.asked,
            )
            needs_person = verdict.refusal is not None and verdict.refusal.reason is Refusal.NEEDS_APPROVAL
            if needs_person and dry_run:  # recorded below as what it would be; nobody's phone rings
                verdict = Verdict(verdict.arguments)
            elif needs_person and caller.asks_as:
                grant = covering_grant(
                    self._state.grants.values(),
                    name,
                    verdict.arguments,
                    caller.requester,
                    now,
                    self._settings.max_grant_minutes * 60,
                )
                if grant is not None:
                    verdict, approval = Verdict(verdict.arguments), grant.grant_id
                elif (asked := self._ask(name, verdict.arguments, caller)) is not None:
                    return self.record(
                        decision_id,
                        name,
                        verdict.arguments,
                        Outcome.AWAITING_APPROVAL,
                        Refusal.NEEDS_APPROVAL.value,
                        source=caller.source,
                        approval=asked.approval_id,
                    )
            if verdict.refusal is not None:
                refusal = verdict.refusal
                return self.record(
                    decision_id,
                    name,
                    arguments,
                    Outcome.BLOCKED,
                    refusal.reason.value,
                    refusal.remaining,
                    caller.source,
                    approval,
                )
            clean = verdict.arguments
            if dry_run:
                return self.record(
                    decision_id, name, clean, Outcome.DRY_RUN, source=caller.source, approval=approval
                )
            effect = planned_effect(name, clean, world)

            def outcome(failure: Failure | None) -> AuditRecord:
                return self.record(
                    decision_id,
                    name,
                    clean,
                    Outcome.EXECUTED if failure is None else Outcome.FAILED,
                    None if failure is None else failure.value,
                    source=caller.source,
                    approval=approval,
                )

            call: ServiceCall | None = None
            if isinstance(effect, MemoryWrite):
                self._state.memory.write(effect.slot, effect.text)
            elif isinstance(effect, ServiceCall | Adjust):
                try:
                    call = self._service_call(effect)
                except ValueError as err:
                    # Nothing was called, so nothing was reached: it spends no cooldown or budget.
                    LOGGER.warning("%s failed before it was called: %s", name, err)
                    return outcome(Failure.ERROR)
            # A call handed to Home Assistant starts its group's cooldown and spends the budget
            # whatever comes back: the device may act before the service raises or the wait ends
            # (a light that turns on, then reports an error). Counted as it is sent, a call still
            # running when the room stops is in the state the room hands on.
            self._state.ledger = self._state.ledger.after_execution(name, now, limits)
            if call is None:
                return outcome(None)
            return await self._async_send(name, call, caller, outcome)


def _resume(approval: Approval, room: Room) -> None:
    room.approvals.resume(approval)
