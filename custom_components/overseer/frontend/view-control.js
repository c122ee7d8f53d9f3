/*
 * The control view (schema overseer.v2): what the overseer saw, asked, got and did, its
 * incidents and approvals, the conversation, cooldowns, tools, memory and metrics.
 *
 * The server's codes (phases, outcomes, reasons, statuses) are shown as words of the user's
 * language; what only names a thing (a tool, an incident id, a fault code automations match
 * on, a call as it is written) is shown as the server sent it.
 */

import { html, nothing, repeat } from "./vendor/lit.js";
import { ago, inputSize, remaining, spentTokens, until } from "./format.js";
import { badge, chatLines, clock, kv, lastError, metrics, section, since, textBox, top, trigger } from "./parts.js";

// Incident statuses as badges: what still needs the overseer or a person stands out.
const INCIDENT_BADGES = { open: "warn", triaging: "warn", awaiting_approval: "warn", verifying: "", needs_human: "bad", resolved: "on" };
// Approval statuses as the colours of the tool-call outcomes.
const APPROVAL_CLASSES = { approved: "executed", executed: "executed", blocked: "blocked", denied: "failed", expired: "muted" };

const none = (text) => html`<span class="muted">${text}</span>`;

// One tile per cooldown group, counting down with the card's tick.
const cooldownTiles = (s, ui) => {
  const t = ui.t;
  const groups = s.groups || [];
  if (!groups.length) return none(t("no_cooldown_groups"));
  return groups.map((g) => {
    const left = remaining(g, ui.now);
    return html`<div class="cooldown ${left ? "" : "ready"}" data-cooldown=${g.group}>
      <div class="k">${t.word("group", g.group)}${g.cooldown_s ? ` · ${g.cooldown_s}s` : ""}</div>
      <div class="v">${left ? `${left}s` : t("ready")}</div>
      ${g.tools && g.tools.length ? html`<div class="k members">${g.tools.join(" ")}</div>` : nothing}
    </div>`;
  });
};

const blockedTools = (s, ui) => {
  const t = ui.t;
  const blocked = s.blocked_tools || [];
  if (!blocked.length) return none(t("none"));
  const groups = Object.fromEntries((s.groups || []).map((g) => [g.group, g]));
  const tools = s.tools || {};
  return blocked.map((b) => {
    // A cooldown of a known group counts down live; other waits (the budget), and tools the
    // server did not place in a group, show what the server said.
    const group = tools[b.tool] && groups[tools[b.tool].group];
    const live = b.reason === "cooldown" && group;
    const left = live ? remaining(group, ui.now) : 0;
    const shown = live ? (left ? ` ${left}s` : ` ${t("ready_soon")}`) : b.remaining ? ` ${b.remaining}s` : "";
    return html`<span class="tool blocked" data-blocked=${b.tool}>${b.tool} · ${t.word("reason", b.reason)}<span class="left">${shown}</span></span>`;
  });
};

const table = (name, heads, rows, empty) => html`
  <table data-section=${name}>
    <tr>${heads.map((h) => html`<th>${h}</th>`)}</tr>
    ${rows.length ? rows : html`<tr><td colspan=${heads.length} class="muted">${empty}</td></tr>`}
  </table>`;

// Active incidents first, then the recently resolved ones; each opens to what the overseer
// found, tried and when, and stays open by its id across pushes.
const incidents = (list, ui) => {
  if (!Array.isArray(list) || !list.length) return html`<div class="muted">${ui.t("no_incidents")}</div>`;
  const active = list.filter((i) => i.status !== "resolved");
  const resolved = list.filter((i) => i.status === "resolved");
  const one = (i) => incident(i, ui);
  return html`${repeat(active, (i) => i.incident_id, one)}
    ${resolved.length && active.length ? html`<div class="subhead">${ui.t("recently_resolved")}</div>` : nothing}
    ${repeat(resolved, (i) => i.incident_id, one)}`;
};

const incident = (i, ui) => {
  const t = ui.t;
  const key = `incident:${i.incident_id}`;
  const fault = `${i.fault}${i.detail ? ` (${i.detail})` : ""}`;
  const opened = since(i.opened, ui.now, t);
  const checks = Object.entries(i.checks || {}).map(([check, passed]) => `${check} ${passed ? "✓" : "✗"}`);
  const status = t.word("incident", i.status);
  return html`<details class="incident" data-details=${key} data-incident=${i.incident_id} data-status=${i.status}
      ?open=${ui.isOpen(key)} @toggle=${ui.onToggle}>
    <summary>${badge(status, INCIDENT_BADGES[i.status] || "")}
      <b>${i.incident_id}</b> ${i.asset_id} · ${fault}${opened === nothing ? nothing : html` · ${opened}`}</summary>
    <div class="grid">
      ${kv(t("asset"), `${i.asset_id} (${i.kind})`)} ${kv(t("fault"), fault)}
      ${kv(t("status"), i.reopened ? t("status_reopened", { status, times: i.reopened }) : status, "status")}
      ${checks.length ? kv(t("checks"), checks.join(", ")) : nothing}
      ${kv(t("diagnosis"), i.diagnosis || t("none_yet"), "diagnosis")}
      ${kv(t("recommended"), i.recommended || t("none_yet"), "recommended")}
      ${kv(t("tried"), (i.tried || []).join(", ") || t("nothing_yet"), "tried")}
      ${i.attempts ? kv(t("rejected_replies"), i.attempts) : nothing} ${i.root_cause ? kv(t("root_cause"), i.root_cause) : nothing}
      ${i.resolution ? kv(t("resolution"), i.resolution) : nothing}
    </div>
    <table data-section="timeline">
      <tr><th>${t("col_time")}</th><th>${t("col_what")}</th><th>${t("col_detail")}</th></tr>
      ${(i.timeline || []).map(
        (step) => html`<tr><td>${clock(step.ts, t)}</td><td>${t.word("step", step.what)}</td><td>${step.detail}</td></tr>`,
      )}
    </table>
  </details>`;
};

// A refused answer (not an approver, answered already, expired), shown beside its approval.
const answerError = (state) =>
  state && state.error ? html`<div class="failed" data-field="answer_error">${state.error}</div>` : nothing;

// Who asked for a call: triage for its incident, or the chat, Assist or another agent.
const askedBy = (a, t) =>
  a.incident_id
    ? t("asked_for_incident", { incident: a.incident_id })
    : t("asked_by", { asker: a.asker || a.caller || "?", source: t.word("source", a.source) });

// Pending approvals with Approve / Deny (and Approve for a while, where the room allows grants)
// for an administrator, then the answered ones. The call is written by the server, as in its
// notifications and the timeline.
const approvals = (list, ui, grantMinutes) => {
  const t = ui.t;
  if (!Array.isArray(list) || !list.length) return nothing;
  const waiting = list.filter((a) => a.status === "pending");
  const answered = list.filter((a) => a.status !== "pending");
  const pending = (a) => {
    const state = ui.answers[a.approval_id] || {};
    const grant = grantMinutes > 0
      ? html`<button type="button" data-answer="grant" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>${t("approve_for", { minutes: grantMinutes })}</button>`
      : nothing;
    const buttons = ui.admin
      ? html`<div class="answer">
          <button type="button" data-answer="approve" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>${t("approve")}</button>
          ${grant}
          <button type="button" data-answer="deny" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>${t("deny")}</button>
        </div>`
      : html`<span class="muted">${t("admin_answers")}</span>`;
    const expires = html`<time data-until=${a.expires}>${until(a.expires, ui.now, t)}</time>`;
    return html`<div class="approval" data-approval=${a.approval_id}>
      <div>
        <div class="call">${a.call}</div>
        <div class="k">${a.approval_id} · ${askedBy(a, t)} · ${t.parts("expires_in", { when: expires })}</div>
      </div>
      ${buttons}${answerError(state)}
    </div>`;
  };
  const row = (a) => {
    const who = [
      a.decided_by ? t("decided_by", { name: a.decided_name || a.decided_by }) : "",
      a.reason ? `(${t.word("reason", a.reason)})` : "",
    ];
    return html`<tr data-approval=${a.approval_id}>
      <td class="call">${a.call}</td><td>${askedBy(a, t)}</td>
      <td class=${APPROVAL_CLASSES[a.status] || ""} data-field="approval_status">${t.word("approval", a.status)}</td>
      <td>${who.filter(Boolean).join(" ")}${answerError(ui.answers[a.approval_id])}</td>
    </tr>`;
  };
  return html`<h3>${t("approvals")}</h3>
    ${repeat(waiting, (a) => a.approval_id, pending)}
    ${answered.length
      ? html`<table data-section="answered">
          <tr><th>${t("col_call")}</th><th>${t("col_asked")}</th><th>${t("col_status")}</th><th>${t("col_answered")}</th></tr>
          ${repeat(answered, (a) => a.approval_id, row)}
        </table>`
      : nothing}`;
};

// Calls an approver let run again without asking, until they expire; an administrator may revoke.
const grants = (list, ui) => {
  const t = ui.t;
  if (!Array.isArray(list) || !list.length) return nothing;
  const row = (g) => {
    const state = ui.answers[g.grant_id] || {};
    const revoke = ui.admin
      ? html`<button type="button" data-grant=${g.grant_id} ?disabled=${state.busy} @click=${ui.onRevoke}>${t("revoke")}</button>`
      : nothing;
    return html`<tr data-grant=${g.grant_id}>
      <td class="call">${g.call}</td><td>${askedBy({ ...g, asker: g.caller }, t)}</td>
      <td>${t("decided_by", { name: g.granted_name || g.granted_by })}</td>
      <td><time data-until=${g.expires}>${until(g.expires, ui.now, t)}</time></td>
      <td>${revoke}${answerError(state)}</td>
    </tr>`;
  };
  return html`<h3>${t("grants")}</h3>
    <table data-section="grants">
      <tr><th>${t("col_call")}</th><th>${t("col_for")}</th><th>${t("col_granted")}</th><th>${t("col_expires")}</th><th></th></tr>
      ${repeat(list, (g) => g.grant_id, row)}
    </table>`;
};

// The conversation: the room's chat live and what the model read, behind two tabs. Each list
// follows its newest line unless the user scrolled up in it (see the card's updated()).
const conversation = (s, ui) => {
  const t = ui.t;
  const tab = (name, label) =>
    html`<button type="button" role="tab" data-tab=${name} aria-selected=${String(ui.tab === name)} @click=${ui.onTab}>${label}</button>`;
  const list = (name, lines, empty) =>
    html`<div class="chat" data-section=${name} data-list=${name} role="tabpanel" ?hidden=${ui.tab !== name} @scroll=${ui.onListScroll}>
      ${chatLines(lines, empty, ui)}
    </div>`;
  const seen = s.decision || s.model_input ? t("no_lines_seen") : t("no_decision_yet");
  return html`<h3>${t("conversation")}</h3>
    <div class="tabs" role="tablist">${tab("room_chat", t("tab_room_chat"))}${tab("transcript", t("tab_transcript"))}</div>
    ${list("room_chat", s.chat, t("no_chat_yet"))} ${list("transcript", s.transcript, seen)}
    ${ui.tab === "transcript" && (s.tool_results || []).length
      ? html`<div class="k">${t("tool_results")}</div>${textBox("tool_results", s.tool_results.join("\n"))}`
      : nothing}`;
};

export const controlView = (s, ui) => {
  const t = ui.t;
  const badges = [
    badge(s.enabled ? t("enabled") : t("disabled"), s.enabled ? "on" : ""),
    badge(s.running ? t("running") : t("stopped"), s.running ? "on" : "bad"),
    badge(t("site_badge", { mode: t.word("site", s.site_mode) }), s.site_mode === "open" ? "" : "warn"),
    s.lights_locked_on ? badge(t("lights_locked"), "warn") : nothing,
    s.dry_run ? badge(t("dry_run"), "warn") : nothing,
  ];
  const decision = s.decision;
  const calls = s.tool_calls || { calls: [] };
  const budget = s.budget ? t("budget_used", { used: s.budget.used, limit: s.budget.limit, window: s.budget.window_s }) : "–";
  const reason = (code) => (code ? t.word("reason", code) : "");
  const callRows = (calls.calls || []).map(
    (c) => html`<tr><td>${c.tool}</td><td class=${c.outcome}>${t.word("outcome", c.outcome)}</td><td>${reason(c.reason)}</td></tr>`,
  );
  const recentRows = (s.recent_actions || []).map(
    (a) => html`<tr><td>${ago(a.ts, ui.now, t)}</td><td>${a.tool}</td><td class=${a.outcome}>${t.word("outcome", a.outcome)}</td><td>${reason(a.reason)}</td></tr>`,
  );
  const available = (s.available_tools || []).map((name) => html`<span class="tool">${name}</span>`);
  // World events wait for the room (its orchestrator's questions go first); a missed one says why.
  const world = s.world_events || {};
  const worldRows = [
    ...(world.waiting || []).map((e) => html`<tr><td>${ago(e.since, ui.now, t)}</td><td>${e.detail}</td><td>${t("waiting")}</td></tr>`),
    ...(world.missed || []).map(
      (e) => html`<tr><td>${ago(e.since, ui.now, t)}</td><td>${e.detail}</td><td class="blocked">${t("missed", { reason: t.word("missed", e.reason) })}</td></tr>`,
    ),
  ];
  const mode = decision ? (decision.stale ? t("decision_stale", { mode: decision.mode }) : decision.mode) : t("none_yet");
  return html`<div data-view="overseer.v2">
    ${top(s, badges, t)}
    <div class="grid">
      ${trigger(s, ui)}
      ${kv(t("decision"), mode, "decision")}
      ${kv(t("latency"), decision ? `${decision.latency_ms} ms` : "–")}
      ${kv(t("tokens"), decision ? spentTokens(decision, t) : "–")}
      ${kv(t("model_input"), inputSize(s.model_input, decision, t), "model_input")} ${kv(t("budget"), budget)}
    </div>
    ${decision && decision.chat ? html`<div><h3>${t("said")}</h3><div class="v" data-field="chat">${decision.chat}</div></div>` : nothing}
    ${approvals(s.approvals, ui, s.max_grant_minutes || 0)} ${grants(s.grants, ui)}
    <h3>${t("incidents")}</h3>
    ${incidents(s.incidents, ui)} ${conversation(s, ui)}
    <h3>${t("cooldowns")}</h3>
    <div class="cooldowns">${cooldownTiles(s, ui)}</div>
    <h3>${t("tools")}</h3>
    <div class="tools" data-section="available">${available.length ? available : none(t("none"))}</div>
    <div class="tools" data-section="blocked" style="margin-top:6px">${blockedTools(s, ui)}</div>
    <h3>${t("last_calls")}</h3>
    <div class="k">
      ${t("calls_summary", {
        attempted: calls.attempted ?? 0,
        executed: calls.executed ?? 0,
        blocked: calls.blocked ?? 0,
        failed: calls.failed ?? 0,
        dry_run: calls.dry_run ?? 0,
      })}
    </div>
    ${table("calls", [t("col_tool"), t("col_outcome"), t("col_reason")], callRows, t("no_tool_calls"))}
    <h3>${t("recent_actions")}</h3>
    ${table("recent", [t("col_when"), t("col_tool"), t("col_outcome"), t("col_reason")], recentRows, t("nothing_yet"))}
    ${worldRows.length
      ? html`<h3>${t("world_events")}</h3>${table("world_events", [t("col_when"), t("col_event"), t("col_state")], worldRows, "")}`
      : nothing}
    <h3>${t("memory")}</h3>
    <div class="grid" data-section="memory">
      ${(s.memory || []).map((m, i) => kv(t("memory_slot", { slot: i + 1 }), m || t("memory_empty"), `memory_${i + 1}`))}
    </div>
    <h3>${t("metrics")}</h3>
    ${metrics(s.metrics, t)} ${lastError(s.last_error, t)}
    ${section(ui, "state_update", t("last_state_update"), textBox("state_update", s.state_update || t("none_yet")))}
    ${section(ui, "model_output", t("raw_model_output"), textBox("model_output", s.model_output || t("none_yet")))}
  </div>`;
};
