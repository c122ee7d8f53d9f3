/*
 * The orchestrator view (schema overseer.orchestrator): who takes part, its limits, and its
 * pipelines (the running one, then the last ones, newest first), each opening to its answers,
 * scores and steps. Bots are shown by their names in the room; an id that is no participant
 * (any more) is shown as it is.
 */

import { html, nothing, repeat } from "./vendor/lit.js";
import { num } from "./format.js";
import { badge, clock, header, kv } from "./parts.js";

// The judge scores each answer right after it: score i is answer i's; the last answer may
// have none (the limit was reached, or nobody was left to refine it).
const scoreCells = (score) => {
  if (!score) return html`<td class="muted" colspan="3">not judged</td>`;
  const invalid = score.valid === false;
  return html`<td class=${invalid ? "failed" : ""} data-field="score">${score.score}${invalid ? " · invalid reply" : ""}</td>
    <td data-field="continue">${score.continue ? "yes" : "no"}</td><td data-field="reason">${score.reason}</td>`;
};

const answersTable = (run, name) => {
  const answers = Array.isArray(run.answers) ? run.answers : [];
  const scores = Array.isArray(run.scores) ? run.scores : [];
  const rows = answers.map(
    (a, i) => html`<tr data-answer-of=${a.bot} data-valid=${scores[i] ? String(scores[i].valid !== false) : ""}>
      <td>${i + 1}</td><td data-field="bot">${name(a.bot)}</td><td class="answer-text" data-field="text">${a.text}</td>${scoreCells(scores[i])}
    </tr>`,
  );
  // A score without its answer should not happen; shown rather than lost.
  for (const score of scores.slice(answers.length)) {
    rows.push(html`<tr data-valid=${String(score.valid !== false)}><td></td><td></td><td class="muted">(no answer)</td>${scoreCells(score)}</tr>`);
  }
  if (!rows.length) return html`<div class="muted" data-section="answers">no answer yet</div>`;
  return html`<table data-section="answers">
    <tr><th>#</th><th>bot</th><th>answer</th><th>score</th><th>continue</th><th>reason</th></tr>
    ${rows}
  </table>`;
};

// One pipeline: the question and who asked, its route and end in the summary; opened, its
// answers with their scores, the timings and every step. Kept open by its id, so it stays
// open as it moves from running to recent.
const pipeline = (run, name, ui) => {
  const key = `pipeline:${run.pipeline_id}`;
  const finished = run.stage === "finished";
  const route = (run.route || []).map(name).join(" → ") || "not routed yet";
  const ms = (v) => (typeof v === "number" ? `${num(v)} ms` : "–");
  const timings = run.timings_ms || {};
  const invalid = (run.scores || []).filter((score) => score.valid === false).length;
  return html`<details class="incident pipeline" data-details=${key} data-pipeline=${run.pipeline_id} data-stage=${run.stage}
      ?open=${ui.isOpen(key)} @toggle=${ui.onToggle}>
    <summary>${badge(finished ? run.finish_reason || "finished" : run.stage, finished ? "" : "warn")}
      <span data-field="question">${run.question}</span> <span class="muted">· ${run.asker} · ${route}</span>
      ${invalid ? badge(`${invalid} invalid judge ${invalid === 1 ? "reply" : "replies"}`, "bad") : nothing}
      ${run.finished ? html` · ${clock(run.finished)}` : nothing}</summary>
    <div class="grid">
      ${kv("Asked by", run.asker, "asker")} ${kv("Route", route, "route")}
      ${kv("Finish reason", run.finish_reason || "still running", "finish_reason")}
      ${kv("Model calls", run.model_calls ?? 0, "model_calls")}
      ${kv("Timings", `model ${ms(timings.model)} · bots ${ms(timings.bots)} · overhead ${ms(timings.overhead)}`, "timings")}
    </div>
    ${answersTable(run, name)}
    <div class="subhead">Steps</div>
    <table data-section="steps">
      <tr><th>iteration</th><th>stage</th><th>bot</th><th>score</th><th>note</th></tr>
      ${(run.records || []).map(
        (r) => html`<tr data-step=${r.stage}><td>${r.iteration}</td><td>${r.stage}</td><td>${r.bot ? name(r.bot) : ""}</td>
          <td>${r.score ?? ""}</td><td>${r.reason || ""}</td></tr>`,
      )}
    </table>
  </details>`;
};

export const orchestratorView = (s, ui) => {
  const participants = Array.isArray(s.participants) ? s.participants : [];
  const names = Object.fromEntries(participants.map((p) => [p.agent_id, p.name || p.agent_id]));
  const name = (agentId) => names[agentId] || agentId || "";
  // ignored: human lines that named no bot and asked nothing, so they started no pipeline.
  const badges = [
    badge("orchestrator", "on"),
    s.running ? badge("running", "warn") : nothing,
    s.queued ? badge(`${s.queued} queued`, "warn") : nothing,
    s.ignored ? badge(`${s.ignored} ignored`) : nothing,
  ];
  const model = s.model || {};
  const limits = s.limits || {};
  const recent = Array.isArray(s.recent) ? s.recent : [];
  const one = (run) => pipeline(run, name, ui);
  return html`<div data-view="overseer.orchestrator">
    ${header(s.title, s.room, badges)}
    <div class="progress"><span data-field="progress">${s.progress || "idle"}</span></div>
    <h3>Participants</h3>
    ${participants.length
      ? html`<table data-section="participants">
          <tr><th>name</th><th>agent</th><th>description</th></tr>
          ${repeat(
            participants,
            (p) => p.agent_id,
            (p) => html`<tr data-participant=${p.agent_id}><td data-field="name">${p.name}</td><td class="call">${p.agent_id}</td><td>${p.description || ""}</td></tr>`,
          )}
        </table>`
      : html`<div class="muted">no participants: choose them in the orchestrator's options</div>`}
    <h3>Limits</h3>
    <div class="grid">
      ${kv("Max iterations", limits.max_iterations ?? "–", "max_iterations")}
      ${kv("Quality threshold", limits.quality_threshold ?? "–", "quality_threshold")}
      ${kv("Delegation timeout", limits.delegation_timeout === undefined ? "–" : `${limits.delegation_timeout} s`, "delegation_timeout")}
      ${kv("Model", [model.backend, model.model].filter(Boolean).join(" · ") || "–", "model")}
    </div>
    <h3>Running pipeline</h3>
    <div data-section="running">${s.running ? one(s.running) : html`<div class="muted">none</div>`}</div>
    <h3>Recent pipelines</h3>
    <div data-section="pipelines">${recent.length ? repeat(recent, (run) => run.pipeline_id, one) : html`<div class="muted">none yet</div>`}</div>
  </div>`;
};
