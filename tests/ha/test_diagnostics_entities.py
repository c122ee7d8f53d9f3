"""Diagnostics redact secrets and what was said; entities follow Home Assistant conventions."""

from __future__ import annotations

from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er

from custom_components.overseer.diagnostics import async_get_config_entry_diagnostics

from ..ollama_stub import call, reasoning
from .harness import say, setup_overseer, tick


async def test_diagnostics_redact_credentials_prompt_and_chat(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub, data={"api_key": "sk-secret"})
    ollama_stub.reply("A secret line.", call("memory_write", slot=1, text="alex's secret"))
    say(hass, "alex", "overseer my password is hunter2")
    await tick(hass, freezer)
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    text = repr(diagnostics)
    for secret in ("sk-secret", ollama_stub.url, "hunter2", "A secret line", "alex's secret"):
        assert secret not in text
    assert diagnostics["entry"]["data"]["api_key"] == "**REDACTED**"
    assert diagnostics["status"]["schema"] == "overseer.v2"
    assert diagnostics["status"]["decision"]["mode"] == "ACTION+CHAT"
    assert diagnostics["audit_records"] == 1


async def test_entities_have_translated_names_unique_ids_and_one_service_device(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    entities = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    assert {e.unique_id for e in entities} == {
        f"room1_{key}"
        for key in (
            "agent",
            "loop_phase",
            "last_trigger",
            "last_decision",
            "cooldown_lift",
            "cooldown_neato",
            "cooldown_ha",
            "llm_calls_per_minute",
            "llm_latency",
            "blocked_rate",
            "open_incidents",
            "pending_approvals",
            "site_mode",
            "mode",
            "lights_locked_on",
            "dry_run",
        )
    }
    assert all(e.translation_key for e in entities)
    [device] = dr.async_entries_for_config_entry(dr.async_get(hass), entry.entry_id)
    assert device.entry_type is dr.DeviceEntryType.SERVICE and device.name == "Arena"
    phase = hass.states.get("sensor.arena_loop_phase")
    assert phase.attributes["options"] == [
        "idle",
        "gate_check",
        "awaiting_model",
        "tool_exec",
        "posted",
        "failed",
    ]
    assert phase.attributes["friendly_name"] == "Arena Loop phase"
    assert hass.states.get("select.arena_site_mode").attributes["options"] == ["open", "admin", "lockdown"]
    # When the lift is ready again: a timestamp, unknown while it has never been used.
    lift_cooldown = hass.states.get("sensor.arena_lift_cooldown")
    assert lift_cooldown.attributes["device_class"] == "timestamp" and lift_cooldown.state == "unknown"
    assert hass.states.get("sensor.arena_blocked_tool_calls").attributes["unit_of_measurement"] == "%"


async def test_metrics_sensors_follow_decisions(hass, freezer, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    assert hass.states.get("sensor.arena_model_latency").state == "unknown"  # nothing measured yet
    # The model takes 1.5 s to answer (on the test's clock) and emits two calls; one may run.
    ollama_stub.reply("", call("lift_up"), call("neato_start"), before=lambda: freezer.tick(1.5))
    say(hass, "alex", "overseer, raise the lift, start neato")
    await tick(hass, freezer)
    assert float(hass.states.get("sensor.arena_model_calls_per_minute").state) == 1.0
    assert float(hass.states.get("sensor.arena_blocked_tool_calls").state) == 50.0
    assert float(hass.states.get("sensor.arena_model_latency").state) == 1.5
    # A second answer that takes 0.5 s: the sensor is the average over the window.
    ollama_stub.reply("Quick.", before=lambda: freezer.tick(0.5))
    say(hass, "alex", "overseer again")
    await tick(hass, freezer)
    assert float(hass.states.get("sensor.arena_model_latency").state) == 1.0


async def test_diagnostics_show_incidents_and_approvals_without_the_nonce(hass, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    ollama_stub.triage(reasoning(("asset_restart", {"asset_id": "vacuum.neato"}), safety="consequential"))
    hass.states.async_set("vacuum.neato", "error", {"status": "Brush stuck near the stairs"})
    await tick(hass, freezer, 5)
    await tick(hass, freezer)
    [approval] = entry.runtime_data.loop.state.approvals.values()
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    assert approval.nonce not in repr(diagnostics)  # the phone buttons' secret never leaves
    [incident] = diagnostics["status"]["incidents"]
    assert incident["status"] == "awaiting_approval"
    assert [step["what"] for step in incident["timeline"]] == ["opened", "request", "response", "intent"]
    assert "Brush stuck near the stairs" not in repr(diagnostics)  # the device's own words
    [shown] = diagnostics["status"]["approvals"]
    assert shown["approval_id"] == approval.approval_id and shown["arguments"] == "**REDACTED**"
