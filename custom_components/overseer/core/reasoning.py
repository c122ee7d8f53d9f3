"""The reasoning contract (seed 001): a ReasoningRequest out, a validated ReasoningResponse in.

The request is built from an incident, the resolved incidents of the same asset or kind, the
user's knowledge snippets and the other active faults, bounded whatever the history. The reply
is parsed strictly: anything that is not exactly a ReasoningResponse is rejected with a reason,
never repaired. Nothing here decides what runs: each tool intent goes to the policy afterwards.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .incidents import ACTIVE, ASSET_GONE, Incident, IncidentStatus, number_of
from .text import quote_chat
from .tools import Safety

MAX_HISTORY = 5
MAX_KNOWLEDGE = 3
MAX_ACTIVE_FAULTS = 10
SNIPPET_CHARS = 400
NAME_CHARS = 80
DETAIL_CHARS = 200
# The most a valid reply may carry; more is not a reply, it is a flood.
MAX_HYPOTHESES = 5
MAX_INTENTS = 5
MAX_TEXT = 500
MAX_REPLY_CHARS = 16_000
MAX_ARGUMENTS = 8
MAX_INT_DIGITS = 18
_TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
# C0/C1 controls (tab and newline allowed), and the bidirectional overrides and isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "hypotheses": {
            "type": "array",
            "maxItems": MAX_HYPOTHESES,
            "items": {
                "type": "object",
                "properties": {
                    "fault": {"type": "string", "maxLength": MAX_TEXT},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "reasoning": {"type": "string", "maxLength": MAX_TEXT},
                },
                "required": ["fault", "confidence", "reasoning"],
                "additionalProperties": False,
            },
        },
        "tool_intents": {
            "type": "array",
            "maxItems": MAX_INTENTS,
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"},
                    "arguments": {"type": "object", "maxProperties": MAX_ARGUMENTS},
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            },
        },
        "recommended_action": {"type": "string", "maxLength": MAX_TEXT},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "safety_class": {"type": "string", "enum": [safety.value for safety in Safety]},
    },
    "required": ["hypotheses", "tool_intents", "recommended_action", "confidence", "safety_class"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Snippet:
    """One piece of the user's knowledge, with where it came from and how well it matched."""

    source: str
    score: int
    snippet: str


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """What the model thinks may be wrong, and how sure it is."""

    fault: str
    confidence: float
    reasoning: str


@dataclass(frozen=True, slots=True)
class ToolIntent:
    """A tool the model would like to run; the policy decides."""

    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ReasoningResponse:
    """A reply that validated."""

    hypotheses: tuple[Hypothesis, ...]
    tool_intents: tuple[ToolIntent, ...]
    recommended_action: str
    confidence: float
    safety_class: Safety


class InvalidResponse(ValueError):
    """The reply is not a ReasoningResponse; the message says why, for the audit."""


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 2}


def sections(source: str, markdown: str) -> list[tuple[str, str]]:
    """Cut a markdown file at its headings: (source, section text) in file order."""
    parts = re.split(r"(?m)^(?=#{1,6} )", markdown)
    return [(source, part.strip()) for part in parts if part.strip()]


def score_knowledge(
    documents: Sequence[tuple[str, str]], incident: Incident, limit: int = MAX_KNOWLEDGE
) -> list[Snippet]:
    """Return the sections that share the most words with the incident; ties go to file order.

    Deterministic: the same files and incident always give the same snippets and scores.
    """
    query = _words(f"{incident.code.value} {incident.kind.value} {incident.asset_id} {incident.fault.detail}")
    scored = []
    for order, (source, text) in enumerate(documents):
        score = len(query & _words(text))
        if score:
            scored.append((-score, order, Snippet(source, score, text[:SNIPPET_CHARS])))
    return [snippet for _, _, snippet in sorted(scored, key=lambda item: item[:2])[:limit]]


def build_request(
    incident: Incident, book: Iterable[Incident], knowledge: Sequence[Snippet]
) -> dict[str, Any]:
    """Build the ReasoningRequest for one incident, bounded whatever the history.

    Evidence is the resolved incidents of the same asset (first) or kind, newest first; active
    faults are the other incidents still being handled.
    """
    fault = incident.fault
    others = [i for i in book if i.incident_id != incident.incident_id]
    past = sorted(
        (
            i
            for i in others
            if i.status is IncidentStatus.RESOLVED
            and i.resolution != ASSET_GONE
            and (i.asset_id == incident.asset_id or i.kind is incident.kind)
        ),
        key=lambda i: number_of(i.incident_id),
        reverse=True,
    )
    # The same asset's history first, each part newest first.
    past.sort(key=lambda i: i.asset_id != incident.asset_id)
    # Names, error texts and past resolutions come from devices and from earlier model answers:
    # one line each, bounded, as data.
    return {
        "asset_id": quote_chat(incident.asset_id, NAME_CHARS),
        "asset_kind": incident.kind.value,
        "observations": [
            {
                "fault": incident.code.value,
                "since": fault.since,
                "check": dict(fault.checks),
                **({"detail": quote_chat(fault.detail, DETAIL_CHARS)} if fault.detail else {}),
            }
        ],
        "historical_evidence": [
            {
                "id": i.incident_id,
                "root_cause": quote_chat(i.root_cause, DETAIL_CHARS),
                "resolution": quote_chat(i.resolution, DETAIL_CHARS),
            }
            for i in past[:MAX_HISTORY]
        ],
        "knowledge": [
            {"source": s.source, "score": s.score, "snippet": s.snippet} for s in knowledge[:MAX_KNOWLEDGE]
        ],
        "active_faults": [
            {"asset_id": quote_chat(i.asset_id, NAME_CHARS), "fault": i.code.value}
            for i in others
            if i.status in ACTIVE
        ][:MAX_ACTIVE_FAULTS],
    }


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InvalidResponse(f"{field} must be a string of at most {MAX_TEXT} characters")
    if _CONTROL.search(value):
        raise InvalidResponse(f"{field} holds control or direction characters")
    return value


def _confidence(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidResponse(f"{field} must be a number from 0 to 1")
    return float(value)


def _exact_keys(item: Any, keys: set[str], field: str) -> Mapping[str, Any]:
    if not isinstance(item, Mapping) or set(item) != keys:
        raise InvalidResponse(f"{field} must be an object with exactly {sorted(keys)}")
    return item


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise InvalidResponse("a key appears twice in one object")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise InvalidResponse(f"{name} is not a number JSON allows")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidResponse("a number is too long")
    return int(digits)


def _finite_float(digits: str) -> float:
    number = float(digits)
    if not math.isfinite(number):
        raise InvalidResponse("a number is too large")
    return number


def _argument(value: Any) -> Any:
    """Check an intent argument: a short string, a finite number, a boolean or null; nothing nested."""
    if isinstance(value, str):
        return _text(value, "an argument")
    if value is None or isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    raise InvalidResponse("intent arguments must be flat: strings, numbers, booleans or null")


def parse_response(text: str) -> ReasoningResponse:
    """Parse the reply as a ReasoningResponse, or InvalidResponse: nothing is guessed or repaired."""
    if len(text) > MAX_REPLY_CHARS:
        raise InvalidResponse(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    try:
        data = json.loads(
            text,
            object_pairs_hook=_no_duplicate_keys,
            parse_constant=_no_constant,
            parse_int=_bounded_int,
            parse_float=_finite_float,
        )
    except (ValueError, RecursionError) as err:
        raise InvalidResponse(f"the reply is not JSON: {str(err)[:80]}") from None
    top = _exact_keys(data, set(RESPONSE_SCHEMA["required"]), "the reply")
    hypotheses, intents = top["hypotheses"], top["tool_intents"]
    if not isinstance(hypotheses, list) or len(hypotheses) > MAX_HYPOTHESES:
        raise InvalidResponse(f"hypotheses must be a list of at most {MAX_HYPOTHESES}")
    if not isinstance(intents, list) or len(intents) > MAX_INTENTS:
        raise InvalidResponse(f"tool_intents must be a list of at most {MAX_INTENTS}")
    parsed_hypotheses = []
    for item in hypotheses:
        h = _exact_keys(item, {"fault", "confidence", "reasoning"}, "a hypothesis")
        parsed_hypotheses.append(
            Hypothesis(
                _text(h["fault"], "fault"),
                _confidence(h["confidence"], "a hypothesis's confidence"),
                _text(h["reasoning"], "reasoning"),
            )
        )
    parsed_intents = []
    for item in intents:
        i = _exact_keys(item, {"name", "arguments"}, "a tool intent")
        if not isinstance(i["arguments"], Mapping):
            raise InvalidResponse("a tool intent's arguments must be an object")
        name = i["name"]
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            raise InvalidResponse("a tool intent's name must be a tool's name")
        if len(i["arguments"]) > MAX_ARGUMENTS:
            raise InvalidResponse(f"a tool intent has more than {MAX_ARGUMENTS} arguments")
        arguments = {
            _text(key, "an argument's name"): _argument(value) for key, value in i["arguments"].items()
        }
        parsed_intents.append(ToolIntent(name, arguments))
    try:
        safety = Safety(top["safety_class"])
    except ValueError:
        raise InvalidResponse(f"safety_class must be one of {[s.value for s in Safety]}") from None
    return ReasoningResponse(
        tuple(parsed_hypotheses),
        tuple(parsed_intents),
        _text(top["recommended_action"], "recommended_action"),
        _confidence(top["confidence"], "confidence"),
        safety,
    )
