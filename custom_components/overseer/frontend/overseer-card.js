/*
 * Overseer debug card: what the overseer saw, asked, got and did.
 *
 * Plain web components, no build step and no network: Home Assistant serves this file and
 * loads it on every dashboard. Everything the card shows that came from chat, the model or
 * entity names is untrusted and is inserted as text, never as HTML.
 */

// The integration serves this module as overseer-card.js?v=<its version>.
const CARD_VERSION = new URL(import.meta.url).searchParams.get("v") || "dev";
const PHASES = ["idle", "gate_check", "awaiting_model", "tool_exec", "posted", "failed"];

const esc = (value) =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const ago = (iso) => {
  if (!iso) return "never";
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
};

// The cooldown group of a tool, as the integration names them.
const groupOf = (tool) => (tool.startsWith("lift_") ? "lift" : tool.startsWith("neato_") ? "neato" : tool === "ha_set_entity" ? "ha" : "");

const remaining = (cooldown) => {
  if (!cooldown || !cooldown.until) return 0;
  return Math.max(0, Math.ceil((Date.parse(cooldown.until) - Date.now()) / 1000));
};

const STYLE = `
  :host { display: block; }
  ha-card { padding: 12px 16px 16px; color: var(--primary-text-color); }
  .header { display: flex; align-items: center; justify-content: space-between; gap: 8px; flex-wrap: wrap; }
  .title { font-size: 1.25em; font-weight: 500; }
  .badges { display: flex; gap: 6px; flex-wrap: wrap; }
  .badge { border-radius: 999px; padding: 2px 10px; font-size: 0.8em; background: var(--secondary-background-color);
           color: var(--primary-text-color); border: 1px solid var(--divider-color); }
  .badge.on { background: var(--success-color, #43a047); color: var(--text-primary-color, #fff); border-color: transparent; }
  .badge.warn { background: var(--warning-color, #ffa600); color: var(--text-primary-color, #fff); border-color: transparent; }
  .badge.bad { background: var(--error-color, #db4437); color: var(--text-primary-color, #fff); border-color: transparent; }
  .banner { margin: 10px 0 0; padding: 8px 12px; border-radius: 8px; background: var(--error-color, #db4437);
            color: var(--text-primary-color, #fff); font-weight: 500; }
  .phases { display: flex; gap: 4px; margin: 12px 0 4px; flex-wrap: wrap; }
  .phase { flex: 1; min-width: 70px; text-align: center; font-size: 0.75em; padding: 4px 2px; border-radius: 6px;
           background: var(--secondary-background-color); color: var(--secondary-text-color); }
  .phase.active { background: var(--primary-color); color: var(--text-primary-color, #fff); font-weight: 600; }
  .phase.active.phase-failed { background: var(--error-color, #db4437); }
  h3 { font-size: 0.95em; font-weight: 600; margin: 14px 0 6px; color: var(--secondary-text-color);
       text-transform: uppercase; letter-spacing: 0.04em; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 6px 12px; }
  .kv { display: flex; flex-direction: column; }
  .k { font-size: 0.75em; color: var(--secondary-text-color); }
  .v { font-size: 0.95em; overflow-wrap: anywhere; }
  pre { margin: 0; padding: 8px; border-radius: 6px; background: var(--code-editor-background-color, var(--secondary-background-color));
        font-size: 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 220px; overflow: auto; }
  table { width: 100%; border-collapse: collapse; font-size: 0.85em; }
  th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--divider-color); vertical-align: top; }
  th { color: var(--secondary-text-color); font-weight: 500; }
  .executed { color: var(--success-color, #43a047); }
  .blocked { color: var(--warning-color, #ffa600); }
  .failed { color: var(--error-color, #db4437); }
  .dry_run { color: var(--info-color, #039be5); }
  .cooldowns { display: flex; gap: 8px; flex-wrap: wrap; }
  .cooldown { flex: 1; min-width: 90px; padding: 6px 8px; border-radius: 8px; background: var(--secondary-background-color); }
  .cooldown .v { font-size: 1.2em; font-weight: 600; }
  .cooldown.ready .v { color: var(--success-color, #43a047); }
  .tools { display: flex; gap: 4px; flex-wrap: wrap; }
  .tool { font-family: var(--code-font-family, monospace); font-size: 0.8em; padding: 2px 6px; border-radius: 4px;
          background: var(--secondary-background-color); }
  .tool.blocked { border: 1px solid var(--warning-color, #ffa600); color: var(--primary-text-color); }
  .muted { color: var(--secondary-text-color); font-style: italic; }
  details summary { cursor: pointer; color: var(--secondary-text-color); font-size: 0.85em; margin: 6px 0; }
`;

class OverseerCard extends HTMLElement {
  static getConfigElement() {
    return document.createElement("overseer-card-editor");
  }

  static async getStubConfig(hass) {
    const entries = await hass.callWS({ type: "config_entries/get", domain: "overseer" });
    return { entry_id: entries.length ? entries[0].entry_id : "" };
  }

  setConfig(config) {
    if (!config || (config.entry_id !== undefined && typeof config.entry_id !== "string")) {
      throw new Error("entry_id must be the config entry id of an overseer");
    }
    if (this._config && this._config.entry_id !== config.entry_id) this._unsubscribe();
    this._config = config;
    this._subscribe();
    this._render();
  }

  set hass(hass) {
    const first = !this._hass;
    this._hass = hass;
    if (first) this._subscribe();
  }

  getCardSize() {
    return 12;
  }

  connectedCallback() {
    this._subscribe();
    // Only the countdowns tick locally; everything else arrives pushed from Home Assistant.
    this._timer = window.setInterval(() => this._tickCooldowns(), 1000);
  }

  disconnectedCallback() {
    window.clearInterval(this._timer);
    this._unsubscribe();
  }

  async _subscribe() {
    if (!this._hass || !this._config || this._unsub || this._subscribing || !this.isConnected) return;
    this._subscribing = true;
    try {
      // Without an entry_id the card follows the first overseer: the common one-room case.
      let entryId = this._config.entry_id;
      if (!entryId) {
        const entries = await this._hass.callWS({ type: "config_entries/get", domain: "overseer" });
        if (!entries.length) throw new Error("No overseer is configured yet: add the Overseer integration.");
        entryId = entries[0].entry_id;
      }
      this._unsub = await this._hass.connection.subscribeMessage(
        (status) => {
          this._status = status;
          this._error = undefined;
          this._render();
        },
        { type: "overseer/status/subscribe", entry_id: entryId },
      );
    } catch (err) {
      this._error = err && err.code === "unauthorized" ? "Only administrators can see the overseer's debug view." : (err && err.message) || String(err);
      this._render();
    } finally {
      this._subscribing = false;
    }
  }

  _unsubscribe() {
    if (this._unsub) {
      this._unsub();
      this._unsub = undefined;
    }
  }

  _tickCooldowns() {
    if (!this.shadowRoot || !this._status || !this._status.cooldowns) return;
    for (const [group, cooldown] of Object.entries(this._status.cooldowns)) {
      const cell = this.shadowRoot.querySelector(`[data-cooldown="${group}"]`);
      if (!cell) continue;
      const left = remaining(cooldown);
      cell.querySelector(".v").textContent = left ? `${left}s` : "ready";
      cell.classList.toggle("ready", left === 0);
      for (const chip of this.shadowRoot.querySelectorAll(`[data-cooling="${group}"] .left`)) {
        chip.textContent = left ? ` ${left}s` : " (ready soon)";
      }
    }
  }

  _render() {
    if (!this.shadowRoot) this.attachShadow({ mode: "open" });
    const status = this._status;
    let body;
    if (this._error) body = `<div class="banner">${esc(this._error)}</div>`;
    else if (!status) body = `<div class="muted">Connecting to the overseer…</div>`;
    else if (status.schema === "overseer.v2") body = this._control(status);
    else if (status.schema === "overseer.commentary") body = this._commentary(status);
    else body = this._off(status);
    this.shadowRoot.innerHTML = `<style>${STYLE}</style><ha-card>${body}</ha-card>`;
    this._tickCooldowns();
  }

  _header(status, badges) {
    return `
      <div class="header">
        <div class="title">${esc(status.name)} <span class="muted">· ${esc(status.title || status.room || "")}</span></div>
        <div class="badges">${badges.join("")}</div>
      </div>`;
  }

  // Header, model health and the phase strip: the top of both running views.
  _top(status, badges) {
    return `${this._header(status, badges)}${this._model(status)}${this._phases(status.phase)}`;
  }

  _badge(text, kind = "") {
    return `<span class="badge ${kind}">${esc(text)}</span>`;
  }

  _model(status) {
    const model = status.model || {};
    if (model.health === "unreachable" || model.health === "model_not_found") {
      const what = model.health === "unreachable" ? "The model is unreachable" : "The model was not found on the server";
      return `<div class="banner" data-model="${esc(model.health)}">${what}${model.detail ? `: ${esc(model.detail)}` : ""}</div>`;
    }
    return "";
  }

  _phases(phase) {
    return `<div class="phases">${PHASES.map(
      (p) => `<div class="phase ${p === phase ? "active" : ""} phase-${p}" data-phase="${p}">${esc(p.replace("_", " "))}</div>`,
    ).join("")}</div>`;
  }

  _kv(key, value, attrs = "") {
    return `<div class="kv" ${attrs}><span class="k">${esc(key)}</span><span class="v">${esc(value)}</span></div>`;
  }

  _trigger(status) {
    const trigger = status.last_trigger;
    if (!trigger) return this._kv("Last trigger", "none yet", 'data-field="last_trigger"');
    const detail = trigger.detail ? ` (${trigger.detail})` : "";
    return this._kv("Last trigger", `${trigger.kind}${detail} · ${ago(trigger.since)}`, 'data-field="last_trigger"');
  }

  _metrics(metrics) {
    if (!metrics) return "";
    const pct = (v) => (v === null || v === undefined ? "–" : `${Math.round(v * 100)}%`);
    const num = (v, unit = "") => (v === null || v === undefined ? "–" : `${v}${unit}`);
    return `<div class="grid" data-section="metrics">
      ${this._kv("Model calls / min", num(metrics.llm_calls_per_minute))}
      ${this._kv("Avg latency", num(metrics.llm_latency_avg_s, " s"))}
      ${metrics.skip_ratio !== undefined ? this._kv("Skipped", pct(metrics.skip_ratio)) : ""}
      ${metrics.stale_rate !== undefined ? this._kv("Stale", pct(metrics.stale_rate)) : ""}
      ${metrics.blocked_rate !== undefined ? this._kv("Blocked calls", pct(metrics.blocked_rate)) : ""}
      ${this._kv("Chat / min", num(metrics.chat_per_minute))}
      ${this._kv("Repeats dropped", pct(metrics.repeated_line_rate))}
      ${metrics.llm_failures !== undefined ? this._kv("Failures", num(metrics.llm_failures)) : ""}
    </div>`;
  }

  _control(s) {
    const badges = [
      this._badge(s.enabled ? "enabled" : "disabled", s.enabled ? "on" : ""),
      this._badge(s.running ? "running" : "stopped", s.running ? "on" : "bad"),
      this._badge(`site: ${s.site_mode}`, s.site_mode === "open" ? "" : "warn"),
    ];
    if (s.lights_locked_on) badges.push(this._badge("lights locked", "warn"));
    if (s.dry_run) badges.push(this._badge("dry run", "warn"));
    const decision = s.decision;
    const calls = s.tool_calls || { calls: [] };
    const cooldowns = Object.entries(s.cooldowns || {})
      .map(([group, cooldown]) => `<div class="cooldown" data-cooldown="${esc(group)}"><div class="k">${esc(group)}</div><div class="v"></div></div>`)
      .join("");
    const available = (s.available_tools || []).map((t) => `<span class="tool">${esc(t)}</span>`).join("") || '<span class="muted">none</span>';
    const blocked = (s.blocked_tools || [])
      .map((b) => {
        // Cooldowns count down live; other waits (the budget) show what the server said.
        const cooling = b.reason === "cooldown" ? `data-cooling="${groupOf(b.tool)}"` : "";
        const left = b.remaining ? ` ${esc(b.remaining)}s` : "";
        return `<span class="tool blocked" data-blocked="${esc(b.tool)}" ${cooling}>${esc(b.tool)} · ${esc(b.reason)}<span class="left">${left}</span></span>`;
      })
      .join("") || '<span class="muted">none</span>';
    const callRows = calls.calls.length
      ? calls.calls.map((c) => `<tr><td>${esc(c.tool)}</td><td class="${esc(c.outcome)}">${esc(c.outcome)}</td><td>${esc(c.reason || "")}</td></tr>`).join("")
      : `<tr><td colspan="3" class="muted">no tool calls</td></tr>`;
    const recent = (s.recent_actions || []).length
      ? s.recent_actions
          .map((a) => `<tr><td>${esc(ago(a.ts))}</td><td>${esc(a.tool)}</td><td class="${esc(a.outcome)}">${esc(a.outcome)}</td><td>${esc(a.reason || "")}</td></tr>`)
          .join("")
      : `<tr><td colspan="4" class="muted">nothing yet</td></tr>`;
    const input = s.model_input;
    return `
      ${this._top(s, badges)}
      <div class="grid">
        ${this._trigger(s)}
        ${this._kv("Decision", decision ? decision.mode + (decision.stale ? " (stale)" : "") : "none yet", 'data-field="decision"')}
        ${this._kv("Latency", decision ? `${decision.latency_ms} ms` : "–")}
        ${this._kv("Tokens in / out", decision ? `${decision.prompt_tokens ?? "?"} / ${decision.completion_tokens ?? "?"}` : "–")}
        ${this._kv("Model input", input ? `${input.messages} msgs · ${input.characters} chars · ~${input.estimated_tokens} tok` : "–")}
        ${this._kv("Budget", s.budget ? `${s.budget.used}/${s.budget.limit} in ${s.budget.window_s}s` : "–")}
      </div>
      ${decision && decision.chat ? `<h3>Said</h3><div class="v" data-field="chat">${esc(decision.chat)}</div>` : ""}
      <h3>Cooldowns</h3><div class="cooldowns">${cooldowns}</div>
      <h3>Tools</h3>
      <div class="tools" data-section="available">${available}</div>
      <div class="tools" data-section="blocked" style="margin-top:6px">${blocked}</div>
      <h3>Last decision's tool calls</h3>
      <div class="k">attempted ${esc(calls.attempted ?? 0)} · executed ${esc(calls.executed ?? 0)} · blocked ${esc(calls.blocked ?? 0)} · failed ${esc(calls.failed ?? 0)} · dry run ${esc(calls.dry_run ?? 0)}</div>
      <table data-section="calls"><tr><th>tool</th><th>outcome</th><th>reason</th></tr>${callRows}</table>
      <h3>Recent actions</h3>
      <table data-section="recent"><tr><th>when</th><th>tool</th><th>outcome</th><th>reason</th></tr>${recent}</table>
      <h3>Memory</h3>
      <div class="grid">${(s.memory || []).map((m, i) => this._kv(`Slot ${i + 1}`, m || "(empty)")).join("")}</div>
      <h3>Metrics</h3>${this._metrics(s.metrics)}
      ${s.last_error ? `<h3>Last error</h3><pre class="failed" data-field="last_error">${esc(s.last_error)}</pre>` : ""}
      <details><summary>Last STATE_UPDATE</summary><pre data-field="state_update">${esc(s.state_update || "none yet")}</pre></details>
      <details><summary>Raw model output</summary><pre data-field="model_output">${esc(s.model_output || "none yet")}</pre></details>`;
  }

  _commentary(s) {
    const badges = [this._badge("commentary", "on"), this._badge(s.running ? "running" : "stopped", s.running ? "on" : "bad")];
    return `
      ${this._top(s, badges)}
      <div class="grid">
        ${this._trigger(s)}
        ${this._kv("Last comment", s.last_comment || "none yet", 'data-field="last_comment"')}
      </div>
      <h3>Metrics</h3>${this._metrics(s.metrics)}
      ${s.last_error ? `<h3>Last error</h3><pre class="failed">${esc(s.last_error)}</pre>` : ""}
      <details><summary>Raw model output</summary><pre>${esc(s.model_output || "none yet")}</pre></details>`;
  }

  _off(s) {
    return `
      ${this._header(s, [this._badge(s.running === false ? "not loaded" : "off", "bad")])}
      <p class="muted" data-field="off">The overseer is off: no model calls, no actions, no chat. Switch its mode to control or commentary to start it.</p>`;
  }
}

class OverseerCardEditor extends HTMLElement {
  setConfig(config) {
    this._config = { ...config };
    this._render();
  }

  set hass(hass) {
    const first = !this._hass;
    this._hass = hass;
    if (first) this._load();
  }

  async _load() {
    this._entries = await this._hass.callWS({ type: "config_entries/get", domain: "overseer" });
    this._render();
  }

  _render() {
    if (!this.shadowRoot) this.attachShadow({ mode: "open" });
    const entries = this._entries || [];
    const options = entries
      .map((e) => `<option value="${esc(e.entry_id)}" ${this._config && this._config.entry_id === e.entry_id ? "selected" : ""}>${esc(e.title)}</option>`)
      .join("");
    this.shadowRoot.innerHTML = `
      <style>label { display: block; margin-bottom: 4px; color: var(--secondary-text-color); }
      select { width: 100%; padding: 8px; background: var(--card-background-color); color: var(--primary-text-color);
               border: 1px solid var(--divider-color); border-radius: 4px; }</style>
      <label for="entry">Overseer</label>
      <select id="entry"><option value="">Pick an overseer…</option>${options}</select>`;
    this.shadowRoot.getElementById("entry").addEventListener("change", (ev) => {
      this._config = { ...this._config, entry_id: ev.target.value };
      this.dispatchEvent(new CustomEvent("config-changed", { detail: { config: this._config }, bubbles: true, composed: true }));
    });
  }
}

if (!customElements.get("overseer-card")) {
  customElements.define("overseer-card", OverseerCard);
  customElements.define("overseer-card-editor", OverseerCardEditor);
  window.customCards = window.customCards || [];
  window.customCards.push({
    type: "overseer-card",
    name: "Overseer debug card",
    description: "Loop phase, triggers, model input and output, tool calls with reasons, live cooldowns.",
    preview: false,
  });
  console.info(`%c OVERSEER-CARD %c ${CARD_VERSION} `, "background:#222;color:#fff", "");
}
