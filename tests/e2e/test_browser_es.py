"""The debug card in Spanish, in the real Home Assistant frontend, in headless Chromium.

The demo user has chosen Spanish in their profile (the frontend's own user setting) and the room
speaks Spanish. The card then reads its words from the integration's translations through Home
Assistant's localize: the jammed vacuum's incident and its approval, approved with the Spanish
button, and a second, late answer refused in Spanish. Then the whole card is held against its
English: every view (the real room's status and made-up ones for every branch) is rendered twice
on the page, in Spanish and with no translations at all (its English), and a text that reads
the same in both must be the room's own data (names, ids, codes, what people and the model
wrote), never a word of the card's. Saves test-output/browser/overseer-card-es.png.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..ha.test_translations import SAME_IN_SPANISH
from ..processes import configure_overseer, state
from .scripted_model import MODEL
from .test_browser import browser_page, chromium, restarting_model, sign_in_and_open

TRANSLATIONS = Path(__file__).parents[2] / "custom_components" / "overseer" / "translations"
ES = json.loads((TRANSLATIONS / "es.json").read_text(encoding="utf-8"))
WORDS = ES["common"]
# The card's words Spanish says as English does, each listed with its reason.
SAME_WORDS = sorted(
    WORDS[key.removeprefix("common.")] for key in SAME_IN_SPANISH if key.startswith("common.")
)
# The language setting the profile page saves for a user.
SPANISH = {
    "language": "es",
    "number_format": "language",
    "time_format": "language",
    "date_format": "language",
    "time_zone": "local",
    "first_weekday": "language",
}


def exception(key: str, **values: str) -> str:
    """One of the integration's messages in Spanish, its values filled in."""
    text = ES["exceptions"][key]["message"]
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], text)


def test_the_card_speaks_spanish(home_assistant, ollama, monkeypatch):
    chromium()  # no browser: fail now, before the room is set up
    from playwright.sync_api import expect

    ha = home_assistant
    monkeypatch.setattr(ollama, "responder", restarting_model)
    configure_overseer(ha, "ollama", ollama.url, MODEL, addressing__language="es")
    ha.wait_for(lambda: state(ha, "sensor.arena_loop_phase") == "idle", what="the overseer")
    ha.websocket({"type": "frontend/set_user_data", "key": "language", "value": SPANISH})
    ha.post(
        "/api/services/overseer/post_message", {"user": "alex", "text": "hola a todos"}
    ).raise_for_status()
    ha.post("/api/services/button/press", {"entity_id": "button.neato_jam_the_brush"}).raise_for_status()

    with browser_page(1600) as (page, console, shots):
        sign_in_and_open(page, ha, "lovelace/arena", shots, console, "es-")
        card = page.locator("overseer-card")
        expect(card).to_be_visible(timeout=60_000)
        # The frontend took the user's language from their profile.
        page.wait_for_function("() => document.querySelector('home-assistant').hass?.language === 'es'")

        # The jammed vacuum's incident waits for a person; the card says so in Spanish.
        incident = card.locator("details[data-incident]", has_text="vacuum.neato")
        expect(incident).to_have_attribute("data-status", "awaiting_approval", timeout=30_000)
        incident_id = incident.get_attribute("data-incident")
        expect(incident.locator(".badge")).to_have_text(WORDS["incident_awaiting_approval"])
        approval = card.locator(".approval[data-approval]")
        expect(approval).to_have_count(1)
        approval_id = approval.get_attribute("data-approval")
        expect(approval.locator("button[data-answer='approve']")).to_have_text(WORDS["approve"])
        expect(approval.locator("button[data-answer='deny']")).to_have_text(WORDS["deny"])
        expect(approval.locator(".k")).to_contain_text(f"para {incident_id}")
        expect(approval.locator(".k")).to_contain_text(re.compile(r"caduca en \d+ (s|min)"))
        headings = set(card.locator("h3").evaluate_all("all => all.map((h) => h.textContent.trim())"))
        for heading in ("approvals", "incidents", "conversation", "cooldowns", "tools", "memory", "metrics"):
            assert WORDS[heading] in headings, (heading, headings)
        expect(card.locator(".badge", has_text=WORDS["running"])).to_be_visible()
        expect(card.locator(".phase[data-phase='awaiting_model']")).to_have_text(
            WORDS["phase_awaiting_model"]
        )
        expect(card.locator("button[data-tab='room_chat']")).to_have_text(WORDS["tab_room_chat"])
        expect(card.locator("[data-field='memory_1'] .k")).to_have_text("Ranura 1")
        expect(
            card.locator("[data-section='room_chat'] [data-line='human'][data-user='alex'] time")
        ).to_have_text(re.compile(r"^hace \d+ (s|min)$"))
        (shots / "overseer-card-es.png").write_bytes(card.screenshot())

        # Approved with the Spanish button: it runs, and the card says what became of it.
        approval.locator("button[data-answer='approve']").click()
        answered = card.locator(f"[data-section='answered'] tr[data-approval='{approval_id}']")
        expect(answered.locator("[data-field='approval_status']")).to_have_text(
            WORDS["approval_executed"], timeout=15_000
        )
        expect(answered).to_contain_text("por demo")
        # A late answer is refused, in Spanish, with its status in Spanish too.
        card.evaluate(f"el => el.answer('{approval_id}', 'deny')")
        expect(answered.locator("[data-field='answer_error']")).to_have_text(
            exception(
                "approval_already_decided",
                approval_id=approval_id,
                status=exception("approval_status_executed"),
            )
        )
        (shots / "overseer-card-es-answered.png").write_bytes(card.screenshot())

        # The visual editor too.
        label = page.evaluate(EDITOR_LABEL)
        assert label == WORDS["editor_overseer"], label

        # Every view, in Spanish and in English: what reads the same must be data.
        real = card.evaluate("el => el._status")
        found = page.evaluate(SAME_IN_BOTH, {"views": [real, *VIEWS], "states": STATES, "same": SAME_WORDS})
        assert found["rendered"] >= len(VIEWS) + len(STATES), found
        assert found["misaligned"] == [], found["misaligned"]
        assert found["english"] == [], found["english"]
        assert not [line for line in console if "Translation" in line and "error" in line.lower()], console


# The card's editor, given the page's hass: the label it shows.
EDITOR_LABEL = """async () => {
    const editor = customElements.get("overseer-card").getConfigElement();
    editor.setConfig({});
    document.body.appendChild(editor);
    editor.hass = document.querySelector("home-assistant").hass;
    await editor.updateComplete;
    const label = editor.shadowRoot.querySelector("label").textContent;
    editor.remove();
    return label;
}"""


# Renders each view in two cards of its own, with the page's hass (Spanish) and with none (the
# card's English), and compares their text, node by node. A text that is the same in both must
# be made of the status object's own values (and numbers, punctuation, unit symbols), or be one
# of the words Spanish says alike.
SAME_IN_BOTH = """async ({ views, states, same }) => {
    const hass = document.querySelector("home-assistant").hass;
    const english = { user: { is_admin: true } };
    const texts = (card) => {
        const walker = document.createTreeWalker(card.shadowRoot, NodeFilter.SHOW_TEXT);
        const found = [];
        while (walker.nextNode()) {
            const text = walker.currentNode.textContent.trim();
            if (text) found.push(text);
        }
        return found;
    };
    const values = (status) => {
        const found = [];
        const walk = (value) => {
            if (typeof value === "string" || typeof value === "number") found.push(String(value));
            else if (value && typeof value === "object") {
                // An incident's checks are named by the server, as its keys.
                if (value.checks && typeof value.checks === "object") {
                    found.push(...Object.keys(value.checks));
                }
                Object.values(value).forEach(walk);
            }
        };
        walk(status);
        // A value of one letter would take letters out of any word: none is data enough to matter.
        return found.filter((v) => v.length > 1).sort((a, b) => b.length - a.length);
    };
    const isData = (text, data) => {
        let rest = text;
        for (const value of data) rest = rest.split(value).join(" ");
        rest = rest.replace(/\\b(ms|s|min|h)\\b/g, " ");
        return !/\\p{L}{2,}/u.test(rest);
    };
    const show = async (user, setup) => {
        const card = document.createElement("overseer-card");
        card.setConfig({ entry_id: "none" });
        document.body.appendChild(card);
        card._hass = user; // set past the setter: it never subscribes, and shows what it is given
        setup(card);
        await card.updateComplete;
        const found = texts(card);
        card.remove();
        return found;
    };
    const result = { rendered: 0, misaligned: [], english: [] };
    const compare = async (setup, data) => {
        const spanish = await show(hass, setup);
        const plain = await show(english, setup);
        result.rendered += 1;
        if (spanish.length !== plain.length) {
            result.misaligned.push({ spanish, plain });
            return;
        }
        spanish.forEach((text, i) => {
            if (text === plain[i] && !same.includes(text) && !isData(text, data)) result.english.push(text);
        });
    };
    for (const status of views) {
        for (const tab of ["room_chat", "transcript"]) {
            await compare((card) => { card._tab = tab; card._status = status; }, values(status));
        }
    }
    for (const error of states) await compare((card) => { if (error) card._error = error; }, values(error));
    return result;
}"""

# The card with no status yet (connecting), and its two messages of its own.
STATES: list[dict[str, Any] | None] = [None, {"key": "no_overseer"}, {"code": "unauthorized"}]

AT = "2026-01-01T00:00:00+00:00"
LATER = "2099-01-01T00:00:00+00:00"
CHAT = [
    {"user": "alex", "text": "hola", "bot": False, "own": False, "ts": AT},
    {"user": "Overseer", "text": "Subiendo.", "bot": False, "own": True, "ts": AT},
    {"user": "helper", "text": "listo", "bot": True, "own": False, "ts": AT},
]

# Every branch of the three views the real room does not reach in this test.
VIEWS: list[dict[str, Any]] = [
    {
        "schema": "overseer.v2",
        "name": "Overseer",
        "title": "Arena",
        "enabled": False,
        "running": False,
        "site_mode": "lockdown",
        "lights_locked_on": True,
        "dry_run": True,
        "phase": "tool_exec",
        "phases": ["idle", "gate_check", "awaiting_model", "tool_exec", "posted", "failed"],
        "model": {
            "backend": "ollama",
            "model": MODEL,
            "health": "unreachable",
            "health_text": "El modelo no responde",
        },
        "last_trigger": {"kind": "world_event", "detail": "vacuum_error", "since": AT},
        "decision": {
            "mode": "ACTION+CHAT",
            "chat": "Hecho.",
            "stale": True,
            "latency_ms": 1200,
            "prompt_tokens": 321,
            "spent": {
                "requests": 2,
                "unreported": 0,
                "prompt_tokens": 900,
                "cached_tokens": 300,
                "completion_tokens": 40,
            },
        },
        "model_input": {"messages": 5, "characters": 3845, "estimated_tokens": 900},
        "budget": {"used": 2, "limit": 6, "window_s": 60},
        "chat": CHAT,
        "transcript": CHAT,
        "tool_results": ["lift_up: executed"],
        "approvals": [
            {
                "approval_id": "APR-1",
                "incident_id": "",
                "source": "chat",
                "asker": "alex",
                "call": "lift_up()",
                "status": "pending",
                "expires": LATER,
            },
            {
                "approval_id": "APR-2",
                "incident_id": "",
                "source": "llm_api",
                "caller": "agent:x",
                "call": "lift_down()",
                "status": "blocked",
                "decided_by": "u1",
                "decided_name": "Kim",
                "reason": "cooldown",
                "expires": AT,
            },
            {
                "approval_id": "APR-3",
                "incident_id": "",
                "source": "assist",
                "asker": "sam",
                "call": "neato_start()",
                "status": "denied",
                "decided_by": "u1",
                "decided_name": "Kim",
                "expires": AT,
            },
            {
                "approval_id": "APR-4",
                "incident_id": "INC-0002",
                "source": "triage",
                "call": "asset_refresh()",
                "status": "expired",
                "expires": AT,
            },
            {
                "approval_id": "APR-5",
                "incident_id": "INC-0002",
                "source": "triage",
                "call": "asset_refresh()",
                "status": "approved",
                "decided_by": "u1",
                "expires": AT,
            },
        ],
        "grants": [
            {
                "grant_id": "GRT-1",
                "call": "lift_up()",
                "source": "llm_api",
                "caller": "agent:x",
                "granted_by": "u1",
                "granted_name": "Kim",
                "expires": LATER,
            },
        ],
        "max_grant_minutes": 10,
        "incidents": [
            {
                "incident_id": f"INC-000{n}",
                "status": status,
                "asset_id": "vacuum.neato",
                "kind": "vacuum",
                "fault": "vacuum_error",
                "detail": "Brush stuck",
                "opened": AT,
                "reopened": 2,
                "checks": {"docked": False, "charging": True},
                "diagnosis": "",
                "recommended": "",
                "tried": [],
                "attempts": 1,
                "root_cause": "atasco",
                "resolution": "arreglado",
                "timeline": [
                    {"ts": AT, "what": what, "detail": "nota"}
                    for what in (
                        "opened",
                        "reopened",
                        "returned",
                        "request",
                        "response",
                        "rejected",
                        "intent",
                        "approval",
                        "verified",
                        "needs_human",
                        "model_unreachable",
                        "interrupted",
                        "cleared",
                        "resolved",
                    )
                ],
            }
            for n, status in enumerate(("open", "triaging", "verifying", "needs_human", "resolved"), start=1)
        ],
        "groups": [
            {"group": "lift", "tools": ["lift_up", "lift_down"], "cooldown_s": 60, "until": LATER},
            {"group": "neato", "tools": ["neato_start"], "cooldown_s": 30, "until": AT},
            {"group": "ha", "tools": ["ha_set_entity"], "cooldown_s": 5, "until": AT},
            {"group": "counter", "tools": ["counter_adjust"], "cooldown_s": 0, "until": AT},
        ],
        "tools": {"lift_up": {"group": "lift"}, "lift_down": {"group": "lift"}},
        "available_tools": ["ha_set_entity"],
        "blocked_tools": [
            {"tool": "lift_up", "reason": "cooldown", "remaining": 50},
            {"tool": "neato_start", "reason": "rate_limit", "remaining": 20},
            *(
                {"tool": f"t{n}", "reason": reason}
                for n, reason in enumerate(
                    (
                        "busy",
                        "unavailable",
                        "policy_lock:site_mode_admin",
                        "policy_lock:site_mode_lockdown",
                        "policy_lock:lights_locked_on",
                        "not_available",
                        "not_allowlisted",
                        "invalid_arguments",
                        "max_tool_calls",
                        "needs_approval",
                        "unauthorized",
                        "not_what_was_asked",
                    )
                )
            ),
        ],
        "tool_calls": {
            "attempted": 5,
            "executed": 1,
            "blocked": 1,
            "failed": 1,
            "dry_run": 1,
            "calls": [
                {"tool": "lift_up", "outcome": outcome, "reason": reason}
                for outcome, reason in (
                    ("executed", None),
                    ("blocked", "cooldown"),
                    ("failed", "timeout"),
                    ("dry_run", None),
                    ("awaiting_approval", "needs_approval"),
                    ("failed", "error"),
                    ("failed", "cancelled"),
                )
            ],
        },
        "recent_actions": [{"ts": AT, "tool": "lift_up", "outcome": "executed", "reason": None}],
        "world_events": {
            "waiting": [{"detail": "docked (rover1)", "since": AT}],
            "missed": [
                {"detail": "undocked (rover2)", "since": AT, "reason": reason}
                for reason in ("lane_full", "stale")
            ],
        },
        "memory": ["", "debe una vuelta", ""],
        "metrics": {
            "llm_calls_per_minute": 1.5,
            "llm_latency_avg_s": 0.8,
            "skip_ratio": 0.5,
            "stale_rate": 0.1,
            "blocked_rate": 0.2,
            "chat_per_minute": 3,
            "repeated_line_rate": 0,
            "llm_failures": 1,
            "unbacked_claims": 0,
            "false_statements": 0,
            "missed_world_events": 2,
        },
        "last_error": "CannotConnect: x",
        "state_update": "STATE_UPDATE\nsite_mode: lockdown",
        "model_output": "{}",
    },
    {
        "schema": "overseer.commentary",
        "name": "Overseer",
        "title": "Arena",
        "running": False,
        "phase": "idle",
        "phases": ["idle", "posted"],
        "last_trigger": None,
        "last_comment": None,
        "metrics": {
            "llm_calls_per_minute": 0,
            "llm_latency_avg_s": None,
            "chat_per_minute": 0,
            "repeated_line_rate": 0,
        },
        "model_output": None,
    },
    {"schema": "overseer.off", "name": "Overseer", "title": "Arena", "running": False},
    {"schema": "overseer.off", "name": "Overseer", "title": "Arena", "running": True},
    {
        "schema": "overseer.orchestrator",
        "title": "Orquestador",
        "room": "Arena",
        "model": {"backend": "ollama", "model": MODEL},
        "participants": [],
        "limits": {"max_iterations": 3, "quality_threshold": 0.8, "delegation_timeout": 30},
        "queued": 2,
        "ignored": 1,
        "running": {
            "pipeline_id": "P9",
            "question": "¿por qué?",
            "asker": "kim",
            "stage": "evaluating",
            "iteration": 2,
            "max_iterations": 3,
            "current": None,
            "route": ["conversation.helper"],
            "answers": [{"bot": "conversation.helper", "text": "porque sí"}],
            "scores": [],
            "records": [],
            "finish_reason": None,
            "model_calls": 1,
            "timings_ms": {},
            "finished": None,
        },
        "recent": [
            {
                "pipeline_id": f"P{n}",
                "question": "¿cuándo?",
                "asker": "kim",
                "stage": "finished",
                "route": ["conversation.helper", "conversation.expert"],
                "answers": [{"bot": "conversation.helper", "text": "ahora"}],
                "scores": [
                    {"score": 0.0, "continue": True, "reason": "no", "valid": False},
                    {"score": 0.9, "continue": False, "reason": "bien", "valid": True},
                    {"score": 0.1, "continue": False, "reason": "mal", "valid": False},
                ],
                "records": [
                    {
                        "stage": stage,
                        "iteration": 1,
                        "bot": "conversation.helper",
                        "score": None,
                        "reason": reason,
                    }
                    for stage in ("routed", "answered", "timeout", "evaluated", "finished")
                ],
                "finish_reason": reason,
                "model_calls": 3,
                "timings_ms": {"model": 1200.4, "bots": 35.1, "overhead": 2.3},
                "finished": AT,
            }
            for n, reason in enumerate(
                ("threshold", "max_iterations", "no_candidates", "no_participants", "judge_stopped")
            )
        ],
    },
    {
        "schema": "overseer.orchestrator",
        "title": "Orquestador",
        "room": "Arena",
        "model": {},
        "participants": [{"agent_id": "conversation.helper", "name": "Helper", "description": "general"}],
        "limits": {},
        "running": {
            "pipeline_id": "P8",
            "question": "¿y?",
            "asker": "kim",
            "stage": "answering",
            "iteration": 1,
            "max_iterations": 3,
            "current": "conversation.helper",
            "route": [],
            "answers": [],
            "scores": [],
            "records": [],
        },
        "recent": [],
    },
    {
        "schema": "overseer.orchestrator",
        "title": "Orquestador",
        "room": "Arena",
        "participants": [],
        "running": {
            "pipeline_id": "P7",
            "question": "¿y?",
            "asker": "kim",
            "stage": "routing",
            "iteration": 0,
            "route": [],
            "answers": [],
            "scores": [],
            "records": [],
        },
        "recent": [],
    },
]
