"""The websocket status API (admin only, pushed on change) and the card's registration."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from unittest.mock import patch

from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_capture_events

from ..ollama_stub import call, reasoning
from .harness import say, setup_overseer, tick

PACKAGE = Path(__file__).parents[2] / "custom_components" / "overseer"
FRONTEND = PACKAGE / "frontend"
VERSION = json.loads((PACKAGE / "manifest.json").read_text())["version"]
# The card's folder, served under the integration's version so every file is fetched anew after an update.
BASE = f"/overseer_static/{VERSION}/"
CARD_URL = f"{BASE}overseer-card.js"
# The contract's loop phases, in the order a cycle goes through them.
PHASES = ["idle", "gate_check", "awaiting_model", "tool_exec", "posted", "failed"]


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
    assert first["phases"] == PHASES  # the card draws its phase strip from these
    assert first["model"]["health_text"] is None  # it answers: no banner

    ollama_stub.reply("Up.", call("lift_up"))
    say(hass, "alex", "overseer raise the lift")
    await tick(hass, freezer)
    phases = []
    while True:
        event = (await client.receive_json())["event"]
        phases.append(event["phase"])
        if event["phase"] == "posted" and event["decision"]:
            break
    assert {"gate_check", "awaiting_model", "tool_exec"} <= set(phases) <= set(PHASES)
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


def relative_imports(name: str, body: str) -> list[str]:
    """The folder's files a module imports, as paths inside the folder."""
    found = re.findall(r'(?:\bfrom|\bimport)\s*"(\.{1,2}/[^"]+)"', body)
    return [posixpath.normpath(posixpath.join(posixpath.dirname(name), ref)) for ref in found]


async def test_the_card_and_every_module_it_imports_are_served_under_the_version(
    hass, hass_client, ollama_stub, room
):
    assert await async_setup_component(hass, "frontend", {})
    await setup_overseer(hass, ollama_stub)
    from homeassistant.components.frontend import DATA_EXTRA_MODULE_URL

    # One module on every dashboard, no resource step.
    assert [url for url in hass.data[DATA_EXTRA_MODULE_URL].urls if "overseer" in url] == [CARD_URL]
    client = await hass_client()
    served: dict[str, str] = {}
    waiting = ["overseer-card.js"]
    while waiting:
        name = waiting.pop()
        if name in served:
            continue
        response = await client.get(BASE + name)
        assert response.status == 200, name
        assert response.content_type in ("text/javascript", "application/javascript"), name
        # Cached for long: only a new version's path has new files.
        assert "max-age" in response.headers["Cache-Control"], name
        served[name] = await response.text()
        assert served[name] == (FRONTEND / name).read_text(encoding="utf-8"), name
        waiting += relative_imports(name, served[name])
    assert 'customElements.define("overseer-card"' in served["overseer-card.js"]
    assert "overseer-card-editor.js" in served  # the visual editor comes with the card
    # Nothing in the folder is left unreached, and nothing reached is missing from it.
    assert set(served) == {path.relative_to(FRONTEND).as_posix() for path in FRONTEND.rglob("*.js")}
    assert not [url for url in hass.data[DATA_EXTRA_MODULE_URL].urls if "?v=" in url and "overseer" in url]


async def test_the_vendored_lit_comes_with_its_licence_and_says_which_version_it_is(
    hass, hass_client, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_client()
    licence = await client.get(f"{BASE}vendor/LICENSE")
    assert licence.status == 200
    text = await licence.text()
    assert "BSD 3-Clause License" in text and "Copyright (c) 2017 Google LLC" in text
    lit = (FRONTEND / "vendor" / "lit.js").read_text(encoding="utf-8")
    [shipped] = re.findall(r'litHtmlVersions\?\?=\[\]\)\.push\("([\d.]+)"\)', lit)
    readme = (FRONTEND / "vendor" / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(f"# Vendored: Lit {shipped}\n") and f"lit@{shipped}" in readme
    assert lit.startswith(f"/* Lit {shipped} ") and "see LICENSE beside this file" in lit


async def test_the_card_is_added_when_the_frontend_loads_after_the_overseer(hass, ollama_stub, room):
    await setup_overseer(hass, ollama_stub)
    assert await async_setup_component(hass, "frontend", {})
    await hass.async_block_till_done()
    from homeassistant.components.frontend import DATA_EXTRA_MODULE_URL

    assert CARD_URL in hass.data[DATA_EXTRA_MODULE_URL].urls


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


async def test_an_approval_comes_with_its_call_as_people_read_it(
    hass, hass_ws_client, freezer, ollama_stub, room
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(("asset_restart", {"asset_id": "vacuum.neato"}), safety="consequential"))
    hass.states.async_set("vacuum.neato", "error", {"friendly_name": "Neato", "status": "Brush stuck"})
    await tick(hass, freezer, 5)
    await tick(hass, freezer)
    [pending] = approvals
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status", "entry_id": "room1"})
    [shown] = (await client.receive_json())["result"]["approvals"]
    assert shown["approval_id"] == pending.data["approval_id"] and shown["status"] == "pending"
    assert shown["call"] == "asset_restart(asset_id=vacuum.neato)"
    assert shown["arguments"] == {"asset_id": "vacuum.neato"}  # the fields it had stay


async def test_the_health_banner_is_worded_in_the_language_the_card_asks_for(
    hass, hass_ws_client, ollama_stub, room
):
    port = ollama_stub.port
    await ollama_stub.stop()
    await setup_overseer(hass, ollama_stub)
    await hass.async_block_till_done(wait_background_tasks=True)
    client = await hass_ws_client(hass)

    async def banner(**language: str) -> dict:
        await client.send_json_auto_id({"type": "overseer/status/subscribe", "entry_id": "room1", **language})
        assert (await client.receive_json())["success"]
        return (await client.receive_json())["event"]["model"]

    english = await banner()
    assert english["health"] == "unreachable" and english["health_text"] == "The model is unreachable"
    # A language without our translations falls back to English; a malformed tag is ignored.
    assert (await banner(language="fr"))["health_text"] == "The model is unreachable"
    assert (await banner(language="../../x"))["health_text"] == "The model is unreachable"

    from homeassistant.helpers.translation import async_get_translations

    async def with_german(hass, language, category, integrations=None, config_flow=None):
        found = await async_get_translations(hass, language, category, integrations, config_flow)
        if language == "de":
            key = "component.overseer.exceptions.health_unreachable.message"
            found = {**found, key: "Das Modell ist nicht erreichbar"}
        return found

    with patch("custom_components.overseer.phrases.async_get_translations", with_german):
        german = await banner(language="de")
    assert german["health_text"] == "Das Modell ist nicht erreichbar"
    assert german["detail"] == english["detail"]  # the server's own detail is not translated
    await ollama_stub.start(port)
