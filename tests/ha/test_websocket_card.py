"""The websocket status API (admin only, pushed on change) and the card's registration."""

from __future__ import annotations

import json
from pathlib import Path

from homeassistant.setup import async_setup_component

from ..ollama_stub import call
from .harness import say, setup_overseer, tick

CARD_URL = "/overseer_static/overseer-card.js"
MANIFEST = Path(__file__).parents[2] / "custom_components" / "overseer" / "manifest.json"


async def test_status_is_for_admins_only(
    hass, hass_ws_client, hass_read_only_access_token, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass, hass_read_only_access_token)
    for command in ("overseer/status", "overseer/status/subscribe"):
        await client.send_json_auto_id({"type": command, "entry_id": "room1"})
        response = await client.receive_json()
        assert response["success"] is False and response["error"]["code"] == "unauthorized"


async def test_status_and_unknown_entries(hass, hass_ws_client, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status", "entry_id": "room1"})
    response = await client.receive_json()
    assert response["success"] and response["result"]["schema"] == "overseer.v2"
    assert response["result"]["model"]["backend"] == "ollama"
    for command in ("overseer/status", "overseer/status/subscribe"):
        await client.send_json_auto_id({"type": command, "entry_id": "nope"})
        response = await client.receive_json()
        assert response["error"]["code"] == "not_found"


async def test_subscription_pushes_every_change_and_survives_a_reload(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    entry = await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status/subscribe", "entry_id": "room1"})
    assert (await client.receive_json())["success"]
    first = (await client.receive_json())["event"]
    assert first["schema"] == "overseer.v2" and first["phase"] == "idle"

    ollama_stub.reply("Up.", call("lift_up"))
    say(hass, "alex", "overseer lift")
    await tick(hass, freezer)
    phases = []
    while True:
        event = (await client.receive_json())["event"]
        phases.append(event["phase"])
        if event["phase"] == "posted" and event["decision"]:
            break
    assert {"gate_check", "awaiting_model", "tool_exec"} <= set(phases)
    assert event["tool_calls"]["executed"] == 1
    assert event["blocked_tools"][0] == {"tool": "lift_up", "reason": "cooldown", "remaining": 60}

    await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    await hass.services.async_call(
        "select", "select_option", {"entity_id": "select.arena_overseer_mode", "option": "off"}, blocking=True
    )
    while (event := (await client.receive_json())["event"])["schema"] != "overseer.off":
        pass
    assert event["enabled"] is False


async def test_the_card_is_served_and_loaded_on_every_dashboard(hass, hass_client, ollama_stub, room):
    assert await async_setup_component(hass, "frontend", {})
    await setup_overseer(hass, ollama_stub)
    from homeassistant.components.frontend import DATA_EXTRA_MODULE_URL

    urls = [url for url in hass.data[DATA_EXTRA_MODULE_URL].urls if url.startswith(CARD_URL)]
    # The version busts the browser's cache when an update changes the card.
    version = json.loads(MANIFEST.read_text())["version"]
    assert urls == [f"{CARD_URL}?v={version}"]
    client = await hass_client()
    response = await client.get(urls[0])
    assert response.status == 200
    body = await response.text()
    assert 'customElements.define("overseer-card"' in body


async def test_the_card_is_added_when_the_frontend_loads_after_the_overseer(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    assert await async_setup_component(hass, "frontend", {})
    await hass.async_block_till_done()
    from homeassistant.components.frontend import DATA_EXTRA_MODULE_URL

    assert any(url.startswith(CARD_URL) for url in hass.data[DATA_EXTRA_MODULE_URL].urls)


async def test_the_live_chat_tail_is_pushed_without_a_decision(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status/subscribe", "entry_id": "room1"})
    assert (await client.receive_json())["success"]
    first = (await client.receive_json())["event"]
    assert first["chat"] == [] and first["transcript"] == []
    say(hass, "sam", "nice <b>lap</b>")  # not addressed: no decision, still news for the card
    await tick(hass, freezer)
    event = (await client.receive_json())["event"]
    assert [(line["user"], line["text"], line["bot"], line["own"]) for line in event["chat"]] == [
        ("sam", "nice <b>lap</b>", False, False)
    ]
    assert ollama_stub.requests == []
