"""The Spanish translations and prompts: every English key and prompt, same placeholders, translated."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from custom_components.overseer import load_prompt
from custom_components.overseer.core.accounts import refusal_answer
from custom_components.overseer.core.audit import AuditRecord, Outcome
from custom_components.overseer.phrases import async_phrases

INTEGRATION = Path(__file__).parents[2] / "custom_components" / "overseer"
ROOT_PROMPTS = Path(__file__).parents[2] / "prompts"
ENGLISH = json.loads((INTEGRATION / "translations" / "en.json").read_text(encoding="utf-8"))
SPANISH = json.loads((INTEGRATION / "translations" / "es.json").read_text(encoding="utf-8"))

# Values the Spanish keeps as in English, by key, and why: names and codes, not words to translate.
SAME_IN_SPANISH = {
    # A word that is Spanish as well.
    "entity.sensor.last_trigger.state.manual": "'Manual' is the Spanish word too",
    "entity.select.mode.state.control": "'Control' is the Spanish word too",
    # The decision modes are codes: the prompts tell the model to answer exactly SKIP, and the
    # card, the audit and the docs name them the same way.
    "entity.sensor.last_decision.state.skip": "decision code SKIP",
    "entity.sensor.last_decision.state.chat": "decision code CHAT",
    "entity.sensor.last_decision.state.action": "decision code ACTION",
    "entity.sensor.last_decision.state.action_and_chat": "decision code ACTION+CHAT",
    # The card's words that Spanish says alike.
    "common.tag_bot": "'bot' is the Spanish word too",
    "common.col_bot": "'bot' is the Spanish word too",
    "common.no": "'no' is the Spanish word too",
}

PLACEHOLDER = re.compile(r"\{[^{}]+\}")
PROMPT_PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def leaves(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every value of a nested mapping by its dotted key."""
    found: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            found.update(leaves(value, f"{path}."))
        else:
            found[path] = value
    return found


EN = leaves(ENGLISH)
ES = leaves(SPANISH)


def test_spanish_has_every_english_key_and_no_other() -> None:
    assert sorted(set(EN) - set(ES)) == [], "keys missing from es.json"
    assert sorted(set(ES) - set(EN)) == [], "keys in es.json that en.json does not have"


@pytest.mark.parametrize("key", sorted(EN))
def test_spanish_value_keeps_the_placeholders(key: str) -> None:
    english, spanish = EN[key], ES.get(key)
    assert isinstance(spanish, str) and spanish.strip(), key
    assert sorted(PLACEHOLDER.findall(spanish)) == sorted(PLACEHOLDER.findall(english)), key
    # Markdown and line breaks are kept as the English has them.
    assert spanish.count("`") == english.count("`"), key
    assert spanish.count("\n") == english.count("\n"), key


def test_spanish_values_are_translated_apart_from_the_listed_names() -> None:
    same = {key for key in EN if ES.get(key) == EN[key]}
    assert sorted(same - set(SAME_IN_SPANISH)) == [], "untranslated: translate, or list with a reason"
    # The list holds no stale entries: each one is a key whose value is really the same.
    assert sorted(set(SAME_IN_SPANISH) - same) == []


def test_the_selector_and_entity_keys_the_code_uses_are_in_both_languages() -> None:
    """icons.json and services.yaml name translation keys: each has a Spanish name as well."""
    icons = json.loads((INTEGRATION / "icons.json").read_text(encoding="utf-8"))
    for platform, entities in icons["entity"].items():
        for key, icon in entities.items():
            assert f"entity.{platform}.{key}.name" in ES, (platform, key)
            for state in icon.get("state", {}):
                if platform != "switch":  # a switch's on/off states are Home Assistant's own
                    assert f"entity.{platform}.{key}.state.{state}" in ES, (platform, key, state)
    services = yaml.safe_load((INTEGRATION / "services.yaml").read_text(encoding="utf-8"))
    for service, spec in services.items():
        assert f"services.{service}.name" in ES, service
        assert set(icons["services"]) >= {service}
        for field in (spec or {}).get("fields", {}):
            assert f"services.{service}.fields.{field}.name" in ES, (service, field)
            assert f"services.{service}.fields.{field}.description" in ES, (service, field)


def test_the_overseer_s_own_lines_read_as_spanish_sentences() -> None:
    """The phrases it says in chat and Assist, filled in as the code fills them in."""

    def phrase(key: str, **placeholders: Any) -> str:
        text = ES[f"exceptions.{key}.message"]
        for name, value in placeholders.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text

    reason = phrase("reason_cooldown", seconds=40)
    assert phrase("answer_refused", user="alex", deed="bajar el elevador", reason=reason) == (
        "alex, ahora no puedo bajar el elevador: se está enfriando 40 s más."
    )
    assert phrase("answer_blocked", user="alex", deed="bajar el elevador", reason=reason) == (
        "alex, todavía no puedo bajar el elevador: se está enfriando 40 s más."
    )
    assert (
        phrase("no_answer", user="[user]")
        == "Lo siento, [user]: ahora mismo no tengo nada útil que decir a eso."
    )
    assert (
        phrase("reply_refused", tool="bajar el elevador", reason=reason)
        == "No pude bajar el elevador: se está enfriando 40 s más."
    )
    assert phrase("approval_title", room="Arena", tool="restart_asset") == "Arena: ¿aprobar restart_asset?"


PROMPTS = sorted(path for path in (INTEGRATION / "prompts").glob("*.md") if not path.name.endswith(".es.md"))


def test_the_prompts_are_found() -> None:
    assert {path.name for path in PROMPTS} >= {
        "system.md",
        "commentary.md",
        "triage.md",
        "routing.md",
        "quality.md",
        "refinement.md",
    }


@pytest.mark.parametrize("english", PROMPTS, ids=lambda path: path.name)
def test_each_prompt_has_a_spanish_one_with_the_same_placeholders(english: Path) -> None:
    spanish = english.with_name(english.name.removesuffix(".md") + ".es.md")
    assert spanish.is_file(), spanish.name
    english_text, spanish_text = english.read_text(encoding="utf-8"), spanish.read_text(encoding="utf-8")
    assert set(PROMPT_PLACEHOLDER.findall(spanish_text)) == set(PROMPT_PLACEHOLDER.findall(english_text))
    assert spanish_text != english_text
    # What the code parses stays in English: the decision code and the JSON keys of the answer.
    for word in ("SKIP", "JSON"):
        assert (word in english_text) == (word in spanish_text), word
    for key in re.findall(r'"([a-z_]+)":', english_text):
        assert f'"{key}":' in spanish_text, key


@pytest.mark.parametrize("english", PROMPTS, ids=lambda path: path.name)
def test_the_root_prompts_folder_links_the_spanish_prompt_too(english: Path) -> None:
    for name in (english.name, english.name.removesuffix(".md") + ".es.md"):
        link = ROOT_PROMPTS / name
        assert link.is_symlink(), name
        assert link.resolve() == (INTEGRATION / "prompts" / name).resolve(), name


async def test_the_overseer_speaks_spanish_when_asked_in_spanish(hass) -> None:
    """What phrases.py reads for a Spanish speaker: the Spanish file, English only where it has none."""
    spanish = await async_phrases(hass, "es")
    assert spanish("reason_busy") == "el dispositivo está ocupado"
    assert spanish("approval_outcome_denied", asker="alex", by="robin", call="lift_down()") == (
        "alex: robin denegó lift_down(); no se ejecutó nada."
    )
    english = await async_phrases(hass, "en")
    assert english("reason_busy") == "the device is busy"
    # A refused call is told in the room's words, the deed included.
    lowered = AuditRecord(0.0, "d", "lift_down", {}, Outcome.BLOCKED, "cooldown", 40)
    assert refusal_answer([lowered], "alex", spanish) == (
        "alex, ahora no puedo bajar el elevador: se está enfriando 40 s más."
    )
    assert refusal_answer([lowered], "alex", english) == (
        "alex, I tried to lower the lift, but it is cooling down for 40 s."
    )


def test_a_spanish_home_reads_the_spanish_prompts_and_a_rewritten_one_wins(tmp_path):
    shipped_es = load_prompt(tmp_path, "system.md", "es")
    assert shipped_es != load_prompt(tmp_path, "system.md", "en")
    assert load_prompt(tmp_path, "system.md", "es-419") == shipped_es
    assert load_prompt(tmp_path, "routing.md", "fr") == load_prompt(tmp_path, "routing.md")
    mine = tmp_path / "overseer" / "prompts"
    mine.mkdir(parents=True)
    (mine / "system.md").write_text("My own words, <NAME>.", encoding="utf-8")
    assert load_prompt(tmp_path, "system.md", "es") == "My own words, <NAME>."
