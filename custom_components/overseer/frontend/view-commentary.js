/*
 * The quieter views: the commentator (schema overseer.commentary), an overseer that is off
 * (overseer.off), and the card's own message while it connects or when it may not look.
 */

import { html } from "./vendor/lit.js";
import { badge, header, kv, lastError, metrics, section, textBox, top, trigger } from "./parts.js";

export const commentaryView = (s, ui) => html`<div data-view="overseer.commentary">
  ${top(s, [badge("commentary", "on"), badge(s.running ? "running" : "stopped", s.running ? "on" : "bad")])}
  <div class="grid">${trigger(s, ui.now)} ${kv("Last comment", s.last_comment || "none yet", "last_comment")}</div>
  <h3>Metrics</h3>
  ${metrics(s.metrics)} ${lastError(s.last_error)}
  ${section(ui, "model_output", "Raw model output", textBox("model_output", s.model_output || "none yet"))}
</div>`;

export const offView = (s) => html`<div data-view="overseer.off">
  ${header(s.name, s.title || s.room, [badge(s.running === false ? "not loaded" : "off", "bad")])}
  <p class="muted" data-field="off">
    The overseer is off: no model calls, no actions, no chat. Switch its mode to control or commentary to start it.
  </p>
</div>`;

// Connecting, or why the card shows nothing (not an administrator, no overseer yet).
export const messageView = (text, problem) => html`<div data-view="message">
  <div class=${problem ? "banner" : "muted"} data-field="message">${text}</div>
</div>`;
