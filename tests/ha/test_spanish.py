"""The integration in Spanish: what a person reads comes from es.json, and no English of ours is left.

Home Assistant speaks Spanish here, and the walk goes through what reaches people: the services'
and the websocket's refusals, both repairs, the model's failure in the card's banner, the notes an
agent passes on from the guardrails API, and the card's own words (the browser test renders the
card itself in Spanish). Each message is checked twice: it is es.json's sentence with its values
filled in, and no piece of an English sentence of ours shows up in it. The English is not a list
of today's sentences: every en.json string whose Spanish differs is cut at its placeholders, and
each piece of two words or more is a piece of English to look for.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer.const import DOMAIN, Phase
from custom_components.overseer.core.approvals import ApprovalSource, ApprovalStatus
from custom_components.overseer.core.audit import Outcome
from custom_components.overseer.core.faults import FaultCode
from custom_components.overseer.core.gate import MissReason, TriggerKind
from custom_components.overseer.core.incidents import IncidentStatus
from custom_components.overseer.core.pipeline import Stage
from custom_components.overseer.core.world import SiteMode

from ..contract import FAILURES, REASONS
from ..ollama_stub import reasoning
from .harness import llm_context, say, setup_overseer, tick, tool_answer

INTEGRATION = Path(__file__).parents[2] / "custom_components" / "overseer"
FRONTEND = INTEGRATION / "frontend"
EN = json.loads((INTEGRATION / "translations" / "en.json").read_text(encoding="utf-8"))
ES = json.loads((INTEGRATION / "translations" / "es.json").read_text(encoding="utf-8"))
PLACEHOLDER = re.compile(r"\{(\w+)\}")
RESTART = ("asset_restart", {"asset_id": "vacuum.neato"})
JAMMED = {"friendly_name": "Neato", "status": "Brush stuck"}


def leaves(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every string of a nested mapping by its dotted key."""
    found: dict[str, str] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            found.update(leaves(value, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = value
    return found


def english_pieces() -> list[str]:
    """The pieces of English an untranslated message would show: of every string es.json words otherwise."""
    spanish = leaves(ES)
    pieces = set()
    for key, english in leaves(EN).items():
        if spanish.get(key) == english:
            continue
        for between in PLACEHOLDER.split(english)[::2]:
            piece = between.strip(" .,:;()\"'\n")
            if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 2:
                pieces.add(piece)
    return sorted(pieces, key=len, reverse=True)


PIECES = english_pieces()


def assert_no_english(text: str) -> None:
    found = [piece for piece in PIECES if re.search(rf"(?<!\w){re.escape(piece)}(?!\w)", text)]
    assert not found, f"English in {text!r}: {found}"


def spanish(section: str, key: str, **values: str) -> str:
    """es.json's sentence with its values filled in, as Home Assistant fills them; each one is given."""
    text = leaves(ES)[f"{section}.{key}"]
    assert set(PLACEHOLDER.findall(text)) <= set(values), (key, values)
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def message(key: str, **values: str) -> str:
    """A message of ours in Spanish, as the code words it."""
    return spanish("exceptions", f"{key}.message", **values)


@pytest.fixture
def in_spanish(hass: HomeAssistant) -> None:
    """Home Assistant set to Spanish, so the room speaks it: it has no language of its own."""
    hass.config.language = "es"


def test_the_english_pieces_are_found_and_none_is_in_spanish() -> None:
    """The check finds something to look for, and nothing es.json says sets it off."""
    assert len(PIECES) > 200
    for text in leaves(ES).values():
        assert_no_english(text)


def refused_in_spanish(err: HomeAssistantError) -> str:
    """A refusal as the frontend shows it to a Spanish user: es.json's message for its key, filled in.

    (Home Assistant words str(err) in English whatever its language, by design: that is the log's.)
    """
    assert err.translation_domain == DOMAIN
    placeholders = err.translation_placeholders or {}
    assert set(PLACEHOLDER.findall(leaves(ES)[f"exceptions.{err.translation_key}.message"])) == set(
        placeholders
    )
    text = message(err.translation_key, **placeholders)
    assert_no_english(text)
    return text


SERVICE_REFUSALS = [
    ("post_message", {"user": "alex", "text": "hi", "colour": "red"}),
    ("post_message", {"user": "alex"}),
    ("post_message", {"user": "alex", "text": "   "}),
    ("post_message", {"user": "alex", "text": "hi", "config_entry_id": "nope"}),
    ("memory_write", {"slot": 4, "text": "x"}),
    ("memory_clear", {"slot": 0}),
    ("approve", {"approval_id": "APR-1", "grant_minutes": 1441}),
    ("approve", {"approval_id": "APR-nope"}),
    ("deny", {"approval_id": " "}),
    ("revoke_grant", {"grant_id": "GRT-nope"}),
    ("revoke_grant", {"grant_id": "  "}),
]


@pytest.mark.parametrize(("service", "data"), SERVICE_REFUSALS)
async def test_a_refused_service_call_is_spanish(
    hass, in_spanish, ollama_stub, room, hass_admin_user, service, data
):
    await setup_overseer(hass, ollama_stub)
    with pytest.raises(HomeAssistantError) as err:
        await hass.services.async_call(
            DOMAIN, service, data, blocking=True, context=Context(user_id=hass_admin_user.id)
        )
    refused_in_spanish(err.value)


async def test_the_websocket_refuses_an_unknown_overseer_in_the_card_s_language(
    hass, ollama_stub, room, hass_ws_client
):
    await setup_overseer(hass, ollama_stub)
    client = await hass_ws_client(hass)
    for command in ("overseer/status", "overseer/status/subscribe"):
        await client.send_json_auto_id({"type": command, "entry_id": "nope", "language": "es"})
        error = (await client.receive_json())["error"]
        assert error["message"] == message("entry_not_found", entry_id="nope")
        # Its key and values too, for a frontend to word it in its own language.
        assert (error["translation_domain"], error["translation_key"]) == (DOMAIN, "entry_not_found")
        assert error["translation_placeholders"] == {"entry_id": "nope"}
        assert_no_english(error["message"])


def rendered_issue(hass: HomeAssistant, issue_id: str) -> str:
    """A repair as Home Assistant shows it: es.json's title and description, its placeholders filled in."""
    issue = ir.async_get(hass).async_get_issue(DOMAIN, issue_id)
    assert issue is not None, issue_id
    values = dict(issue.translation_placeholders or {})
    text = "\n".join(
        spanish("issues", f"{issue.translation_key}.{part}", **values) for part in ("title", "description")
    )
    assert_no_english(text)
    return text


async def test_an_incident_that_needs_a_person_is_a_spanish_repair(
    hass, in_spanish, freezer, ollama_stub, room
):
    """Nothing tried, no step recommended: the repair's own words for both are Spanish."""
    await setup_overseer(hass, ollama_stub)
    ollama_stub.triage(reasoning(fault="el cepillo está atascado", action=""))
    hass.states.async_set("vacuum.neato", "error", JAMMED)
    for _ in range(3):
        await tick(hass, freezer, 5)
    issue = ir.async_get(hass).async_get_issue(DOMAIN, "incident_needs_human_room1_INC-0001")
    assert issue is not None
    placeholders = issue.translation_placeholders
    assert placeholders["tried"] == message("incident_nothing_tried")
    assert placeholders["action"] == message("incident_nothing_safe")
    # The fault in the room's words, then the device's own (escaped, as markdown).
    assert placeholders["fault"] == rf"{message('fault_vacuum_error')} \(Brush stuck\)"
    text = rendered_issue(hass, "incident_needs_human_room1_INC-0001")
    assert "vacuum.neato informa de un error del aspirador" in text


async def test_a_model_that_stays_down_is_a_spanish_repair_banner_and_log(
    hass, in_spanish, freezer, ollama_stub, room, hass_ws_client, caplog
):
    await setup_overseer(hass, ollama_stub)
    await ollama_stub.stop()  # connection refused from now on
    for _ in range(40):
        say(hass, "alex", "overseer ¿estás ahí?")
        await tick(hass, freezer, seconds=2)
    issue = ir.async_get(hass).async_get_issue(DOMAIN, "model_unreachable_room1")
    assert issue is not None
    assert issue.translation_placeholders["error"] == message("model_server_not_running")
    rendered_issue(hass, "model_unreachable_room1")

    # The card asks in Spanish: the banner and why.
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "overseer/status", "entry_id": "room1", "language": "es"})
    model = (await client.receive_json())["result"]["model"]
    assert model["health_text"] == message("health_unreachable")
    assert model["detail"] == message("model_server_not_running")

    # Its own check failing, as Home Assistant reports it.
    coordinator = hass.config_entries.async_get_entry("room1").runtime_data.health
    await coordinator.async_refresh()
    failed = coordinator.last_exception
    assert isinstance(failed, HomeAssistantError)
    assert refused_in_spanish(failed) == message(
        "model_check_failed", detail=message("model_server_not_running")
    )


async def test_an_approval_answered_twice_says_its_status_in_spanish(
    hass, in_spanish, freezer, ollama_stub, room, hass_admin_user
):
    await setup_overseer(hass, ollama_stub)
    approvals = async_capture_events(hass, "overseer_approval")
    ollama_stub.triage(reasoning(RESTART, safety="consequential"))
    hass.states.async_set("vacuum.neato", "error", JAMMED)
    for _ in range(2):
        await tick(hass, freezer, 5)
    approval_id = approvals[0].data["approval_id"]
    answer = {"approval_id": approval_id}
    admin = Context(user_id=hass_admin_user.id)
    await hass.services.async_call(DOMAIN, "approve", answer, blocking=True, context=admin)
    with pytest.raises(HomeAssistantError) as err:
        await hass.services.async_call(DOMAIN, "deny", answer, blocking=True, context=admin)
    assert err.value.translation_placeholders["status"] == message("approval_status_executed")
    assert "(ejecutada)" in refused_in_spanish(err.value)


async def test_an_agent_reads_its_notes_in_the_conversation_s_language(hass, ollama_stub, room):
    """The reason codes stay the contract's; the words the agent passes on are Spanish."""
    entry = await setup_overseer(hass, ollama_stub)
    context = replace(llm_context("ollama"), language="es")
    instance = await llm.async_get_api(hass, "overseer-room1", context)

    async def use(tool: str) -> dict[str, Any]:
        return tool_answer(await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args={})))

    await hass.services.async_call("switch", "turn_on", {"entity_id": "switch.arena_dry_run"}, blocking=True)
    dry = await use("lift_up")
    assert (dry["outcome"], dry["note"]) == ("dry_run", message("llm_dry_run"))
    assert await hass.config_entries.async_unload(entry.entry_id)
    gone = await use("lift_up")
    assert (gone["error"], gone["note"]) == ("not_available", message("llm_room_gone"))
    for note in (dry["note"], gone["note"]):
        assert_no_english(note)


async def test_the_guardrails_api_is_named_in_the_room_s_language(hass, in_spanish, ollama_stub, room):
    """People pick it by this name in an agent's options."""
    await setup_overseer(hass, ollama_stub)
    [api] = [api for api in llm.async_get_apis(hass) if api.id == "overseer-room1"]
    assert api.name == message("llm_api_name", room="Arena")


# The card: its words are the "common" section, read through Home Assistant's localize.


def card_english() -> dict[str, str]:
    """The English the card shows before Home Assistant's translations load (strings.js)."""
    source = (FRONTEND / "strings.js").read_text(encoding="utf-8")
    return json.loads(
        source[source.index("export const ENGLISH = ") + len("export const ENGLISH = ") :]
        .rstrip()
        .rstrip(";")
    )


def card_keys() -> tuple[set[str], set[str]]:
    """The keys the card's modules ask for, and the groups of server codes it words."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in FRONTEND.glob("*.js"))
    keys = set(re.findall(r'\bt(?:\.parts)?\(\s*"([a-z0-9_]+)"', source))
    keys |= set(re.findall(r'optional\("[a-z_]+", "([a-z0-9_]+)"', source))
    keys |= {
        key for pair in re.findall(r'\bt\([^()]*\? "([a-z0-9_]+)" : "([a-z0-9_]+)"', source) for key in pair
    }
    keys |= set(re.findall(r'\bkey: "([a-z0-9_]+)"', source))
    return keys, set(re.findall(r'\bt\.word\("([a-z]+)"', source))


def key_of(code: str) -> str:
    """i18n.js's keyOf: a server code as the ending of its translation key."""
    return re.sub(r"^_+|_+$", "", re.sub(r"[^a-z0-9]+", "_", code.lower()))


def test_the_card_s_english_is_en_json_s() -> None:
    assert card_english() == EN["common"]


def test_every_word_the_card_asks_for_is_in_both_languages() -> None:
    keys, groups = card_keys()
    assert keys and groups
    assert sorted(keys - set(EN["common"])) == []
    assert sorted(keys - set(ES["common"])) == []


# Every code the server puts where the card shows it as a word, by the card's group for it.
SHOWN_CODES: dict[str, set[str]] = {
    "phase": {phase.value for phase in Phase},
    "trigger": {kind.value for kind in TriggerKind},
    "outcome": {outcome.value for outcome in Outcome},
    "reason": REASONS | FAILURES,
    "incident": {status.value for status in IncidentStatus},
    "approval": {status.value for status in ApprovalStatus},
    "source": {source.value for source in ApprovalSource},
    "site": {mode.value for mode in SiteMode},
    "missed": {reason.value for reason in MissReason},
    "stage": {stage.value for stage in Stage},
}


def test_every_code_the_card_shows_has_words_in_both_languages() -> None:
    _, groups = card_keys()
    assert set(SHOWN_CODES) <= groups
    for group, codes in SHOWN_CODES.items():
        for code in codes:
            key = f"{group}_{key_of(code)}"
            assert key in EN["common"] and key in ES["common"], key


def test_every_fault_has_words_for_the_repair() -> None:
    for code in FaultCode:
        assert f"fault_{code.value}" in EN["exceptions"] and f"fault_{code.value}" in ES["exceptions"], code
