"""What HACS and Home Assistant read from the repository, checked on every leg."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import yaml
from awesomeversion import AwesomeVersion
from homeassistant import components
from homeassistant.const import __version__ as HA_VERSION
from packaging.requirements import Requirement
from packaging.version import Version

from custom_components.overseer.core.approvals import AnswerRefused, ApprovalSource, ApprovalStatus
from custom_components.overseer.select import SELECTS
from custom_components.overseer.sensor import SENSORS
from custom_components.overseer.services import (
    APPROVAL_SCHEMA,
    APPROVE_SCHEMA,
    EXPECTATIONS,
    MEMORY_CLEAR_SCHEMA,
    MEMORY_WRITE_SCHEMA,
    POST_MESSAGE_SCHEMA,
    REVOKE_GRANT_SCHEMA,
    TRIGGER_SCHEMA,
)
from custom_components.overseer.switch import SWITCHES

ROOT = Path(__file__).parents[2]
INTEGRATION = ROOT / "custom_components" / "overseer"
MANIFEST = json.loads((INTEGRATION / "manifest.json").read_text())
STRINGS = json.loads((INTEGRATION / "translations" / "en.json").read_text())
ICONS = json.loads((INTEGRATION / "icons.json").read_text())
# hassfest's rule for translation keys (entity state keys included).
TRANSLATION_KEY = re.compile(r"^(?!.+[_-]{2})(?![_-])[a-z0-9-_]+(?<![_-])$")


def test_manifest_has_what_hacs_and_core_expect():
    for key in (
        "domain",
        "name",
        "version",
        "documentation",
        "issue_tracker",
        "codeowners",
        "requirements",
        "integration_type",
        "iot_class",
        "config_flow",
        "dependencies",
    ):
        assert key in MANIFEST, key
    assert MANIFEST["domain"] == "overseer" and MANIFEST["config_flow"] is True
    hacs = json.loads((ROOT / "hacs.json").read_text())
    assert hacs["homeassistant"] == "2025.4.0"


def test_requirements_coexist_with_core_pins_on_this_home_assistant():
    core_pins = {}
    for integration in ("ollama", "openai_conversation"):
        core_manifest = Path(components.__file__).parent / integration / "manifest.json"
        for line in json.loads(core_manifest.read_text())["requirements"]:
            requirement = Requirement(line)
            core_pins[requirement.name] = next(iter(requirement.specifier)).version
    for line in MANIFEST["requirements"]:
        requirement = Requirement(line)
        assert requirement.specifier.contains(Version(core_pins[requirement.name])), (line, core_pins)


def test_requirements_install_under_this_home_assistants_package_constraints():
    # Home Assistant installs a custom integration's requirements under these constraints and
    # refuses to set it up when they conflict (2026.10 pins openai 3.10.0, 2026.11 3.26.0).
    constraints = {}
    for raw in (Path(components.__file__).parents[1] / "package_constraints.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if "==" in line and ";" not in line:
            requirement = Requirement(line)
            constraints[requirement.name.lower()] = next(iter(requirement.specifier)).version
    ours = [Requirement(line) for line in MANIFEST["requirements"]]
    pinned = [requirement for requirement in ours if requirement.name.lower() in constraints]
    for requirement in pinned:
        version = Version(constraints[requirement.name.lower()])
        assert requirement.specifier.contains(version), (str(requirement), str(version))
    # Before 2026.10 the constraints pin neither package (core's manifests do: the test above);
    # from 2026.10 they pin openai, and a file that lost the pin would hide a conflict.
    if AwesomeVersion(HA_VERSION) >= AwesomeVersion("2026.10.0"):
        assert "openai" in {r.name for r in pinned}


def test_every_translation_key_the_code_uses_exists():
    for platform, descriptions in (("sensor", SENSORS), ("select", SELECTS), ("switch", SWITCHES)):
        for description in descriptions:
            assert description.translation_key in STRINGS["entity"][platform], description.key
    code = "\n".join(path.read_text() for path in INTEGRATION.rglob("*.py"))
    for key in re.findall(r'_invalid\("(\w+)"', code):
        assert key in STRINGS["exceptions"], key
    for key in re.findall(r'phrase\("(\w+)"', code):  # what the overseer says, in the user's language
        assert key in STRINGS["exceptions"], key
    # A service field's refusal is keyed by what its validator expects.
    schemas = (
        POST_MESSAGE_SCHEMA,
        TRIGGER_SCHEMA,
        MEMORY_WRITE_SCHEMA,
        MEMORY_CLEAR_SCHEMA,
        APPROVAL_SCHEMA,
        APPROVE_SCHEMA,
        REVOKE_GRANT_SCHEMA,
    )
    for schema in schemas:
        for key, validator in schema.schema.items():
            assert EXPECTATIONS.get(validator) in STRINGS["exceptions"], str(key)
    for key in re.findall(r'errors\[[^]]+\] = "(\w+)"', code):
        assert key in STRINGS["config"]["error"] or key in STRINGS["options"]["error"], key
    for refused in AnswerRefused:  # an approval answer that is not taken says why
        assert refused.value in STRINGS["exceptions"], refused
    for key in ("model_unreachable", "agent_can_control", "incident_needs_human"):
        assert key in STRINGS["issues"]
    assert set(STRINGS["services"]) == {
        "post_message",
        "trigger",
        "memory_write",
        "memory_clear",
        "approve",
        "deny",
        "revoke_grant",
    }
    # What the overseer says about an approval is chosen by who asked and what became of it.
    for source in ApprovalSource:
        assert f"approval_asked_{source}" in STRINGS["exceptions"], source
    for status in ApprovalStatus:
        if status not in (ApprovalStatus.PENDING, ApprovalStatus.APPROVED):  # moments, never told
            assert f"approval_outcome_{status}" in STRINGS["exceptions"], status


def test_entity_states_have_valid_translation_keys_and_icons():
    for platform, descriptions in (("sensor", SENSORS), ("select", SELECTS)):
        for description in descriptions:
            strings = STRINGS["entity"][platform][description.translation_key]
            states = set(strings.get("state", {}))
            assert all(TRANSLATION_KEY.match(key) for key in states), states
            icon_states = set(ICONS["entity"][platform].get(description.translation_key, {}).get("state", {}))
            assert icon_states <= states, (description.key, icon_states - states)
            options = getattr(description, "options", None)
            if options is not None:  # an enum sensor: every state it reports is translated
                assert set(options) == states, (description.key, set(options) ^ states)


def test_services_yaml_translations_and_schemas_name_the_same_fields():
    services = yaml.safe_load((INTEGRATION / "services.yaml").read_text())
    schemas = {
        "post_message": POST_MESSAGE_SCHEMA,
        "trigger": TRIGGER_SCHEMA,
        "memory_write": MEMORY_WRITE_SCHEMA,
        "memory_clear": MEMORY_CLEAR_SCHEMA,
        "approve": APPROVE_SCHEMA,
        "deny": APPROVAL_SCHEMA,
        "revoke_grant": REVOKE_GRANT_SCHEMA,
    }
    assert set(services) == set(schemas) == set(ICONS["services"])
    for name, schema in schemas.items():
        fields = {str(key) for key in schema.schema}
        assert set(services[name]["fields"]) == fields, name
        assert set(STRINGS["services"][name]["fields"]) == fields, name
        required = {str(key) for key in schema.schema if key.__class__.__name__ == "Required"}
        assert {f for f, spec in services[name]["fields"].items() if spec.get("required")} == required, name


def test_brand_icon_and_license_for_hacs():
    png = (INTEGRATION / "brand" / "icon.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    assert (width, height) == (256, 256)
    assert (depth, colour) == (8, 6)  # 8-bit RGBA: a transparent background
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "The Overseer developers" in license_text
