"""Reload races: an attacker times calls and writes around a reload of the room.

Each case replays one race five times, each in a fresh room, with a real reload of its entry:
a call kept in flight until after the reload has ended to slip a second one past the cooldown,
an approved call run across it the same way, a call queued behind another while the room
unloads, and a write from the old room after a lockdown set in the new one. Judged on what
executed (0 unauthorised executions) and on what the room reads afterwards (0 lost or stale
writes: a call that ran counts, and is recorded and told as executed once; a lockdown holds; an
approval says what ran).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from homeassistant.core import Context
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.executor import SERVICE_TIMEOUT

from ..ha.harness import OPTIONS, llm_context, set_select, setup_overseer, tick, tool_answer
from ..lifecycle.test_reload_races import LIFT_TRAVEL, HeldService, ended, reload_while_held
from .cases import RELOAD_OUTCOMES, REPETITIONS, STOPPED, Outcome
from .rooms import entity_id


@dataclass
class Race:
    """One room under attack, and what the room reads afterwards that is wrong."""

    hass: Any
    freezer: Any
    entry_id: str
    admin: Any
    stale: list[str] = field(default_factory=list)

    async def agent(self, tool: str, **arguments: Any) -> dict[str, Any]:
        instance = await llm.async_get_api(self.hass, f"overseer-{self.entry_id}", llm_context("agent"))
        return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=arguments)))

    def room(self) -> Any:
        return self.hass.config_entries.async_get_entry(self.entry_id).runtime_data

    async def reload_while_held(self, held: HeldService, outlast: bool = False) -> None:
        """Reload while held's call runs; outlast: it returns only after the reload has ended."""
        reload = await reload_while_held(self.hass, self.entry_id, held)
        if outlast:
            self.freezer.tick(LIFT_TRAVEL)
            if not await ended(self.hass, reload):
                self.stale.append("the reload waited for the call in flight")
                self.freezer.tick(SERVICE_TIMEOUT)  # past the call's own bound: the reload ends
                await ended(self.hass, reload)
        held.release.set()
        assert await reload

    def lift_records(self) -> None:
        """The lift that arrived is in the reloaded room's audit once, as executed."""
        records = [(r.tool, r.outcome.value) for r in self.room().loop.state.audit.latest(20)]
        if [record for record in records if record[1] != "awaiting_approval"] != [("lift_up", "executed")]:
            self.stale.append(f"the reloaded room's audit reads {records}")


async def cooldown_across_a_reload(race: Race) -> None:
    """An agent's lift_up is kept in flight across a reload; lift_down right after, in the cooldown."""
    lift = HeldService(race.hass, "cover", "open_cover")
    first = race.hass.async_create_task(race.agent("lift_up"))
    await race.reload_while_held(lift, outlast=True)
    told = await first
    if told["outcome"] != "executed":
        race.stale.append(
            f"the agent was told {told['outcome']} ({told.get('error')}) for a lift that arrived"
        )
    race.lift_records()
    await race.agent("lift_down")


async def approval_across_a_reload(race: Race) -> None:
    """An approved lift_up runs across a reload; an agent asks for lift_down right after."""
    approval_id = (await race.agent("lift_up"))["approval_id"]
    lift = HeldService(race.hass, "cover", "open_cover")
    answer = race.hass.async_create_task(
        race.hass.services.async_call(
            "overseer",
            "approve",
            {"approval_id": approval_id},
            blocking=True,
            context=Context(user_id=race.admin.id),
        )
    )
    await race.reload_while_held(lift, outlast=True)
    await answer
    approval = race.room().loop.state.approvals[approval_id]
    if approval.status.value != "executed":
        race.stale.append(f"the approval that ran reads {approval.status.value} ({approval.reason})")
    race.lift_records()
    await race.agent("lift_down")


async def queued_behind_the_unload(race: Race) -> None:
    """A call queued behind a running one when the unload begins: the old room must not run it."""
    lift = HeldService(race.hass, "cover", "open_cover")
    first = race.hass.async_create_task(race.agent("lift_up"))
    await lift.entered.wait()
    queued = race.hass.async_create_task(race.agent("ha_set_entity", entity_id="light.bench", state="on"))
    await race.reload_while_held(lift)
    await first
    await queued


async def late_write_after_a_lockdown(race: Race) -> None:
    """The old room, still held by someone, writes after a lockdown set in the new one."""
    old = race.room()
    assert await race.hass.config_entries.async_reload(race.entry_id)
    site_mode = entity_id(race.hass, "select", race.entry_id, "site_mode")
    await set_select(race.hass, site_mode, "lockdown")
    await tick(race.hass, race.freezer)
    await old.loop.executor.async_execute("late", "lift_up", {}, frozenset({"lift_up"}), False)
    await tick(race.hass, race.freezer)
    race.hass.bus.async_fire("homeassistant_final_write")
    await race.hass.async_block_till_done()
    assert await race.hass.config_entries.async_reload(race.entry_id)
    mode = race.hass.states.get(site_mode).state
    if mode != "lockdown":
        race.stale.append(f"the lockdown set after the reload reads {mode} after the next one")
    await race.agent("lift_up")


@dataclass(frozen=True)
class Case:
    """One race, the options its room needs, and what may legitimately run."""

    case_id: str
    attack: Callable[[Race], Awaitable[None]]
    allowed: dict[str, int]
    options: dict[str, Any] = field(default_factory=dict)


CASES = (
    Case("cooldown_across_reload", cooldown_across_a_reload, {"lift_up": 1}),
    Case("approval_across_reload", approval_across_a_reload, {"lift_up": 1}, {"approval_tools": ["lift_up"]}),
    Case("queued_behind_unload", queued_behind_the_unload, {"lift_up": 1}),
    Case("late_write_after_lockdown", late_write_after_a_lockdown, {}),
)


@pytest.mark.parametrize("case", CASES, ids=[case.case_id for case in CASES])
async def test_reload_race(hass, freezer, ollama_stub, room, hass_admin_user, case: Case):
    outcome = RELOAD_OUTCOMES[case.case_id] = Outcome()
    for repetition in range(REPETITIONS):
        entry_id = f"{case.case_id}-{repetition}"
        await setup_overseer(hass, ollama_stub, {**OPTIONS, **case.options}, entry_id=entry_id)
        events = async_capture_events(hass, "overseer_action")
        race = Race(hass, freezer, entry_id, hass_admin_user)
        await case.attack(race)
        audited = [e.data for e in events]
        executed = Counter(e["tool"] for e in audited if e["outcome"] == "executed")
        outcome.attempts += len(audited)
        outcome.blocked += sum(e["outcome"] in STOPPED for e in audited)
        outcome.executed += sum(executed.values())
        outcome.unauthorised += sum(max(0, n - case.allowed.get(tool, 0)) for tool, n in executed.items())
        outcome.problems += [f"{entry_id}: {stale}" for stale in race.stale]
        await hass.config_entries.async_unload(entry_id)
    assert outcome.unauthorised == 0, f"{case.case_id}: {outcome.unauthorised} unauthorised executions"
    assert outcome.problems == []
