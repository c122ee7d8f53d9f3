/*
 * The card's visual editor: pick which overseer (or orchestrator) the card shows.
 */

import { LitElement, css, html } from "./vendor/lit.js";
import { loadTranslations, translator } from "./i18n.js";

class OverseerCardEditor extends LitElement {
  static styles = css`
    label { display: block; margin-bottom: 4px; color: var(--secondary-text-color); }
    select { width: 100%; padding: 8px; background: var(--card-background-color); color: var(--primary-text-color);
             border: 1px solid var(--divider-color); border-radius: 4px; }
  `;

  static properties = { _config: { state: true }, _entries: { state: true } };

  setConfig(config) {
    this._config = { ...config };
  }

  set hass(hass) {
    const before = this._hass;
    this._hass = hass;
    if (!before) this._load();
    if (!before || before.language !== hass.language) loadTranslations(hass);
    if (!before || before.localize !== hass.localize) this.requestUpdate(); // its words came in
  }

  get hass() {
    return this._hass;
  }

  async _load() {
    this._entries = await this._hass.callWS({ type: "config_entries/get", domain: "overseer" });
  }

  _changed(ev) {
    this._config = { ...this._config, entry_id: ev.target.value };
    this.dispatchEvent(new CustomEvent("config-changed", { detail: { config: this._config }, bubbles: true, composed: true }));
  }

  render() {
    const t = translator(this._hass);
    const chosen = (this._config && this._config.entry_id) || "";
    return html`<label for="entry">${t("editor_overseer")}</label>
      <select id="entry" @change=${this._changed}>
        <option value="">${t("editor_pick")}</option>
        ${(this._entries || []).map((e) => html`<option value=${e.entry_id} ?selected=${e.entry_id === chosen}>${e.title}</option>`)}
      </select>`;
  }
}

if (!customElements.get("overseer-card-editor")) customElements.define("overseer-card-editor", OverseerCardEditor);
