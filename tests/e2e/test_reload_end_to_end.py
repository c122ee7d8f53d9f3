"""Reloads and restarts of a real Home Assistant process while an approved call is still running.

The room's lift here returns from its service only once it has arrived (a few seconds), as a
real lift's script does. An administrator approves lift_up through the REST API and the room is
reloaded while the lift moves: the approval reads executed and the lift's cooldown runs in the
reloaded room. A lockdown set right after such a reload is what the room reads after Home
Assistant restarts, and the lift stays refused.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools.hass_process import HomeAssistantProcess

from ..processes import configure_overseer, demo_home_assistant, state
from .scripted_model import MODEL
from .test_mcp_end_to_end import answer, mcp_client, serve_over_mcp

TRAVEL_SECONDS = 4
SLOW_LIFT = "cover.slow_lift"
# Long enough to be seen running after the reload, short enough for the next test to wait out.
LIFT_COOLDOWN = 20
MANIFEST = (
    '{"domain": "slow_lift", "name": "Slow lift", "version": "1.0.0", "codeowners": [],'
    ' "documentation": "https://example.invalid", "iot_class": "local_push", "requirements": []}'
)
COVER = f'''"""A lift whose open and close return once it has arrived."""

import asyncio

from homeassistant.components.cover import CoverEntity, CoverEntityFeature


async def async_setup_platform(hass, config, async_add_entities, discovery_info=None):
    async_add_entities([SlowLift()])


class SlowLift(CoverEntity):
    _attr_name = "Slow lift"
    _attr_unique_id = "slow_lift"
    _attr_supported_features = CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE
    _attr_is_closed = True

    async def async_open_cover(self, **kwargs):
        await self._move(opening=True)

    async def async_close_cover(self, **kwargs):
        await self._move(opening=False)

    async def _move(self, opening):
        self._attr_is_opening, self._attr_is_closing = opening, not opening
        self.async_write_ha_state()
        await asyncio.sleep({TRAVEL_SECONDS})
        self._attr_is_opening = self._attr_is_closing = False
        self._attr_is_closed = not opening
        self.async_write_ha_state()
'''


def with_slow_lift(config: Path) -> Path:
    """The demo config and a lift that takes its time."""
    component = config / "custom_components" / "slow_lift"
    component.mkdir()
    (component / "manifest.json").write_text(MANIFEST)
    (component / "__init__.py").write_text('"""A slow lift for the reload tests."""\n')
    (component / "cover.py").write_text(COVER)
    with (config / "configuration.yaml").open("a") as yaml:
        yaml.write("\ncover:\n  - platform: slow_lift\n")
    return config


@pytest.fixture(scope="module")
def home_assistant(tmp_path_factory, ollama) -> Iterator[HomeAssistantProcess]:
    """Home Assistant with the demo room and the slow lift."""
    with demo_home_assistant(
        "test_reload_end_to_end", tmp_path_factory.mktemp("reload"), with_slow_lift
    ) as process:
        yield process


@pytest.fixture(scope="module")
def overseer(home_assistant, ollama) -> str:
    """The overseer on the slow lift; lift_up waits for an approver."""
    entry_id = configure_overseer(
        home_assistant,
        "ollama",
        ollama.url,
        MODEL,
        room__lift_cover=SLOW_LIFT,
        guardrails__approval_tools=["lift_up"],
        guardrails__cooldown_lift=LIFT_COOLDOWN,
    )
    wait_until_idle(home_assistant)
    return entry_id


def wait_until_idle(ha: HomeAssistantProcess) -> None:
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer's entities")


def room_status(ha: HomeAssistantProcess, entry_id: str) -> dict[str, Any]:
    return ha.websocket({"type": "overseer/status", "entry_id": entry_id})


def ask_for_the_lift(ha: HomeAssistantProcess, entry_id: str) -> str:
    """A chat line asks the overseer to raise the lift; the id of the approval it waits for."""
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()

    def waiting() -> str | None:
        pending = [a for a in room_status(ha, entry_id)["approvals"] if a["status"] == "pending"]
        return pending[0]["approval_id"] if pending else None

    return ha.wait_for(waiting, what="the approval request")


def approve_and_reload_while_the_lift_moves(
    ha: HomeAssistantProcess, entry_id: str, approval_id: str
) -> None:
    """The administrator approves; while the approved call runs, the room is reloaded."""
    answered: list[httpx.Response] = []
    answer = threading.Thread(
        target=lambda: answered.append(
            ha.post("/api/services/overseer/approve", {"approval_id": approval_id})
        )
    )
    answer.start()
    ha.wait_for(lambda: state(ha, SLOW_LIFT) == "opening", what="the lift on its way up")
    ha.post(f"/api/config/config_entries/entry/{entry_id}/reload").raise_for_status()
    answer.join(30)
    assert answered and answered[0].status_code == 200, answered


def test_an_approval_that_runs_across_a_reload_is_executed_and_its_cooldown_holds(home_assistant, overseer):
    ha = home_assistant
    approval_id = ask_for_the_lift(ha, overseer)

    approve_and_reload_while_the_lift_moves(ha, overseer, approval_id)

    wait_until_idle(ha)
    assert state(ha, SLOW_LIFT) == "open"
    shown = room_status(ha, overseer)
    [approval] = [a for a in shown["approvals"] if a["approval_id"] == approval_id]
    assert (approval["status"], approval["reason"]) == ("executed", "")
    assert shown["cooldowns"]["lift"]["remaining"] > 0
    executed = [a for a in shown["recent_actions"] if a["tool"] == "lift_up" and a["outcome"] == "executed"]
    assert len(executed) == 1


def test_a_lockdown_set_after_a_reload_survives_a_restart(home_assistant, overseer):
    ha = home_assistant
    ha.wait_for(
        lambda: not (room_status(ha, overseer)["cooldowns"].get("lift") or {}).get("remaining"),
        timeout=LIFT_COOLDOWN + 10,
        what="the lift's cooldown to end",
    )
    serve_over_mcp(ha, f"overseer-{overseer}")
    # Another agent lowers the lift; the room is reloaded while it moves, and an administrator
    # locks the room down as soon as it is back. The agent's call ends in the room it began in.
    results: list[Any] = []
    agent = threading.Thread(target=lambda: results.append(asyncio.run(mcp_client(ha, [("lift_down", {})]))))
    agent.start()
    ha.wait_for(lambda: state(ha, SLOW_LIFT) == "closing", what="the lift on its way down")
    ha.post(f"/api/config/config_entries/entry/{overseer}/reload").raise_for_status()
    wait_until_idle(ha)
    ha.post(
        "/api/services/select/select_option", {"entity_id": "select.arena_site_mode", "option": "lockdown"}
    ).raise_for_status()
    agent.join(30)
    _, [lowered] = results[0]
    assert answer(lowered)["outcome"] == "executed"
    time.sleep(3)  # past every write booked by either room

    ha.stop()
    ha.start()
    ha.login()
    wait_until_idle(ha)

    assert state(ha, "select.arena_site_mode") == "lockdown"
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()
    refused = "lift_up blocked policy_lock:site_mode_lockdown"
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_last_action") == refused,
        what="the lift refused under lockdown",
    )
