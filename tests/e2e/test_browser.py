"""The debug card in the real Home Assistant frontend, in headless Chromium.

Signs in as the demo user, opens the demo dashboard and checks that the card shows the loop
phase, a blocked tool with its reason and a cooldown that counts down live. Saves a
screenshot under test-output/browser/.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from devtools.hass_process import DEMO_PASSWORD, DEMO_USER

from ..processes import OUTPUT, configure_overseer, state
from .conftest import MODEL

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    """Debian's chromium, installing it when possible; a loud skip when it cannot be had."""
    found = shutil.which("chromium")
    if found is None and shutil.which("apt-get") and Path("/proc/self").exists():
        install = "apt-get install -y -qq --no-install-recommends chromium"
        subprocess.run(
            f"apt-get update -qq && DEBIAN_FRONTEND=noninteractive {install}",
            shell=True,
            check=False,
            capture_output=True,
        )
        found = shutil.which("chromium")
    if found is None:
        pytest.skip(
            "BROWSER TEST SKIPPED: Debian's chromium is not installed and could not be installed here"
        )
    return found


def test_the_card_shows_phase_blocked_tools_and_a_live_cooldown(home_assistant, ollama):
    executable = chromium()
    from playwright.sync_api import expect, sync_playwright

    ha = home_assistant
    configure_overseer(ha, "ollama", ollama.url, MODEL)
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "overseer raise the lift"}
    ).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_last_action") == "lift_up executed", what="the lift call"
    )

    shots = OUTPUT / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            console: list[str] = []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("requestfailed", lambda bad: console.append(f"request failed: {bad.url} {bad.failure}"))
            # Home Assistant 2026 lands on its own home dashboard: ask for the demo one.
            page.goto(f"{ha.url}/lovelace/arena", wait_until="domcontentloaded")
            page.locator("input[name='username']").fill(DEMO_USER)
            page.locator("input[name='password']").fill(DEMO_PASSWORD)
            page.locator("input[name='password']").press("Enter")
            try:
                page.wait_for_url("**/lovelace/arena", timeout=60_000)
                # Open the dashboard as a returning, signed-in user would: the frontend's own
                # redirect dance after sign-in sometimes builds the view before it has run the
                # dashboard's modules, and shows a "custom element doesn't exist" card instead.
                page.goto(f"{ha.url}/lovelace/arena", wait_until="domcontentloaded")
                page.wait_for_function("customElements.get('overseer-card') !== undefined", timeout=60_000)
            except Exception:
                console.append(f"URL {page.url}")
                page.screenshot(path=str(shots / "failure.png"))
                raise
            finally:
                (shots / "console.log").write_text("\n".join(console))
            card = page.locator("overseer-card")
            expect(card).to_be_visible(timeout=60_000)

            # After posting, the loop goes back to idle at the next gate tick.
            expect(card.locator(".phase.active")).to_have_text(re.compile("^(posted|idle)$"), timeout=20_000)
            blocked = card.locator("[data-blocked='lift_up']")
            expect(blocked).to_contain_text("cooldown")
            countdown = card.locator("[data-cooldown='lift'] .v")
            expect(countdown).to_have_text(re.compile(r"^\d+s$"))
            first = int(countdown.inner_text().rstrip("s"))
            time.sleep(2.5)
            second = int(countdown.inner_text().rstrip("s"))
            assert 0 < second < first <= 60, (first, second)
            expect(card.locator("[data-field='decision']")).to_contain_text("ACTION+CHAT")
            expect(card.locator("[data-section='calls']")).to_contain_text("executed")
            card.screenshot(path=str(shots / "overseer-card.png"))
            page.screenshot(path=str(shots / "dashboard.png"), full_page=True)

            # The card switches view with the mode, pushed without a reload.
            select = "/api/services/select/select_option"
            ha.post(
                select, {"entity_id": "select.arena_overseer_mode", "option": "commentary"}
            ).raise_for_status()
            expect(card.locator("[data-field='last_comment']")).to_be_visible(timeout=5_000)
            ha.post(select, {"entity_id": "select.arena_overseer_mode", "option": "off"}).raise_for_status()
            expect(card.locator("[data-field='off']")).to_be_visible(timeout=5_000)
            card.screenshot(path=str(shots / "overseer-card-off.png"))
        finally:
            browser.close()
