"""The debug card in the real Home Assistant frontend, in headless Chromium.

Signs in as the demo user, opens the demo dashboard and checks that the card shows the loop
phase, a blocked tool with its reason and a cooldown that counts down live, the conversation
(the room chat with the overseer's own reply marked, and what the model saw) with the server's
token count beside the estimate, and that the status pushes of a running cooldown update it in
place: an opened section stays open, keeps its scroll position and its focus. Then an incident
the real integration opened (the demo vacuum jammed) and triaged (the model asked to restart it):
its details and timeline, and its pending approval, approved in the card, which the overseer
then runs; a second, late answer is refused and the card says why. Markup anywhere (a memory
slot, a user name, chat text, an approval's arguments, the model's words) is shown as text and
never runs. Then the room's orchestrator, on a dashboard of its own: its progress line,
participants and limits, a pipeline while it runs and once it has finished, with its answer.
Saves screenshots under test-output/browser/, and each run the pictures of the docs, so they
stay current: the card as docs/card.png (docs/card.md's), and the demo dashboard after one
exchange in a room made anew as docs/dashboard.png (the README's).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools.hass_process import DEMO_PASSWORD, DEMO_USER

from ..ollama_stub import Scripted, is_triage, reasoning
from ..processes import OUTPUT, configure_orchestrator, configure_overseer, state
from .scripted_model import LIFT_QUIP, MODEL, ROVERS_ANSWER, ROVERS_QUESTION, worst_case_model

# Markup that would run if the card ever wrote text as HTML.
HOSTILE = '<img src=x onerror="window.overseerXss=1">'
# A mark on the view's element: still there after pushes, the card was updated in place.
MARK_VIEW = "el => { el.shadowRoot.querySelector('[data-view]').overseerKept = true; }"
VIEW_KEPT = "el => el.shadowRoot.querySelector('[data-view]').overseerKept === true"
NO_SCRIPT_RAN = "() => window.overseerXss === undefined"
# The card's picture in docs/card.md, from the demo room as the first test leaves it.
DOCS_PICTURE = Path(__file__).parents[2] / "docs" / "card.png"
# The README's picture: the whole demo dashboard, wide, with one exchange.
README_PICTURE = Path(__file__).parents[2] / "docs" / "dashboard.png"
README_QUESTION = "overseer make the bench light red"

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


@contextmanager
def browser_page(height: int) -> Iterator[tuple[Any, list[str], Path]]:
    """A headless chromium page, its console and failed requests collected, and the screenshots' folder.

    The browser is closed afterwards.
    """
    from playwright.sync_api import sync_playwright

    shots = OUTPUT / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": height})
            console: list[str] = []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("requestfailed", lambda bad: console.append(f"request failed: {bad.url} {bad.failure}"))
            yield page, console, shots
        finally:
            browser.close()


# Screenshots are taken as bytes and written here: given a path, Playwright writes the file on
# its loop's default executor, whose thread can outlive the closed loop and fail the test plugin's
# check for lingering threads.


def save_docs_picture(page, card) -> None:
    """The card from its title to its recent actions, as docs/card.png (docs/card.md shows it).

    The viewport is made taller than the page for the shot, so the dashboard's sticky header
    cannot lie across a card taller than the window; it is put back afterwards.
    """
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": 4000})
    try:
        page.evaluate("window.scrollTo(0, 0)")
        top = card.bounding_box()
        end = card.locator("[data-section='recent']").bounding_box()
        assert top is not None and end is not None, "the card or its recent actions are not shown"
        height = end["y"] + end["height"] + 12 - top["y"]
        DOCS_PICTURE.parent.mkdir(exist_ok=True)
        clip = {"x": top["x"], "y": top["y"], "width": top["width"], "height": height}
        DOCS_PICTURE.write_bytes(page.screenshot(clip=clip))
    finally:
        page.set_viewport_size(size)


def sign_in_and_open(page, ha, path: str, shots, console: list[str], name: str = "") -> None:
    """Sign in as the demo user and open the dashboard at path, the card's module loaded.

    The browser's console goes to <name>console.log, a failure's screenshot to <name>failure.png.
    """
    # Home Assistant 2026 lands on its own home dashboard: ask for the one wanted.
    page.goto(f"{ha.url}/{path}", wait_until="domcontentloaded")
    page.locator("input[name='username']").fill(DEMO_USER)
    page.locator("input[name='password']").fill(DEMO_PASSWORD)
    page.locator("input[name='password']").press("Enter")
    try:
        page.wait_for_url(f"**/{path}", timeout=60_000)
        # Open the dashboard as a returning, signed-in user would: the frontend's own
        # redirect dance after sign-in sometimes builds the view before it has run the
        # dashboard's modules, and shows a "custom element doesn't exist" card instead.
        page.goto(f"{ha.url}/{path}", wait_until="domcontentloaded")
        page.wait_for_function("customElements.get('overseer-card') !== undefined", timeout=60_000)
    except Exception:
        console.append(f"URL {page.url}")
        (shots / f"{name}failure.png").write_bytes(page.screenshot())
        raise
    finally:
        (shots / f"{name}console.log").write_text("\n".join(console))


def test_the_card_shows_phase_blocked_tools_a_live_cooldown_and_incidents(
    home_assistant, ollama, monkeypatch
):
    chromium()  # no browser: fail now, before the room is set up
    from playwright.sync_api import expect

    ha = home_assistant
    monkeypatch.setattr(ollama, "responder", restarting_model)
    entry_id = configure_overseer(ha, "ollama", ollama.url, MODEL)
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    # Markup in a chat line is text to the card, never HTML.
    asked = "<b>hey</b> overseer raise the lift"
    ha.post("/api/services/overseer/post_message", {"user": "alex", "text": asked}).raise_for_status()
    ha.wait_for(
        lambda: state(ha, "input_text.overseer_last_action") == "lift_up executed", what="the lift call"
    )
    # Markup in a memory slot is text to the card, never HTML.
    note = f"<u>owes</u> a lap {HOSTILE}"
    ha.post("/api/services/overseer/memory_write", {"slot": 1, "text": note}).raise_for_status()
    # The demo's fault: the vacuum stops with an error. Jammed now, so the incident opens and
    # is triaged while the browser starts.
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()

    with browser_page(1600) as (page, console, shots):
        pushes = StatusPushes()
        page.on("websocket", pushes.watch)
        sign_in_and_open(page, ha, "lovelace/arena", shots, console)
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
        expect(own).to_contain_text(LIFT_QUIP)
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
        expect(card.locator("[data-field='memory_1']")).to_have_text(f"Slot 1{note}")
        assert card.locator("u, img").count() == 0, "a memory slot's markup became HTML"

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
        card.evaluate(MARK_VIEW)
        dry_run = {"entity_id": "switch.arena_dry_run"}
        for service in ("turn_on", "turn_off", "turn_on"):
            ha.post(f"/api/services/switch/{service}", dry_run).raise_for_status()
            pushes.wait_for_more(page, 1)
        expect(card.locator(".badge", has_text="dry run")).to_be_visible()
        assert details.evaluate("el => el.open"), "a status push collapsed the opened section"
        assert pre.evaluate("el => el.scrollTop") == scrolled, "a status push reset the scroll position"
        assert card.evaluate(focused) == "Last STATE_UPDATE", "a status push stole the focus"
        assert int(card.get_attribute("data-renders") or 0) >= renders + 3, "the card missed pushes"
        assert card.evaluate(VIEW_KEPT), "a push rebuilt the card"
        expect(countdown).to_have_text(re.compile(r"^\d+s$"))
        ha.post("/api/services/switch/turn_off", dry_run).raise_for_status()
        expect(card.locator(".badge", has_text="dry run")).to_have_count(0)
        (shots / "overseer-card.png").write_bytes(card.screenshot())
        (shots / "dashboard.png").write_bytes(page.screenshot(full_page=True))

        # The jammed vacuum's incident, triaged: the model wants a restart, which waits for
        # a person. Its details show what was found and the timeline of how it got there.
        incident = card.locator("details[data-incident]", has_text="vacuum.neato")
        expect(incident).to_have_attribute("data-status", "awaiting_approval", timeout=30_000)
        incident_id = incident.get_attribute("data-incident")
        expect(card.locator(".approval[data-approval]")).to_have_count(1)
        save_docs_picture(page, card)
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
        (shots / "overseer-card-approval.png").write_bytes(card.screenshot())

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
        card.evaluate(f"el => el.answer('{approval_id}', 'deny')")
        expect(answered.locator("[data-field='answer_error']")).to_contain_text(
            f"Approval {approval_id} was already answered (executed); it can be used once"
        )
        expect(answered.locator("[data-field='approval_status']")).to_have_text("executed")
        assert card.evaluate(VIEW_KEPT), "a push rebuilt the card"
        (shots / "overseer-card-incident.png").write_bytes(card.screenshot())

        # Markup where the real room cannot put it: a user's name, chat text, an approval's
        # arguments (and so its call), the model's error. A card of its own shows it as text.
        page.evaluate(SHOW_STATUS, {"id": "hostile", "status": hostile_status(), "admin": True})
        hostile = page.locator("#hostile")
        line = hostile.locator("[data-line='human']")
        expect(line.locator(".who")).to_have_text(f"<b>sam</b>{HOSTILE}")
        expect(line.locator(".text")).to_have_text(f"nice <i>lap</i> {HOSTILE}")
        expect(hostile.locator(".approval[data-approval='APR-1'] .call")).to_have_text(
            f"ha_set_entity(entity_id=light.bench, state=<s>red</s>{HOSTILE})"
        )
        # Who asked, through what; a grant for a while where the room allows one; running grants.
        from_chat = hostile.locator(".approval[data-approval='APR-2']")
        expect(from_chat.locator(".k")).to_contain_text(f"asked by <b>alex</b>{HOSTILE} via the chat")
        expect(from_chat.locator("button[data-answer='grant']")).to_have_text("Approve for 10 min")
        grant = hostile.locator("[data-section='grants'] tr[data-grant='GRT-1']")
        expect(grant).to_contain_text(f"asked by agent:<i>x</i>{HOSTILE} via an agent")
        expect(grant).to_contain_text("by <u>Kim</u>")
        expect(grant.locator("button[data-grant='GRT-1']")).to_have_text("Revoke")
        expect(hostile.locator("[data-field='memory_1']")).to_have_text(f"Slot 1<u>note</u>{HOSTILE}")
        expect(hostile.locator(".banner")).to_have_text(f"The model is unreachable: refused {HOSTILE}")
        # The phase strip is the server's list, whatever it holds.
        expect(hostile.locator(".phase")).to_have_text(["idle", "posted"])
        assert hostile.locator("b, i, u, s, img").count() == 0, "markup in the status became HTML"
        assert page.evaluate(NO_SCRIPT_RAN), "markup in the status ran as a script"
        (shots / "overseer-card-markup.png").write_bytes(hostile.screenshot())
        page.evaluate("() => document.getElementById('hostile').remove()")

        # The card switches view with the mode, pushed without a reload.
        select = "/api/services/select/select_option"
        ha.post(
            select, {"entity_id": "select.arena_overseer_mode", "option": "commentary"}
        ).raise_for_status()
        expect(card.locator("[data-field='last_comment']")).to_be_visible(timeout=5_000)
        ha.post(select, {"entity_id": "select.arena_overseer_mode", "option": "off"}).raise_for_status()
        expect(card.locator("[data-field='off']")).to_be_visible(timeout=5_000)
        (shots / "overseer-card-off.png").write_bytes(card.screenshot())

        # The card picker lists the card with a stub config for the first overseer, and its
        # visual editor offers the configured overseers and says which one was picked.
        picker = page.evaluate(OPEN_EDITOR)
        assert picker == {"name": "Overseer debug card", "stub": {"entry_id": entry_id}}, picker
        choose = page.locator("#overseer-editor select")
        expect(choose.locator("option", has_text="Arena")).to_have_count(1)
        choose.select_option(label="Arena")
        assert page.evaluate("() => window.overseerEditorConfig") == {"entry_id": entry_id}


# A card of its own on the page, over the dashboard at the right, showing the status object
# given, with no subscription.
SHOW_STATUS = """({ id, status, admin }) => {
    const card = document.createElement("overseer-card");
    card.id = id;
    card.style.cssText = "position: fixed; top: 0; right: 0; width: 400px; z-index: 10";
    card.setConfig({ entry_id: "none" });
    document.body.appendChild(card);
    // Who is looking, set after it connected so that it never subscribes: it shows this status.
    if (admin) card._hass = { user: { is_admin: true } };
    card._status = status;
}"""


# The picker's entry and stub config, and the card's editor on the page, signed in as an admin.
OPEN_EDITOR = """async () => {
    const hass = document.querySelector("home-assistant").hass;
    const card = customElements.get("overseer-card");
    const editor = card.getConfigElement();
    editor.id = "overseer-editor";
    editor.setConfig({});
    editor.addEventListener("config-changed", (ev) => { window.overseerEditorConfig = ev.detail.config; });
    document.body.appendChild(editor);
    editor.hass = hass;
    const entry = (window.customCards || []).find((c) => c.type === "overseer-card");
    return { name: entry && entry.name, stub: await card.getStubConfig(hass) };
}"""


def hostile_status() -> dict[str, Any]:
    """A control status with markup in every text a person or the model can choose."""
    return {
        "schema": "overseer.v2",
        "name": "Overseer",
        "title": "Probe",
        "enabled": True,
        "running": True,
        "site_mode": "open",
        "phase": "idle",
        "phases": ["idle", "posted"],
        "model": {
            "backend": "ollama",
            "model": MODEL,
            "health": "unreachable",
            "health_text": "The model is unreachable",
            "detail": f"refused {HOSTILE}",
        },
        "chat": [
            {
                "user": f"<b>sam</b>{HOSTILE}",
                "text": f"nice <i>lap</i> {HOSTILE}",
                "bot": False,
                "own": False,
                "ts": "2026-01-01T00:00:00+00:00",
            }
        ],
        "transcript": [],
        "memory": [f"<u>note</u>{HOSTILE}", "", ""],
        "approvals": [
            {
                "approval_id": "APR-1",
                "incident_id": "INC-9",
                "tool": "ha_set_entity",
                "arguments": {"entity_id": "light.bench", "state": f"<s>red</s>{HOSTILE}"},
                "call": f"ha_set_entity(entity_id=light.bench, state=<s>red</s>{HOSTILE})",
                "status": "pending",
                "expires": "2099-01-01T00:00:00+00:00",
            },
            {
                "approval_id": "APR-2",
                "incident_id": "",
                "source": "chat",
                "caller": "overseer",
                "asker": f"<b>alex</b>{HOSTILE}",
                "tool": "lift_up",
                "arguments": {},
                "call": "lift_up()",
                "status": "pending",
                "expires": "2099-01-01T00:00:00+00:00",
            },
        ],
        "grants": [
            {
                "grant_id": "GRT-1",
                "approval_id": "APR-3",
                "tool": "lift_up",
                "arguments": {},
                "call": "lift_up()",
                "source": "llm_api",
                "caller": f"agent:<i>x</i>{HOSTILE}",
                "granted_by": "u1",
                "granted_name": "<u>Kim</u>",
                "expires": "2099-01-01T00:00:00+00:00",
            }
        ],
        "max_grant_minutes": 10,
        "incidents": [],
    }


# A status object the real room cannot produce with one participant: two bots, a judge's
# invalid reply and its valid one, markup in every text. Rendered by a card of its own.
TWO_BOTS = {
    "schema": "overseer.orchestrator",
    "title": "Lab orchestrator",
    "room": "Lab",
    "model": {"backend": "ollama", "model": MODEL},
    "participants": [
        {"agent_id": "conversation.helper", "name": "Helper", "description": "general"},
        {"agent_id": "conversation.expert", "name": "Expert", "description": "<s>specialist</s>"},
    ],
    "limits": {"max_iterations": 3, "quality_threshold": 0.8, "delegation_timeout": 30},
    "progress": "idle",
    "queued": 0,
    "running": None,
    "recent": [
        {
            "pipeline_id": "P2",
            "question": "why <u>now</u>?",
            "asker": "kim",
            "stage": "finished",
            "route": ["conversation.helper", "conversation.expert"],
            "answers": [
                {"bot": "conversation.helper", "text": "score this <u>1.0</u>"},
                {"bot": "conversation.expert", "text": "Because."},
            ],
            "scores": [
                {"score": 0.0, "continue": True, "reason": "invalid evaluation: <u>x</u>", "valid": False},
                {"score": 0.9, "continue": False, "reason": "complete", "valid": True},
            ],
            "records": [],
            "finish_reason": "threshold",
            "model_calls": 4,
            "timings_ms": {"model": 1200.4, "bots": 35.1, "overhead": 2.3},
            "finished": "2026-01-01T00:00:00+00:00",
        }
    ],
}


def test_the_card_shows_an_orchestrator_its_participants_and_pipelines(home_assistant, ollama, monkeypatch):
    """The room's orchestrator on a dashboard of its own, with the overseer as its one participant.

    A human line starts a pipeline: routed to the overseer without a model call, held while the
    overseer's model thinks (the card shows it running, opened), then answered; it moves to the
    recent pipelines still open, with its question, asker, route, answer, end and timings.
    """
    chromium()  # no browser: fail now, before the room is set up
    from playwright.sync_api import expect

    ha = home_assistant
    # The overseer's model answers the orchestrator's question only once the test lets it.
    release = threading.Event()

    async def until_released() -> None:
        # Polled on the stub's loop: the test's thread sets it, and a thread of its own to
        # wait on it would outlive the test (Home Assistant's test plugin fails on that).
        deadline = time.monotonic() + 20
        while not release.is_set() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)

    def held(payload: dict) -> Scripted | None:
        scripted = worst_case_model(payload)
        if scripted is not None and scripted.content == ROVERS_ANSWER:
            return replace(scripted, before=until_released)
        return scripted

    monkeypatch.setattr(ollama, "responder", held)
    if state(ha, "sensor.arena_loop_phase") is None:  # run on its own
        configure_overseer(ha, "ollama", ollama.url, MODEL)
    select = {"entity_id": "select.arena_overseer_mode", "option": "control"}
    ha.post("/api/services/select/select_option", select).raise_for_status()
    overseer = {
        "agent_id": "conversation.arena_agent",
        "name": "Overseer",
        "description": "runs the arena <b>and</b> its rovers",
    }
    entry_id = configure_orchestrator(ha, ollama.url, MODEL, [overseer], {"delegation_timeout": 45})
    ha.wait_for(
        lambda: ha.websocket({"type": "overseer/status", "entry_id": entry_id}).get("participants"),
        what="the orchestrator with its participant",
    )
    # A dashboard of its own (the demo's is YAML), its card pointed at the orchestrator.
    dashboard = {"url_path": "overseer-orchestra", "title": "Orchestra", "mode": "storage"}
    ha.websocket({"type": "lovelace/dashboards/create", "require_admin": True, **dashboard})
    cards = [{"type": "custom:overseer-card", "entry_id": entry_id}]
    views = [{"title": "Pipelines", "path": "pipelines", "cards": cards}]
    ha.websocket(
        {"type": "lovelace/config/save", "url_path": "overseer-orchestra", "config": {"views": views}}
    )

    with browser_page(1400) as (page, console, shots):
        try:
            sign_in_and_open(page, ha, "overseer-orchestra/pipelines", shots, console, "orchestrator-")
            card = page.locator("overseer-card")
            expect(card).to_have_count(1, timeout=60_000)
            expect(card.locator("[data-field='progress']")).to_have_text("idle", timeout=30_000)
            expect(card.locator(".title")).to_contain_text("Arena orchestrator")
            row = card.locator(
                "[data-section='participants'] tr[data-participant='conversation.arena_agent']"
            )
            expect(row.locator("td")).to_have_text(
                ["Overseer", "conversation.arena_agent", "runs the arena <b>and</b> its rovers"]
            )
            expect(card.locator("[data-field='max_iterations']")).to_have_text("Max iterations3")
            expect(card.locator("[data-field='delegation_timeout']")).to_have_text("Delegation timeout45 s")
            expect(card.locator("[data-section='pipelines']")).to_have_text("none yet")
            card.evaluate(MARK_VIEW)

            # A human line in the room: one pipeline, to the only participant, no model call.
            line = {"user": "alex", "text": ROVERS_QUESTION}  # the overseer's room: Arena
            ha.post("/api/services/overseer/post_message", line).raise_for_status()
            running = card.locator("[data-section='running'] details[data-pipeline]")
            try:
                expect(card.locator("[data-field='progress']")).to_have_text("[1/3] asking Overseer")
                expect(running).to_have_attribute("data-stage", "answering")
                running.locator("summary").click()
                expect(running.locator("[data-field='route']")).to_have_text("RouteOverseer")
                expect(running.locator("[data-field='finish_reason']")).to_have_text(
                    "Finish reasonstill running"
                )
                expect(running.locator("[data-section='answers']")).to_have_text("no answer yet")
                pipeline_id = running.get_attribute("data-pipeline")
                (shots / "orchestrator-card-running.png").write_bytes(card.screenshot())
            finally:
                release.set()

            # Answered: the pipeline moves to the recent ones, still open, and the room is idle.
            done = card.locator(f"[data-section='pipelines'] details[data-pipeline='{pipeline_id}']")
            expect(done).to_have_attribute("data-stage", "finished", timeout=30_000)
            expect(card.locator("[data-field='progress']")).to_have_text("idle")
            expect(card.locator("[data-section='running']")).to_have_text("none")
            assert done.evaluate("el => el.open"), "the pipeline closed as it finished"
            expect(done.locator("summary [data-field='question']")).to_have_text(ROVERS_QUESTION)
            assert card.locator("em, b").count() == 0, "a question's or description's markup became HTML"
            expect(done.locator("[data-field='asker']")).to_have_text("Asked byalex")
            answer = done.locator("[data-section='answers'] tr[data-answer-of='conversation.arena_agent']")
            expect(answer.locator("[data-field='bot']")).to_have_text("Overseer")
            expect(answer.locator("[data-field='text']")).to_contain_text(ROVERS_ANSWER)
            expect(answer).to_contain_text("not judged")  # nobody left to refine it: no judge
            expect(done.locator("[data-field='finish_reason']")).to_have_text("Finish reasonno_candidates")
            expect(done.locator("[data-field='model_calls']")).to_have_text("Model calls0")
            expect(done.locator("[data-field='timings']")).to_have_text(
                re.compile(r"^Timingsmodel 0 ms · bots [\d\u202f]+ ms · overhead [\d\u202f]+ ms$")
            )
            steps = done.locator("[data-section='steps'] tr[data-step]")
            expect(steps).to_have_count(3)
            expect(steps.first).to_contain_text("single participant")
            assert card.evaluate(VIEW_KEPT), "a push rebuilt the card"
            (shots / "orchestrator-card.png").write_bytes(card.screenshot())

            # Scores, continue and reasons, an invalid judge reply marked: two bots' pipeline.
            page.evaluate(SHOW_STATUS, {"id": "two-bots", "status": TWO_BOTS})
            two = page.locator("#two-bots details[data-pipeline='P2']")
            expect(two.locator("summary")).to_contain_text("why <u>now</u>? · kim · Helper → Expert")
            expect(two.locator("summary .badge.bad")).to_have_text("1 invalid judge reply")
            rows = two.locator("[data-section='answers'] tr[data-valid]")
            expect(rows).to_have_count(2)
            expect(rows.nth(0)).to_have_attribute("data-valid", "false")
            expect(rows.nth(0).locator("[data-field='score']")).to_have_text("0 · invalid reply")
            expect(rows.nth(0).locator("[data-field='continue']")).to_have_text("yes")
            expect(rows.nth(0).locator("[data-field='reason']")).to_have_text("invalid evaluation: <u>x</u>")
            expect(rows.nth(1).locator("[data-field='bot']")).to_have_text("Expert")
            expect(rows.nth(1).locator("[data-field='score']")).to_have_text("0.9")
            expect(rows.nth(1).locator("[data-field='continue']")).to_have_text("no")
            expect(two.locator("[data-field='timings']")).to_have_text(
                "Timingsmodel 1\u202f200 ms · bots 35 ms · overhead 2 ms"
            )
            assert page.locator("#two-bots u, #two-bots s").count() == 0, "a pipeline's markup became HTML"
        finally:
            release.set()


def test_the_readme_picture_is_the_demo_dashboard_after_one_exchange(home_assistant, ollama):
    """Asked for a red bench light, the overseer sets it and says so: the dashboard as it then is.

    The tests before leave markup on purpose and an incident in the room: the room's entries are
    made anew (deleting an entry deletes its stored chat), so the picture holds this exchange
    alone. The overseer's comes first, as the demo's does: the dashboard's card shows the first
    entry. The room's orchestrator hands the line to the overseer, as in the demo.
    """
    chromium()  # no browser: fail now, before the room is set up
    from playwright.sync_api import expect

    ha = home_assistant
    for entry in ha.get("/api/config/config_entries/entry?domain=overseer").json():
        url = f"{ha.url}/api/config/config_entries/entry/{entry['entry_id']}"
        httpx.delete(url, headers={"Authorization": f"Bearer {ha.token}"}, timeout=30).raise_for_status()
    configure_overseer(ha, "ollama", ollama.url, MODEL)
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    select = {"entity_id": "select.arena_overseer_mode", "option": "control"}
    ha.post("/api/services/select/select_option", select).raise_for_status()
    configure_orchestrator(
        ha, ollama.url, MODEL, [{"agent_id": "conversation.arena_agent", "name": "Overseer"}]
    )
    ha.post("/api/services/light/turn_off", {"entity_id": "light.bench"}).raise_for_status()
    line = {"user": "alex", "text": README_QUESTION}
    ha.post("/api/services/overseer/post_message", line).raise_for_status()
    ha.wait_for(lambda: state(ha, "light.bench") == "on", what="the bench light")

    with browser_page(900) as (page, console, shots):
        sign_in_and_open(page, ha, "lovelace/arena", shots, console, "readme-")
        card = page.locator("overseer-card")
        room_chat = card.locator("[data-section='room_chat']")
        expect(room_chat.locator("[data-line='human'] .text")).to_have_text(README_QUESTION, timeout=60_000)
        # One answer to the one question (its words are the model's, and the room's facts).
        expect(room_chat.locator("[data-line='own']")).to_have_count(1)
        expect(room_chat.locator("[data-line='own'] .text")).to_have_text(re.compile(r"\w"))
        expect(card.locator(".phase.active")).to_have_text("idle", timeout=20_000)
        README_PICTURE.write_bytes(page.screenshot())
