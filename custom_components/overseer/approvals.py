"""Approvals the Home Assistant way: services, actionable notifications and the card.

A consequential call that policy allows waits here for a person, whoever asked for it (the chat
loop, Assist, another agent through the LLM API, triage). Only an approver (the approvers
option, else any administrator) may answer, once, before it expires, through the
`overseer.approve` / `overseer.deny` services, a notification's buttons (their action ids carry
an unguessable nonce; the pressing user is checked) or the card. An approved call goes through
the executor again, so policy decides at that instant. Every refused answer is audited; what
became of a call asked for in the chat (or through Assist) is said in the chat.

An approver may also grant the same call by the same requester for a while (bounded by the
max_grant_minutes option, off by default): it then runs without asking, still through policy.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from homeassistant.components import persistent_notification
from homeassistant.core import CALLBACK_TYPE, Context, Event, HomeAssistant, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.util import dt as dt_util

from .const import DOMAIN, EVENT_MOBILE_ACTION, LOGGER
from .core.accounts import Phrase, reason_key
from .core.approvals import (
    TOLD_IN_CHAT,
    AnswerRefused,
    Approval,
    ApprovalSource,
    ApprovalStatus,
    Grant,
    answer_refused,
    decided,
    grantable,
    has_room,
    live_grants,
    overdue,
    pending,
    prune_approvals,
    waiting_for,
)
from .core.audit import Outcome
from .core.text import markdown_plain
from .core.tools import Refusal, call_text
from .events import fire_approval, fire_chat_message
from .executor import Caller, Executor
from .room_state import RoomState
from .settings import Settings

APPROVE, DENY = "OVERSEER_APPROVE_", "OVERSEER_DENY_"
INTERRUPTED = "interrupted"
# The contract's reason for a call cancelled mid-call (the audit's outcome failed).
CANCELLED = "cancelled"
NOTIFY_TIMEOUT = 10

# Told once an approval is answered, expired or run: the incident desk moves the incident on.
type Decided = Callable[[Approval], None]


class ApprovalDesk:
    """One room's approvals."""

    def __init__(
        self,
        hass: HomeAssistant,
        settings: Settings,
        state: RoomState,
        now: Callable[[], float],
        changed: Callable[[], None],
        phrase: Phrase,
    ) -> None:
        """Share the room's persisted state; whoever needs to hear of answers registers for them.

        The executor comes once it is built (run_with): it asks this desk about consequential calls.
        """
        self._phrase = phrase
        self._hass = hass
        self._settings = settings
        self._state = state
        self._executor: Executor | None = None
        self._now = now
        self._changed = changed
        self._decided: list[Decided] = []
        self._room = settings.name

    @callback
    def async_listen(self) -> CALLBACK_TYPE:
        """Take answers from notification buttons, and show what still waits.

        Persistent notifications do not survive a restart; approvals do.
        """
        for approval in self.pending():
            self._show(approval)
        stop_listening = self._hass.bus.async_listen(EVENT_MOBILE_ACTION, self._async_button)

        @callback
        def stop() -> None:
            """Unloaded (or removed): no notification is left asking for an answer nobody takes."""
            stop_listening()
            for approval in self.pending():
                persistent_notification.async_dismiss(self._hass, _notification_id(approval))

        return stop

    def knows(self, approval_id: str) -> bool:
        """Return whether the approval is this room's (pending or answered)."""
        return approval_id in self._state.approvals

    def pending(self, incident_id: str | None = None) -> list[Approval]:
        """Approvals waiting for a person."""
        return pending(self._state.approvals.values(), incident_id)

    def run_with(self, executor: Executor) -> None:
        """Set the executor that runs approved calls (built after this desk, since it asks it)."""
        self._executor = executor

    def request(self, tool: str, arguments: dict[str, Any], caller: Caller) -> Approval | None:
        """Ask for a person's approval of one checked call; None when too many are waiting already.

        The same call by the same requester while one waits gets that one: nobody is asked twice.
        """
        requester = caller.requester
        if (waiting := waiting_for(self.pending(), tool, arguments, requester)) is not None:
            return waiting
        if not has_room(self.pending(), requester.source):
            return None
        now = self._now()
        approval = Approval(
            _new_id("APR", self._state.approvals),
            secrets.token_urlsafe(24),
            requester.incident_id if requester.source is ApprovalSource.TRIAGE else "",
            tool,
            arguments,
            now,
            now + self._settings.approval_timeout,
            source=requester.source,
            caller=requester.caller,
            asker=requester.asker,
            user_id=requester.user_id,
            identity=requester.identity,
        )
        self._put(approval)
        message = self._show(approval)
        for action in self._settings.approval_notify:
            self._hass.async_create_background_task(
                self._async_notify(action, approval, message), f"overseer approval notify {action}"
            )
        return approval

    def _show(self, approval: Approval) -> str:
        """Show the persistent notification while it waits; return its text."""
        incident = self._state.incidents.get(approval.incident_id)
        expires = dt_util.as_local(dt_util.utc_from_timestamp(approval.expires)).strftime("%H:%M:%S")
        if incident is not None:
            about = markdown_plain(incident.summary())
        elif approval.incident_id:
            about = approval.incident_id
        else:
            about = self._phrase(
                f"approval_asked_{approval.source.value}",
                asker=markdown_plain(approval.asker or approval.caller),
            )
        call = markdown_plain(call_text(approval.tool, approval.arguments))
        asking = self._phrase(
            "approval_message", room=self._room, call=call, approval_id=approval.approval_id, expires=expires
        )
        message = f"{about}\n\n{asking}"
        persistent_notification.async_create(
            self._hass, message, self._title(approval), _notification_id(approval)
        )
        return message

    def _title(self, approval: Approval) -> str:
        return self._phrase("approval_title", room=self._room, tool=approval.tool)

    async def _async_notify(self, action: str, approval: Approval, message: str) -> None:
        """Send an actionable notification."""
        data = {
            "title": self._title(approval),
            "message": message,
            "data": {
                "tag": approval.approval_id,
                "actions": [
                    {"action": f"{APPROVE}{approval.nonce}", "title": self._phrase("approval_approve")},
                    {"action": f"{DENY}{approval.nonce}", "title": self._phrase("approval_deny")},
                ],
            },
        }
        await self._async_notify_call(action, data)

    async def _async_notify_call(self, action: str, data: dict[str, Any]) -> None:
        """One notify call; a phone that cannot be reached is logged, never fatal."""
        domain, _, service = action.partition(".")
        try:
            async with asyncio.timeout(NOTIFY_TIMEOUT):
                await self._hass.services.async_call(domain, service, data, blocking=True)
        except Exception as err:  # a notify action can fail in any way
            LOGGER.warning("Could not reach %s about an approval: %s", action, err)

    async def _async_button(self, event: Event) -> None:
        """Handle a notification button: only ours (by nonce), only from an approver."""
        action = str(event.data.get("action") or "")
        for prefix, approve in ((APPROVE, True), (DENY, False)):
            if action.startswith(prefix):
                nonce = action.removeprefix(prefix)
                found = next((a for a in self._state.approvals.values() if a.nonce == nonce), None)
                if found is None:
                    return
                try:
                    await self.async_answer(found.approval_id, approve, event.context)
                except ServiceValidationError as err:
                    LOGGER.warning("Approval button refused: %s", err)
                return

    async def _async_approver(self, user_id: str) -> tuple[bool, str]:
        """Whether the user may answer (the approvers option, else any active admin), and their name."""
        user = await self._hass.auth.async_get_user(user_id) if user_id else None
        # A deactivated user's phone still sends button presses with its user id.
        if user is None or not user.is_active or user.system_generated:
            return False, ""
        listed = user_id in self._settings.approvers if self._settings.approvers else user.is_admin
        return listed, user.name or ""

    async def async_answer(
        self, approval_id: str, approve: bool, context: Context, grant_minutes: int = 0
    ) -> Approval:
        """Take a person's answer; refused answers are audited and raise ServiceValidationError.

        grant_minutes > 0 with an approval also lets the same call by the same requester run
        without asking until then, once this run really happened.
        """
        user = context.user_id or ""
        approver, name = await self._async_approver(user)
        now = self._now()
        # Read after the await: another answer may have come in meanwhile, and one use is all.
        approval = self._state.approvals.get(approval_id)
        why = answer_refused(approval, now)
        if why is not AnswerRefused.NOT_FOUND and not approver:
            why = AnswerRefused.NOT_APPROVER
        if why is not None:
            if approval is not None:
                self._audit(approval, why.value, user)
                if why is AnswerRefused.EXPIRED:
                    self.expire(approval_id)
            # The status as a word of the room's language, like the rest of its messages.
            status = self._phrase(f"approval_status_{approval.status.value}") if approval else ""
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key=why.value,
                translation_placeholders={"approval_id": approval_id[:40], "status": status},
            )
        assert approval is not None
        allowed = self._settings.max_grant_minutes
        if approve and grant_minutes > allowed:  # an approver's, but past the room's bound: still waiting
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="grant_too_long" if allowed else "grants_off",
                translation_placeholders={"minutes": str(grant_minutes), "allowed": str(allowed)},
            )
        if not approve:
            self._finish(decided(approval, ApprovalStatus.DENIED, now, user, name))
            self._audit(approval, ApprovalStatus.DENIED.value, user)
            return self._state.approvals[approval_id]
        executor = self._executor
        assert executor is not None, "run_with() is called at setup"
        if executor.closing:  # the room is reloading: the yes is not spent, the next room still asks
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="entry_not_loaded",
                translation_placeholders={"name": self._room},
            )
        self._put(decided(approval, ApprovalStatus.APPROVED, now, user, name))
        try:
            record = await executor.async_execute(
                approval.approval_id,
                approval.tool,
                dict(approval.arguments),
                executor.offer_for(approval.source),
                self._state.dry_run,
                Caller(f"user:{user}", Context(parent_id=context.id)),
                approval=ApprovalStatus.APPROVED.value,
            )
        except asyncio.CancelledError:  # a restart half-way: never left approved
            status, why_not = self._cut_short(approval)
            self._settle_where_loaded(decided(approval, status, self._now(), user, name, why_not))
            raise
        # A call the room refused now grants nothing, nor does a call nobody identified asked for.
        grant = grant_minutes * 60 if grant_minutes and record.ran and grantable(approval.requester) else 0
        status = ApprovalStatus.EXECUTED if record.ran else ApprovalStatus.BLOCKED
        why_not = "" if record.ran else str(record.reason or record.outcome.value)
        settled = decided(approval, status, self._now(), user, name, why_not)
        self._settle_where_loaded(settled, grant, record.remaining_s)
        return settled

    def _settle_where_loaded(
        self, approval: Approval, grant_seconds: float = 0, remaining: int | None = None
    ) -> None:
        """Settle here, or, when the call outlived this room (a reload), in the room loaded now."""
        executor = self._executor
        assert executor is not None, "run_with() is called at setup"
        if executor.handing_on:
            executor.hand_on(lambda room: room.approvals.settle(approval, grant_seconds, remaining))
        else:
            self.settle(approval, grant_seconds, remaining)

    def settle(self, approval: Approval, grant_seconds: float = 0, remaining: int | None = None) -> None:
        """Record what became of an approved call: the grant it earned, then tell everyone (_finish)."""
        if grant_seconds:
            self._grant(approval, grant_seconds, approval.decided_by, approval.decided_name)
        self._finish(approval, remaining)

    def resume(self, approval: Approval) -> None:
        """Show an approved call that the room before this one handed on, still running, as approved."""
        self._state.approvals = prune_approvals({**self._state.approvals, approval.approval_id: approval})
        self._changed()

    def _cut_short(self, approval: Approval) -> tuple[ApprovalStatus, str]:
        """Return what an approved call cancelled half-way did, for its status and reason.

        Sent (the executor audits it as failed, cancelled): the device may have moved, so it is
        not said to be blocked. Not sent (it waited for its turn): it never ran.
        """
        audited = [(record.decision_id, record.outcome) for record in self._state.audit.latest(1)]
        if audited == [(approval.approval_id, Outcome.FAILED)]:
            return ApprovalStatus.EXECUTED, CANCELLED
        return ApprovalStatus.BLOCKED, INTERRUPTED

    def grants(self) -> list[Grant]:
        """Return the grants still running, oldest first."""
        return list(live_grants(self._state.grants, self._now()).values())

    def _grant(self, approval: Approval, seconds: float, user: str, name: str) -> None:
        now = self._now()
        grant = Grant(
            _new_id("GRT", self._state.grants),
            approval.approval_id,
            approval.tool,
            approval.arguments,
            approval.requester,
            now,
            now + seconds,
            user,
            name,
        )
        self._state.grants = live_grants({**self._state.grants, grant.grant_id: grant}, now)
        self._changed()

    def knows_grant(self, grant_id: str) -> bool:
        """Return whether the grant is this room's and still running."""
        return self._running_grant(grant_id) is not None

    def _running_grant(self, grant_id: str) -> Grant | None:
        return next((grant for grant in self.grants() if grant.grant_id == grant_id), None)

    async def async_revoke(self, grant_id: str, context: Context) -> None:
        """Let an approver end a grant early; anyone else is refused (audited) and nothing changes."""
        user = context.user_id or ""
        approver, _ = await self._async_approver(user)
        grant = self._running_grant(grant_id)
        if grant is None:
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="grant_not_found",
                translation_placeholders={"grant_id": grant_id[:40]},
            )
        if not approver:
            self._executor_record(
                grant.grant_id, grant.tool, dict(grant.arguments), AnswerRefused.NOT_APPROVER, user
            )
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="grant_not_an_approver",
                translation_placeholders={"grant_id": grant_id},
            )
        self._state.grants = {kept.grant_id: kept for kept in self.grants() if kept.grant_id != grant_id}
        self._executor_record(grant.grant_id, grant.tool, dict(grant.arguments), "revoked", user)
        self._changed()

    def expire(self, approval_id: str, reason: str = "") -> None:
        """Time is up (or the incident ended): nothing runs."""
        approval = self._state.approvals[approval_id]
        self._audit(approval, ApprovalStatus.EXPIRED.value, "")
        self._finish(decided(approval, ApprovalStatus.EXPIRED, self._now(), reason=reason))

    def expire_overdue(self) -> None:
        """Expire every pending approval whose time is up, and forget the grants that ran out."""
        for approval in overdue(self._state.approvals.values(), self._now()):
            self.expire(approval.approval_id)
        running = live_grants(self._state.grants, self._now())
        if running.keys() != self._state.grants.keys():
            self._state.grants = running
            self._changed()

    def _audit(self, approval: Approval, what: str, user: str) -> None:
        """Record an answer that ran nothing: in the audit beside the calls, as needing approval."""
        self._executor_record(approval.approval_id, approval.tool, dict(approval.arguments), what, user)

    def _executor_record(self, key: str, tool: str, arguments: dict[str, Any], what: str, user: str) -> None:
        executor = self._executor
        assert executor is not None, "run_with() is called at setup"
        executor.record(
            key,
            tool,
            arguments,
            Outcome.BLOCKED,
            Refusal.NEEDS_APPROVAL.value,
            source=f"user:{user}" if user else "overseer",
            approval=what,
        )

    def _finish(self, approval: Approval, remaining: int | None = None) -> None:
        """Answered, expired or run: tell automations, drop the notifications, move the incident.

        remaining: how long a call policy refused at the instant would have had to wait.
        """
        self._put(approval)
        persistent_notification.async_dismiss(self._hass, _notification_id(approval))
        for action in self._settings.approval_notify:  # the phones' buttons must go too
            clear = {"message": "clear_notification", "data": {"tag": approval.approval_id}}
            self._hass.async_create_background_task(
                self._async_notify_call(action, clear), f"overseer approval clear {action}"
            )
        if approval.source in TOLD_IN_CHAT:
            self._tell_asker(approval, remaining)
        for listener in list(self._decided):
            listener(approval)

    def _tell_asker(self, approval: Approval, remaining: int | None) -> None:
        """Tell the one who asked in the chat (or through Assist), there, what became of it."""
        by = approval.decided_name or self._phrase("approval_someone")
        line = self._phrase(
            f"approval_outcome_{approval.status.value}",
            asker=approval.asker or self._phrase("approval_someone"),
            call=call_text(approval.tool, approval.arguments),
            by=by,
            reason=self._phrase(reason_key(approval.reason), seconds=remaining or 0),
        )
        fire_chat_message(self._hass, room=self._settings.room, user=self._settings.name, text=line, bot=True)

    @callback
    def async_on_decided(self, listener: Decided) -> CALLBACK_TYPE:
        """Call listener with every approval once answered, expired or run; returns the unregister."""
        self._decided.append(listener)
        return lambda: self._decided.remove(listener)

    def _put(self, approval: Approval) -> None:
        """Keep it (bounded), tell automations and the entities."""
        self._state.approvals = prune_approvals({**self._state.approvals, approval.approval_id: approval})
        fire_approval(self._hass, approval)
        self._changed()


def _new_id(prefix: str, taken: Mapping[str, Any]) -> str:
    """Return an unused short id such as APR-1a2b3c4d."""
    while (key := f"{prefix}-{secrets.token_hex(4)}") in taken:
        pass
    return key


def _notification_id(approval: Approval) -> str:
    return f"{DOMAIN}_approval_{approval.approval_id}"
