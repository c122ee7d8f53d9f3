"""The shipped blueprints: each loads through Home Assistant's own blueprint schema, and each
does what its description says in a running Home Assistant."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from homeassistant.components.automation.config import AUTOMATION_BLUEPRINT_SCHEMA, async_validate_config_item
from homeassistant.components.blueprint import Blueprint, BlueprintInputs
from homeassistant.helpers import selector
from homeassistant.setup import async_setup_component
from homeassistant.util import yaml as yaml_util
from pytest_homeassistant_custom_component.common import async_capture_events, async_mock_service

from .harness import set_select, setup_overseer

SHIPPED = Path(__file__).parents[2] / "blueprints" / "automation" / "overseer"
INPUTS: dict[str, dict[str, Any]] = {
    "admin_session_locks_room.yaml": {
        "session": "input_boolean.admin_session",
        "site_mode": "select.arena_site_mode",
    },
    "calendar_show_locks_lights.yaml": {
        "calendar": "calendar.shows",
        "lights_locked_on": "switch.arena_lights_locked_on",
    },
    "chat_relay.yaml": {
        "overseer": "room1",
        "webhook_id": "overseer-relay-test",
        "notify_action": "notify.discord",
    },
    "blocked_action_alert.yaml": {"notify_action": "notify.phone", "ignored_reasons": ["cooldown"]},
}


def test_every_shipped_blueprint_is_tested():
    assert sorted(path.name for path in SHIPPED.glob("*.yaml")) == sorted(INPUTS)


@pytest.mark.parametrize("name", sorted(INPUTS))
async def test_each_blueprint_passes_home_assistants_own_validation(hass, name):
    data = await hass.async_add_executor_job(yaml_util.load_yaml_dict, str(SHIPPED / name))
    blueprint = Blueprint(data, path=name, expected_domain="automation", schema=AUTOMATION_BLUEPRINT_SCHEMA)
    blueprint.validate()
    assert blueprint.metadata["source_url"].endswith(f"/blueprints/automation/overseer/{name}")
    inputs = BlueprintInputs(blueprint, {"use_blueprint": {"path": name, "input": INPUTS[name]}})
    inputs.validate()
    for key, value in inputs.inputs_with_default.items():
        if picker := (blueprint.inputs[key] or {}).get("selector"):
            selector.selector(picker)(value)  # Home Assistant does not check values against selectors
    await async_validate_config_item(hass, name, {**inputs.async_substitute(), "id": name, "alias": name})


async def use_blueprint(hass, tmp_path, name: str) -> None:
    """Import a shipped blueprint into a fresh config folder and run an automation from it."""
    hass.config.config_dir = str(tmp_path)
    target = tmp_path / "blueprints" / "automation" / "overseer" / name
    await hass.async_add_executor_job(lambda: target.parent.mkdir(parents=True, exist_ok=True))
    await hass.async_add_executor_job(shutil.copy, SHIPPED / name, target)
    automation = {
        "id": name,
        "alias": name,
        "use_blueprint": {"path": f"overseer/{name}", "input": INPUTS[name]},
    }
    assert await async_setup_component(hass, "automation", {"automation": [automation]})
    await hass.async_block_till_done()


async def test_an_admin_session_locks_the_room_and_frees_it(hass, tmp_path, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    assert await async_setup_component(hass, "input_boolean", {"input_boolean": {"admin_session": {}}})
    await use_blueprint(hass, tmp_path, "admin_session_locks_room.yaml")

    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.admin_session"}, blocking=True
    )
    await hass.async_block_till_done()
    assert hass.states.get("select.arena_site_mode").state == "admin"

    await hass.services.async_call(
        "input_boolean", "turn_off", {"entity_id": "input_boolean.admin_session"}, blocking=True
    )
    await hass.async_block_till_done()
    assert hass.states.get("select.arena_site_mode").state == "open"

    # A lockdown set during a session is not lifted when the session ends.
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.admin_session"}, blocking=True
    )
    await hass.async_block_till_done()
    await set_select(hass, "select.arena_site_mode", "lockdown")
    await hass.services.async_call(
        "input_boolean", "turn_off", {"entity_id": "input_boolean.admin_session"}, blocking=True
    )
    await hass.async_block_till_done()
    assert hass.states.get("select.arena_site_mode").state == "lockdown"


async def test_the_chat_relay_brings_lines_in_and_sends_bot_lines_out(
    hass, tmp_path, ollama_stub, room, hass_client_no_auth
):
    await setup_overseer(hass, ollama_stub)
    assert await async_setup_component(hass, "webhook", {})
    sent = async_mock_service(hass, "notify", "discord")
    chat = async_capture_events(hass, "overseer_chat_message")
    await use_blueprint(hass, tmp_path, "chat_relay.yaml")

    client = await hass_client_no_auth()
    response = await client.post("/api/webhook/overseer-relay-test", json={"user": "alex", "text": "hi all"})
    assert response.status == 200
    await hass.async_block_till_done()
    assert [(e.data["user"], e.data["text"], e.data["bot"]) for e in chat] == [("alex", "hi all", False)]
    assert sent == []  # a human line is not echoed back out

    hass.bus.async_fire(
        "overseer_chat_message", {"user": "Overseer", "text": "Noted.", "bot": True, "room": "arena"}
    )
    await hass.async_block_till_done()
    assert [call.data["message"] for call in sent] == ["Overseer: Noted."]


async def test_blocked_actions_raise_an_alert_except_the_ignored_reasons(hass, tmp_path):
    sent = async_mock_service(hass, "notify", "phone")
    await use_blueprint(hass, tmp_path, "blocked_action_alert.yaml")

    for outcome, reason in (
        ("blocked", "policy_lock:site_mode_lockdown"),
        ("blocked", "cooldown"),
        ("executed", None),
    ):
        hass.bus.async_fire(
            "overseer_action",
            {"decision_id": "d1", "tool": "lift_up", "arguments": {}, "outcome": outcome, "reason": reason},
        )
    await hass.async_block_till_done()

    assert [call.data["message"] for call in sent] == [
        "lift_up was refused (policy_lock:site_mode_lockdown), decision d1."
    ]
