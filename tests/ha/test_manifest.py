"""What HACS and Home Assistant read from the repository, checked on every leg."""

from __future__ import annotations

import json
import re
from pathlib import Path

from homeassistant import components
from packaging.requirements import Requirement
from packaging.version import Version

from custom_components.overseer.select import SELECTS
from custom_components.overseer.sensor import SENSORS
from custom_components.overseer.switch import SWITCHES

ROOT = Path(__file__).parents[2]
INTEGRATION = ROOT / "custom_components" / "overseer"
MANIFEST = json.loads((INTEGRATION / "manifest.json").read_text())
STRINGS = json.loads((INTEGRATION / "translations" / "en.json").read_text())


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


def test_every_translation_key_the_code_uses_exists():
    for platform, descriptions in (("sensor", SENSORS), ("select", SELECTS), ("switch", SWITCHES)):
        for description in descriptions:
            assert description.translation_key in STRINGS["entity"][platform], description.key
    code = "\n".join(path.read_text() for path in INTEGRATION.rglob("*.py"))
    for key in re.findall(r'_invalid\("(\w+)"', code):
        assert key in STRINGS["exceptions"], key
    for key in re.findall(r'errors\[[^]]+\] = "(\w+)"', code):
        assert key in STRINGS["config"]["error"] or key in STRINGS["options"]["error"], key
    for key in ("model_unreachable", "agent_can_control"):
        assert key in STRINGS["issues"]
    assert set(STRINGS["services"]) == {"post_message", "trigger", "memory_write", "memory_clear"}
