"""Model health: checked on its own schedule, shown by the entities and the card, reauth for a refused key."""

from __future__ import annotations

from datetime import timedelta
from unittest.mock import patch

import pytest
from homeassistant.config_entries import SOURCE_REAUTH, SOURCE_USER, ConfigEntryState
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.overseer.const import DOMAIN
from custom_components.overseer.providers import SERVER_NOT_RUNNING
from custom_components.overseer.status import build_status

from .harness import MODEL, count_setups, say, setup_overseer, tick

OPENAI = {"backend": "openai", "api_key": "old-key"}


def health(entry) -> str:
    return build_status(entry.runtime_data)["model"]["health"]


def reauth_flows(hass) -> list:
    """The reauthentication flows Home Assistant has started."""
    return [f for f in hass.config_entries.flow.async_progress() if f["context"]["source"] == SOURCE_REAUTH]


async def later(hass, freezer, delta: timedelta) -> None:
    """Let time pass, and every check it starts finish."""
    freezer.tick(delta)
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)


async def test_a_model_that_goes_away_is_noticed_without_a_decision_and_checked_every_minute(
    hass, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    await hass.async_block_till_done(wait_background_tasks=True)  # the first check runs in the background
    assert health(entry) == "ok"
    assert hass.states.get("sensor.arena_model_latency").state != "unavailable"
    ollama_stub.models = ["something-else"]
    # Connected, the model is checked every ten minutes, not on every tick.
    tags_before = ollama_stub.tags_requests
    await later(hass, freezer, timedelta(minutes=9))
    assert ollama_stub.tags_requests == tags_before and health(entry) == "ok"
    await later(hass, freezer, timedelta(minutes=2))
    assert health(entry) == "model_not_found"
    assert hass.states.get("sensor.arena_model_latency").state == "unavailable"
    # The site mode is not a model figure: a room can be locked while its model is down.
    assert hass.states.get("select.arena_site_mode").state == "open"
    # Disconnected, it is checked every minute, and recovers on its own.
    ollama_stub.models = [MODEL]
    checks = ollama_stub.tags_requests
    await later(hass, freezer, timedelta(seconds=61))
    assert ollama_stub.tags_requests == checks + 1
    assert health(entry) == "ok"
    assert hass.states.get("sensor.arena_model_latency").state != "unavailable"


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_a_model_server_that_stops_is_named_stopped_and_a_reply_clears_it(
    hass, freezer, ollama_stub, room, backend
):
    data = {"backend": "openai", "url": f"{ollama_stub.url}/v1"} if backend == "openai" else None
    entry = await setup_overseer(hass, ollama_stub, data=data)
    url = ollama_stub.url
    await ollama_stub.stop()
    for _ in range(3):
        say(hass, "alex", "overseer are you there")
        await tick(hass, freezer, seconds=60)
    assert health(entry) == "unreachable"
    # A server that crashed reads as stopped, not as a slow network.
    assert build_status(entry.runtime_data)["model"]["detail"] == SERVER_NOT_RUNNING
    assert ir.async_get(hass).async_get_issue(DOMAIN, f"model_unreachable_{entry.entry_id}") is not None
    await ollama_stub.start(port=int(url.rsplit(":", 1)[1]))
    ollama_stub.reply("I am here.")
    await tick(hass, freezer, seconds=400)
    assert health(entry) == "ok"
    assert ir.async_get(hass).async_get_issue(DOMAIN, f"model_unreachable_{entry.entry_id}") is None


async def test_a_refused_api_key_starts_reauth_and_a_new_key_fixes_it(
    hass, freezer, ollama_stub, room, caplog
):
    ollama_stub.api_key = "old-key"
    entry = await setup_overseer(hass, ollama_stub, data={**OPENAI, "url": f"{ollama_stub.url}/v1"})
    await hass.async_block_till_done(wait_background_tasks=True)
    assert health(entry) == "ok"
    ollama_stub.api_key = "new-key"
    await later(hass, freezer, timedelta(minutes=11))
    assert health(entry) == "invalid_auth"
    flows = reauth_flows(hass)
    assert len(flows) == 1
    flow_id = flows[0]["flow_id"]

    result = await hass.config_entries.flow.async_configure(flow_id, {"api_key": "still-wrong"})
    assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": "invalid_auth"}
    assert entry.data["api_key"] == "old-key"  # nothing changes until the server accepts a key
    setups = count_setups(entry)
    result = await hass.config_entries.flow.async_configure(flow_id, {"api_key": "new-key"})
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "reauth_successful"
    await hass.async_block_till_done(wait_background_tasks=True)  # reloaded with the new key
    assert entry.data["api_key"] == "new-key"
    assert health(hass.config_entries.async_get_entry(entry.entry_id)) == "ok"
    assert setups.count(ConfigEntryState.LOADED) == 1  # once, by the update listener
    assert "update listener" not in caplog.text


async def test_reauth_with_the_server_gone_says_so(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub, data={**OPENAI, "url": f"{ollama_stub.url}/v1"})
    result = await entry.start_reauth_flow(hass)
    assert result["step_id"] == "reauth_confirm"
    await ollama_stub.stop()
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"api_key": "k"})
    assert result["errors"] == {"base": "cannot_connect"}


async def test_an_unexpected_error_while_listing_models_gives_the_form_back_with_unknown(hass, ollama_stub):
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "room": "Arena", "backend": "ollama"}
    )
    # The failure no code path expects, raised where the ollama library would raise it.
    with patch("ollama.AsyncClient.list", side_effect=RuntimeError("boom")):
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": "unknown"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    assert result["step_id"] == "model"  # recovered: the same form works once the error is gone


async def test_a_decision_refused_for_its_key_starts_reauth_and_checks_every_minute(
    hass, freezer, ollama_stub, room
):
    ollama_stub.api_key = "old-key"
    entry = await setup_overseer(hass, ollama_stub, data={**OPENAI, "url": f"{ollama_stub.url}/v1"})
    await hass.async_block_till_done(wait_background_tasks=True)
    ollama_stub.api_key = "new-key"
    say(hass, "alex", "overseer hello")
    await tick(hass, freezer)
    assert health(entry) == "invalid_auth"
    flows = reauth_flows(hass)
    assert len(flows) == 1
    # Not ten minutes: the model is checked again within the disconnected interval.
    checks = ollama_stub.tags_requests
    await later(hass, freezer, timedelta(seconds=61))
    assert ollama_stub.tags_requests == checks + 1
