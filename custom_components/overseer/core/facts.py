"""What the overseer states of the room: facts it writes itself, from Home Assistant's language data.

A line the overseer posts opens with its facts: what each call of the decision did or why it did
not run, and the state of each device the line is about or the asker named. They are written
here from the room's states and the decision's audit records, never from the model's words, in
the asker's language: a device's state with the sentence Home Assistant answers "is the light
on?" with (the intents package's HassGetState response), its state in Home Assistant's own
translation, a colour in the intents package's colour words, a name as the registry has it. What
that data has no words for (a refusal and why, a rover's sensors, a topic the room does not
show) is said with the integration's own translations (the phrase passed in). Each fact is data
too: the chat event carries it, so any judge can check it without reading prose.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .accounts import Phrase, reason_key
from .acts import Act, Deed, Device, Kind, device_name, expected_state
from .audit import AuditRecord, Outcome
from .text import one_line
from .tools import TOOLS

# Said when a language's data has no sentence for a state (German has none): a name and a state.
PLAIN_STATE = "{{ slots.name }}: {{ state.state_with_unit }}"
# The facts of one line, at most: a decision runs max_tool_calls calls and names a few devices.
MAX_FACTS = 8
# A sentence as long as a template may make it, for a name or state nobody bounded.
SENTENCE_CHARS = 200
# The reason a record carries for an asked-for act the model could do and did not call: no
# guardrail's refusal, the overseer's own choice (said "I decided not to raise the lift.").
NOT_CALLED = "not_called"
# The outcome of a call whose deed the room shows after it.
_DONE = frozenset({Outcome.EXECUTED})
# Outcomes of calls that got past the guardrails: ran, would have run, or wait for a person.
_TRIED = frozenset({Outcome.EXECUTED, Outcome.DRY_RUN, Outcome.AWAITING_APPROVAL})


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing a line states of one room device: its state, and what a call of the decision did to it.

    entity_id: the device's entity (a rover's first sensor; the lift's key when scripts run it);
    state: Home Assistant's state as the line states it (a call that ran: the state it leaves);
    deed: the act a call of the decision did or tried ("open", "colour:blue"); outcome and reason:
    what came of that call, as the audit records it.
    """

    entity_id: str
    state: str
    deed: str | None = None
    outcome: str | None = None
    reason: str | None = None
    retry_in_s: int | None = None
    # A light's colour name while it is on: Home Assistant's state says only "on".
    colour: str | None = None

    def as_event(self) -> dict[str, Any]:
        """Return the fact as the chat event carries it: the set fields only."""
        shown: dict[str, Any] = {"entity_id": self.entity_id, "state": self.state}
        for key in ("colour", "deed", "outcome", "reason", "retry_in_s"):
            if (value := getattr(self, key)) is not None:
                shown[key] = value
        return shown


@dataclass(frozen=True, slots=True)
class FactWords:
    """One language's words for facts, from Home Assistant's data for it.

    state_sentence: the HassGetState "one" response template (slots.name, state.state_with_unit,
    state.domain), else PLAIN_STATE; states: Home Assistant's translated states by
    "domain.state" ("cover.closed": "Cerrado"); colours: the intents package's colour words by
    Home Assistant's English colour names ("blue": "azul").
    """

    language: str
    state_sentence: str = PLAIN_STATE
    states: Mapping[str, str] = field(default_factory=dict)
    colours: Mapping[str, str] = field(default_factory=dict)

    def state(self, domain: str, state: str) -> str:
        """Return a state in this language's words, lower case as a sentence says it ("cerrado")."""
        word = self.states.get(f"{domain}.{state}", state.replace("_", " "))
        return word[:1].lower() + word[1:] if word[1:2].islower() or len(word) == 1 else word

    def colour(self, colour: str) -> str:
        """Return a colour in this language's words."""
        return self.colours.get(colour, colour)


@dataclass(frozen=True, slots=True)
class Said:
    """The facts of a line and the sentences that say them, in order."""

    facts: tuple[Fact, ...] = ()
    sentences: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Return the sentences as one line."""
        return " ".join(self.sentences)

    def __bool__(self) -> bool:
        """Return whether anything is stated."""
        return bool(self.sentences)


def fact_words(language: str, intents: Mapping[str, Any] | None, states: Mapping[str, str]) -> FactWords:
    """Build a language's fact words from its intents data and Home Assistant's translated states.

    intents: the home-assistant-intents data of the language (None when it has none: the plain
    sentence and the state keys say it); states: "domain.state" -> Home Assistant's word.
    """
    data = intents or {}
    responses = data.get("responses", {}).get("intents", {})
    sentence = responses.get("HassGetState", {}).get("one") or PLAIN_STATE
    return FactWords(language, sentence, dict(states), colour_words(data))


def colour_words(intents: Mapping[str, Any]) -> dict[str, str]:
    """Return a language's colour word by Home Assistant's English colour name, its first spelling.

    The intents data lists each as a word ("red", in English) or {"in": "(naranja|anaranjado)",
    "out": "orange"}.
    """
    found: dict[str, str] = {}
    for value in intents.get("lists", {}).get("color", {}).get("values", ()):
        if isinstance(value, str):
            found.setdefault(value, value)
        elif isinstance(value, Mapping) and isinstance(value.get("out"), str):
            spoken = spellings(str(value.get("in", value["out"])))
            found.setdefault(value["out"], spoken[0] if spoken else value["out"])
    return found


def spellings(template: str) -> list[str]:
    """Return every spelling a list value's template allows ("wei(ß|ss)": weiß, weiss), trimmed."""
    try:
        parsed = parse_sentence(template)
        # hassil's Sentence held its expression, then became one (3.x): either reads.
        expression: Any = getattr(parsed, "expression", parsed)
        return [text for sample in sample_expression(expression) if (text := " ".join(sample.split()))]
    except Exception:  # a value our hassil cannot read is said as written
        return [template]


def call_deed(record: AuditRecord) -> Deed | None:
    """Return what a call does (or would have done) to which room device, if it acts on one."""
    spec = TOOLS.get(record.tool)
    arguments: Any = record.arguments
    if isinstance(arguments, str):
        # A call refused before it ran keeps its arguments as the audit shows them: JSON, when whole.
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if spec is None or spec.deed is None or not isinstance(arguments, Mapping):
        return None
    try:
        return spec.deed(arguments)
    except (KeyError, TypeError, ValueError):
        return None


def facts_for(
    records: Sequence[AuditRecord],
    devices: Sequence[Device],
    about: Iterable[str],
    words: FactWords,
    phrase: Phrase,
) -> Said:
    """Return what a decision's line states: its calls' facts first, then the devices it is about.

    records: the decision's calls, in order; about: device keys the line is about or the asker
    named (those a call already speaks of are not said twice). A call that acts on no room device
    (memory, triage) is stated by no fact of a device. A refused call says why, with the seconds to
    wait where waiting helps; a device whose state cannot be read is not stated.
    """
    by_key = {device.key: device for device in devices}
    done = tuple(deed for record in records if record.outcome in _DONE and (deed := call_deed(record)))
    facts: list[Fact] = []
    sentences: list[str] = []
    spoken: set[str] = set()
    told: set[tuple[str, str, str, str | None]] = set()
    # What ran is said first: a model's flood of refused calls cannot crowd it out of the bound.
    for record in sorted(records, key=lambda record: record.outcome not in _TRIED):
        deed = call_deed(record)
        device = by_key.get(deed.device) if deed is not None else None
        if deed is None or device is None or len(facts) >= MAX_FACTS:
            continue
        said_before = (device.key, _deed_text(deed), record.outcome.value, record.reason)
        if said_before in told:
            continue
        told.add(said_before)
        after = expected_state(device, done)
        not_called = record.reason == NOT_CALLED
        facts.append(
            Fact(
                _entity_id(device),
                _shown_state(after),
                _deed_text(deed),
                NOT_CALLED if not_called else record.outcome.value,
                None if not_called else record.reason,
                record.remaining_s,
                after.colour or None,
            )
        )
        sentences.append(_call_sentence(record, deed, device, after, words, phrase))
        spoken.add(device.key)
    for key in dict.fromkeys(about):
        device = by_key.get(key)
        if device is None or key in spoken or not device.known or len(facts) >= MAX_FACTS:
            continue
        after = expected_state(device, done)
        facts.append(Fact(_entity_id(device), _shown_state(after), colour=after.colour or None))
        sentences.append(state_sentence(after, words, phrase))
        spoken.add(key)
    return Said(tuple(facts), tuple(sentence for sentence in sentences if sentence))


def state_sentence(device: Device, words: FactWords, phrase: Phrase) -> str:
    """Return the sentence that states a device as it is ("Lift is closed.")."""
    if device.kind is Kind.ROVER:
        shown = [
            phrase(f"fact_rover_{name}" if holds else f"fact_rover_not_{name}")
            for name, holds in device.facts
        ]
        # Undocked is docked said the other way round: one of the two is enough.
        shown = [text for (name, _), text in zip(device.facts, shown, strict=True) if name != "undocked"]
        return _sentence(phrase("fact_rover", name=device_name(device), facts=", ".join(shown)))
    domain = domain_of(device)
    state = words.state(domain, device.state)
    if device.colour:
        state = f"{state} ({words.colour(device.colour)})"
    name = device_name(device)
    said = render(words.state_sentence, name, state, domain)
    # A language's sentence that leaves the name out ("Aberto") states nothing of which device.
    if name.casefold() not in said.casefold():
        said = render(PLAIN_STATE, name, state, domain)
    return _sentence(said)


def _call_sentence(
    record: AuditRecord, deed: Deed, device: Device, after: Device, words: FactWords, phrase: Phrase
) -> str:
    """Return the sentence that says what one call did, or would have, or why it did not run."""
    tool = phrase(f"deed_{record.tool}", name=device_name(device))
    if record.outcome is Outcome.EXECUTED:
        return state_sentence(after, words, phrase)
    if record.outcome is Outcome.DRY_RUN:
        return _sentence(phrase("reply_dry_run", tool=_told(tool, deed, device, words)))
    if record.outcome is Outcome.AWAITING_APPROVAL:
        return _sentence(
            phrase(
                "reply_awaiting_approval",
                tool=_told(tool, deed, device, words),
                approval_id=record.approval or "",
            )
        )
    if record.reason == NOT_CALLED:
        return _sentence(phrase("fact_not_done", tool=_told(tool, deed, device, words)))
    reason = phrase(reason_key(record.reason), seconds=record.remaining_s or 0)
    return _sentence(phrase("reply_refused", tool=_told(tool, deed, device, words), reason=reason))


def _told(tool: str, deed: Deed, device: Device, words: FactWords) -> str:
    """Return what a call does in words, its device named where the tool's words do not name it."""
    if deed.act is Act.COLOUR:
        return f"{tool} ({device_name(device)}, {words.colour(deed.value)})"
    if device.kind is Kind.LIGHT:
        return f"{tool} ({device_name(device)})"
    return tool


def _entity_id(device: Device) -> str:
    """Return the entity a fact is about: the device's own, or its key where it has none."""
    return device.entity_id or device.key


def domain_of(device: Device) -> str:
    """Return the Home Assistant domain whose state words say the device's states."""
    if device.entity_id:
        return device.entity_id.partition(".")[0]
    return {Kind.LIFT: "cover", Kind.VACUUM: "vacuum"}.get(device.kind, "light")


def _shown_state(device: Device) -> str:
    """Return a fact's state: Home Assistant's state, or a rover's sensors ("docked,not_charging")."""
    if device.kind is Kind.ROVER:
        return ",".join(name if holds else f"not_{name}" for name, holds in device.facts) or device.state
    return device.state


def _deed_text(deed: Deed) -> str:
    """Return a deed as a fact carries it: its act, a colour after it ("colour:blue")."""
    return f"{deed.act.value}:{deed.value}" if deed.value else deed.act.value


def _sentence(text: str) -> str:
    """Return a sentence: one bounded line, its first letter up, a full stop at its end."""
    line = one_line(text, SENTENCE_CHARS).strip()
    if not line:
        return ""
    line = line[:1].upper() + line[1:]
    return line if line[-1] in ".!?…" else f"{line}."


_TEMPLATES = ImmutableSandboxedEnvironment(autoescape=False)


@functools.lru_cache(maxsize=64)
def _compiled(template: str) -> Any:
    """Compile a response template once: a language has a handful, and a decision uses them each time."""
    return _TEMPLATES.from_string(template)


@dataclass(frozen=True, slots=True)
class _TemplateState:
    """What a response template reads of a state: Home Assistant's TemplateState, in small."""

    state: str
    domain: str

    @property
    def state_with_unit(self) -> str:
        """The state as said (a unit is never part of ours)."""
        return self.state


def render(template: str, name: str, state: str, domain: str) -> str:
    """Render a response template of Home Assistant's for one device; "" when it cannot be rendered.

    The template is data from the intents package: rendered in a sandbox, with only the name, the
    state and its domain to read.
    """
    try:
        said = str(
            _compiled(template).render(slots={"name": name}, state=_TemplateState(state, domain), query={})
        )
    except Exception:  # a template of another release may read what we do not give
        said = ""
    if said.strip() or template == PLAIN_STATE:
        return said or f"{name}: {state}"
    return render(PLAIN_STATE, name, state, domain)
