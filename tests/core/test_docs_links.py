"""The README and docs/ link to files and headings that exist, and the README stays short, in order.

HACS shows the README inside Home Assistant, where a relative path resolves against Home
Assistant's own address: so the README links into this repository by absolute address (its
main branch), and those addresses must name files and headings the checkout has. docs/ (with
docs/development/), prompts/README.md and CHANGELOG.md are read on GitHub, where relative links work.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
HOME = "https://github.com/overseer-ha/overseer/blob/main/"
RAW = "https://raw.githubusercontent.com/overseer-ha/overseer/main/"
PAGES = [
    REPO / "README.md",
    REPO / "CHANGELOG.md",
    REPO / "prompts" / "README.md",
    *sorted((REPO / "docs").rglob("*.md")),
]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(match) for match in re.findall(r"^#+ (.*)$", text, re.M)}


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_link_names_a_file_and_heading_that_exist(page: Path) -> None:
    for found in links(page):
        if found.startswith((HOME, RAW)):
            link = "/" + found.removeprefix(HOME).removeprefix(RAW)
        elif found.startswith(("http:", "https:", "mailto:")):
            continue
        else:
            link = found
        path, _, anchor = link.partition("#")
        if not path:
            target = page
        elif path.startswith("/"):
            target = REPO / path.lstrip("/")
        else:
            target = (page.parent / path).resolve()
        assert target.exists(), f"{page.name}: {link} names no file"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{page.name}: {link} names no heading"


def test_the_readme_links_into_the_repository_by_absolute_address() -> None:
    relative = [
        link for link in links(REPO / "README.md") if not link.startswith(("http:", "https:", "#", "mailto:"))
    ]
    assert relative == [], "HACS cannot follow these from inside Home Assistant"


def test_the_readme_says_what_for_whom_and_how_to_talk_then_shows_it_then_how_to_install() -> None:
    """The first screen answers a newcomer's questions in order; the demo and development come last.

    What it is (the opening lines), whom and what room it is for, how people talk to it, a picture
    of a room being kept, and the three commands that try it from a clone within the first 40 lines
    (a project rule); then installing and configuring it; the demo in full and the contributors'
    page at the end.
    """
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 300
    first = "\n".join(lines[:40])
    for script in ("scripts/setup", "scripts/develop", "scripts/test"):
        assert script in first, script
    sections = re.findall(r"^## (.+)$", FENCE.sub("", text), re.M)
    order = ["Who it is for", "How people talk to it", "Install", "The first configuration", "Try the demo"]
    assert [section for section in sections if section in order] == order, sections
    picture = text.index(f"]({RAW}docs/dashboard.png)")
    assert (
        text.index("## How people talk to it")
        < picture
        < text.index("scripts/setup")
        < text.index("## Install")
    )
    assert (REPO / "docs" / "dashboard.png").exists(), "the browser test writes it: tests/e2e/test_browser.py"
    assert text.index(f"]({HOME}docs/development.md)") > text.index("## Try the demo")
