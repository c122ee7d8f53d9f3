"""The reasoning contract: the request is bounded whatever the history, the reply parsed strictly."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custom_components.overseer.core.faults import Asset, AssetKind, FaultRules, Reading, detect
from custom_components.overseer.core.incidents import IncidentStatus, reconcile
from custom_components.overseer.core.reasoning import (
    MAX_ACTIVE_FAULTS,
    MAX_HISTORY,
    MAX_KNOWLEDGE,
    SNIPPET_CHARS,
    InvalidResponse,
    build_request,
    parse_response,
    score_knowledge,
    sections,
)
from custom_components.overseer.core.tools import Safety

NOW = 50_000.0
VALID = {
    "hypotheses": [{"fault": "brush_jammed", "confidence": 0.7, "reasoning": "error says brush stuck"}],
    "tool_intents": [{"name": "asset_refresh", "arguments": {"asset_id": "vacuum.neato"}}],
    "recommended_action": "Refresh the vacuum, then ask someone to clear the brush",
    "confidence": 0.7,
    "safety_class": "reversible",
}


def incident_of(asset_id: str, kind: AssetKind, state: str, number: int = 1, **attributes):
    fault = detect(
        Asset(asset_id, kind, (Reading(asset_id, state, NOW - 500, attributes),)), FaultRules(), NOW
    )
    book, _, _ = reconcile({}, [fault], FaultRules(), NOW, number)
    return next(iter(book.values()))


def test_the_request_carries_the_seed_fields_and_the_failed_checks():
    incident = incident_of("vacuum.neato", AssetKind.VACUUM, "error", error="Brush stuck")
    request = build_request(incident, [incident], [])
    assert set(request) == {
        "asset_id",
        "asset_kind",
        "observations",
        "historical_evidence",
        "knowledge",
        "active_faults",
    }
    assert request["asset_id"] == "vacuum.neato" and request["asset_kind"] == "vacuum"
    assert request["observations"] == [
        {"fault": "vacuum_error", "since": NOW - 500, "check": {"no error": False}, "detail": "Brush stuck"}
    ]


def test_history_prefers_the_same_asset_then_the_same_kind_and_is_bounded():
    incident = incident_of("vacuum.neato", AssetKind.VACUUM, "error", number=100)
    history = []
    for number in range(1, 40):
        asset = "vacuum.neato" if number % 3 == 0 else "vacuum.other"
        past = incident_of(asset, AssetKind.VACUUM, "error", number=number)
        history.append(
            replace(past, status=IncidentStatus.RESOLVED, root_cause="brush", resolution=f"fix {number}")
        )
    lift = incident_of("cover.lift", AssetKind.LIFT, "opening", number=50)
    request = build_request(incident, [*history, replace(lift, status=IncidentStatus.RESOLVED), incident], [])
    evidence = request["historical_evidence"]
    assert len(evidence) == MAX_HISTORY
    assert [e["id"] for e in evidence] == ["INC-0039", "INC-0036", "INC-0033", "INC-0030", "INC-0027"]
    assert evidence[0] == {"id": "INC-0039", "root_cause": "brush", "resolution": "fix 39"}


def test_active_faults_are_the_other_open_incidents_bounded():
    incident = incident_of("vacuum.neato", AssetKind.VACUUM, "error", number=1)
    others = [incident_of(f"light.l{n}", AssetKind.LIGHT, "unavailable", number=n + 2) for n in range(30)]
    request = build_request(incident, [incident, *others], [])
    assert len(request["active_faults"]) == MAX_ACTIVE_FAULTS
    assert {"asset_id": "vacuum.neato", "fault": "vacuum_error"} not in request["active_faults"]


def test_knowledge_is_scored_deterministically_with_source_and_score():
    incident = incident_of("vacuum.neato", AssetKind.VACUUM, "error", error="Brush stuck")
    documents = [
        *sections("lift.md", "# Lift stuck\nIf the lift is stuck opening, check the limit switch."),
        *sections(
            "vacuum.md",
            "# Vacuum error: brush stuck\nA vacuum error with the brush stuck: clear hair from the brush.\n"
            "# Vacuum battery\nDock the vacuum.",
        ),
    ]
    snippets = score_knowledge(documents, incident)
    # Ties keep file order: the lift note shares only "stuck", the battery note only "vacuum".
    assert [(s.source, s.score) for s in snippets] == [("vacuum.md", 4), ("lift.md", 1), ("vacuum.md", 1)]
    assert snippets[0].snippet.startswith("# Vacuum error: brush stuck")
    assert score_knowledge(list(reversed(documents)), incident)[0].score == 4
    long = sections("big.md", "# vacuum error brush stuck\n" + "x " * 5000)
    [only] = score_knowledge(long, incident)
    assert len(only.snippet) == SNIPPET_CHARS


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.text(max_size=3000))
def test_the_request_stays_small_whatever_the_history(closed, open_count, noise):
    incident = incident_of("vacuum.neato", AssetKind.VACUUM, "error", number=1, error=noise[:100])
    book = [incident]
    book += [
        replace(
            incident_of("vacuum.neato", AssetKind.VACUUM, "error", number=n + 2),
            status=IncidentStatus.RESOLVED,
        )
        for n in range(closed)
    ]
    book += [
        incident_of(f"light.l{n}", AssetKind.LIGHT, "unavailable", number=n + 1000) for n in range(open_count)
    ]
    knowledge = score_knowledge(sections("k.md", f"# vacuum error\n{noise}\n" * 20), incident)
    request = build_request(incident, book, knowledge)
    assert len(request["historical_evidence"]) <= MAX_HISTORY
    assert len(request["knowledge"]) <= MAX_KNOWLEDGE
    assert len(json.dumps(request)) < 8_000


def test_a_valid_reply_parses():
    response = parse_response(json.dumps(VALID))
    assert response.safety_class is Safety.REVERSIBLE
    assert [(i.name, dict(i.arguments)) for i in response.tool_intents] == [
        ("asset_refresh", {"asset_id": "vacuum.neato"})
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "not json at all",
        "[" * 100_000,
        json.dumps({**VALID, "safety_class": "SAFE_REVERSIBLE"}),  # the seed's own word is not the contract's
        json.dumps({**VALID, "safety_class": "SAFE"}),
        json.dumps({**VALID, "extra": 1}),
        json.dumps({k: v for k, v in VALID.items() if k != "confidence"}),
        json.dumps({**VALID, "confidence": 1.5}),
        json.dumps({**VALID, "confidence": True}),
        json.dumps({**VALID, "tool_intents": [{"name": "asset_refresh", "arguments": {}}] * 50}),
        json.dumps({**VALID, "tool_intents": [{"name": "asset_refresh", "arguments": "vacuum.neato"}]}),
        json.dumps({**VALID, "tool_intents": [{"name": "asset_refresh"}]}),
        json.dumps({**VALID, "hypotheses": [{"fault": "x", "confidence": 0.5}]}),
        json.dumps({**VALID, "recommended_action": "x" * 5000}),
        json.dumps({**VALID, "recommended_action": "x" * 20_000}),
        json.dumps([VALID]),
        # The same key twice: the last would win, quietly.
        json.dumps(VALID)[:-1] + ', "safety_class": "read"}',
        json.dumps({**VALID, "confidence": 0.5}).replace("0.5", "NaN"),
        json.dumps({**VALID, "confidence": 0.5}).replace("0.5", "Infinity"),
        json.dumps({**VALID, "confidence": 0.5}).replace("0.5", "1e400"),
        json.dumps({**VALID, "tool_intents": [{"name": "asset_refresh", "arguments": {"n": 10**4000}}]}),
        json.dumps(
            {**VALID, "tool_intents": [{"name": "asset_refresh", "arguments": {"a": {"b": {"c": 1}}}}]}
        ),
        json.dumps({**VALID, "tool_intents": [{"name": "", "arguments": {}}]}),
        json.dumps({**VALID, "tool_intents": [{"name": "homeassistant.turn_off", "arguments": {}}]}),
        json.dumps({**VALID, "recommended_action": "restart \u202eti"}),
        json.dumps({**VALID, "recommended_action": "line\u0000break"}),
        json.dumps(
            {
                **VALID,
                "tool_intents": [{"name": "asset_refresh", "arguments": {str(n): n for n in range(20)}}],
            }
        ),
    ],
)
def test_anything_else_is_rejected_with_a_reason_never_repaired(reply):
    with pytest.raises(InvalidResponse) as raised:
        parse_response(reply)
    assert str(raised.value)
