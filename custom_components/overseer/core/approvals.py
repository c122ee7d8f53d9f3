"""Approvals: a consequential call waits for a person, bound to who asked, its tool and arguments.

Single use and expiring, whoever asked: the chat loop, Assist, another agent through the LLM
API, or triage (then bound to its incident too). A grant lets the same call by the same
requester run again for a while without asking. The shell checks who may answer and runs the call through
policy again at that instant; this module only keeps the book and says whether an answer still
can be taken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .arguments import bounded_arguments
from .text import one_line, stored_time

# Bounds: never more than this many waiting, and the newest decided ones kept for the card.
MAX_PENDING = 10
# Of those, what the room's callers (chat, Assist, agents) may fill: a flood of their requests
# leaves room for triage's, which keep a device working.
MAX_PENDING_FROM_CALLERS = 7
KEEP_DECIDED = 20
MAX_GRANTS = 20
ARGUMENTS_CHARS = 1000
CALLER_CHARS = 64
_APPROVAL_ID = re.compile(r"APR-[0-9a-f]{8}")
_GRANT_ID = re.compile(r"GRT-[0-9a-f]{8}")
# A stored requester's texts, in Requester's order after its source.
REQUESTER_TEXTS = ("caller", "asker", "user_id", "incident_id", "identity")
# An identity is an origin and a name at most (the shell's identity.py).
IDENTITY_CHARS = 128
_NONCE = re.compile(r"[A-Za-z0-9_-]{16,64}")
_INCIDENT_ID = re.compile(r"INC-\d{1,9}")
_TOOL = re.compile(r"[a-z][a-z0-9_]{0,63}")


class ApprovalSource(StrEnum):
    """Who asked for the call (the contract's event `source`)."""

    CHAT = "chat"
    ASSIST = "assist"
    LLM_API = "llm_api"
    TRIAGE = "triage"


# The askers who read the room's chat: what became of their call is said there.
TOLD_IN_CHAT = frozenset({ApprovalSource.CHAT, ApprovalSource.ASSIST})


@dataclass(frozen=True, slots=True)
class Requester:
    """Who asked for a call: an approval is theirs, and a grant lets only them go on without asking.

    source and caller as the audit names them (the overseer, agent:<platform>, triage); the
    person whose words led to it (a chat name, shown, never matched on); the Home Assistant user
    behind the call; for triage, the incident; and whose request it is (a user, a device, an
    automation and a name), which a grant must match.
    """

    source: ApprovalSource
    caller: str = ""
    asker: str = ""
    user_id: str = ""
    incident_id: str = ""
    identity: str = ""


class ApprovalStatus(StrEnum):
    """The contract's approval statuses."""

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    EXECUTED = "executed"
    BLOCKED = "blocked"


class AnswerRefused(StrEnum):
    """Why an answer to an approval was not taken."""

    NOT_FOUND = "approval_not_found"
    NOT_APPROVER = "not_an_approver"
    ALREADY_DECIDED = "approval_already_decided"
    EXPIRED = "approval_expired"


@dataclass(frozen=True, slots=True)
class Approval:
    """One call waiting for a person, or what became of it."""

    approval_id: str
    # In the actionable notification's action ids: unguessable, unlike the id shown on the card.
    nonce: str
    # Only triage's approvals belong to an incident.
    incident_id: str
    tool: str
    arguments: Mapping[str, Any]
    created: float
    expires: float
    status: ApprovalStatus = ApprovalStatus.PENDING
    # Who answered (user id and name) and when, and what policy said when it ran.
    decided_by: str = ""
    reason: str = ""
    decided_at: float | None = None
    decided_name: str = ""
    source: ApprovalSource = ApprovalSource.TRIAGE
    # Who asked, as the audit names callers (an agent's platform, the overseer), and the person
    # whose words led to it, told the outcome in the chat.
    caller: str = ""
    asker: str = ""

    user_id: str = ""
    identity: str = ""

    @property
    def requester(self) -> Requester:
        """Who asked."""
        return Requester(self.source, self.caller, self.asker, self.user_id, self.incident_id, self.identity)


@dataclass(frozen=True, slots=True)
class Grant:
    """An approver's leave for one call (tool, exact arguments, requester) to run until it expires."""

    grant_id: str
    approval_id: str
    tool: str
    arguments: Mapping[str, Any]
    requester: Requester
    created: float
    expires: float
    granted_by: str
    granted_name: str = ""


def answer_refused(approval: Approval | None, now: float) -> AnswerRefused | None:
    """Why an answer to this approval cannot be taken now (who answers is the shell's check)."""
    if approval is None:
        return AnswerRefused.NOT_FOUND
    if approval.status is not ApprovalStatus.PENDING:
        return AnswerRefused.ALREADY_DECIDED
    if now >= approval.expires:
        return AnswerRefused.EXPIRED
    return None


def waiting_for(
    approvals: Iterable[Approval], tool: str, arguments: Mapping[str, Any], requester: Requester
) -> Approval | None:
    """Return the pending approval of this very call by this requester: nobody is asked twice for it."""
    wanted = (tool, dict(arguments), requester)
    return next((a for a in pending(approvals) if (a.tool, dict(a.arguments), a.requester) == wanted), None)


def covering_grant(
    grants: Iterable[Grant],
    tool: str,
    arguments: Mapping[str, Any],
    requester: Requester,
    now: float,
    longest: float,
) -> Grant | None:
    """Return the grant that lets this very call by this very requester run now without asking, if any.

    longest is the room's bound in seconds as it is now: a grant made under a longer one (or
    any, once grants are off) no longer counts.
    """
    if not grantable(requester):
        return None
    wanted = (tool, dict(arguments), requester)
    return next(
        (
            grant
            for grant in grants
            if grant.created <= now < grant.expires
            and grant.expires - grant.created <= longest
            and (grant.tool, dict(grant.arguments), grant.requester) == wanted
        ),
        None,
    )


def grantable(requester: Requester) -> bool:
    """Whether a grant can be bound to this requester: someone identified, or triage's incident.

    A moment nobody asked for (a heartbeat, a chat burst anyone can stir up) is nobody's: a
    grant made for one would cover them all.
    """
    return bool(requester.identity) or requester.source is ApprovalSource.TRIAGE


def live_grants(grants: Mapping[str, Grant], now: float) -> dict[str, Grant]:
    """Return the grants not yet expired, the newest MAX_GRANTS of them."""
    kept = sorted((grant for grant in grants.values() if now < grant.expires), key=lambda g: g.created)
    return {grant.grant_id: grant for grant in kept[-MAX_GRANTS:]}


def has_room(approvals: Iterable[Approval], source: ApprovalSource) -> bool:
    """Whether one more request from source may wait (bounded, with triage's share kept free)."""
    waiting = pending(approvals)
    if source is not ApprovalSource.TRIAGE:
        from_callers = sum(approval.source is not ApprovalSource.TRIAGE for approval in waiting)
        if from_callers >= MAX_PENDING_FROM_CALLERS:
            return False
    return len(waiting) < MAX_PENDING


def pending(approvals: Iterable[Approval], incident_id: str | None = None) -> list[Approval]:
    """Return the approvals still waiting, oldest first; of one incident when it is given."""
    return sorted(
        (
            approval
            for approval in approvals
            if approval.status is ApprovalStatus.PENDING
            and (incident_id is None or approval.incident_id == incident_id)
        ),
        key=lambda approval: approval.created,
    )


def overdue(approvals: Iterable[Approval], now: float) -> list[Approval]:
    """Pending approvals whose time is up."""
    return [approval for approval in pending(approvals) if now >= approval.expires]


def decided(
    approval: Approval, status: ApprovalStatus, now: float, by: str = "", name: str = "", reason: str = ""
) -> Approval:
    """Return the approval once answered, expired or run (an approval that ran keeps who approved it)."""
    return replace(
        approval,
        status=status,
        decided_by=by or approval.decided_by,
        decided_name=name or approval.decided_name,
        decided_at=now,
        reason=reason,
    )


def prune_approvals(approvals: Mapping[str, Approval]) -> dict[str, Approval]:
    """Every pending approval and the newest decided ones."""
    done = sorted(
        (a for a in approvals.values() if a.status is not ApprovalStatus.PENDING), key=lambda a: a.created
    )
    dropped = {a.approval_id for a in done[: max(0, len(done) - KEEP_DECIDED)]}
    return {key: approval for key, approval in approvals.items() if key not in dropped}


def approval_as_dict(approval: Approval, with_nonce: bool = True) -> dict[str, Any]:
    """Plain JSON; the nonce only for the store (the status API and diagnostics never show it)."""
    data = {
        "approval_id": approval.approval_id,
        "incident_id": approval.incident_id,
        "tool": approval.tool,
        "arguments": dict(approval.arguments),
        "created": approval.created,
        "expires": approval.expires,
        "status": approval.status.value,
        "decided_by": approval.decided_by,
        "decided_name": approval.decided_name,
        "decided_at": approval.decided_at,
        "reason": approval.reason,
        "source": approval.source.value,
        "caller": approval.caller,
        "asker": approval.asker,
        "user_id": approval.user_id,
        "identity": approval.identity,
    }
    if with_nonce:
        data["nonce"] = approval.nonce
    return data


def approval_from_dict(data: Any) -> Approval | None:
    """Return an approval back from the store; None for anything malformed."""
    try:
        approval_id, nonce, incident_id, tool = (
            data["approval_id"],
            data["nonce"],
            data["incident_id"],
            data["tool"],
        )
        arguments = data["arguments"]
        # Written before other callers could ask: every such approval is triage's.
        source = ApprovalSource(data.get("source", ApprovalSource.TRIAGE))
        texts = (approval_id, nonce, incident_id, tool)
        if (
            not all(isinstance(text, str) for text in texts)
            or not _APPROVAL_ID.fullmatch(approval_id)
            or not _NONCE.fullmatch(nonce)
            or not (
                _INCIDENT_ID.fullmatch(incident_id)
                or (not incident_id and source is not ApprovalSource.TRIAGE)
            )
            or not _call_fits(tool, arguments)
        ):
            raise ValueError(approval_id)
        created, expires = _span(data, approval_id)
        decided_at = data.get("decided_at")
        status = ApprovalStatus(data["status"])
        reason = one_line(str(data.get("reason") or ""), 200)
        # Only a crash mid-run leaves one approved (a stop writes after the run, and a run a reload
        # hands on is put back approved by the room it goes to): never taken again; whether its
        # call went out is for the audit to say.
        if status is ApprovalStatus.APPROVED:
            status, reason = ApprovalStatus.BLOCKED, "interrupted"
        requester = Requester(*_stored_requester(data, source))
        return Approval(
            approval_id,
            nonce,
            incident_id,
            tool,
            arguments,
            created,
            expires,
            status,
            one_line(str(data.get("decided_by") or ""), 64),
            reason,
            None if decided_at is None else stored_time(decided_at),
            one_line(str(data.get("decided_name") or ""), 64),
            source=requester.source,
            caller=requester.caller,
            asker=requester.asker,
            user_id=requester.user_id,
            identity=requester.identity,  # its incident is the approval's own field above
        )
    except (KeyError, TypeError, ValueError, OverflowError):
        return None


def grant_as_dict(grant: Grant) -> dict[str, Any]:
    """Plain JSON, for the store and the status alike."""
    return {
        "grant_id": grant.grant_id,
        "approval_id": grant.approval_id,
        "tool": grant.tool,
        "arguments": dict(grant.arguments),
        "source": grant.requester.source.value,
        **{key: getattr(grant.requester, key) for key in REQUESTER_TEXTS},
        "created": grant.created,
        "expires": grant.expires,
        "granted_by": grant.granted_by,
        "granted_name": grant.granted_name,
    }


def grant_from_dict(data: Any) -> Grant | None:
    """Return a grant back from the store; None for anything malformed."""
    try:
        grant_id, approval_id, tool, arguments = (
            data["grant_id"],
            data["approval_id"],
            data["tool"],
            data["arguments"],
        )
        if (
            not isinstance(grant_id, str)
            or not isinstance(approval_id, str)
            or not _GRANT_ID.fullmatch(grant_id)
            or not _APPROVAL_ID.fullmatch(approval_id)
            or not _call_fits(tool, arguments)
        ):
            raise ValueError(grant_id)
        created, expires = _span(data, grant_id)
        return Grant(
            grant_id,
            approval_id,
            tool,
            arguments,
            Requester(*_stored_requester(data, ApprovalSource(data["source"]))),
            created,
            expires,
            one_line(str(data.get("granted_by") or ""), 64),
            one_line(str(data.get("granted_name") or ""), 64),
        )
    except (KeyError, TypeError, ValueError, OverflowError):
        return None


def _stored_requester(data: Mapping[str, Any], source: ApprovalSource) -> tuple[Any, ...]:
    """Return a stored requester's fields in Requester's order, each text one bounded line."""
    return (
        source,
        *(
            one_line(str(data.get(key) or ""), IDENTITY_CHARS if key == "identity" else CALLER_CHARS)
            for key in REQUESTER_TEXTS
        ),
    )


def _call_fits(tool: Any, arguments: Any) -> bool:
    """Return whether a stored call is one the registry could have checked (within the records' bounds)."""
    return (
        isinstance(tool, str)
        and _TOOL.fullmatch(tool) is not None
        and isinstance(arguments, dict)
        and not bounded_arguments(arguments).truncated
        and len(json.dumps(arguments)) <= ARGUMENTS_CHARS
    )


def _span(data: Mapping[str, Any], what: str) -> tuple[float, float]:
    """Return a stored created/expires pair; expiring before it was made is malformed."""
    created, expires = stored_time(data["created"]), stored_time(data["expires"])
    if expires < created:
        raise ValueError(f"{what} expires before it was made")
    return created, expires
