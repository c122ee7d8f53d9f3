"""docs/configuration.md is what scripts/config_reference.py writes from the options table now.

The reference is generated from options.py and translations/en.json; an option added, renamed,
given another default or range, or described anew in English without running the script
fails here, and so does a hand edit of the file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from custom_components.overseer.options import ORCHESTRATOR_OPTIONS, OVERSEER_OPTIONS

REPO = Path(__file__).parents[2]
SCRIPT = REPO / "scripts" / "config_reference.py"


def generator() -> ModuleType:
    """The script, loaded as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("config_reference", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_configuration_reference_is_current() -> None:
    written = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert written == generator().render(), (
        "docs/configuration.md is out of date: run .venv/bin/python scripts/config_reference.py"
    )


def test_every_option_has_a_row_and_every_note_an_option() -> None:
    script = generator()
    text = script.render()
    keys = {option.key for option in (*OVERSEER_OPTIONS, *ORCHESTRATOR_OPTIONS)}
    for key in keys:
        assert f"| `{key}` |" in text, key
    assert set(script.NOTES) <= keys, set(script.NOTES) - keys
    assert set(script.HOUSE_CHOICES) <= keys, set(script.HOUSE_CHOICES) - keys


def test_check_mode_says_when_the_file_is_stale(tmp_path: Path, monkeypatch) -> None:
    script = generator()
    stale = tmp_path / "configuration.md"
    stale.write_text("# an old reference\n", encoding="utf-8")
    monkeypatch.setattr(script, "TARGET", stale)
    monkeypatch.setattr(script, "REPO", tmp_path)
    assert script.main(["--check"]) == 1
    assert script.main([]) == 0
    assert script.main(["--check"]) == 0
