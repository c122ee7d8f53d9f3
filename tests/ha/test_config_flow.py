"""Config, reconfigure and options flows, every error and its recovery."""

from __future__ import annotations

from unittest.mock import patch

import httpx
import openai
import pytest
from homeassistant import config_entries
from homeassistant.data_entry_flow import FlowResultType, InvalidData

from custom_components.overseer.const import DOMAIN

from ..contract import options_sections
from .agents import AGENT_ID, async_setup_agent
from .harness import MODEL, OPTIONS, count_setups, say, setup_overseer, status, tick


async def start(hass, name="Overseer", room="Arena", backend="ollama"):
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    assert result["type"] is FlowResultType.FORM and result["step_id"] == "user"
    return await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": name, "room": room, "backend": backend}
    )


async def test_ollama_flow_with_every_error_and_its_recovery(hass, ollama_stub):
    result = await start(hass, name="  HAL  ")
    assert result["step_id"] == "ollama"
    # cannot_connect: nothing listens on this port
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": "http://127.0.0.1:9"})
    assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": "cannot_connect"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url + "/"})
    assert result["step_id"] == "model"
    assert result["description_placeholders"] == {"url": ollama_stub.url, "count": "2"}
    # model_not_found: a custom value the server does not have
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": "mistral-small:24b"})
    assert result["errors"] == {"model": "model_not_found"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Arena"
    assert result["data"] == {
        "name": "HAL",
        "room": "Arena",
        "backend": "ollama",
        "url": ollama_stub.url,
        "model": MODEL,
    }
    assert result["result"].unique_id == "arena"


# The failures no stub server can give quickly, raised where each client library raises them
# (a timeout takes the flow's ten seconds against a real server).
OLLAMA_LIST = "ollama.AsyncClient.list"
OPENAI_LIST = "openai.resources.models.AsyncModels.list"


def openai_timeout() -> openai.APITimeoutError:
    return openai.APITimeoutError(request=httpx.Request("GET", "http://127.0.0.1/v1/models"))


@pytest.mark.parametrize(
    ("failure", "error"),
    [(httpx.ReadTimeout("slow"), "timeout"), (RuntimeError("boom"), "unknown")],
    ids=["timeout", "unknown"],
)
async def test_ollama_server_that_times_out_or_fails_unexpectedly_then_answers(
    hass, ollama_stub, failure, error
):
    result = await start(hass)
    with patch(OLLAMA_LIST, side_effect=failure):
        result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": error}
    assert result["data_schema"]({})["url"] == ollama_stub.url  # the URL given stays in the form
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["type"] is FlowResultType.CREATE_ENTRY and result["data"]["url"] == ollama_stub.url


async def test_openai_flow_with_every_error_and_its_recovery_without_a_key(hass, ollama_stub):
    result = await start(hass, backend="openai")
    assert result["step_id"] == "openai"
    url = f"{ollama_stub.url}/v1"
    ollama_stub.api_key = "sk-local"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": url})
    assert result["errors"] == {"base": "invalid_auth"}
    for failure, error in ((openai_timeout(), "timeout"), (RuntimeError("boom"), "unknown")):
        with patch(OPENAI_LIST, side_effect=failure):
            result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": url})
        assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": error}
    # A server that needs no key: none is stored, and the model step lists its models.
    ollama_stub.api_key = ""
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": url, "api_key": "  "})
    assert result["step_id"] == "model" and result["description_placeholders"]["count"] == "2"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        "name": "Overseer",
        "room": "Arena",
        "backend": "openai",
        "url": url,
        "model": MODEL,
    }


async def test_reauth_with_every_error_and_its_recovery(hass, ollama_stub, room):
    url = f"{ollama_stub.url}/v1"
    entry = await setup_overseer(hass, ollama_stub, data={"backend": "openai", "url": url, "api_key": "old"})
    ollama_stub.api_key = "new"
    result = await entry.start_reauth_flow(hass)
    assert result["step_id"] == "reauth_confirm" and result["description_placeholders"]["url"] == url
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"api_key": "wrong"})
    assert result["errors"] == {"base": "invalid_auth"}
    for failure, error in ((openai_timeout(), "timeout"), (RuntimeError("boom"), "unknown")):
        with patch(OPENAI_LIST, side_effect=failure):
            result = await hass.config_entries.flow.async_configure(result["flow_id"], {"api_key": "new"})
        assert result["errors"] == {"base": error}
    assert entry.data["api_key"] == "old"  # nothing changes until the server accepts a key
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"api_key": " new "})
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "reauth_successful"
    assert entry.data["api_key"] == "new" and entry.data["url"] == url
    await hass.async_block_till_done()  # the reload the update listener scheduled
    assert entry.state is config_entries.ConfigEntryState.LOADED


async def test_reconfigure_an_openai_server_with_a_new_key(hass, ollama_stub, room):
    url = f"{ollama_stub.url}/v1"
    entry = await setup_overseer(hass, ollama_stub, data={"backend": "openai", "url": url, "api_key": "old"})
    ollama_stub.api_key = "new"
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "backend": "openai"}
    )
    assert result["step_id"] == "openai"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": url, "api_key": "old"})
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": url, "api_key": "new"})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": "qwen2.5:7b"})
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "reconfigure_successful"
    assert (entry.data["api_key"], entry.data["model"]) == ("new", "qwen2.5:7b")
    await hass.async_block_till_done()  # the reload the update listener scheduled
    assert entry.state is config_entries.ConfigEntryState.LOADED


async def test_one_entry_per_room_name(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    result = await start(hass, room="ARENA")
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "already_configured"


async def test_room_is_required(hass):
    result = await start(hass, room="   ")
    assert result["errors"] == {"room": "room_required"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "room": "Lab", "backend": "ollama"}
    )
    assert result["step_id"] == "ollama"


async def test_conversation_flow_refuses_the_builtin_agent_and_missing_agents(hass, agent_flow):
    await async_setup_agent(hass)
    result = await start(hass, backend="conversation")
    assert result["step_id"] == "conversation"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"agent_id": "conversation.nobody"}
    )
    assert result["errors"] == {"agent_id": "agent_not_found"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"agent_id": AGENT_ID})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        "name": "Overseer",
        "room": "Arena",
        "backend": "conversation",
        "agent_id": AGENT_ID,
    }


async def test_conversation_flow_without_the_conversation_integration(hass):
    result = await start(hass, backend="conversation")
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"agent_id": AGENT_ID})
    assert result["errors"] == {"agent_id": "agent_not_found"}


async def test_builtin_agent_is_not_a_model(hass, agent_flow):
    await async_setup_agent(hass)
    assert hass.states.get("conversation.home_assistant") is not None  # it exists, but is not a model
    result = await start(hass, backend="conversation")
    # The form does not offer the built-in agent, and refuses it when sent anyway.
    with pytest.raises(InvalidData) as err:
        await hass.config_entries.flow.async_configure(
            result["flow_id"], {"agent_id": "conversation.home_assistant"}
        )
    assert "agent_id" in err.value.schema_errors
    # Nothing was created, and the same flow still takes a real agent.
    assert hass.config_entries.async_entries(DOMAIN) == []
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"agent_id": AGENT_ID})
    assert result["type"] is FlowResultType.CREATE_ENTRY and result["data"]["agent_id"] == AGENT_ID


async def test_reconfigure_changes_name_and_model_and_keeps_options(
    hass, hass_ws_client, ollama_stub, room, caplog
):
    entry = await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    setups = count_setups(entry)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Big Brother", "backend": "ollama"}
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": "qwen2.5:7b"})
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "reconfigure_successful"
    assert entry.data["name"] == "Big Brother" and entry.data["model"] == "qwen2.5:7b"
    assert entry.data["room"] == "Arena" and entry.options == OPTIONS
    await hass.async_block_till_done()  # the reload the update listener scheduled
    shown = await status(client)
    assert shown["name"] == "Big Brother" and shown["model"]["model"] == "qwen2.5:7b"
    # Set up again once, and without the report 2026.6+ writes for a flow that reloads an
    # entry beside its update listener (an error from 2026.12).
    assert setups.count(config_entries.ConfigEntryState.LOADED) == 1
    # asyncio's own "Executing <Task … update listener …> took 0.12 s" on a loaded machine is no report.
    reports = [r.getMessage() for r in caplog.records if r.name != "asyncio"]
    assert not [report for report in reports if "update listener" in report]


async def test_reconfiguring_an_entry_that_is_not_loaded_sets_it_up_with_the_new_model(
    hass, hass_ws_client, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    assert await hass.config_entries.async_unload(entry.entry_id)  # as a failed setup leaves it
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "backend": "ollama"}
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": "qwen2.5:7b"})
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert entry.state is config_entries.ConfigEntryState.LOADED
    assert (await status(await hass_ws_client(hass)))["model"]["model"] == "qwen2.5:7b"


async def test_reconfigure_to_a_conversation_agent(hass, hass_ws_client, ollama_stub, room, agent_flow):
    await async_setup_agent(hass)
    entry = await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "backend": "conversation"}
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"agent_id": AGENT_ID})
    assert result["reason"] == "reconfigure_successful"
    assert "url" not in entry.data and entry.data["agent_id"] == AGENT_ID
    await hass.async_block_till_done()  # the reload the flow scheduled
    model = (await status(client))["model"]
    assert (model["backend"], model["model"]) == ("conversation", AGENT_ID)


async def test_an_overseer_cannot_be_another_overseers_model(hass, ollama_stub, room, agent_flow):
    await async_setup_agent(hass)
    entry = await setup_overseer(hass, ollama_stub)
    result = await entry.start_reconfigure_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "backend": "conversation"}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"agent_id": "conversation.arena_agent"}
    )
    assert result["errors"] == {"agent_id": "agent_is_overseer"}
    assert entry.data["backend"] == "ollama"


def sections(**overrides):
    return options_sections(
        addressing__aliases=["bot", " HAL "],
        addressing__challenge_phrases=["i dare you"],
        guardrails__cooldown_lift=30,
        **overrides,
    )


async def test_options_flow_saves_flat_options_and_reloads(hass, hass_ws_client, freezer, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub, options={})
    client = await hass_ws_client(hass)
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.FORM and result["step_id"] == "init"
    result = await hass.config_entries.options.async_configure(result["flow_id"], sections())
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options["cooldown_lift"] == 30 and entry.options["aliases"] == ["bot", "HAL"]
    assert entry.options["lift_cover"] == "cover.lift" and "lift_up_script" not in entry.options
    await hass.async_block_till_done()  # the reload
    # The reloaded overseer runs with them: the lift's cooldown, and its new name " HAL " trimmed.
    assert {g["group"]: g["cooldown_s"] for g in (await status(client))["groups"]}["lift"] == 30
    ollama_stub.reply("Yes?")
    say(hass, "alex", "hal, are you there?")
    await tick(hass, freezer)
    assert len(ollama_stub.requests) == 1
    assert (await status(client))["last_trigger"]["kind"] == "direct_address"


async def test_options_flow_errors_change_nothing_and_recover(hass, ollama_stub, room):
    entry = await setup_overseer(hass, ollama_stub)
    before = dict(entry.options)
    result = await hass.config_entries.options.async_init(entry.entry_id)
    for overrides, error in (
        ({"room__lift_up_script": "script.up"}, "lift_cover_and_scripts"),
        ({"transcript__transcript_turns": 3}, "transcript_too_small"),
        (
            {"room__vacuum_entity": None, "room__vacuum_clear_errors_script": "script.clear"},
            "clear_errors_without_vacuum",
        ),
        ({"incidents__approval_notify": ["mobile_app_phone"]}, "invalid_notify_action"),
    ):
        result = await hass.config_entries.options.async_configure(result["flow_id"], sections(**overrides))
        assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": error}
        assert entry.options == before
    result = await hass.config_entries.options.async_configure(result["flow_id"], sections())
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_the_first_step_also_offers_the_rooms_orchestrator(hass, ollama_stub, room, agent_flow):
    await setup_overseer(hass, ollama_stub)  # the room's overseer exists: its orchestrator may too
    await async_setup_agent(hass)
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"name": "Overseer", "room": "Arena", "backend": "ollama", "kind": "orchestrator"}
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"url": ollama_stub.url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"model": MODEL})
    assert result["type"] is FlowResultType.CREATE_ENTRY and result["title"] == "Arena orchestrator"
    assert result["data"]["kind"] == "orchestrator"
    entry = result["result"]
    await hass.async_block_till_done()
    assert hass.states.get("sensor.arena_orchestrator_pipeline").state == "idle"

    # A second orchestrator for the room is refused.
    again = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    again = await hass.config_entries.flow.async_configure(
        again["flow_id"], {"name": "x", "room": "arena", "backend": "ollama", "kind": "orchestrator"}
    )
    assert again["type"] is FlowResultType.ABORT and again["reason"] == "already_configured"

    # Its options: participants first (none is refused), then a name and description for each.
    flow = await hass.config_entries.options.async_init(entry.entry_id)
    assert flow["step_id"] == "orchestrator"
    limits = {"max_iterations": 2, "quality_threshold": 0.7, "delegation_timeout": 20}
    flow = await hass.config_entries.options.async_configure(flow["flow_id"], {"agents": [], **limits})
    assert flow["errors"] == {"agents": "no_participants"}
    flow = await hass.config_entries.options.async_configure(
        flow["flow_id"], {"agents": [AGENT_ID, "conversation.gone"], **limits}
    )
    assert flow["errors"] == {"agents": "agent_not_found"}
    agents = [AGENT_ID, "conversation.arena_agent"]
    flow = await hass.config_entries.options.async_configure(flow["flow_id"], {"agents": agents, **limits})
    assert flow["step_id"] == "participants"
    flow = await hass.config_entries.options.async_configure(
        flow["flow_id"], {"name_0": "helper", "description_0": "small talk", "name_1": "Overseer"}
    )
    assert flow["type"] is FlowResultType.CREATE_ENTRY
    assert entry.options == {
        "participants": [
            {"agent_id": AGENT_ID, "name": "helper", "description": "small talk"},
            {"agent_id": "conversation.arena_agent", "name": "Overseer", "description": ""},
        ],
        "max_iterations": 2,
        "quality_threshold": 0.7,
        "delegation_timeout": 20,
    }
