"""Every contract event, fired by its one function, carries the contract's fields and no others."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from homeassistant.core import Context
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.overseer import events
from custom_components.overseer.core.approvals import Approval, ApprovalSource, ApprovalStatus
from custom_components.overseer.core.audit import AuditRecord, Outcome
from custom_components.overseer.core.faults import Fault, FaultCode
from custom_components.overseer.core.incidents import Incident, IncidentStatus
from custom_components.overseer.core.pipeline import Record
from custom_components.overseer.core.world import AssetKind

from ..contract import EVENT_FIELDS

# Beside the repository where the product is developed; a clone of it alone has no such file.
CONTRACT = Path(__file__).parents[3] / "shared" / "design" / "CONTRACT.md"
# Fields the contract names in its prose rather than in the braces: the overseer's own chat
# lines carry their decision_id, an orchestrated bot's its pipeline_id, a call's cut copy of
# its arguments truncated (Wave 4); ours beyond it: why a stale decision was held back, why an
# approval ended as it did, which of the overseer's lines are its own fixed sentences.
PROSE_FIELDS = {
    "overseer_chat_message": {"decision_id", "pipeline_id", "fixed"},
    "overseer_action": {"truncated"},
    "overseer_decision": {"stale_reason"},
    "overseer_approval": {"reason"},
}


def fields_in_the_contract() -> dict[str, tuple[set[str], set[str]]]:
    """Each event's (required, optional) fields, read from the braces in CONTRACT.md."""
    text = " ".join(CONTRACT.read_text().split())
    found = {}
    for name, fields in re.findall(r"`(overseer_\w+)`\s*(?:—\s*)?`\{([^}]*)\}`", text):
        names = [field.split(":")[0].strip() for field in fields.split(",")]
        found[name] = (
            {n for n in names if not n.endswith("?")},
            {n.rstrip("?") for n in names if n.endswith("?")},
        )
    return found


FAULT = Fault("vacuum.neato", AssetKind.VACUUM, FaultCode.VACUUM_ERROR, 10.0, {"no error": False})
INCIDENT = Incident(
    incident_id="INC-0001",
    asset_id="vacuum.neato",
    kind=AssetKind.VACUUM,
    code=FaultCode.VACUUM_ERROR,
    status=IncidentStatus.OPEN,
    opened=10.0,
    fault=FAULT,
)
APPROVAL = Approval(
    approval_id="APR-1",
    nonce="n",
    incident_id="INC-0001",
    tool="asset_restart",
    arguments={"asset_id": "vacuum.neato"},
    created=10.0,
    expires=610.0,
    status=ApprovalStatus.DENIED,
    reason="not now",
)
FIRED = {
    "overseer_chat_message": [
        lambda hass: events.fire_chat_message(hass, user="alex", text="hi", bot=False),
        lambda hass: events.fire_chat_message(
            hass, user="Overseer", text="Going up.", bot=True, room="arena", decision_id="d1"
        ),
        lambda hass: events.fire_chat_message(
            hass, user="Rover guide", text="Docked.", bot=True, room="arena", pipeline_id="p1"
        ),
        lambda hass: events.fire_chat_message(
            hass,
            user="Overseer",
            text="Done: raise the lift.",
            bot=True,
            room="arena",
            decision_id="d2",
            fixed=True,
        ),
    ],
    "overseer_chat_typing": [
        lambda hass: events.fire_chat_typing(hass, room="arena", user="Overseer", typing=True)
    ],
    "overseer_decision": [
        lambda hass: events.fire_decision(
            hass, decision_id="d1", trigger="direct_address", mode="CHAT", latency_ms=2100, stale=False
        ),
        lambda hass: events.fire_decision(
            hass,
            decision_id="d2",
            trigger="heartbeat",
            mode="SKIP",
            latency_ms=30100,
            stale=True,
            stale_reason="too_old",
        ),
    ],
    "overseer_action": [
        lambda hass: events.fire_action(hass, AuditRecord(1.0, "d1", "lift_up", {}, Outcome.EXECUTED)),
        lambda hass: events.fire_action(
            hass, AuditRecord(1.0, "d1", "lift_up", {}, Outcome.BLOCKED, "cooldown", 42)
        ),
        lambda hass: events.fire_action(
            hass,
            AuditRecord(
                1.0, "d1", "lift_up", {"x": "…"}, Outcome.BLOCKED, "invalid_arguments", truncated=True
            ),
        ),
    ],
    "overseer_incident": [
        lambda hass: events.fire_incident(hass, INCIDENT, None),
        lambda hass: events.fire_incident(hass, INCIDENT, "cleared by itself"),
    ],
    "overseer_approval": [
        lambda hass: events.fire_approval(hass, APPROVAL),
        lambda hass: events.fire_approval(
            hass, replace(APPROVAL, incident_id="", source=ApprovalSource.CHAT, reason="")
        ),
    ],
    "overseer_pipeline": [
        lambda hass: events.fire_pipeline(hass, "p1", Record("finished", 2)),
        lambda hass: events.fire_pipeline(hass, "p1", Record("evaluated", 1, "helper", 0.0, "says nothing")),
    ],
}


@pytest.mark.skipif(not CONTRACT.is_file(), reason="CONTRACT.md is not beside this clone")
def test_the_events_written_out_for_the_tests_are_the_contracts():
    assert {name: (set(r), set(o)) for name, (r, o) in EVENT_FIELDS.items()} == fields_in_the_contract()


def test_every_event_of_the_contract_has_its_function():
    assert set(FIRED) == set(EVENT_FIELDS)


# Fields a later paragraph of the contract changes (required, made optional): approvals from
# every caller carry their source, and only triage's an incident_id.
LATER = {"overseer_approval": ({"source"}, {"incident_id"})}


@pytest.mark.parametrize("name", sorted(FIRED))
async def test_each_event_carries_the_contracts_fields(hass, name):
    required, optional = EVENT_FIELDS[name]
    added, loosened = LATER.get(name, (set(), set()))
    required, optional = (required - loosened) | added, optional | loosened
    captured = async_capture_events(hass, name)
    for fire in FIRED[name]:
        fire(hass)
    await hass.async_block_till_done()
    assert len(captured) == len(FIRED[name])
    allowed = required | optional | PROSE_FIELDS.get(name, set())
    for event in captured:
        assert required <= set(event.data), (name, event.data)
        assert set(event.data) <= allowed, (name, event.data)
        assert all(value is not None for value in event.data.values()), event.data


async def test_optional_fields_are_left_out_not_sent_empty_and_a_line_keeps_its_context(hass):
    lines = async_capture_events(hass, "overseer_chat_message")
    actions = async_capture_events(hass, "overseer_action")
    context = Context()
    events.fire_chat_message(hass, user="alex", text="hi", bot=False, context=context)
    events.fire_action(hass, AuditRecord(1.0, "d1", "lift_up", {}, Outcome.EXECUTED, reason=""))
    await hass.async_block_till_done()
    assert lines[0].data == {"user": "alex", "text": "hi", "bot": False}
    assert lines[0].context is context  # an orchestrator knows its own questions by it
    assert actions[0].data == {"decision_id": "d1", "tool": "lift_up", "arguments": {}, "outcome": "executed"}
