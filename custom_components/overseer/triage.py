"""Incident triage: one model call per incident through the room's backend, its intents through policy.

The reply must validate as a ReasoningResponse or it is rejected, audited and asked again
later with back-off. Each intent goes through the executor like any call (site locks,
cooldowns, budget, allowlist, arguments) with the model's safety class, which can only raise
the policy's: read and reversible calls that policy allows run; consequential ones wait for a
person's approval. No model output becomes anything but a registry tool's call.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .approvals import ApprovalDesk
from .const import DOMAIN, LOGGER
from .core.approvals import ApprovalSource
from .core.audit import AuditRecord, Outcome
from .core.incidents import Incident, IncidentStatus
from .core.reasoning import (
    RESPONSE_SCHEMA,
    InvalidResponse,
    ReasoningResponse,
    ToolIntent,
    build_request,
    parse_response,
    score_knowledge,
    sections,
)
from .core.text import one_line
from .core.tools import Refusal, Safety, call_text
from .core.triage import (
    WAITING,
    IntentOutcome,
    IntentResult,
    asks_a_person,
    interrupted,
    moot,
    rejected,
    started,
    triaged,
    unreachable,
)
from .executor import Caller, Executor
from .health import ModelHealthCoordinator
from .providers import ModelError, ModelTimeout, Provider
from .room_state import RoomState
from .settings import Settings

KNOWLEDGE_DIR = Path(__file__).parent / "knowledge"
# Bounds on what is read from the knowledge folders.
MAX_KNOWLEDGE_FILES = 20
MAX_KNOWLEDGE_BYTES = 20_000
TRIAGE = "triage"
ASKABLE = WAITING | {Refusal.NEEDS_APPROVAL}
ERROR_CHARS = 200

type Documents = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Briefing:
    """What triage is told, read from files at setup: its system prompt and the knowledge sections."""

    prompt: str
    knowledge: Documents


def load_knowledge(config_dir: Path) -> Documents:
    """Load the sections of the user's knowledge files, then of the shipped ones they do not replace.

    Blocking: run it in the executor.
    """
    found: dict[str, Path] = {}
    for folder in (config_dir / DOMAIN / "knowledge", KNOWLEDGE_DIR):
        if folder.is_dir():
            for path in sorted(folder.glob("*.md")):
                found.setdefault(path.name, path)
    documents: list[tuple[str, str]] = []
    for name, path in list(found.items())[:MAX_KNOWLEDGE_FILES]:
        with path.open("rb") as file:
            text = file.read(MAX_KNOWLEDGE_BYTES).decode("utf-8", errors="replace")
        documents.extend(sections(name, text))
    return tuple(documents)


@dataclass(frozen=True, slots=True)
class TriageParts:
    """What triage needs from the room beyond its incidents: who runs calls, who is asked, with what."""

    executor: Executor
    provider: Provider
    # The model's health: an unreachable model backs triage off with the chat loop.
    health: ModelHealthCoordinator
    briefing: Briefing


class Triage:
    """Runs one incident's triage at a time, inside the room's single flight."""

    def __init__(
        self,
        settings: Settings,
        state: RoomState,
        parts: TriageParts,
        approvals: ApprovalDesk,
        put: Callable[[Incident], None],
        now: Callable[[], float],
    ) -> None:
        """Share the room's state; put stores an incident and tells everyone it changed."""
        self._now = now
        self._settings = settings
        self._state = state
        self._parts = parts
        self._executor = parts.executor
        self._approvals = approvals
        self._put = put
        # What the intents of the triage under way became, for an interruption half-way.
        self._outcomes: list[IntentOutcome] = []

    async def async_run(self, incident_id: str) -> None:
        """Ask the model about one incident and act on what policy allows; never raises but cancel."""
        try:
            await self._async_triage(incident_id)
        except asyncio.CancelledError:
            self._interrupted(incident_id)
            raise
        except Exception as err:  # a bug must not leave the incident triaging for ever
            LOGGER.exception("Triage of %s failed unexpectedly", incident_id)
            self._reject(incident_id, f"{type(err).__name__}: {err}")

    async def _async_triage(self, incident_id: str) -> None:
        incident = self._state.incidents[incident_id]
        self._outcomes = []
        knowledge = score_knowledge(self._parts.briefing.knowledge, incident)
        request = build_request(incident, self._state.incidents.values(), knowledge)
        body = json.dumps(request, ensure_ascii=False)
        sources = ", ".join(f"{item['source']} ({item['score']})" for item in request["knowledge"])
        self._put(started(incident, self._now(), f"{len(body)} chars; knowledge: {sources or 'none'}"))
        messages = [
            {"role": "system", "content": self._parts.briefing.prompt},
            {"role": "user", "content": body},
        ]
        health = self._parts.health
        try:
            # A conversation agent has no deadline of its own: the single flight must not hang.
            async with asyncio.timeout(self._settings.request_timeout):
                text = await self._parts.provider.async_reason(messages, RESPONSE_SCHEMA)
        except (ModelError, TimeoutError) as err:
            error = (
                err
                if isinstance(err, ModelError)
                else ModelTimeout("no answer in time", "model_no_answer_in_time")
            )
            wait = health.record_failure(error, self._settings.gate_interval)
            self._back_off(incident_id, wait, f"{type(error).__name__}: {error}")
            return
        health.record_success()
        try:
            response = parse_response(text)
        except InvalidResponse as err:
            self._reject(incident_id, f"{type(err).__name__}: {err}")
            return
        current = self._state.incidents.get(incident_id)
        if current is None or current.status is not IncidentStatus.TRIAGING:
            return  # closed or taken over while the model thought
        if current.cleared_at is not None:
            self._put(moot(current, self._now()))
            return
        for intent in response.tool_intents:
            self._outcomes.append(await self._async_intent(current, response, intent))
        self._put(
            triaged(
                self._state.incidents[incident_id],
                response,
                self._outcomes,
                self._now(),
                self._settings.verify_after,
                bool(self._approvals.pending(incident_id)),
            )
        )

    async def _async_intent(
        self, incident: Incident, response: ReasoningResponse, intent: ToolIntent
    ) -> IntentOutcome:
        """One intent through the executor; a consequential one that policy allows asks a person."""
        arguments = dict(intent.arguments)
        call = one_line(call_text(intent.name, arguments), ERROR_CHARS)
        caller = Caller(TRIAGE, asks_as=ApprovalSource.TRIAGE, incident_id=incident.incident_id)
        record = await self._executor.async_execute(
            incident.incident_id,
            intent.name,
            arguments,
            self._executor.triage_offer(),
            self._state.dry_run,
            caller,
            claimed=response.safety_class,
        )
        outcome, reason = record.outcome, record.reason or ""
        if outcome is Outcome.AWAITING_APPROVAL:
            return IntentOutcome(call, IntentResult.AWAITING_APPROVAL, record.approval or "")
        # A consequential step that only has to wait (a cooldown, a lock) asks a person too: by
        # the time one answers it may run. Only a registry tool whose arguments checked out.
        if outcome is Outcome.BLOCKED and asks_a_person(
            reason,
            self._settings.limits.safety(intent.name) if reason in ASKABLE else Safety.READ,
            response.safety_class,
        ):
            approval = self._approvals.request(intent.name, record.arguments, caller)
            if approval is None:
                return IntentOutcome(call, IntentResult.BLOCKED, "too many approvals waiting")
            return IntentOutcome(call, IntentResult.AWAITING_APPROVAL, approval.approval_id)
        return IntentOutcome(call, IntentResult(outcome.value), reason, record.remaining_s)

    def _reject(self, incident_id: str, why: str) -> None:
        """In the audit (no call event: nothing was called); asked again later, or a person takes over."""
        why = one_line(why, ERROR_CHARS)
        self._state.audit.add(
            AuditRecord(
                self._now(),
                incident_id,
                TRIAGE,
                {"rejected": why},
                Outcome.BLOCKED,
                Refusal.INVALID_ARGUMENTS.value,
                source=TRIAGE,
            )
        )
        current = self._state.incidents.get(incident_id)
        if current is not None and current.status is IncidentStatus.TRIAGING:
            self._put(rejected(current, self._now(), why))

    def _back_off(self, incident_id: str, wait: float, why: str) -> None:
        """Back off when the model could not be asked: the incident waits as long as the chat loop does."""
        current = self._state.incidents.get(incident_id)
        if current is not None and current.status is IncidentStatus.TRIAGING:
            self._put(unreachable(current, self._now(), wait, why))

    def _interrupted(self, incident_id: str) -> None:
        """Handle a cancel half-way (a mode flip, an unload): what ran is verified, what waits still waits."""
        current = self._state.incidents.get(incident_id)
        if current is not None and current.status is IncidentStatus.TRIAGING:
            ran = [outcome.call for outcome in self._outcomes if outcome.result is IntentResult.EXECUTED]
            pending = bool(self._approvals.pending(incident_id))
            self._put(interrupted(current, self._now(), ran, pending, self._settings.verify_after))
