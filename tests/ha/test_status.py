"""The status objects: one schema per mode, never one shared object."""

from __future__ import annotations

import json
from pathlib import Path

from custom_components.overseer.health import Health
from custom_components.overseer.status import QUIET_HEALTH, build_status

from ..ollama_stub import call
from .harness import say, setup_overseer, tick

TRANSLATIONS = Path(__file__).parents[2] / "custom_components" / "overseer" / "translations" / "en.json"
PHASES = ["idle", "gate_check", "awaiting_model", "tool_exec", "posted", "failed"]


async def test_control_status_has_everything_the_debug_card_shows(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    ollama_stub.reply("Up.", call("lift_up"), call("self_destruct"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    status = build_status(entry.runtime_data)
    assert status["schema"] == "overseer.v2"
    assert status["enabled"] is True and status["running"] is True and status["phase"] == "posted"
    assert status["phases"] == PHASES
    assert status["last_trigger"]["kind"] == "direct_address" and status["last_trigger"]["detail"] == "alex"
    assert status["state_update"].startswith("STATE_UPDATE")
    assert status["model_input"]["messages"] == 4 and status["model_input"]["estimated_tokens"] > 0
    assert "lift_up" in status["model_output"]
    assert status["decision"]["mode"] == "ACTION" and status["decision"]["prompt_tokens"] == 321
    assert status["tool_calls"]["attempted"] == 2
    assert status["tool_calls"]["executed"] == 1 and status["tool_calls"]["blocked"] == 1
    assert {"tool": "lift_up", "reason": "cooldown", "remaining": 60} in status["blocked_tools"]
    assert status["cooldowns"]["lift"]["remaining"] == 60 and status["cooldowns"]["lift"]["until"]
    assert status["budget"] == {"used": 1, "limit": 3, "window_s": 300}
    assert [a["tool"] for a in status["recent_actions"]] == ["lift_up", "self_destruct"]
    assert status["memory"] == ["", "", ""] and status["last_error"] is None
    assert status["metrics"]["llm_calls"] == 1


async def test_commentary_and_off_have_their_own_schemas(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    room = entry.runtime_data
    await hass.services.async_call(
        "select",
        "select_option",
        {"entity_id": "select.arena_overseer_mode", "option": "commentary"},
        blocking=True,
    )
    ollama_stub.reply("Nice drift.")
    say(hass, "alex", "overseer comment")
    await tick(hass, freezer)
    status = build_status(room)
    assert status["schema"] == "overseer.commentary"
    assert status["last_comment"] == "Nice drift."
    assert status["phase"] == "posted" and status["phases"] == PHASES
    assert "available_tools" not in status and "cooldowns" not in status
    await hass.services.async_call(
        "select", "select_option", {"entity_id": "select.arena_overseer_mode", "option": "off"}, blocking=True
    )
    off = build_status(room)
    assert off == {
        "schema": "overseer.off",
        "entry_id": "room1",
        "name": "Overseer",
        "room": "arena",
        "title": "Arena",
        "mode": "off",
        "enabled": False,
        "running": True,
    }


async def test_the_status_says_when_the_model_is_unreachable_before_any_decision(hass, ollama_stub, room):
    port = ollama_stub.port
    await ollama_stub.stop()
    entry = await setup_overseer(hass, ollama_stub)
    await hass.async_block_till_done(wait_background_tasks=True)
    model = build_status(entry.runtime_data)["model"]
    assert model["health"] == "unreachable" and model["backend"] == "ollama"
    assert "connect" in model["detail"].lower()
    await ollama_stub.start(port)


async def test_the_status_says_when_the_model_is_missing_and_when_it_is_fine(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub, data={"model": "gone:latest"})
    await hass.async_block_till_done(wait_background_tasks=True)
    assert build_status(entry.runtime_data)["model"]["health"] == "model_not_found"
    other = await setup_overseer(hass, ollama_stub, data={"room": "Lab"}, entry_id="room2")
    await hass.async_block_till_done(wait_background_tasks=True)
    assert build_status(other.runtime_data)["model"] == {
        "backend": "ollama",
        "model": "llama3.2:latest",
        "health": "ok",
        "detail": None,
        "health_text": None,
    }


async def test_every_unhealthy_model_has_banner_words_and_a_healthy_one_none(hass, ollama_stub, room):
    strings = json.loads(TRANSLATIONS.read_text())["exceptions"]
    for health in Health:
        assert (f"health_{health.value}" in strings) is (health.value not in QUIET_HEALTH), health
    entry = await setup_overseer(hass, ollama_stub, data={"model": "gone:latest"})
    await hass.async_block_till_done(wait_background_tasks=True)

    def shown(key: str, **values: str) -> str:
        """A reader's language that shows which words were asked for, and with what."""
        return f"<{key} {values}>" if values else f"<{key}>"

    model = build_status(entry.runtime_data, shown)["model"]
    assert model["health_text"] == "<health_model_not_found>"
    # Why, in the reader's words too: our own description of the failure, with its values.
    assert model["detail"] == "<model_not_on_server {'model': 'gone:latest'}>"
