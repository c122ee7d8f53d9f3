"""quality_scale.yaml: every rule of the newest leg listed, honestly, and what a test can check checked.

hassfest returns early for a custom integration, so this test is what reads the file. The rule
names come from where hassfest's rules show: the quality_scale.yaml of every core integration
shipped with the installed Home Assistant (core's hassfest rejects an unknown rule there, and
every core file lists every rule).
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import homeassistant
import pytest
import yaml
from awesomeversion import AwesomeVersion
from homeassistant.components.diagnostics import REDACTED
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.const import __version__ as HA_VERSION
from homeassistant.helpers.entity import Entity, EntityDescription
from homeassistant.helpers.typing import UNDEFINED
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.overseer import ORCHESTRATOR_PLATFORMS, PLATFORMS
from custom_components.overseer.config_flow import OverseerConfigFlow
from custom_components.overseer.const import DOMAIN
from custom_components.overseer.diagnostics import TO_REDACT, async_get_config_entry_diagnostics

REPO = Path(__file__).parents[2]
INTEGRATION = REPO / "custom_components" / "overseer"
SCALE = yaml.safe_load((INTEGRATION / "quality_scale.yaml").read_text(encoding="utf-8"))["rules"]
STRINGS = json.loads((INTEGRATION / "translations" / "en.json").read_text(encoding="utf-8"))
STATUSES = {"done", "todo", "exempt"}


def core_rules() -> set[str]:
    """The rule names core's own quality_scale.yaml files use on the installed Home Assistant."""
    components = Path(homeassistant.__file__).parent / "components"
    rules: set[str] = set()
    for path in components.glob("*/quality_scale.yaml"):
        rules.update((yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("rules") or {})
    return rules


def newest_leg() -> AwesomeVersion:
    """The Home Assistant the newest test leg pins."""
    text = (REPO / "requirements_test_next.txt").read_text(encoding="utf-8")
    return AwesomeVersion(re.search(r"^homeassistant==(\S+)$", text, re.MULTILINE)[1])


def status(rule: str) -> str:
    value = SCALE[rule]
    return value if isinstance(value, str) else value["status"]


def test_every_rule_of_the_installed_home_assistant_is_listed() -> None:
    rules = core_rules()
    assert len(rules) > 40  # the source is really there
    assert sorted(rules - set(SCALE)) == []
    # On the newest leg exactly its rules; an older leg may not know the newest rules yet.
    unknown = set(SCALE) - rules
    assert not unknown or AwesomeVersion(HA_VERSION) < newest_leg(), sorted(unknown)


@pytest.mark.parametrize("rule", sorted(SCALE))
def test_each_rule_is_done_todo_or_exempt_with_a_reason(rule: str) -> None:
    value = SCALE[rule]
    if isinstance(value, str):
        assert value in {"done", "todo"}, "exempt needs a comment: {status: exempt, comment: why}"
        return
    assert set(value) <= {"status", "comment"} and value["status"] in STATUSES
    if value["status"] == "exempt":
        assert isinstance(value.get("comment"), str) and value["comment"].strip()


def entity_classes() -> list[type[Entity]]:
    """The integration's own entity classes, in every platform it sets up."""
    found: dict[str, type[Entity]] = {}
    for platform in {*PLATFORMS, *ORCHESTRATOR_PLATFORMS}:
        module = importlib.import_module(f"custom_components.overseer.{platform.value}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Entity) and cls.__module__.startswith("custom_components.overseer"):
                found[cls.__qualname__] = cls
    return list(found.values())


def class_default(cls: type, name: str) -> Any:
    """An _attr_ default as the class body set it (Home Assistant keeps it behind a property)."""
    for klass in cls.__mro__:
        found = vars(klass)
        if f"_{name}" in found:
            return found[f"_{name}"]
        if name in found and not isinstance(found[name], property):
            return found[name]
    return None


def entity_descriptions() -> list[tuple[str, EntityDescription]]:
    """Every entity description the platforms declare, with its platform."""
    found = []
    for platform in {*PLATFORMS, *ORCHESTRATOR_PLATFORMS}:
        module = importlib.import_module(f"custom_components.overseer.{platform.value}")
        for value in vars(module).values():
            if isinstance(value, tuple | list):
                found.extend((platform.value, item) for item in value if isinstance(item, EntityDescription))
    return found


def test_config_flow_rules() -> None:
    assert status("config-flow") == status("config-flow-test-coverage") == "done"
    tests = (REPO / "tests" / "ha" / "test_config_flow.py").read_text(encoding="utf-8")
    for error in ("cannot_connect", "model_not_found", "already_configured", "reconfigure_successful"):
        assert error in tests, error
    # test-before-configure: the server is asked before anything is saved.
    assert "cannot_connect" in STRINGS["config"]["error"] and status("test-before-configure") == "done"


def test_unique_config_entry() -> None:
    assert status("unique-config-entry") == "done"
    source = inspect.getsource(OverseerConfigFlow.async_step_user)
    assert "async_set_unique_id" in source and "_abort_if_unique_id_configured" in source
    assert "already_configured" in STRINGS["config"]["abort"]
    assert 'result["reason"] == "already_configured"' in (REPO / "tests/ha/test_config_flow.py").read_text()


def test_reauthentication_and_reconfiguration_flows() -> None:
    if status("reauthentication-flow") == "done":
        assert hasattr(OverseerConfigFlow, "async_step_reauth")
        assert "start_reauth_flow" in "".join(
            p.read_text() for p in (REPO / "tests" / "ha").glob("test_*.py")
        )
    if status("reconfiguration-flow") == "done":
        assert hasattr(OverseerConfigFlow, "async_step_reconfigure")


def test_runtime_data_is_typed() -> None:
    assert status("runtime-data") == "done"
    runtime = (INTEGRATION / "runtime.py").read_text(encoding="utf-8")
    assert re.search(r"^type \w+ConfigEntry = ConfigEntry\[\w+", runtime, re.MULTILINE)
    # Nothing of a room is kept in hass.data instead.
    for path in INTEGRATION.rglob("*.py"):
        assert "hass.data[DOMAIN]" not in path.read_text(encoding="utf-8"), path.name


def test_has_entity_name() -> None:
    assert status("has-entity-name") == "done"
    classes = entity_classes()
    assert len(classes) >= 4
    for cls in classes:
        assert class_default(cls, "_attr_has_entity_name") is True, cls.__qualname__


def test_entity_translations() -> None:
    assert status("entity-translations") == "done"
    entities = STRINGS["entity"]
    descriptions = entity_descriptions()
    assert len(descriptions) >= 10
    for platform, description in descriptions:
        key = description.translation_key
        assert key and key in entities[platform], (platform, description.key)
        assert description.name in (None, UNDEFINED), description.key
        for option in getattr(description, "options", None) or ():
            assert option in entities[platform][key]["state"], (platform, key, option)
    for cls in entity_classes():
        if key := class_default(cls, "_attr_translation_key"):
            platform = cls.__module__.rsplit(".", 1)[-1]
            assert key in entities[platform], (platform, key)


def test_icon_translations_cover_every_entity() -> None:
    assert status("icon-translations") == "done"
    icons = json.loads((INTEGRATION / "icons.json").read_text(encoding="utf-8"))
    for platform, description in entity_descriptions():
        assert description.translation_key in icons["entity"][platform], description.key


def test_parallel_updates() -> None:
    modules = {
        platform: importlib.import_module(f"custom_components.overseer.{platform.value}")
        for platform in {*PLATFORMS, *ORCHESTRATOR_PLATFORMS}
    }
    missing = sorted(
        platform.value for platform, module in modules.items() if not hasattr(module, "PARALLEL_UPDATES")
    )
    assert (status("parallel-updates") == "done") == (not missing), missing


def test_simple_facts() -> None:
    manifest = json.loads((INTEGRATION / "manifest.json").read_text(encoding="utf-8"))
    assert status("integration-owner") == "done" and manifest["codeowners"]
    assert status("brands") == "done" and (INTEGRATION / "brand" / "icon.png").is_file()
    assert status("repair-issues") == "done" and STRINGS["issues"]
    assert status("config-entry-unloading") == "done"
    assert hasattr(importlib.import_module("custom_components.overseer"), "async_unload_entry")
    assert status("diagnostics") == "done"


async def test_diagnostics_redact_credentials(hass) -> None:
    assert {CONF_API_KEY, CONF_URL} <= TO_REDACT
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Arena",
        data={
            "name": "Overseer",
            "room": "Arena",
            CONF_URL: "http://10.0.0.2:8000/v1",
            CONF_API_KEY: "sk-secret",
        },
    )
    entry.add_to_hass(hass)
    shown = await async_get_config_entry_diagnostics(hass, entry)
    assert shown["entry"]["data"][CONF_API_KEY] == REDACTED
    assert shown["entry"]["data"][CONF_URL] == REDACTED
    assert "sk-secret" not in json.dumps(shown) and "10.0.0.2" not in json.dumps(shown)


# Core's strict settings (its mypy.ini for an integration on the strict list); setup.cfg's [mypy]
# holds the same. On the command line mypy takes one error code per flag, not a list.
STRICT = [
    "--strict",
    "--warn-unreachable",
    "--enable-error-code=ignore-without-code",
    "--enable-error-code=redundant-self",
    "--enable-error-code=truthy-iterable",
    "--disable-error-code=annotation-unchecked",
    "--disable-error-code=import-not-found",
    "--disable-error-code=import-untyped",
]


def test_strict_typing_is_done_and_strict_mypy_is_clean(tmp_path: Path) -> None:
    """The file claims strict typing, and core's strict mypy agrees on this leg."""
    assert status("strict-typing") == "done"
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *STRICT, "--cache-dir", str(tmp_path), "custom_components/overseer"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:]


def test_docs_rules_name_sections_that_exist() -> None:
    """The docs rules marked done point at something the README or docs/ really has."""
    readme = (REPO / "README.md").read_text(encoding="utf-8").lower()
    docs = (
        " ".join(p.read_text(encoding="utf-8").lower() for p in (REPO / "docs").rglob("*.md"))
        if (REPO / "docs").is_dir()
        else ""
    )
    text = readme + docs
    evidence: dict[str, Any] = {
        "docs-installation-instructions": ("hacs",),
        "docs-troubleshooting": ("troubleshooting",),
        "docs-actions": ("overseer.approve", "overseer.post_message"),
        "docs-examples": ("automation",),
        "docs-removal-instructions": ("remove the integration", "uninstall", "removal"),
        "docs-known-limitations": ("known limitations", "limitations"),
    }
    for rule, words in evidence.items():
        if status(rule) == "done":
            assert any(word in text for word in words), rule
