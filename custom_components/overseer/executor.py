"""The guarded executor: every call is asked of policy again at the instant it would run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import voluptuous as vol
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from .const import LOGGER, OverseerMode
from .core.approvals import Approval, ApprovalSource, Requester, covering_grant
from .core.audit import AuditRecord, Outcome
from .core.decision import RejectedCall
from .core.metrics import Metrics
from .core.policy import Verdict, check_call, planned_effect, room_tools
from .core.tools import Adjust, MemoryWrite, Refusal, Safety, ServiceCall, adjusted
from .core.world import World
from .events import fire_action
from .models import RoomState
from .settings import Settings

SERVICE_TIMEOUT = 15
# Who asked for a call, in the audit: the overseer itself, or another agent through the API.
OWN = "overseer"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a call runs for: the audit's source, and the context services are called with.

    asks_as is how a consequential call of theirs asks a person (None: it is only refused);
    asker the person whose words led to it, and incident_id the incident triage works on.
    """

    source: str = OWN
    context: Context | None = None
    asks_as: ApprovalSource | None = None
    asker: str = ""
    incident_id: str = ""

    @property
    def requester(self) -> Requester:
        """Who asks, as an approval or a grant is bound to them: the Home Assistant user too."""
        user_id = (self.context.user_id if self.context else None) or ""
        source = self.asks_as or ApprovalSource.TRIAGE
        return Requester(source, self.source, self.asker, user_id, self.incident_id)


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
    ) -> None:
        """Share the room's persistent state; changed() persists and refreshes entities."""
        self._now = now
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

    async def _async_call(self, effect: ServiceCall | Adjust, caller: Caller) -> None:
        """One Home Assistant action, bounded in time.

        An adjustment starts from the entity's value at this instant, not the one the model read;
        ValueError when it has none.
        """
        if isinstance(effect, Adjust):
            state = self._hass.states.get(effect.entity_id)
            if state is None:
                raise ValueError(f"{effect.entity_id} does not exist")
            effect = adjusted(effect, state.state, state.attributes)
        async with asyncio.timeout(SERVICE_TIMEOUT):
            await self._hass.services.async_call(
                effect.domain, effect.service, effect.data, blocking=True, context=caller.context
            )

    def triage_offer(self) -> frozenset[str]:
        """What a triage step or an approved step may call: the room's tools and triage's own.

        Triage is the control overseer's: off or in commentary, nothing is offered.
        """
        if self._state.mode is not OverseerMode.CONTROL:
            return frozenset()
        return frozenset(room_tools(self.world_now(), triage=True))

    def room_offer(self) -> frozenset[str]:
        """What another agent, or an approved call of the chat loop, may call: the room's tools.

        Every one of them in control mode (policy at the instant names the precise reason); none
        in commentary or off (that room acts for no one).
        """
        if self._state.mode is not OverseerMode.CONTROL:
            return frozenset()
        return frozenset(room_tools(self.world_now()))

    def offer_for(self, source: ApprovalSource) -> frozenset[str]:
        """What an approved call may run as, by who asked for it."""
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
    ) -> AuditRecord:
        """Audit one attempt (with the seconds to wait, when waiting helps), count it, tell automations."""
        now = self._now()
        record = self._state.audit.add(
            AuditRecord(now, decision_id, tool, arguments, outcome, reason, remaining, source, approval)
        )
        self._metrics.record_action(now, tool, outcome.value, reason)
        fire_action(self._hass, record)
        self._changed()
        return record

    def record_rejection(self, decision_id: str, rejection: RejectedCall) -> AuditRecord:
        """A call the normaliser refused is audited like one refused at execution."""
        return self.record(
            decision_id, rejection.name, rejection.arguments, Outcome.BLOCKED, rejection.reason.value
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
        async with self._lock:
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
            if isinstance(effect, MemoryWrite):
                self._state.memory.write(effect.slot, effect.text)
            elif isinstance(effect, ServiceCall | Adjust):
                try:
                    await self._async_call(effect, caller)
                except (HomeAssistantError, TimeoutError, ValueError, vol.Invalid) as err:
                    LOGGER.warning("%s failed: %s", name, err)
                    return self.record(
                        decision_id,
                        name,
                        clean,
                        Outcome.FAILED,
                        type(err).__name__,
                        source=caller.source,
                        approval=approval,
                    )
            # Cooldowns start and the budget is spent only when something really ran.
            self._state.ledger = self._state.ledger.after_execution(name, now, limits)
            return self.record(
                decision_id, name, clean, Outcome.EXECUTED, source=caller.source, approval=approval
            )
