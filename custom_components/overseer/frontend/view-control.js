/*
 * The control view (schema overseer.v2): what the overseer saw, asked, got and did, its
 * incidents and approvals, the conversation, cooldowns, tools, memory and metrics.
 */

import { html, nothing, repeat } from "./vendor/lit.js";
import { ago, inputSize, remaining, spentTokens, until, words } from "./format.js";
import { badge, chatLines, clock, kv, lastError, metrics, section, since, textBox, top, trigger } from "./parts.js";

// Incident statuses as badges: what still needs the overseer or a person stands out.
const INCIDENT_BADGES = { open: "warn", triaging: "warn", awaiting_approval: "warn", verifying: "", needs_human: "bad", resolved: "on" };
// Approval statuses as the colours of the tool-call outcomes.
const APPROVAL_CLASSES = { approved: "executed", executed: "executed", blocked: "blocked", denied: "failed", expired: "muted" };

const none = (text = "none") => html`<span class="muted">${text}</span>`;

// One tile per cooldown group, counting down with the card's tick.
const cooldownTiles = (s, now) => {
  const groups = s.groups || [];
  if (!groups.length) return none("no cooldown groups");
  return groups.map((g) => {
    const left = remaining(g, now);
    return html`<div class="cooldown ${left ? "" : "ready"}" data-cooldown=${g.group}>
      <div class="k">${g.group}${g.cooldown_s ? ` · ${g.cooldown_s}s` : ""}</div>
      <div class="v">${left ? `${left}s` : "ready"}</div>
      ${g.tools && g.tools.length ? html`<div class="k members">${g.tools.join(" ")}</div>` : nothing}
    </div>`;
  });
};

const blockedTools = (s, now) => {
  const blocked = s.blocked_tools || [];
  if (!blocked.length) return none();
  const groups = Object.fromEntries((s.groups || []).map((g) => [g.group, g]));
  const tools = s.tools || {};
  return blocked.map((b) => {
    // A cooldown of a known group counts down live; other waits (the budget), and tools the
    // server did not place in a group, show what the server said.
    const group = tools[b.tool] && groups[tools[b.tool].group];
    const live = b.reason === "cooldown" && group;
    const left = live ? remaining(group, now) : 0;
    const shown = live ? (left ? ` ${left}s` : " (ready soon)") : b.remaining ? ` ${b.remaining}s` : "";
    return html`<span class="tool blocked" data-blocked=${b.tool}>${b.tool} · ${b.reason}<span class="left">${shown}</span></span>`;
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
  if (!Array.isArray(list) || !list.length) return html`<div class="muted">no incidents</div>`;
  const active = list.filter((i) => i.status !== "resolved");
  const resolved = list.filter((i) => i.status === "resolved");
  const one = (i) => incident(i, ui);
  return html`${repeat(active, (i) => i.incident_id, one)}
    ${resolved.length && active.length ? html`<div class="subhead">Recently resolved</div>` : nothing}
    ${repeat(resolved, (i) => i.incident_id, one)}`;
};

const incident = (i, ui) => {
  const key = `incident:${i.incident_id}`;
  const fault = `${i.fault}${i.detail ? ` (${i.detail})` : ""}`;
  const opened = since(i.opened, ui.now);
  const checks = Object.entries(i.checks || {}).map(([check, passed]) => `${check} ${passed ? "✓" : "✗"}`);
  return html`<details class="incident" data-details=${key} data-incident=${i.incident_id} data-status=${i.status}
      ?open=${ui.isOpen(key)} @toggle=${ui.onToggle}>
    <summary>${badge(words(i.status), INCIDENT_BADGES[i.status] || "")}
      <b>${i.incident_id}</b> ${i.asset_id} · ${fault}${opened === nothing ? nothing : html` · ${opened}`}</summary>
    <div class="grid">
      ${kv("Asset", `${i.asset_id} (${i.kind})`)} ${kv("Fault", fault)}
      ${kv("Status", `${i.status}${i.reopened ? ` · reopened ${i.reopened}×` : ""}`, "status")}
      ${checks.length ? kv("Checks", checks.join(", ")) : nothing}
      ${kv("Diagnosis", i.diagnosis || "none yet", "diagnosis")} ${kv("Recommended", i.recommended || "none yet", "recommended")}
      ${kv("Tried", (i.tried || []).join(", ") || "nothing yet", "tried")}
      ${i.attempts ? kv("Rejected replies", i.attempts) : nothing} ${i.root_cause ? kv("Root cause", i.root_cause) : nothing}
      ${i.resolution ? kv("Resolution", i.resolution) : nothing}
    </div>
    <table data-section="timeline">
      <tr><th>time</th><th>what</th><th>detail</th></tr>
      ${(i.timeline || []).map((step) => html`<tr><td>${clock(step.ts)}</td><td>${step.what}</td><td>${step.detail}</td></tr>`)}
    </table>
  </details>`;
};

// A refused answer (not an approver, answered already, expired), shown beside its approval.
const answerError = (state) =>
  state && state.error ? html`<div class="failed" data-field="answer_error">${state.error}</div>` : nothing;

// Who asked for a call: triage for its incident, or the chat, Assist or another agent.
const SOURCES = { chat: "the chat", assist: "Assist", llm_api: "an agent", triage: "triage" };
const askedBy = (a) =>
  a.incident_id
    ? `for ${a.incident_id}`
    : `asked by ${a.asker || a.caller || "?"} via ${SOURCES[a.source] || a.source}`;

// Pending approvals with Approve / Deny (and Approve for a while, where the room allows grants)
// for an administrator, then the answered ones. The call is written by the server, as in its
// notifications and the timeline.
const approvals = (list, ui, grantMinutes) => {
  if (!Array.isArray(list) || !list.length) return nothing;
  const waiting = list.filter((a) => a.status === "pending");
  const answered = list.filter((a) => a.status !== "pending");
  const pending = (a) => {
    const state = ui.answers[a.approval_id] || {};
    const grant = grantMinutes > 0
      ? html`<button type="button" data-answer="grant" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>Approve for ${grantMinutes} min</button>`
      : nothing;
    const buttons = ui.admin
      ? html`<div class="answer">
          <button type="button" data-answer="approve" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>Approve</button>
          ${grant}
          <button type="button" data-answer="deny" data-approval=${a.approval_id} ?disabled=${state.busy} @click=${ui.onAnswer}>Deny</button>
        </div>`
      : html`<span class="muted">an administrator answers</span>`;
    return html`<div class="approval" data-approval=${a.approval_id}>
      <div>
        <div class="call">${a.call}</div>
        <div class="k">${a.approval_id} · ${askedBy(a)} · expires <time data-until=${a.expires}>${until(a.expires, ui.now)}</time></div>
      </div>
      ${buttons}${answerError(state)}
    </div>`;
  };
  const row = (a) => {
    const who = [a.decided_by ? `by ${a.decided_name || a.decided_by}` : "", a.reason ? `(${a.reason})` : ""];
    return html`<tr data-approval=${a.approval_id}>
      <td class="call">${a.call}</td><td>${askedBy(a)}</td>
      <td class=${APPROVAL_CLASSES[a.status] || ""} data-field="approval_status">${a.status}</td>
      <td>${who.filter(Boolean).join(" ")}${answerError(ui.answers[a.approval_id])}</td>
    </tr>`;
  };
  return html`<h3>Approvals</h3>
    ${repeat(waiting, (a) => a.approval_id, pending)}
    ${answered.length
      ? html`<table data-section="answered">
          <tr><th>call</th><th>asked</th><th>status</th><th>answered</th></tr>
          ${repeat(answered, (a) => a.approval_id, row)}
        </table>`
      : nothing}`;
};

// Calls an approver let run again without asking, until they expire; an administrator may revoke.
const grants = (list, ui) => {
  if (!Array.isArray(list) || !list.length) return nothing;
  const row = (g) => {
    const state = ui.answers[g.grant_id] || {};
    const revoke = ui.admin
      ? html`<button type="button" data-grant=${g.grant_id} ?disabled=${state.busy} @click=${ui.onRevoke}>Revoke</button>`
      : nothing;
    return html`<tr data-grant=${g.grant_id}>
      <td class="call">${g.call}</td><td>${askedBy({ ...g, asker: g.caller })}</td>
      <td>by ${g.granted_name || g.granted_by}</td>
      <td><time data-until=${g.expires}>${until(g.expires, ui.now)}</time></td>
      <td>${revoke}${answerError(state)}</td>
    </tr>`;
  };
  return html`<h3>Grants</h3>
    <table data-section="grants">
      <tr><th>call</th><th>for</th><th>granted</th><th>expires</th><th></th></tr>
      ${repeat(list, (g) => g.grant_id, row)}
    </table>`;
};

// The conversation: the room's chat live and what the model read, behind two tabs. Each list
// follows its newest line unless the user scrolled up in it (see the card's updated()).
const conversation = (s, ui) => {
  const tab = (name, label) =>
    html`<button type="button" role="tab" data-tab=${name} aria-selected=${String(ui.tab === name)} @click=${ui.onTab}>${label}</button>`;
  const list = (name, lines, empty) =>
    html`<div class="chat" data-section=${name} data-list=${name} role="tabpanel" ?hidden=${ui.tab !== name} @scroll=${ui.onListScroll}>
      ${chatLines(lines, empty, ui.now)}
    </div>`;
  const seen = s.decision || s.model_input ? "the model saw no chat lines" : "no decision yet";
  return html`<h3>Conversation</h3>
    <div class="tabs" role="tablist">${tab("room_chat", "Room chat (live)")}${tab("transcript", "What the model saw")}</div>
    ${list("room_chat", s.chat, "no chat yet")} ${list("transcript", s.transcript, seen)}
    ${ui.tab === "transcript" && (s.tool_results || []).length
      ? html`<div class="k">Its calls' results, read before its line</div>${textBox("tool_results", s.tool_results.join("\n"))}`
      : nothing}`;
};

export const controlView = (s, ui) => {
  const badges = [
    badge(s.enabled ? "enabled" : "disabled", s.enabled ? "on" : ""),
    badge(s.running ? "running" : "stopped", s.running ? "on" : "bad"),
    badge(`site: ${s.site_mode}`, s.site_mode === "open" ? "" : "warn"),
    s.lights_locked_on ? badge("lights locked", "warn") : nothing,
    s.dry_run ? badge("dry run", "warn") : nothing,
  ];
  const decision = s.decision;
  const calls = s.tool_calls || { calls: [] };
  const budget = s.budget ? `${s.budget.used}/${s.budget.limit} in ${s.budget.window_s}s` : "–";
  const callRows = (calls.calls || []).map(
    (c) => html`<tr><td>${c.tool}</td><td class=${c.outcome}>${c.outcome}</td><td>${c.reason || ""}</td></tr>`,
  );
  const recentRows = (s.recent_actions || []).map(
    (a) => html`<tr><td>${ago(a.ts, ui.now)}</td><td>${a.tool}</td><td class=${a.outcome}>${a.outcome}</td><td>${a.reason || ""}</td></tr>`,
  );
  const available = (s.available_tools || []).map((t) => html`<span class="tool">${t}</span>`);
  // World events wait for the room (its orchestrator's questions go first); a missed one says why.
  const world = s.world_events || {};
  const worldRows = [
    ...(world.waiting || []).map((e) => html`<tr><td>${ago(e.since, ui.now)}</td><td>${e.detail}</td><td>waiting</td></tr>`),
    ...(world.missed || []).map(
      (e) => html`<tr><td>${ago(e.since, ui.now)}</td><td>${e.detail}</td><td class="blocked">missed: ${e.reason}</td></tr>`,
    ),
  ];
  return html`<div data-view="overseer.v2">
    ${top(s, badges)}
    <div class="grid">
      ${trigger(s, ui.now)}
      ${kv("Decision", decision ? decision.mode + (decision.stale ? " (stale)" : "") : "none yet", "decision")}
      ${kv("Latency", decision ? `${decision.latency_ms} ms` : "–")}
      ${kv("Tokens in (cached) / out", decision ? spentTokens(decision) : "–")}
      ${kv("Model input", inputSize(s.model_input, decision), "model_input")} ${kv("Budget", budget)}
    </div>
    ${decision && decision.chat ? html`<div><h3>Said</h3><div class="v" data-field="chat">${decision.chat}</div></div>` : nothing}
    ${approvals(s.approvals, ui, s.max_grant_minutes || 0)} ${grants(s.grants, ui)}
    <h3>Incidents</h3>
    ${incidents(s.incidents, ui)} ${conversation(s, ui)}
    <h3>Cooldowns</h3>
    <div class="cooldowns">${cooldownTiles(s, ui.now)}</div>
    <h3>Tools</h3>
    <div class="tools" data-section="available">${available.length ? available : none()}</div>
    <div class="tools" data-section="blocked" style="margin-top:6px">${blockedTools(s, ui.now)}</div>
    <h3>Last decision's tool calls</h3>
    <div class="k">
      attempted ${calls.attempted ?? 0} · executed ${calls.executed ?? 0} · blocked ${calls.blocked ?? 0} · failed
      ${calls.failed ?? 0} · dry run ${calls.dry_run ?? 0}
    </div>
    ${table("calls", ["tool", "outcome", "reason"], callRows, "no tool calls")}
    <h3>Recent actions</h3>
    ${table("recent", ["when", "tool", "outcome", "reason"], recentRows, "nothing yet")}
    ${worldRows.length ? html`<h3>World events</h3>${table("world_events", ["when", "event", "state"], worldRows, "")}` : nothing}
    <h3>Memory</h3>
    <div class="grid" data-section="memory">${(s.memory || []).map((m, i) => kv(`Slot ${i + 1}`, m || "(empty)", `memory_${i + 1}`))}</div>
    <h3>Metrics</h3>
    ${metrics(s.metrics)} ${lastError(s.last_error)}
    ${section(ui, "state_update", "Last STATE_UPDATE", textBox("state_update", s.state_update || "none yet"))}
    ${section(ui, "model_output", "Raw model output", textBox("model_output", s.model_output || "none yet"))}
  </div>`;
};
