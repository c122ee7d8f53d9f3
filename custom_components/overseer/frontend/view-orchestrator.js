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
const scoreCells = (score, t) => {
  if (!score) return html`<td class="muted" colspan="3">${t("not_judged")}</td>`;
  const invalid = score.valid === false;
  return html`<td class=${invalid ? "failed" : ""} data-field="score">${invalid ? t("score_invalid", { score: score.score }) : score.score}</td>
    <td data-field="continue">${score.continue ? t("yes") : t("no")}</td><td data-field="reason">${score.reason}</td>`;
};

const answersTable = (run, name, t) => {
  const answers = Array.isArray(run.answers) ? run.answers : [];
  const scores = Array.isArray(run.scores) ? run.scores : [];
  const rows = answers.map(
    (a, i) => html`<tr data-answer-of=${a.bot} data-valid=${scores[i] ? String(scores[i].valid !== false) : ""}>
      <td>${i + 1}</td><td data-field="bot">${name(a.bot)}</td><td class="answer-text" data-field="text">${a.text}</td>${scoreCells(scores[i], t)}
    </tr>`,
  );
  // A score without its answer should not happen; shown rather than lost.
  for (const score of scores.slice(answers.length)) {
    rows.push(html`<tr data-valid=${String(score.valid !== false)}><td></td><td></td><td class="muted">${t("no_answer")}</td>${scoreCells(score, t)}</tr>`);
  }
  if (!rows.length) return html`<div class="muted" data-section="answers">${t("no_answer_yet")}</div>`;
  return html`<table data-section="answers">
    <tr><th>#</th><th>${t("col_bot")}</th><th>${t("col_answer")}</th><th>${t("col_score")}</th><th>${t("col_continue")}</th><th>${t("col_reason")}</th></tr>
    ${rows}
  </table>`;
};

// Where the running pipeline is, as its sensor says it: "[2/3] Helper answered · evaluating".
export const progress = (run, limits, name, t) => {
  if (!run) return t("progress_idle");
  const values = { iteration: Math.max(run.iteration || 0, 1), limit: run.max_iterations ?? limits.max_iterations ?? "?" };
  const answers = Array.isArray(run.answers) ? run.answers : [];
  if (run.stage === "answering" && run.current) return t("progress_asking", { ...values, bot: name(run.current) });
  if (run.stage === "evaluating" && answers.length) {
    return t("progress_evaluating", { ...values, bot: name(answers[answers.length - 1].bot) });
  }
  return t(run.stage === "routing" ? "progress_routing" : "progress_finished", values);
};

// One pipeline: the question and who asked, its route and end in the summary; opened, its
// answers with their scores, the timings and every step. Kept open by its id, so it stays
// open as it moves from running to recent.
const pipeline = (run, name, ui) => {
  const t = ui.t;
  const key = `pipeline:${run.pipeline_id}`;
  const finished = run.stage === "finished";
  const route = (run.route || []).map(name).join(" → ") || t("not_routed_yet");
  const ms = (v) => (typeof v === "number" ? `${num(v)} ms` : "–");
  const timings = run.timings_ms || {};
  const invalid = (run.scores || []).filter((score) => score.valid === false).length;
  const end = run.finish_reason ? t.word("finish", run.finish_reason) : "";
  return html`<details class="incident pipeline" data-details=${key} data-pipeline=${run.pipeline_id} data-stage=${run.stage}
      ?open=${ui.isOpen(key)} @toggle=${ui.onToggle}>
    <summary>${badge(finished ? end || t.word("stage", run.stage) : t.word("stage", run.stage), finished ? "" : "warn")}
      <span data-field="question">${run.question}</span> <span class="muted">· ${run.asker} · ${route}</span>
      ${invalid ? badge(t(invalid === 1 ? "invalid_judge_reply" : "invalid_judge_replies", { count: invalid }), "bad") : nothing}
      ${run.finished ? html` · ${clock(run.finished, t)}` : nothing}</summary>
    <div class="grid">
      ${kv(t("asked_by_label"), run.asker, "asker")} ${kv(t("route"), route, "route")}
      ${kv(t("finish_reason"), end || t("still_running"), "finish_reason")}
      ${kv(t("model_calls"), run.model_calls ?? 0, "model_calls")}
      ${kv(t("timings"), t("timings_value", { model: ms(timings.model), bots: ms(timings.bots), overhead: ms(timings.overhead) }), "timings")}
    </div>
    ${answersTable(run, name, t)}
    <div class="subhead">${t("steps")}</div>
    <table data-section="steps">
      <tr><th>${t("col_iteration")}</th><th>${t("col_stage")}</th><th>${t("col_bot")}</th><th>${t("col_score")}</th><th>${t("col_note")}</th></tr>
      ${(run.records || []).map(
        (r) => html`<tr data-step=${r.stage}><td>${r.iteration}</td><td>${t.word("record", r.stage)}</td><td>${r.bot ? name(r.bot) : ""}</td>
          <td>${r.score ?? ""}</td><td>${r.stage === "finished" && r.reason ? t.word("finish", r.reason) : r.reason || ""}</td></tr>`,
      )}
    </table>
  </details>`;
};

export const orchestratorView = (s, ui) => {
  const t = ui.t;
  const participants = Array.isArray(s.participants) ? s.participants : [];
  const names = Object.fromEntries(participants.map((p) => [p.agent_id, p.name || p.agent_id]));
  const name = (agentId) => names[agentId] || agentId || "";
  // ignored: human lines that named no bot and asked nothing, so they started no pipeline.
  const badges = [
    badge(t("orchestrator"), "on"),
    s.running ? badge(t("running"), "warn") : nothing,
    s.queued ? badge(t("queued", { count: s.queued }), "warn") : nothing,
    s.ignored ? badge(t("ignored", { count: s.ignored })) : nothing,
  ];
  const model = s.model || {};
  const limits = s.limits || {};
  const recent = Array.isArray(s.recent) ? s.recent : [];
  const one = (run) => pipeline(run, name, ui);
  return html`<div data-view="overseer.orchestrator">
    ${header(s.title, s.room, badges)}
    <div class="progress"><span data-field="progress">${progress(s.running, limits, name, t)}</span></div>
    <h3>${t("participants")}</h3>
    ${participants.length
      ? html`<table data-section="participants">
          <tr><th>${t("col_name")}</th><th>${t("col_agent")}</th><th>${t("col_description")}</th></tr>
          ${repeat(
            participants,
            (p) => p.agent_id,
            (p) => html`<tr data-participant=${p.agent_id}><td data-field="name">${p.name}</td><td class="call">${p.agent_id}</td><td>${p.description || ""}</td></tr>`,
          )}
        </table>`
      : html`<div class="muted">${t("no_participants")}</div>`}
    <h3>${t("limits")}</h3>
    <div class="grid">
      ${kv(t("max_iterations"), limits.max_iterations ?? "–", "max_iterations")}
      ${kv(t("quality_threshold"), limits.quality_threshold ?? "–", "quality_threshold")}
      ${kv(t("delegation_timeout"), limits.delegation_timeout === undefined ? "–" : `${limits.delegation_timeout} s`, "delegation_timeout")}
      ${kv(t("model"), [model.backend, model.model].filter(Boolean).join(" · ") || "–", "model")}
    </div>
    <h3>${t("running_pipeline")}</h3>
    <div data-section="running">${s.running ? one(s.running) : html`<div class="muted">${t("none")}</div>`}</div>
    <h3>${t("recent_pipelines")}</h3>
    <div data-section="pipelines">${recent.length ? repeat(recent, (run) => run.pipeline_id, one) : html`<div class="muted">${t("none_yet")}</div>`}</div>
  </div>`;
};
