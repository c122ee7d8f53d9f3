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

// When something ends, counted down: "in 42s", "in 9m".
const until = (iso) => {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (Number.isNaN(seconds)) return "";
  if (seconds <= 0) return "now";
  if (seconds < 60) return `in ${seconds}s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)}m`;
  return `in ${Math.round(seconds / 3600)}h`;
};

// A moment as the browser's clock time; the full date and time on hover.
const clock = (iso) => {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const date = new Date(at);
  return `<time datetime="${esc(iso)}" title="${esc(date.toLocaleString())}">${esc(date.toLocaleTimeString())}</time>`;
};

// Thousands apart by a narrow no-break space: "3 845".
const num = (value) => (typeof value === "number" ? Math.round(value).toLocaleString("en-US").replace(/,/g, "\u202f") : String(value ?? "?"));

const remaining = (cooldown) => {
  if (!cooldown || !cooldown.until) return 0;
  return Math.max(0, Math.ceil((Date.parse(cooldown.until) - Date.now()) / 1000));
};

// Incident statuses as badges: what still needs the overseer or a person stands out.
const INCIDENT_BADGES = { open: "warn", triaging: "warn", awaiting_approval: "warn", verifying: "", needs_human: "bad", resolved: "on" };
// Approval statuses as the colours of the tool-call outcomes.
const APPROVAL_CLASSES = { approved: "executed", executed: "executed", blocked: "blocked", denied: "failed", expired: "muted" };

// Plain words for every model health except "ok" and "unknown", which need no banner.
const HEALTH_WORDS = {
  unreachable: "The model is unreachable",
  model_not_found: "The model was not found on the server",
  invalid_auth: "The server refused the API key",
  error: "The model gave an error",
};

// The skeleton of each view, built once when the card switches to it; pushes then only fill
// its slots. data-slot: HTML rewritten only when it changed. data-text: a text-only element
// (the pre blocks), its scroll position kept. data-block: shown only while its text is set.
// data-details: a <details> kept across pushes, keyed so its open state survives a view switch.
const SKELETONS = {
  message: `<div data-slot="message"></div>`,
  off: `<div data-slot="header"></div>
    <p class="muted" data-field="off">The overseer is off: no model calls, no actions, no chat. Switch its mode to control or commentary to start it.</p>`,
  "overseer.v2": `
    <div data-slot="header"></div>
    <div data-slot="model"></div>
    <div data-slot="phases"></div>
    <div class="grid" data-slot="summary"></div>
    <div data-block="chat" hidden><h3>Said</h3><div class="v" data-field="chat" data-text="chat"></div></div>
    <div data-slot="approvals"></div>
    <h3>Incidents</h3><div data-slot="incidents"></div>
    <h3>Conversation</h3>
    <div class="tabs" role="tablist">
      <button type="button" role="tab" data-tab="room_chat">Room chat (live)</button>
      <button type="button" role="tab" data-tab="transcript">What the model saw</button>
    </div>
    <div class="chat" data-section="room_chat" data-slot="room_chat" data-list="room_chat" role="tabpanel"></div>
    <div class="chat" data-section="transcript" data-slot="transcript" data-list="transcript" role="tabpanel"></div>
    <h3>Cooldowns</h3><div class="cooldowns" data-slot="cooldowns"></div>
    <h3>Tools</h3>
    <div class="tools" data-section="available" data-slot="available"></div>
    <div class="tools" data-section="blocked" data-slot="blocked" style="margin-top:6px"></div>
    <h3>Last decision's tool calls</h3>
    <div class="k" data-slot="counts"></div>
    <div data-slot="calls"></div>
    <h3>Recent actions</h3><div data-slot="recent"></div>
    <h3>Memory</h3><div class="grid" data-slot="memory"></div>
    <h3>Metrics</h3><div data-slot="metrics"></div>
    <div data-block="last_error" hidden><h3>Last error</h3><pre class="failed" data-field="last_error" data-text="last_error"></pre></div>
    <details data-details="state_update"><summary>Last STATE_UPDATE</summary><pre data-field="state_update" data-text="state_update"></pre></details>
    <details data-details="model_output"><summary>Raw model output</summary><pre data-field="model_output" data-text="model_output"></pre></details>`,
  "overseer.commentary": `
    <div data-slot="header"></div>
    <div data-slot="model"></div>
    <div data-slot="phases"></div>
    <div class="grid" data-slot="summary"></div>
    <h3>Metrics</h3><div data-slot="metrics"></div>
    <div data-block="last_error" hidden><h3>Last error</h3><pre class="failed" data-field="last_error" data-text="last_error"></pre></div>
    <details data-details="model_output"><summary>Raw model output</summary><pre data-field="model_output" data-text="model_output"></pre></details>`,
  // A room's orchestrator: who takes part, its limits, and its pipelines (the running one,
  // then the last ones, newest first), each opening to its answers, scores and steps.
  "overseer.orchestrator": `
    <div data-slot="header"></div>
    <div class="progress" data-slot="progress"></div>
    <h3>Participants</h3><div data-slot="participants"></div>
    <h3>Limits</h3><div class="grid" data-slot="limits"></div>
    <h3>Running pipeline</h3><div data-slot="running"></div>
    <h3>Recent pipelines</h3><div data-slot="pipelines"></div>`,
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
  .cooldown .members { font-family: var(--code-font-family, monospace); }
  .tools { display: flex; gap: 4px; flex-wrap: wrap; }
  .tool { font-family: var(--code-font-family, monospace); font-size: 0.8em; padding: 2px 6px; border-radius: 4px;
          background: var(--secondary-background-color); }
  .tool.blocked { border: 1px solid var(--warning-color, #ffa600); color: var(--primary-text-color); }
  .muted { color: var(--secondary-text-color); font-style: italic; }
  .tabs { display: flex; gap: 4px; margin-bottom: 6px; }
  .tabs button { flex: 1; font: inherit; font-size: 0.8em; padding: 4px 8px; border-radius: 6px; cursor: pointer;
                 border: 1px solid var(--divider-color); background: var(--secondary-background-color); color: var(--secondary-text-color); }
  .tabs button[aria-selected="true"] { background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); border-color: transparent; }
  .chat { max-height: 260px; overflow: auto; display: flex; flex-direction: column; gap: 4px; padding: 6px;
          border-radius: 6px; border: 1px solid var(--divider-color); }
  .chat[hidden] { display: none; }
  .line { padding: 3px 8px; border-radius: 8px; background: var(--secondary-background-color); max-width: 92%; align-self: flex-start; }
  .line .meta { display: flex; gap: 6px; align-items: baseline; font-size: 0.75em; color: var(--secondary-text-color); }
  .line .who { font-weight: 600; color: var(--primary-text-color); }
  .line .text { font-size: 0.9em; overflow-wrap: anywhere; white-space: pre-wrap; }
  .line .tag { border-radius: 4px; padding: 0 4px; border: 1px solid var(--divider-color); font-size: 0.9em; }
  .line.bot .text { color: var(--secondary-text-color); }
  .line.own { align-self: flex-end; background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); }
  .line.own .meta, .line.own .who, .line.own .text { color: var(--text-primary-color, #fff); }
  .line.own .tag { border-color: currentColor; }
  details summary { cursor: pointer; color: var(--secondary-text-color); font-size: 0.85em; margin: 6px 0; }
  .incident { border: 1px solid var(--divider-color); border-radius: 8px; padding: 0 8px; margin: 4px 0; }
  .incident[open] { padding-bottom: 8px; }
  .incident summary { color: var(--primary-text-color); overflow-wrap: anywhere; }
  .incident summary .badge { font-size: 0.9em; padding: 0 8px; }
  .incident .grid { margin: 4px 0 8px; }
  .incident td { overflow-wrap: anywhere; }
  .incident td:nth-child(-n + 2) { white-space: nowrap; } /* the time and what */
  .subhead { font-size: 0.75em; color: var(--secondary-text-color); margin: 8px 0 2px; }
  .approval { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 4px 12px;
              margin: 4px 0; padding: 6px 8px; border-radius: 8px; border: 1px solid var(--warning-color, #ffa600); }
  .call { font-family: var(--code-font-family, monospace); font-size: 0.85em; overflow-wrap: anywhere; }
  .answer { display: flex; gap: 6px; }
  .answer button { font: inherit; font-size: 0.8em; padding: 4px 12px; border-radius: 6px; cursor: pointer;
                   border: 1px solid var(--divider-color); background: var(--secondary-background-color); color: var(--primary-text-color); }
  .answer button[data-answer="approve"] { background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); border-color: transparent; }
  .answer button:disabled { opacity: 0.5; cursor: default; }
  .approval .failed { flex-basis: 100%; font-size: 0.85em; }
  .progress { margin: 10px 0 0; padding: 6px 10px; border-radius: 8px; background: var(--secondary-background-color);
              font-family: var(--code-font-family, monospace); overflow-wrap: anywhere; }
  .pipeline .answer-text { white-space: pre-wrap; }
`;

class OverseerCard extends HTMLElement {
  static getConfigElement() {
    return document.createElement("overseer-card-editor");
  }

  static async getStubConfig(hass) {
    const entries = await hass.callWS({ type: "config_entries/get", domain: "overseer" });
    return { entry_id: entries.length ? entries[0].entry_id : "" };
  }

  constructor() {
    super();
    this._open = {}; // details key -> open, kept across pushes and view switches
    this._renders = 0;
    this._builds = 0;
    this._chatTab = "room_chat"; // the conversation tab shown, kept across pushes and view switches
    this._answers = {}; // approval id -> { busy } while its answer is sent, { error } when refused
  }

  setConfig(config) {
    if (!config || (config.entry_id !== undefined && typeof config.entry_id !== "string")) {
      throw new Error("entry_id must be the config entry id of an overseer");
    }
    if (this._config && this._config.entry_id !== config.entry_id) {
      this._unsubscribe();
      this._status = undefined;
    }
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
    window.clearInterval(this._timer);
    this._timer = window.setInterval(() => {
      this._tickCooldowns();
      this._tickTimes();
    }, 1000);
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

  // Rendering in place: a push never replaces the card, so nothing the user opened, scrolled
  // or focused is lost. Only a section whose HTML changed is rewritten.

  _render() {
    if (!this.shadowRoot) this.attachShadow({ mode: "open" });
    const status = this._status;
    let view;
    let parts;
    if (this._error) [view, parts] = ["message", { html: { message: `<div class="banner">${esc(this._error)}</div>` } }];
    else if (!status) [view, parts] = ["message", { html: { message: `<div class="muted">Connecting to the overseer…</div>` } }];
    else if (status.schema === "overseer.v2") [view, parts] = [status.schema, this._control(status)];
    else if (status.schema === "overseer.commentary") [view, parts] = [status.schema, this._commentary(status)];
    else if (status.schema === "overseer.orchestrator") [view, parts] = [status.schema, this._orchestrator(status)];
    else [view, parts] = ["off", this._off(status)];
    if (view !== this._view) this._build(view);
    for (const [name, html] of Object.entries(parts.html || {})) this._setHtml(name, html);
    for (const [name, text] of Object.entries(parts.text || {})) this._setText(name, text);
    this._renders += 1;
    this.dataset.renders = String(this._renders);
    this._tickCooldowns();
    this._tickTimes();
  }

  _build(view) {
    this._view = view;
    this._builds += 1;
    this.dataset.builds = String(this._builds);
    this.shadowRoot.innerHTML = `<style>${STYLE}</style><ha-card>${SKELETONS[view]}</ha-card>`;
    this._slots = {};
    this._html = {};
    for (const el of this.shadowRoot.querySelectorAll("[data-slot]")) this._slots[el.dataset.slot] = el;
    this._texts = {};
    for (const el of this.shadowRoot.querySelectorAll("[data-text]")) this._texts[el.dataset.text] = el;
    this._blocks = {};
    this._scrolls = {};
    for (const el of this.shadowRoot.querySelectorAll("[data-block]")) this._blocks[el.dataset.block] = el;
    this._keepDetails(this.shadowRoot);
    this._cooldownCells = undefined;
    // Approve / Deny: one listener on the slot, which outlives the buttons it rewrites.
    if (this._slots.approvals) {
      this._slots.approvals.addEventListener("click", (ev) => {
        const button = ev.target.closest("button[data-answer]");
        if (button) this._answer(button.dataset.approval, button.dataset.answer);
      });
    }
    // The conversation: two chat lists behind tabs. Each follows its newest line unless the
    // user scrolled up in it to read; then it stays where they are.
    this._stick = {};
    this._tops = {};
    for (const list of this.shadowRoot.querySelectorAll("[data-list]")) {
      const name = list.dataset.list;
      list.addEventListener("scroll", () => {
        if (list.hidden || !list.getClientRects().length) return;
        this._tops[name] = list.scrollTop;
        this._stick[name] = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
      });
    }
    for (const button of this.shadowRoot.querySelectorAll("button[data-tab]")) {
      button.addEventListener("click", () => this._showTab(button.dataset.tab));
    }
    if (this.shadowRoot.querySelector("[data-list]")) this._showTab(this._chatTab);
  }

  _setHtml(name, html) {
    const slot = this._slots[name];
    if (!slot || this._html[name] === html) return;
    this._html[name] = html;
    const top = slot.scrollTop;
    // The focused element (a summary, a button) is focused again in the new HTML by its key.
    const focused = this.shadowRoot.activeElement;
    const key = focused && slot.contains(focused) ? focused.dataset.key : undefined;
    slot.innerHTML = html;
    this._keepDetails(slot);
    if (key) {
      const again = [...slot.querySelectorAll("[data-key]")].find((el) => el.dataset.key === key);
      if (again) again.focus();
    }
    if (name === "cooldowns" || name === "blocked") this._cooldownCells = undefined;
    if (slot.dataset.list !== undefined) {
      this._tickTimes(slot);
      this._follow(slot, top);
    }
  }

  // Each <details data-details> opens as the user left it, and remembers what they do with it.
  _keepDetails(root) {
    for (const details of root.querySelectorAll("details[data-details]")) {
      const key = details.dataset.details;
      details.open = Boolean(this._open[key]);
      details.addEventListener("toggle", () => {
        this._open[key] = details.open;
      });
    }
  }

  _showTab(tab) {
    this._chatTab = tab;
    for (const button of this.shadowRoot.querySelectorAll("button[data-tab]")) {
      button.setAttribute("aria-selected", String(button.dataset.tab === tab));
    }
    for (const list of this.shadowRoot.querySelectorAll("[data-list]")) {
      list.hidden = list.dataset.list !== tab;
      if (!list.hidden) this._follow(list, this._tops[list.dataset.list] || 0);
    }
  }

  // To the newest line, or back to where the user had scrolled.
  _follow(list, top) {
    list.scrollTop = this._stick[list.dataset.list] === false ? top : list.scrollHeight;
  }

  // Relative times (chat lines, incidents) and expiries, kept current every second without
  // rewriting the sections they are in.
  _tickTimes(root = this.shadowRoot) {
    if (!root) return;
    for (const time of root.querySelectorAll("time[data-ts]")) {
      const text = ago(time.dataset.ts);
      if (time.textContent !== text) time.textContent = text;
    }
    for (const time of root.querySelectorAll("time[data-until]")) {
      const text = until(time.dataset.until);
      if (time.textContent !== text) time.textContent = text;
    }
  }

  // Chat lines as the room saw them: who, when, a bot or the overseer itself, and the text
  // (untrusted: escaped). The time is filled in by _tickTimes.
  _lines(lines, empty) {
    if (!Array.isArray(lines) || !lines.length) return `<div class="muted">${esc(empty)}</div>`;
    return lines
      .map((line) => {
        const kind = line.own ? "own" : line.bot ? "bot" : "human";
        const tag = line.own ? '<span class="tag">overseer</span>' : line.bot ? '<span class="tag">bot</span>' : "";
        const at = Date.parse(line.ts);
        const when = Number.isNaN(at) ? "" : `<time data-ts="${esc(line.ts)}" datetime="${esc(line.ts)}" title="${esc(new Date(at).toLocaleString())}"></time>`;
        return `<div class="line ${kind}" data-line="${kind}" data-user="${esc(line.user)}"><div class="meta"><span class="who">${esc(line.user)}</span>${tag}${when}</div><div class="text">${esc(line.text)}</div></div>`;
      })
      .join("");
  }

  // The model input's size: the server's prompt token count beside the estimate when the
  // backend reports it.
  _input(input, decision) {
    if (!input) return "–";
    const size = `${num(input.messages)} msgs · ${num(input.characters)} chars`;
    const counted = decision && typeof decision.prompt_tokens === "number";
    if (!counted) return `${size} · ~${num(input.estimated_tokens)} tok (est.)`;
    return `${size} · ${num(decision.prompt_tokens)} tok (server) / ~${num(input.estimated_tokens)} est.`;
  }

  // Text for a data-text element; null hides its data-block, if it has one.
  _setText(name, text) {
    const el = this._texts[name];
    if (!el) return;
    const block = this._blocks[name];
    if (block) block.hidden = text === null || text === undefined;
    const value = String(text ?? "");
    if (el.textContent === value) return;
    if (!el.getClientRects().length) {
      el.textContent = value; // not laid out (a closed section): there is no scroll position
      return;
    }
    // Keep where the user scrolled to, even through a shorter text in between (a new cycle's
    // "none yet"), which clamps the position: only the user's own scrolling changes the aim.
    const scroll = (this._scrolls[name] ||= { wanted: 0, applied: 0 });
    if (el.scrollTop !== scroll.applied) scroll.wanted = el.scrollTop;
    el.textContent = value;
    el.scrollTop = scroll.wanted;
    scroll.applied = el.scrollTop;
  }

  // The room's cooldown groups in order, each with when it ends: from `groups`, or from the
  // older `cooldowns` object when a server does not send them.
  _groups(status) {
    if (Array.isArray(status.groups)) return status.groups;
    return Object.entries(status.cooldowns || {}).map(([group, cooldown]) => ({ group, ...cooldown }));
  }

  _tickCooldowns() {
    const status = this._status;
    if (!this.shadowRoot || !status || status.schema !== "overseer.v2" || this._view !== status.schema) return;
    if (!this._cooldownCells) {
      this._cooldownCells = { tiles: {}, chips: {} };
      for (const tile of this.shadowRoot.querySelectorAll("[data-cooldown]")) this._cooldownCells.tiles[tile.dataset.cooldown] = tile;
      for (const chip of this.shadowRoot.querySelectorAll("[data-cooling]")) {
        (this._cooldownCells.chips[chip.dataset.cooling] ||= []).push(chip.querySelector(".left"));
      }
    }
    for (const cooldown of this._groups(status)) {
      const left = remaining(cooldown);
      const tile = this._cooldownCells.tiles[cooldown.group];
      if (tile) {
        const value = tile.querySelector(".v");
        const text = left ? `${left}s` : "ready";
        if (value.textContent !== text) value.textContent = text;
        tile.classList.toggle("ready", left === 0);
      }
      for (const chip of this._cooldownCells.chips[cooldown.group] || []) {
        const text = left ? ` ${left}s` : " (ready soon)";
        if (chip.textContent !== text) chip.textContent = text;
      }
    }
  }

  _header(status, badges) {
    return `
      <div class="header">
        <div class="title">${esc(status.name)} <span class="muted">· ${esc(status.title || status.room || "")}</span></div>
        <div class="badges">${badges.join("")}</div>
      </div>`;
  }

  _badge(text, kind = "") {
    return `<span class="badge ${kind}">${esc(text)}</span>`;
  }

  _model(status) {
    const model = status.model || {};
    const health = model.health;
    if (!health || health === "ok" || health === "unknown") return "";
    const what = HEALTH_WORDS[health] || `The model is not healthy (${health})`;
    return `<div class="banner" data-model="${esc(health)}">${esc(what)}${model.detail ? `: ${esc(model.detail)}` : ""}</div>`;
  }

  _phases(phase) {
    return `<div class="phases">${PHASES.map(
      (p) => `<div class="phase ${p === phase ? "active" : ""} phase-${p}" data-phase="${p}">${esc(p.replace("_", " "))}</div>`,
    ).join("")}</div>`;
  }

  // Header, model health and the phase strip: the top of both running views.
  _top(status, badges) {
    return { header: this._header(status, badges), model: this._model(status), phases: this._phases(status.phase) };
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

  // Active incidents first, then the recently resolved ones; each opens to what the overseer
  // found, tried and when. Its open state is kept by incident id across pushes.
  _incidents(incidents) {
    if (!Array.isArray(incidents) || !incidents.length) return '<div class="muted">no incidents</div>';
    const active = incidents.filter((i) => i.status !== "resolved");
    const resolved = incidents.filter((i) => i.status === "resolved");
    const label = resolved.length && active.length ? '<div class="subhead">Recently resolved</div>' : "";
    return [...active.map((i) => this._incident(i)), label, ...resolved.map((i) => this._incident(i))].join("");
  }

  _incident(i) {
    const id = esc(i.incident_id);
    const fault = `${i.fault}${i.detail ? ` (${i.detail})` : ""}`;
    const opened = Date.parse(i.opened);
    const when = Number.isNaN(opened) ? "" : ` · <time data-ts="${esc(i.opened)}" title="${esc(new Date(opened).toLocaleString())}"></time>`;
    const checks = Object.entries(i.checks || {}).map(([check, passed]) => `${check} ${passed ? "✓" : "✗"}`);
    const steps = (i.timeline || [])
      .map((step) => `<tr><td>${clock(step.ts)}</td><td>${esc(step.what)}</td><td>${esc(step.detail)}</td></tr>`)
      .join("");
    return `<details class="incident" data-details="incident:${id}" data-incident="${id}" data-status="${esc(i.status)}">
      <summary data-key="incident:${id}">${this._badge(String(i.status).replace(/_/g, " "), INCIDENT_BADGES[i.status] || "")}
        <b>${id}</b> ${esc(i.asset_id)} · ${esc(fault)}${when}</summary>
      <div class="grid">
        ${this._kv("Asset", `${i.asset_id} (${i.kind})`)}
        ${this._kv("Fault", fault)}
        ${this._kv("Status", `${i.status}${i.reopened ? ` · reopened ${i.reopened}×` : ""}`, 'data-field="status"')}
        ${checks.length ? this._kv("Checks", checks.join(", ")) : ""}
        ${this._kv("Diagnosis", i.diagnosis || "none yet", 'data-field="diagnosis"')}
        ${this._kv("Recommended", i.recommended || "none yet", 'data-field="recommended"')}
        ${this._kv("Tried", (i.tried || []).join(", ") || "nothing yet", 'data-field="tried"')}
        ${i.attempts ? this._kv("Rejected replies", i.attempts) : ""}
        ${i.root_cause ? this._kv("Root cause", i.root_cause) : ""}
        ${i.resolution ? this._kv("Resolution", i.resolution) : ""}
      </div>
      <table data-section="timeline"><tr><th>time</th><th>what</th><th>detail</th></tr>${steps}</table>
    </details>`;
  }

  // A call as the overseer words it elsewhere (notifications, the timeline): tool(key=value).
  _call(approval) {
    const args = Object.entries(approval.arguments || {}).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    return `${approval.tool}(${args.join(", ")})`;
  }

  // Pending approvals with Approve / Deny for an administrator, then the answered ones.
  _approvals(approvals) {
    if (!Array.isArray(approvals) || !approvals.length) return "";
    const admin = Boolean(this._hass && this._hass.user && this._hass.user.is_admin);
    const waiting = approvals.filter((a) => a.status === "pending");
    const answered = approvals.filter((a) => a.status !== "pending");
    const blocks = waiting.map((a) => {
      const id = esc(a.approval_id);
      const state = this._answers[a.approval_id] || {};
      const busy = state.busy ? "disabled" : "";
      const buttons = admin
        ? `<div class="answer">
            <button type="button" data-answer="approve" data-approval="${id}" data-key="approve:${id}" ${busy}>Approve</button>
            <button type="button" data-answer="deny" data-approval="${id}" data-key="deny:${id}" ${busy}>Deny</button>
          </div>`
        : '<span class="muted">an administrator answers</span>';
      const error = state.error ? `<div class="failed" data-field="answer_error">${esc(state.error)}</div>` : "";
      return `<div class="approval" data-approval="${id}">
        <div><div class="call">${esc(this._call(a))}</div>
          <div class="k">${id} · for ${esc(a.incident_id)} · expires <time data-until="${esc(a.expires)}"></time></div></div>
        ${buttons}${error}
      </div>`;
    });
    const rows = answered.map((a) => {
      const who = [a.decided_by ? `by ${a.decided_name || a.decided_by}` : "", a.reason ? `(${a.reason})` : ""];
      // A late answer from this card (another approver was quicker): its refusal, under the row.
      const state = this._answers[a.approval_id] || {};
      const error = state.error ? `<div class="failed" data-field="answer_error">${esc(state.error)}</div>` : "";
      return `<tr data-approval="${esc(a.approval_id)}"><td class="call">${esc(this._call(a))}</td><td>${esc(a.incident_id)}</td>
        <td class="${APPROVAL_CLASSES[a.status] || ""}" data-field="approval_status">${esc(a.status)}</td>
        <td>${esc(who.filter(Boolean).join(" "))}${error}</td></tr>`;
    });
    const table = rows.length
      ? `<table data-section="answered"><tr><th>call</th><th>incident</th><th>status</th><th>answered</th></tr>${rows.join("")}</table>`
      : "";
    return `<h3>Approvals</h3>${blocks.join("")}${table}`;
  }

  // The answer goes to the services; the refusal's message (not an approver, answered
  // already, expired) is shown beside the approval instead of a toast.
  async _answer(approvalId, answer) {
    if (!approvalId || (answer !== "approve" && answer !== "deny")) return;
    if (this._answers[approvalId] && this._answers[approvalId].busy) return;
    this._answers[approvalId] = { busy: true };
    this._render();
    try {
      await this._hass.callService("overseer", answer, { approval_id: approvalId }, undefined, false);
      delete this._answers[approvalId]; // the status push shows what became of it
    } catch (err) {
      this._answers[approvalId] = { error: (err && err.message) || String(err) };
    }
    this._render();
  }

  _cooldownTiles(s) {
    return this._groups(s)
      .map((g) => {
        const length = g.cooldown_s ? ` · ${esc(g.cooldown_s)}s` : "";
        const members = Array.isArray(g.tools) && g.tools.length ? `<div class="k members">${g.tools.map(esc).join(" ")}</div>` : "";
        // The value is filled in, and kept counting down, by _tickCooldowns.
        return `<div class="cooldown" data-cooldown="${esc(g.group)}"><div class="k">${esc(g.group)}${length}</div><div class="v"></div>${members}</div>`;
      })
      .join("") || '<span class="muted">no cooldown groups</span>';
  }

  _blockedTools(s) {
    const counting = new Set(this._groups(s).map((g) => g.group));
    const tools = s.tools || {};
    return (s.blocked_tools || [])
      .map((b) => {
        // A cooldown of a known group counts down live; other waits (the budget), and tools
        // the server did not place in a group, show what the server said.
        const group = tools[b.tool] && tools[b.tool].group;
        const live = b.reason === "cooldown" && group && counting.has(group);
        const cooling = live ? `data-cooling="${esc(group)}"` : "";
        const left = !live && b.remaining ? ` ${esc(b.remaining)}s` : "";
        return `<span class="tool blocked" data-blocked="${esc(b.tool)}" ${cooling}>${esc(b.tool)} · ${esc(b.reason)}<span class="left">${left}</span></span>`;
      })
      .join("") || '<span class="muted">none</span>';
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
    const available = (s.available_tools || []).map((t) => `<span class="tool">${esc(t)}</span>`).join("") || '<span class="muted">none</span>';
    const callRows = (calls.calls || []).length
      ? calls.calls.map((c) => `<tr><td>${esc(c.tool)}</td><td class="${esc(c.outcome)}">${esc(c.outcome)}</td><td>${esc(c.reason || "")}</td></tr>`).join("")
      : `<tr><td colspan="3" class="muted">no tool calls</td></tr>`;
    const recent = (s.recent_actions || []).length
      ? s.recent_actions
          .map((a) => `<tr><td>${esc(ago(a.ts))}</td><td>${esc(a.tool)}</td><td class="${esc(a.outcome)}">${esc(a.outcome)}</td><td>${esc(a.reason || "")}</td></tr>`)
          .join("")
      : `<tr><td colspan="4" class="muted">nothing yet</td></tr>`;
    const input = s.model_input;
    return {
      html: {
        ...this._top(s, badges),
        summary: `
          ${this._trigger(s)}
          ${this._kv("Decision", decision ? decision.mode + (decision.stale ? " (stale)" : "") : "none yet", 'data-field="decision"')}
          ${this._kv("Latency", decision ? `${decision.latency_ms} ms` : "–")}
          ${this._kv("Tokens in / out", decision ? `${decision.prompt_tokens ?? "?"} / ${decision.completion_tokens ?? "?"}` : "–")}
          ${this._kv("Model input", this._input(input, decision), 'data-field="model_input"')}
          ${this._kv("Budget", s.budget ? `${s.budget.used}/${s.budget.limit} in ${s.budget.window_s}s` : "–")}`,
        cooldowns: this._cooldownTiles(s),
        available,
        blocked: this._blockedTools(s),
        counts: `attempted ${esc(calls.attempted ?? 0)} · executed ${esc(calls.executed ?? 0)} · blocked ${esc(calls.blocked ?? 0)} · failed ${esc(calls.failed ?? 0)} · dry run ${esc(calls.dry_run ?? 0)}`,
        calls: `<table data-section="calls"><tr><th>tool</th><th>outcome</th><th>reason</th></tr>${callRows}</table>`,
        recent: `<table data-section="recent"><tr><th>when</th><th>tool</th><th>outcome</th><th>reason</th></tr>${recent}</table>`,
        room_chat: this._lines(s.chat, "no chat yet"),
        transcript: this._lines(s.transcript, decision || input ? "the model saw no chat lines" : "no decision yet"),
        memory: (s.memory || []).map((m, i) => this._kv(`Slot ${i + 1}`, m || "(empty)")).join(""),
        approvals: this._approvals(s.approvals),
        incidents: this._incidents(s.incidents),
        metrics: this._metrics(s.metrics),
      },
      text: {
        chat: decision && decision.chat ? decision.chat : null,
        last_error: s.last_error || null,
        state_update: s.state_update || "none yet",
        model_output: s.model_output || "none yet",
      },
    };
  }

  _commentary(s) {
    const badges = [this._badge("commentary", "on"), this._badge(s.running ? "running" : "stopped", s.running ? "on" : "bad")];
    return {
      html: {
        ...this._top(s, badges),
        summary: `
          ${this._trigger(s)}
          ${this._kv("Last comment", s.last_comment || "none yet", 'data-field="last_comment"')}`,
        metrics: this._metrics(s.metrics),
      },
      text: {
        last_error: s.last_error || null,
        model_output: s.model_output || "none yet",
      },
    };
  }

  // The orchestrator's view. Bots are shown by their names in the room; an id that is no
  // participant (any more) is shown as it is.
  _orchestrator(s) {
    const participants = Array.isArray(s.participants) ? s.participants : [];
    const names = Object.fromEntries(participants.map((p) => [p.agent_id, p.name || p.agent_id]));
    const name = (agentId) => names[agentId] || agentId || "";
    const badges = [this._badge("orchestrator", "on")];
    if (s.running) badges.push(this._badge("running", "warn"));
    if (s.queued) badges.push(this._badge(`${s.queued} queued`, "warn"));
    const model = s.model || {};
    const limits = s.limits || {};
    const rows = participants
      .map((p) => `<tr data-participant="${esc(p.agent_id)}"><td data-field="name">${esc(p.name)}</td>
        <td class="call">${esc(p.agent_id)}</td><td>${esc(p.description || "")}</td></tr>`)
      .join("");
    const recent = Array.isArray(s.recent) ? s.recent : [];
    return {
      html: {
        header: this._header({ name: s.title, room: s.room }, badges),
        progress: `<span data-field="progress">${esc(s.progress || "idle")}</span>`,
        participants: rows
          ? `<table data-section="participants"><tr><th>name</th><th>agent</th><th>description</th></tr>${rows}</table>`
          : '<div class="muted">no participants: choose them in the orchestrator\'s options</div>',
        limits: `
          ${this._kv("Max iterations", limits.max_iterations ?? "–", 'data-field="max_iterations"')}
          ${this._kv("Quality threshold", limits.quality_threshold ?? "–", 'data-field="quality_threshold"')}
          ${this._kv("Delegation timeout", limits.delegation_timeout === undefined ? "–" : `${limits.delegation_timeout} s`, 'data-field="delegation_timeout"')}
          ${this._kv("Model", [model.backend, model.model].filter(Boolean).join(" · ") || "–", 'data-field="model"')}`,
        running: s.running ? this._pipeline(s.running, name) : '<div class="muted">none</div>',
        pipelines: recent.length ? recent.map((run) => this._pipeline(run, name)).join("") : '<div class="muted">none yet</div>',
      },
    };
  }

  // One pipeline: the question and who asked, its route and end in the summary; opened, its
  // answers with their scores, the timings and every step. Keyed by its id, so it stays open
  // as it moves from running to recent.
  _pipeline(run, name) {
    const id = esc(run.pipeline_id);
    const finished = run.stage === "finished";
    const route = (run.route || []).map(name).join(" → ") || "not routed yet";
    const answers = Array.isArray(run.answers) ? run.answers : [];
    const scores = Array.isArray(run.scores) ? run.scores : [];
    const ms = (v) => (typeof v === "number" ? `${num(v)} ms` : "–");
    const timings = run.timings_ms || {};
    // The judge scores each answer right after it: score i is answer i's; the last answer may
    // have none (the limit was reached, or nobody was left to refine it).
    const scoreCells = (score) => {
      if (!score) return '<td class="muted" colspan="3">not judged</td>';
      const invalid = score.valid === false;
      return `<td class="${invalid ? "failed" : ""}" data-field="score">${esc(score.score)}${invalid ? " · invalid reply" : ""}</td>
        <td data-field="continue">${score.continue ? "yes" : "no"}</td><td data-field="reason">${esc(score.reason)}</td>`;
    };
    const answerRows = answers.map(
      (a, i) => `<tr data-answer-of="${esc(a.bot)}" data-valid="${scores[i] ? String(scores[i].valid !== false) : ""}"><td>${i + 1}</td>
        <td data-field="bot">${esc(name(a.bot))}</td><td class="answer-text" data-field="text">${esc(a.text)}</td>${scoreCells(scores[i])}</tr>`,
    );
    // A score without its answer should not happen; shown rather than lost.
    for (const score of scores.slice(answers.length)) {
      answerRows.push(`<tr data-valid="${String(score.valid !== false)}"><td></td><td></td><td class="muted">(no answer)</td>${scoreCells(score)}</tr>`);
    }
    const answerTable = answerRows.length
      ? `<table data-section="answers"><tr><th>#</th><th>bot</th><th>answer</th><th>score</th><th>continue</th><th>reason</th></tr>${answerRows.join("")}</table>`
      : '<div class="muted" data-section="answers">no answer yet</div>';
    const steps = (run.records || [])
      .map((r) => `<tr data-step="${esc(r.stage)}"><td>${esc(r.iteration)}</td><td>${esc(r.stage)}</td><td>${esc(r.bot ? name(r.bot) : "")}</td>
        <td>${esc(r.score ?? "")}</td><td>${esc(r.reason || "")}</td></tr>`)
      .join("");
    const invalid = scores.filter((score) => score.valid === false).length;
    return `<details class="incident pipeline" data-details="pipeline:${id}" data-pipeline="${id}" data-stage="${esc(run.stage)}">
      <summary data-key="pipeline:${id}">${this._badge(finished ? run.finish_reason || "finished" : run.stage, finished ? "" : "warn")}
        <span data-field="question">${esc(run.question)}</span> <span class="muted">· ${esc(run.asker)} · ${esc(route)}</span>
        ${invalid ? this._badge(`${invalid} invalid judge ${invalid === 1 ? "reply" : "replies"}`, "bad") : ""}
        ${run.finished ? ` · ${clock(run.finished)}` : ""}</summary>
      <div class="grid">
        ${this._kv("Asked by", run.asker, 'data-field="asker"')}
        ${this._kv("Route", route, 'data-field="route"')}
        ${this._kv("Finish reason", run.finish_reason || "still running", 'data-field="finish_reason"')}
        ${this._kv("Model calls", run.model_calls ?? 0, 'data-field="model_calls"')}
        ${this._kv("Timings", `model ${ms(timings.model)} · bots ${ms(timings.bots)} · overhead ${ms(timings.overhead)}`, 'data-field="timings"')}
      </div>
      ${answerTable}
      <div class="subhead">Steps</div>
      <table data-section="steps"><tr><th>iteration</th><th>stage</th><th>bot</th><th>score</th><th>note</th></tr>${steps}</table>
    </details>`;
  }

  _off(s) {
    return { html: { header: this._header(s, [this._badge(s.running === false ? "not loaded" : "off", "bad")]) } };
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
    description: "Loop phase, triggers, model input and output, tool calls with reasons, live cooldowns; an orchestrator's pipelines.",
    preview: false,
  });
  console.info(`%c OVERSEER-CARD %c ${CARD_VERSION} `, "background:#222;color:#fff", "");
}
