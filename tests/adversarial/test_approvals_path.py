"""Hostile answers to approvals: forged, replayed, expired, wrong-user and out-of-grant.

Each case asks for a consequential call (lift_up, made so by approval_tools) as another agent
does through the guardrails LLM API, then answers it the way an attacker or a careless
household would, five times, each in a fresh room. Judged on the service calls that ran: a
case may run at most what a legitimate approver allowed, and every refused answer is audited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from homeassistant.core import Context
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import llm

from ..ha.harness import OPTIONS, llm_context, set_select, setup_overseer, tick, tool_answer
from .cases import APPROVAL_OUTCOMES, REPETITIONS, Outcome
from .rooms import entity_id

LIFT = "cover.open_cover"
BUTTON = "mobile_app_notification_action"


@dataclass
class Scene:
    """One room under attack: who is who, and what waits for approval."""

    hass: Any
    freezer: Any
    entry_id: str
    admin: Any
    household: Any
    approval_id: str = ""

    @property
    def state(self):
        return self.hass.config_entries.async_get_entry(self.entry_id).runtime_data.loop.state

    async def agent_call(
        self, tool: str = "lift_up", platform: str = "agent", user=None, **arguments: Any
    ) -> dict[str, Any]:
        """One call through the guardrails API, as an agent on platform for user (the admin by default)."""
        context = replace(llm_context(platform), context=Context(user_id=(user or self.admin).id))
        instance = await llm.async_get_api(self.hass, f"overseer-{self.entry_id}", context)
        return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))

    async def answer(self, user, service: str = "approve", approval_id: str | None = None, **extra) -> bool:
        """One answer through the service; whether it was taken."""
        return await self.call(user, service, {"approval_id": approval_id or self.approval_id, **extra})

    async def call(self, user, service: str, data: dict[str, Any]) -> bool:
        try:
            await self.hass.services.async_call(
                "overseer", service, data, blocking=True, context=Context(user_id=user.id if user else None)
            )
        except ServiceValidationError:
            return False
        return True

    async def press(self, action: str, user) -> None:
        self.hass.bus.async_fire(BUTTON, {"action": action}, context=Context(user_id=user.id))
        await self.hass.async_block_till_done()

    def nonce(self) -> str:
        return self.state.approvals[self.approval_id].nonce


# Each attack returns how many hostile answers it made; `allowed` is what a legitimate answer ran.
type Attack = Callable[[Scene], Awaitable[int]]


async def forged(scene: Scene) -> int:
    # Ids are matched exactly (lower-case hex); a button needs the nonce, never the id on the card.
    forgeries = (
        "APR-00000000",
        "APR-deadbeef",
        scene.approval_id.replace("APR-", "apr-"),
        scene.approval_id[:-1],
    )
    for approval_id in forgeries:
        await scene.answer(scene.admin, approval_id=approval_id)
    await scene.press("OVERSEER_APPROVE_" + "x" * 32, scene.admin)
    await scene.press(f"OVERSEER_APPROVE_{scene.approval_id}", scene.admin)
    return 6


async def replayed(scene: Scene) -> int:
    nonce = scene.nonce()
    assert await scene.answer(scene.admin)  # the legitimate answer: one run
    await scene.answer(scene.admin)
    await scene.press(f"OVERSEER_APPROVE_{nonce}", scene.admin)
    scene.freezer.tick(120)  # even once the cooldown is over
    await scene.answer(scene.admin)
    await scene.press(f"OVERSEER_APPROVE_{nonce}", scene.admin)
    return 4


async def expired(scene: Scene) -> int:
    nonce = scene.nonce()
    for _ in range(60 // 5 + 1):
        await tick(scene.hass, scene.freezer, 5)
    await scene.answer(scene.admin)
    await scene.press(f"OVERSEER_APPROVE_{nonce}", scene.admin)
    return 2


async def wrong_user(scene: Scene) -> int:
    nonce = scene.nonce()
    await scene.answer(scene.household)
    await scene.press(f"OVERSEER_APPROVE_{nonce}", scene.household)
    await scene.answer(None)  # no user at all: an automation's call
    await scene.answer(scene.household, "deny")
    await scene.answer(scene.household, grant_minutes=10)
    return 5


async def denied_then_approved(scene: Scene) -> int:
    assert await scene.answer(scene.admin, "deny")
    await scene.answer(scene.admin)
    await scene.press(f"OVERSEER_APPROVE_{scene.nonce()}", scene.admin)
    return 2


async def locked_meanwhile(scene: Scene) -> int:
    await set_select(scene.hass, entity_id(scene.hass, "select", scene.entry_id, "site_mode"), "lockdown")
    await scene.answer(scene.admin)
    return 1


async def out_of_grant(scene: Scene) -> int:
    """A grant for lift_up() from this agent and user: nothing else, nobody else, never after it ends."""
    assert await scene.answer(scene.admin, grant_minutes=10)  # the legitimate answer: one run
    scene.freezer.tick(61)  # the lift's cooldown is over; the grant runs on
    attempts = [
        await scene.agent_call("lift_up", platform="another_agent"),  # another client
        await scene.agent_call("lift_up", user=scene.household),  # another user of the same client
        await scene.agent_call("ha_set_entity", entity_id="light.bench", state="red"),  # another call
    ]
    scene.freezer.tick(10 * 60)  # the grant is over
    attempts.append(await scene.agent_call("lift_up"))
    if any(attempt["outcome"] != "awaiting_approval" for attempt in attempts):
        raise AssertionError(f"a call outside the grant did not ask a person: {attempts}")
    # A longer grant than the room allows approves nothing.
    scene.approval_id = attempts[-1]["approval_id"]
    await scene.answer(scene.admin, grant_minutes=11)
    return len(attempts) + 1


async def revoked_grant(scene: Scene) -> int:
    assert await scene.answer(scene.admin, grant_minutes=10)  # the legitimate answer: one run
    [grant] = scene.state.grants.values()
    revoke = {"grant_id": grant.grant_id}
    if await scene.call(scene.household, "revoke_grant", revoke):
        raise AssertionError("someone who may not approve revoked a grant")
    assert await scene.call(scene.admin, "revoke_grant", revoke)
    scene.freezer.tick(61)
    after = await scene.agent_call("lift_up")
    if after["outcome"] != "awaiting_approval":
        raise AssertionError(f"a revoked grant still let the call run: {after}")
    return 2


# (id, the attack, how many lift runs a legitimate answer in it allowed)
ATTACKS: list[tuple[str, Attack, int]] = [
    ("forged", forged, 0),
    ("replayed", replayed, 1),
    ("expired", expired, 0),
    ("wrong-user", wrong_user, 0),
    ("denied-then-approved", denied_then_approved, 0),
    ("locked-meanwhile", locked_meanwhile, 0),
    ("out-of-grant", out_of_grant, 1),
    ("revoked-grant", revoked_grant, 1),
]
ROOM = {
    **OPTIONS,
    "approval_tools": ["lift_up", "ha_set_entity"],
    "approval_timeout": 60,
    "max_grant_minutes": 10,
    "cooldown_lift": 60,
}


@pytest.mark.parametrize(("case", "attack", "allowed"), ATTACKS, ids=[a[0] for a in ATTACKS])
async def test_hostile_answer_to_an_approval(
    hass, freezer, ollama_stub, room, hass_admin_user, hass_read_only_user, case, attack, allowed
):
    outcome = APPROVAL_OUTCOMES[case] = Outcome()
    for repetition in range(REPETITIONS):
        entry_id = f"{case}-{repetition}"
        entry = await setup_overseer(
            hass, ollama_stub, options=ROOM, entry_id=entry_id, data={"room": entry_id}
        )
        scene = Scene(hass, freezer, entry_id, hass_admin_user, hass_read_only_user)
        before = len(room[LIFT]) + len(room["light.turn_on"])
        waiting = await scene.agent_call()
        assert waiting["outcome"] == "awaiting_approval", waiting
        scene.approval_id = waiting["approval_id"]
        attempts = await attack(scene)
        ran = len(room[LIFT]) + len(room["light.turn_on"]) - before
        outcome.attempts += attempts
        outcome.executed += ran
        outcome.blocked += attempts - max(0, ran - allowed)
        outcome.unauthorised += max(0, ran - allowed)
        audit = scene.state.audit.as_list()
        if sum(r["outcome"] == "executed" for r in audit) != ran:
            outcome.problems.append(f"{entry_id}: audit and service calls disagree: {audit}")
        # A refused answer is audited beside its approval; a call outside a grant asks again.
        traces = [r for r in audit[1:] if r["outcome"] in ("blocked", "awaiting_approval")]
        if case != "forged" and not traces:
            outcome.problems.append(f"{entry_id}: a refused answer left no trace in the audit")
        await hass.config_entries.async_unload(entry.entry_id)
    assert outcome.unauthorised == 0, f"{case}: {outcome.unauthorised} unauthorised executions"
    assert outcome.problems == []
