/*
 * The quieter views: the commentator (schema overseer.commentary), an overseer that is off
 * (overseer.off), and the card's own message while it connects or when it may not look.
 */

import { html } from "./vendor/lit.js";
import { badge, header, kv, lastError, metrics, section, textBox, top, trigger } from "./parts.js";

export const commentaryView = (s, ui) => {
  const t = ui.t;
  const badges = [badge(t("commentary"), "on"), badge(s.running ? t("running") : t("stopped"), s.running ? "on" : "bad")];
  return html`<div data-view="overseer.commentary">
    ${top(s, badges, t)}
    <div class="grid">${trigger(s, ui)} ${kv(t("last_comment"), s.last_comment || t("none_yet"), "last_comment")}</div>
    <h3>${t("metrics")}</h3>
    ${metrics(s.metrics, t)} ${lastError(s.last_error, t)}
    ${section(ui, "model_output", t("raw_model_output"), textBox("model_output", s.model_output || t("none_yet")))}
  </div>`;
};

export const offView = (s, ui) => html`<div data-view="overseer.off">
  ${header(s.name, s.title || s.room, [badge(s.running === false ? ui.t("not_loaded") : ui.t("off"), "bad")])}
  <p class="muted" data-field="off">${ui.t("off_explained")}</p>
</div>`;

// Connecting, or why the card shows nothing (not an administrator, no overseer yet).
export const messageView = (text, problem) => html`<div data-view="message">
  <div class=${problem ? "banner" : "muted"} data-field="message">${text}</div>
</div>`;
