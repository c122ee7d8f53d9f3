/*
 * Rendering: the pieces every view is made of, as Lit templates. Every value goes into a
 * template as text or as an attribute's value, which Lit sets as such: what came from chat,
 * the model or entity names can never become markup.
 *
 * A view is a function (status, ui) → template. `ui` is what the card element keeps across
 * pushes and hands each view: `t`, the translator of the user's language (i18n.js), `now` (ms,
 * the one-second tick), `admin`, `isOpen(key)` with `onToggle` for <details data-details=key>,
 * `tab` with `onTab` for the conversation tabs, `onListScroll` for the chat lists, `answers`
 * (approval or grant id → { busy } or { error }) with `onAnswer` for the Approve / Deny buttons,
 * `onRevoke` for a grant's Revoke.
 */

import { html, nothing } from "./vendor/lit.js";
import { ago, moment, orDash, pct } from "./format.js";

export const badge = (text, kind = "") => html`<span class="badge ${kind}">${text}</span>`;

// A labelled value; its key and value touch, so the element reads "Latency5 ms" as text.
export const kv = (key, value, field) =>
  html`<div class="kv" data-field=${field ?? nothing}><span class="k">${key}</span><span class="v">${value}</span></div>`;

export const header = (name, subtitle, badges) => html`
  <div class="header">
    <div class="title">${name} <span class="muted">· ${subtitle || ""}</span></div>
    <div class="badges">${badges}</div>
  </div>`;

// The red banner when the model is not answering, in the words the server chose for it
// (in the language the card asked for).
export const healthBanner = (model) => {
  if (!model || !model.health_text) return nothing;
  const detail = model.detail ? `: ${model.detail}` : "";
  return html`<div class="banner" data-model=${model.health}>${model.health_text}${detail}</div>`;
};

// The loop's phases in the server's order, the current one lit.
export const phaseStrip = (phases, phase, t) => html`
  <div class="phases">
    ${(phases || []).map(
      (p) => html`<div class="phase ${p === phase ? "active" : ""} phase-${p}" data-phase=${p}>${t.word("phase", p)}</div>`,
    )}
  </div>`;

// Header, model health and the phase strip: the top of both running views.
export const top = (status, badges, t) => html`
  ${header(status.name, status.title || status.room, badges)} ${healthBanner(status.model)}
  ${phaseStrip(status.phases, status.phase, t)}`;

// A moment as how long ago, kept current by the tick; the full date and time on hover.
export const since = (iso, now, t) => {
  const at = moment(iso, t.locale);
  return at ? html`<time datetime=${iso} title=${at.full}>${ago(iso, now, t)}</time>` : nothing;
};

// A moment as the clock time; the full date and time on hover.
export const clock = (iso, t) => {
  const at = moment(iso, t.locale);
  return at ? html`<time datetime=${iso} title=${at.full}>${at.time}</time>` : nothing;
};

export const trigger = (status, ui) => {
  const t = ui.t;
  const last = status.last_trigger;
  if (!last) return kv(t("last_trigger"), t("none_yet"), "last_trigger");
  const detail = last.detail ? ` (${last.detail})` : "";
  return kv(t("last_trigger"), `${t.word("trigger", last.kind)}${detail} · ${ago(last.since, ui.now, t)}`, "last_trigger");
};

export const metrics = (m, t) => {
  if (!m) return nothing;
  const optional = (key, label, value) => (m[key] !== undefined ? kv(t(label), value) : nothing);
  return html`<div class="grid" data-section="metrics">
    ${kv(t("metric_calls_per_minute"), orDash(m.llm_calls_per_minute))} ${kv(t("metric_latency"), orDash(m.llm_latency_avg_s, " s"))}
    ${optional("skip_ratio", "metric_skipped", pct(m.skip_ratio))} ${optional("stale_rate", "metric_stale", pct(m.stale_rate))}
    ${optional("blocked_rate", "metric_blocked", pct(m.blocked_rate))} ${kv(t("metric_chat_per_minute"), orDash(m.chat_per_minute))}
    ${kv(t("metric_repeats"), pct(m.repeated_line_rate))} ${optional("llm_failures", "metric_failures", orDash(m.llm_failures))}
    ${optional("unbacked_claims", "metric_unbacked_claims", orDash(m.unbacked_claims))}
    ${optional("false_statements", "metric_false_statements", orDash(m.false_statements))}
    ${optional("missed_world_events", "metric_missed_world_events", orDash(m.missed_world_events))}
  </div>`;
};

// A text box that keeps where the user scrolled to through pushes (see the card's updated()).
export const textBox = (name, text, kind = "") =>
  html`<pre class=${kind} data-field=${name} data-keep-scroll=${name}>${text}</pre>`;

// A collapsible section that stays as the user left it, across pushes and view switches.
export const section = (ui, key, title, body) => html`
  <details data-details=${key} ?open=${ui.isOpen(key)} @toggle=${ui.onToggle}>
    <summary>${title}</summary>${body}
  </details>`;

export const lastError = (error, t) =>
  error ? html`<div><h3>${t("last_error")}</h3>${textBox("last_error", error, "failed")}</div>` : nothing;

// Chat lines as the room saw them: who, when, a bot or the overseer itself, and the text.
export const chatLines = (lines, empty, ui) => {
  const t = ui.t;
  if (!Array.isArray(lines) || !lines.length) return html`<div class="muted">${empty}</div>`;
  return lines.map((line) => {
    const kind = line.own ? "own" : line.bot ? "bot" : "human";
    const tag = line.own
      ? html`<span class="tag">${t("tag_overseer")}</span>`
      : line.bot
        ? html`<span class="tag">${t("tag_bot")}</span>`
        : nothing;
    return html`<div class="line ${kind}" data-line=${kind} data-user=${line.user}>
      <div class="meta"><span class="who">${line.user}</span>${tag}${since(line.ts, ui.now, t)}</div>
      <div class="text">${line.text}</div>
    </div>`;
  });
};
