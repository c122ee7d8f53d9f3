"""CHANGELOG.md in Keep a Changelog's form, for the people who install Overseer.

Dated versions, newest first, the newest being the manifest's (the version Home Assistant shows,
and the card's address changes with it, so a browser fetches a changed card); each version's
lines under Keep a Changelog's headings; nothing of the development history (issue numbers,
commit hashes, the demo check's seeds and draws), which stays in git.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from packaging.version import Version

REPO = Path(__file__).parents[2]
TEXT = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
MANIFEST = json.loads((REPO / "custom_components" / "overseer" / "manifest.json").read_text(encoding="utf-8"))
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.MULTILINE)
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def versions() -> list[tuple[Version, date]]:
    return [(Version(number), date.fromisoformat(day)) for number, day in RELEASE.findall(TEXT)]


def test_versions_are_dated_and_newest_first_and_the_newest_is_the_manifests() -> None:
    found = versions()
    assert len(found) >= 10
    assert found == sorted(found, reverse=True), "newest first, each no older than the next"
    assert str(found[0][0]) == MANIFEST["version"]
    # Every version heading is a dated release, apart from the one for what is not released yet.
    headings = re.findall(r"^## (.+)$", TEXT, re.MULTILINE)
    assert [h for h in headings if not RELEASE.match(f"## {h}")] in ([], ["[Unreleased]"])
    assert headings[0] == "[Unreleased]" or RELEASE.match(f"## {headings[0]}")


def test_each_version_sorts_its_lines_under_keep_a_changelogs_headings() -> None:
    for block in re.split(r"^## ", TEXT, flags=re.MULTILINE)[1:]:
        title, _, body = block.partition("\n")
        subsections = re.findall(r"^### (.+)$", body, re.MULTILINE)
        assert set(subsections) <= SECTIONS, (title, subsections)
        assert len(subsections) == len(set(subsections)), title
        lines = [line for line in body.splitlines() if line.startswith("- ")]
        if lines:  # every line under a heading
            assert body.lstrip().startswith("### "), title


def test_no_development_history() -> None:
    for pattern in (r"\bissue \d+", r"#\d+\b", r"\bseed\b", r"\bdraws?\b", r"\b[0-9a-f]{7,40}\b"):
        assert not re.search(pattern, TEXT, re.IGNORECASE), pattern
