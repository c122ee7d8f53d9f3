/*
 * Overseer debug card: what the overseer saw, asked, got and did.
 *
 * Native ES modules and a vendored Lit, no build step and no network: Home Assistant serves
 * this folder under a path with the integration's version in it and loads this module on every
 * dashboard, so each relative import below is fetched anew after an update. This module is the
 * element and its subscription; parts.js and format.js render and format, one view-*.js per
 * status schema. Lit keeps the DOM across pushes (what the user opened, scrolled or focused
 * stays) and sets every value as text.
 */

import { LitElement, html } from "./vendor/lit.js";
import { errorText, loadTranslations, translator } from "./i18n.js";
import { cardStyles } from "./styles.js";
import { controlView } from "./view-control.js";
import { commentaryView, messageView, offView } from "./view-commentary.js";
import { orchestratorView } from "./view-orchestrator.js";
import "./overseer-card-editor.js";

// The folder is served as /overseer_static/<version>/: the version is this module's folder.
const CARD_VERSION = new URL(".", import.meta.url).pathname.split("/").filter(Boolean).pop() || "dev";

const VIEWS = {
  "overseer.v2": controlView,
  "overseer.commentary": commentaryView,
  "overseer.orchestrator": orchestratorView,
};

class OverseerCard extends LitElement {
  static styles = cardStyles;

  static properties = {
    _status: { state: true },
    _error: { state: true },
    _now: { state: true },
    _tab: { state: true },
  };

  static getConfigElement() {
    return document.createElement("overseer-card-editor");
  }

  static async getStubConfig(hass) {
    const entries = await hass.callWS({ type: "config_entries/get", domain: "overseer" });
    return { entry_id: entries.length ? entries[0].entry_id : "" };
  }

  constructor() {
    super();
    this._now = Date.now();
    this._tab = "room_chat"; // the conversation tab shown, kept across pushes and view switches
    this._open = {}; // details key -> open, kept across pushes and view switches
    this._answers = {}; // approval id -> { busy } while its answer is sent, { error } when refused
    this._lists = {}; // chat list -> { top, stick }: where the user left it
    this._boxes = {}; // text box -> { wanted, applied }: where the user scrolled it to
    this._pushes = 0; // status objects received
    // Handlers bound once, so a render never swaps a listener.
    this._onToggle = (ev) => {
      this._open[ev.currentTarget.dataset.details] = ev.currentTarget.open;
    };
    this._onTab = (ev) => {
      this._tab = ev.currentTarget.dataset.tab;
    };
    this._onListScroll = (ev) => {
      const list = ev.currentTarget;
      if (list.hidden || !list.getClientRects().length) return;
      this._lists[list.dataset.list] = { top: list.scrollTop, stick: list.scrollHeight - list.scrollTop - list.clientHeight < 8 };
    };
    this._onAnswer = (ev) => this.answer(ev.currentTarget.dataset.approval, ev.currentTarget.dataset.answer);
    this._onRevoke = (ev) => this.revoke(ev.currentTarget.dataset.grant);
    this._isOpen = (key) => Boolean(this._open[key]);
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
  }

  // Home Assistant sets this on every state change anywhere; the card needs it to subscribe
  // (and again when the user's language changes: the server words the banner), and renders
  // again when its words have loaded or changed language (a new localize).
  set hass(hass) {
    const before = this._hass;
    this._hass = hass;
    if (!before || before.language !== hass.language) loadTranslations(hass);
    if (this._unsub && before && hass.language !== before.language) this._unsubscribe();
    if (!before || before.localize !== hass.localize) this.requestUpdate();
    this._subscribe();
  }

  get hass() {
    return this._hass;
  }

  getCardSize() {
    return 12;
  }

  connectedCallback() {
    super.connectedCallback();
    this._subscribe();
    // Only the countdowns and relative times tick here; everything else arrives pushed.
    window.clearInterval(this._timer);
    this._timer = window.setInterval(() => {
      this._now = Date.now();
    }, 1000);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
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
        if (!entries.length) {
          this._error = { key: "no_overseer" }; // worded at each render, in the user's language then
          return;
        }
        entryId = entries[0].entry_id;
      }
      const language = this._hass.language;
      this._unsub = await this._hass.connection.subscribeMessage(
        (status) => {
          this._pushes += 1;
          this._status = status;
          this._error = undefined;
        },
        { type: "overseer/status/subscribe", entry_id: entryId, ...(language ? { language } : {}) },
      );
    } catch (err) {
      // Kept as the error, worded at each render: in the language the user has then.
      this._error = err || {};
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

  // The answer goes to the services; the refusal's message (not an approver, answered
  // already, expired) is shown beside the approval instead of a toast.
  async answer(approvalId, answer) {
    if (!approvalId || !["approve", "grant", "deny"].includes(answer)) return;
    const data = { approval_id: approvalId };
    // A grant approves this call and lets it run again without asking, as long as the room allows.
    if (answer === "grant") data.grant_minutes = (this._status && this._status.max_grant_minutes) || 0;
    await this._send(approvalId, answer === "deny" ? "deny" : "approve", data);
  }

  async revoke(grantId) {
    if (grantId) await this._send(grantId, "revoke_grant", { grant_id: grantId });
  }

  // One service call for an approval or grant, shown busy while it goes; its refusal stays beside it.
  async _send(key, service, data) {
    if (this._answers[key] && this._answers[key].busy) return;
    this._answers[key] = { busy: true };
    this.requestUpdate();
    try {
      await this._hass.callService("overseer", service, data, undefined, false);
      delete this._answers[key]; // the status push shows what became of it
    } catch (err) {
      this._answers[key] = { error: errorText(this._hass, err) };
    }
    this.requestUpdate();
  }

  render() {
    const status = this._status;
    const t = translator(this._hass);
    let view;
    if (this._error) {
      const error = this._error;
      const text = error.key ? t(error.key) : error.code === "unauthorized" ? t("not_admin") : errorText(this._hass, error);
      view = messageView(text, true);
    } else if (!status) view = messageView(t("connecting"), false);
    else {
      const ui = {
        t,
        now: this._now,
        admin: Boolean(this._hass && this._hass.user && this._hass.user.is_admin),
        isOpen: this._isOpen,
        onToggle: this._onToggle,
        tab: this._tab,
        onTab: this._onTab,
        onListScroll: this._onListScroll,
        answers: this._answers,
        onAnswer: this._onAnswer,
        onRevoke: this._onRevoke,
      };
      view = (VIEWS[status.schema] || offView)(status, ui);
    }
    return html`<ha-card>${view}</ha-card>`;
  }

  // Where the user scrolled a text box to, read before a push rewrites its text.
  willUpdate(changed) {
    if (!changed.has("_status") || !this.renderRoot) return;
    for (const box of this.renderRoot.querySelectorAll("[data-keep-scroll]")) {
      if (!box.getClientRects().length) continue;
      const scroll = this._boxes[box.dataset.keepScroll];
      if (!scroll) this._boxes[box.dataset.keepScroll] = { wanted: box.scrollTop, applied: box.scrollTop };
      else if (box.scrollTop !== scroll.applied) scroll.wanted = box.scrollTop;
    }
  }

  updated(changed) {
    // How many pushes the card has shown (several may arrive before one render).
    if (changed.has("_status")) this.dataset.renders = String(this._pushes);
    if (!changed.has("_status") && !changed.has("_tab")) return;
    // A text box keeps its place, even through a shorter text in between (a new cycle's
    // "none yet"), which clamps it: only the user's own scrolling moves the aim.
    for (const box of this.renderRoot.querySelectorAll("[data-keep-scroll]")) {
      if (!box.getClientRects().length) continue; // a closed section has no scroll position
      const scroll = (this._boxes[box.dataset.keepScroll] ||= { wanted: 0, applied: 0 });
      box.scrollTop = scroll.wanted;
      scroll.applied = box.scrollTop;
    }
    // A chat list follows its newest line, unless the user scrolled up in it to read.
    for (const list of this.renderRoot.querySelectorAll("[data-list]")) {
      if (list.hidden) continue;
      const kept = this._lists[list.dataset.list];
      list.scrollTop = kept && !kept.stick ? kept.top : list.scrollHeight;
    }
  }
}

if (!customElements.get("overseer-card")) {
  customElements.define("overseer-card", OverseerCard);
  window.customCards = window.customCards || [];
  window.customCards.push({
    type: "overseer-card",
    name: "Overseer debug card",
    description: "Loop phase, triggers, model input and output, tool calls with reasons, live cooldowns; an orchestrator's pipelines.",
    preview: false,
  });
  console.info(`%c OVERSEER-CARD %c ${CARD_VERSION} `, "background:#222;color:#fff", "");
}
