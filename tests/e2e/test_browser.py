"""The debug card in the real Home Assistant frontend, in headless Chromium.

Signs in as the demo user, opens the demo dashboard and checks that the card shows the loop
phase, a blocked tool with its reason and a cooldown that counts down live, the conversation
(the room chat with the overseer's own reply marked, and what the model saw) with the server's
token count beside the estimate, and that the status pushes of a running cooldown update it in
place: an opened section stays open, keeps its scroll position and its focus. Then an incident
the real integration opened (the demo vacuum jammed) and triaged (the model asked to restart it):
its details and timeline, and its pending approval, approved in the card, which the overseer
then runs; a second, late answer is refused and the card says why. Saves screenshots under
test-output/browser/.
"""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest

from devtools.hass_process import DEMO_PASSWORD, DEMO_USER

from ..ollama_stub import Scripted, is_triage, reasoning
from ..processes import OUTPUT, configure_overseer, state
from .scripted_model import MODEL, worst_case_model

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
    """Debian's chromium, which scripts/setup installs; a test never installs anything itself."""
    found = shutil.which("chromium")
    if found is None:
        pytest.fail(
            "Debian's chromium is not installed: run scripts/setup (as root it installs it "
            "with apt-get), then run the browser test again",
            pytrace=False,
        )
    return found


def restarting_model(payload: dict) -> Scripted | None:
    """The worst-case model, but its triage restarts the asset: a call that waits for a person.

    Markup in what the model says is text to the card, never HTML.
    """
    if is_triage(payload):
        restart = ("asset_restart", {"asset_id": "vacuum.neato"})
        fault, action = "<i>brush</i> jammed", "clear the brush, then restart the vacuum"
        return Scripted(content=reasoning(restart, safety="consequential", fault=fault, action=action))
    return worst_case_model(payload)


class StatusPushes:
    """Counts the overseer status objects the page's websockets receive, whatever the card does."""

    def __init__(self) -> None:
        """Nothing counted yet."""
        self.count = 0

    def watch(self, websocket) -> None:
        """Count the pushes on one websocket the page opened."""
        websocket.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        try:
            data = json.loads(payload)
        except (TypeError, ValueError):
            return
        # The frontend asks Home Assistant to coalesce messages: a frame may carry a list.
        for message in data if isinstance(data, list) else [data]:
            event = message.get("event") if isinstance(message, dict) else None
            if isinstance(event, dict) and str(event.get("schema", "")).startswith("overseer."):
                self.count += 1

    def wait_for_more(self, page, more: int, timeout: float = 30) -> None:
        """Let the page run until `more` further pushes have arrived."""
        target = self.count + more
        deadline = time.monotonic() + timeout
        while self.count < target:
            assert time.monotonic() < deadline, f"only {self.count - target + more} of {more} pushes"
            page.wait_for_timeout(200)  # Playwright delivers the frame events while it waits


def test_the_card_shows_phase_blocked_tools_a_live_cooldown_and_incidents(
    home_assistant, ollama, monkeypatch
):
    executable = chromium()
    from playwright.sync_api import expect, sync_playwright

    ha = home_assistant
    monkeypatch.setattr(ollama, "responder", restarting_model)
    configure_overseer(ha, "ollama", ollama.url, MODEL)
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    # Markup in a chat line is text to the card, never HTML.
    asked = "<b>hey</b> overseer raise the lift"
    ha.post("/api/services/overseer/post_message", {"user": "alex", "text": asked}).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_last_action") == "lift_up executed", what="the lift call"
    )
    # The demo's fault: the vacuum stops with an error. Jammed now, so the incident opens and
    # is triaged while the browser starts.
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()

    shots = OUTPUT / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            console: list[str] = []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("requestfailed", lambda bad: console.append(f"request failed: {bad.url} {bad.failure}"))
            pushes = StatusPushes()
            page.on("websocket", pushes.watch)
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
            # The demo dashboard shows the three rovers, and its chat box starts empty.
            expect(page.locator("hui-glance-card", has_text=re.compile(r"Rover [123]"))).to_have_count(3)
            expect(page.locator("hui-input-text-entity-row input")).to_have_value("")

            # After posting, the loop goes back to idle at the next gate tick.
            expect(card.locator(".phase.active")).to_have_text(re.compile("^(posted|idle)$"), timeout=20_000)
            blocked = card.locator("[data-blocked='lift_up']")
            # While the lift still moves it is busy; the cooldown shows once it has stopped.
            expect(blocked).to_contain_text("cooldown", timeout=30_000)
            countdown = card.locator("[data-cooldown='lift'] .v")
            expect(countdown).to_have_text(re.compile(r"^\d+s$"))
            first = int(countdown.inner_text().rstrip("s"))
            time.sleep(2.5)
            second = int(countdown.inner_text().rstrip("s"))
            assert 0 < second < first <= 60, (first, second)
            # A later cycle (the lift stopping is news) may have replaced the last decision by
            # now; the audit keeps the call.
            expect(card.locator("[data-field='decision']")).not_to_contain_text("none yet")
            expect(card.locator("[data-section='recent'] tr", has_text="lift_up")).to_contain_text("executed")

            # The conversation: the room chat live, the human line as typed, the overseer's
            # reply marked as its own; then what the model read in its last decision.
            room_chat = card.locator("[data-section='room_chat']")
            expect(room_chat).to_be_visible()
            human = room_chat.locator("[data-line='human'][data-user='alex'] .text")
            expect(human).to_have_text(asked)
            assert room_chat.locator("b").count() == 0, "a chat line's markup became HTML"
            own = room_chat.locator("[data-line='own']")
            expect(own).to_contain_text("Going up.")
            expect(own.locator(".tag")).to_have_text("overseer")
            expect(own.locator("time")).to_have_text(re.compile(r"^\d+[smh] ago$"))
            card.locator("button[data-tab='transcript']").click()
            transcript = card.locator("[data-section='transcript']")
            expect(transcript.locator("[data-line='human'][data-user='alex'] .text")).to_have_text(asked)
            expect(room_chat).to_be_hidden()
            card.locator("button[data-tab='room_chat']").click()
            expect(transcript).to_be_hidden()
            # The stub reports prompt_eval_count, as Ollama does: the server's count beside the estimate.
            expect(card.locator("[data-field='model_input']")).to_contain_text(
                re.compile(r"\d+ msgs · [\d\u202f]+ chars · 321 tok \(server\) / ~[\d\u202f]+ est\.")
            )

            # Pushes update the card in place: open a section, scroll it and keep the focus on
            # it, then push three status changes (the dry-run switch) while the cooldown runs.
            summary = card.locator("summary", has_text="Last STATE_UPDATE")
            summary.click()
            details = card.locator("details:has(pre[data-field='state_update'])")
            expect(details).to_have_attribute("open", "")
            pre = card.locator("pre[data-field='state_update']")
            expect(pre).not_to_have_text("none yet")
            scrolled = pre.evaluate("el => { el.scrollTop = 40; return el.scrollTop; }")
            assert scrolled > 0, "the STATE_UPDATE no longer overflows its box: nothing to scroll"
            focused = "el => el.shadowRoot.activeElement ? el.shadowRoot.activeElement.textContent : null"
            assert card.evaluate(focused) == "Last STATE_UPDATE"
            renders = int(card.get_attribute("data-renders") or 0)
            builds = card.get_attribute("data-builds")
            dry_run = {"entity_id": "switch.arena_dry_run"}
            for service in ("turn_on", "turn_off", "turn_on"):
                ha.post(f"/api/services/switch/{service}", dry_run).raise_for_status()
                pushes.wait_for_more(page, 1)
            expect(card.locator(".badge", has_text="dry run")).to_be_visible()
            assert details.evaluate("el => el.open"), "a status push collapsed the opened section"
            assert pre.evaluate("el => el.scrollTop") == scrolled, "a status push reset the scroll position"
            assert card.evaluate(focused) == "Last STATE_UPDATE", "a status push stole the focus"
            assert int(card.get_attribute("data-renders") or 0) >= renders + 3, "the card missed pushes"
            assert card.get_attribute("data-builds") == builds, "a push rebuilt the card"
            expect(countdown).to_have_text(re.compile(r"^\d+s$"))
            ha.post("/api/services/switch/turn_off", dry_run).raise_for_status()
            expect(card.locator(".badge", has_text="dry run")).to_have_count(0)
            card.screenshot(path=str(shots / "overseer-card.png"))
            page.screenshot(path=str(shots / "dashboard.png"), full_page=True)

            # The jammed vacuum's incident, triaged: the model wants a restart, which waits for
            # a person. Its details show what was found and the timeline of how it got there.
            incident = card.locator("details[data-incident]", has_text="vacuum.neato")
            expect(incident).to_have_attribute("data-status", "awaiting_approval", timeout=30_000)
            incident_id = incident.get_attribute("data-incident")
            incident.locator("summary").click()
            expect(incident).to_have_attribute("open", "")
            expect(incident.locator("summary")).to_contain_text("vacuum_error (Brush stuck)")
            expect(incident.locator("[data-field='diagnosis']")).to_have_text("Diagnosis<i>brush</i> jammed")
            assert card.locator("i").count() == 0, "the model's markup became HTML"
            expect(incident.locator("[data-field='recommended']")).to_contain_text("clear the brush")
            timeline = incident.locator("[data-section='timeline']")
            for what in ("opened", "request", "response"):
                expect(timeline.locator("tr", has_text=what).first).to_be_visible()
            expect(timeline.locator("tr", has_text="intent")).to_contain_text(
                re.compile(r"asset_restart\(.*vacuum\.neato\): awaiting_approval")
            )
            approval = card.locator(".approval[data-approval]")
            expect(approval).to_have_count(1)
            approval_id = approval.get_attribute("data-approval")
            expect(approval.locator(".call")).to_have_text("asset_restart(asset_id=vacuum.neato)")
            expect(approval).to_contain_text(f"for {incident_id}")
            expect(approval.locator("time[data-until]")).to_have_text(re.compile(r"^in \d+[sm]$"))
            card.screenshot(path=str(shots / "overseer-card-approval.png"))

            # Approved in the card: the service runs it through policy again, and the pushes
            # show what became of it; the opened incident stays open as it moves on.
            approval.locator("button[data-answer='approve']").click()
            answered = card.locator(f"[data-section='answered'] tr[data-approval='{approval_id}']")
            refused = card.locator("[data-field='answer_error']")
            expect(answered.or_(refused)).to_be_visible(timeout=15_000)
            assert refused.count() == 0, f"the approval was refused: {refused.inner_text()}"
            expect(answered.locator("[data-field='approval_status']")).to_have_text("executed")
            expect(answered).to_contain_text(f"by {DEMO_USER}")
            expect(approval).to_have_count(0)
            expect(incident).to_have_attribute("data-status", re.compile("^(verifying|resolved)$"))
            assert incident.evaluate("el => el.open"), "a status push collapsed the opened incident"
            expect(timeline.locator("tr", has_text=f"{approval_id} executed")).to_have_count(1)
            expect(incident.locator("[data-field='tried']")).to_have_text(
                re.compile(r"^Triedasset_restart\(.*vacuum\.neato\)$")
            )
            # A second answer, as from another admin's card that had not caught up yet: the
            # service refuses it and the card says why beside the approval.
            card.evaluate(f"el => el._answer('{approval_id}', 'deny')")
            expect(answered.locator("[data-field='answer_error']")).to_contain_text(
                f"Approval {approval_id} was already answered (executed); it can be used once"
            )
            expect(answered.locator("[data-field='approval_status']")).to_have_text("executed")
            assert card.get_attribute("data-builds") == builds, "a push rebuilt the card"
            card.screenshot(path=str(shots / "overseer-card-incident.png"))

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
