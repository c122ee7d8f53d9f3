"""The options table walked like the tool registry: every option whole, and each one reaching the settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from custom_components.overseer.options import (
    ORCHESTRATOR_OPTIONS,
    OVERSEER_OPTIONS,
    Kind,
    Option,
    sections,
)
from custom_components.overseer.settings import OrchestratorSettings, Settings

from ..contract import options_sections

STRINGS = json.loads(
    (Path(__file__).parents[2] / "custom_components" / "overseer" / "translations" / "en.json").read_text()
)
FORM = STRINGS["options"]["step"]
DATA = {"name": "Overseer", "room": "Arena", "backend": "ollama"}


def sample(option: Option) -> Any:
    """A stored value for the option that is not its default."""
    if option.kind is Kind.NUMBER:
        value = option.maximum if option.default != option.maximum else option.minimum
        return int(value) if option.step == 1 else float(value)
    if option.kind is Kind.ENTITY:
        return f"{(option.domains or ('sensor',))[0]}.sample"
    if option.kind is Kind.ENTITIES:
        return [f"{(option.domains or ('sensor',))[0]}.sample"]
    if option.kind is Kind.WORDS:
        return ["sample words"]
    if option.kind is Kind.TEXT:
        return "A sample line, [user]."
    if option.kind is Kind.LANGUAGE:
        return "es"
    return (option.choices() or ["sample"])[:1]


@pytest.mark.parametrize("option", OVERSEER_OPTIONS, ids=lambda option: option.key)
def test_every_overseer_option_is_one_whole_entry(option):
    # Shown in its section of the form, with a label and an explanation.
    strings = FORM["init"]["sections"][option.section]
    assert option.key in strings["data"] and option.key in strings["data_description"]
    assert option.selector() is not None
    if option.kind is Kind.NUMBER:
        assert option.minimum <= option.default <= option.maximum
        assert option.stored(None) == option.default  # an emptied box keeps the default
    # Stored as the form sends it, and read back by the settings: the option changes the room.
    stored = option.stored(sample(option))
    assert stored is not None
    assert Settings.from_entry(DATA, {option.key: stored}) != Settings.from_entry(DATA, {})


@pytest.mark.parametrize("option", ORCHESTRATOR_OPTIONS, ids=lambda option: option.key)
def test_every_orchestrator_option_is_one_whole_entry(option):
    assert (
        option.key in FORM["orchestrator"]["data"] and option.key in FORM["orchestrator"]["data_description"]
    )
    assert option.minimum <= option.default <= option.maximum
    stored = option.stored(sample(option))
    assert OrchestratorSettings.from_options({option.key: stored}) != OrchestratorSettings.from_options({})


def test_the_table_is_the_form_and_the_contract():
    # The form's sections are the table's, in its order, and the contract's options are in the table.
    assert list(sections(OVERSEER_OPTIONS)) == list(FORM["init"]["sections"])
    for name, fields in sections(OVERSEER_OPTIONS).items():
        assert {option.key for option in fields} == set(FORM["init"]["sections"][name]["data"]), name
    submitted = options_sections()  # the options the contract names, as the tests submit them
    assert {key for fields in submitted.values() for key in fields} <= {
        option.key for option in OVERSEER_OPTIONS
    }
    keys = [option.key for option in (*OVERSEER_OPTIONS, *ORCHESTRATOR_OPTIONS)]
    assert len(keys) == len(set(keys))


def test_the_defaults_are_the_contracts():
    defaults = {option.key: option.default for option in OVERSEER_OPTIONS if option.kind is Kind.NUMBER}
    assert defaults == {
        "cooldown_lift": 60,
        "cooldown_neato": 120,
        "cooldown_ha": 20,
        "cooldown_counter": 30,
        "counter_max_step": 1,
        "action_budget": 3,
        "action_window": 300,
        "max_tool_calls": 1,
        "gate_interval": 2,
        "heartbeat": 30,
        "min_gap": 15,
        "quiet_limit": 300,
        "stale_after": 90,
        "request_timeout": 60,
        "transcript_turns": 30,
        "transcript_minutes": 10,
        "min_human_messages": 5,
        "bot_messages": 2,
        "approval_timeout": 600,
        "verify_after": 30,
        # Grants are off until someone chooses how long one may last.
        "max_grant_minutes": 0,
    }
    orchestrator = {option.key: option.default for option in ORCHESTRATOR_OPTIONS}
    assert orchestrator == {"max_iterations": 3, "quality_threshold": 0.8, "delegation_timeout": 30}
