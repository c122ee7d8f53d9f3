/*
 * The card's words in the user's language.
 *
 * They are the integration's own translations: the "common" section of translations/<language>.json,
 * which Home Assistant's frontend loads for a custom integration like any other
 * (hass.loadBackendTranslation("common", "overseer")) and hands out through hass.localize.
 * Until they have loaded, on a frontend without them, or for a key a language lacks, the
 * English of strings.js is shown: the same words as translations/en.json (a test holds them so).
 */

import { ENGLISH } from "./strings.js";

const PREFIX = "component.overseer.common.";
// A private-use character around a template's place in a translated sentence (see parts below).
const SLOT = "\uE000";

// A translation key's ending from a server code: "policy_lock:site_mode_admin" → "policy_lock_site_mode_admin".
const keyOf = (code) =>
  String(code ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));

// Home Assistant's localize formats placeholders with its message format: every value goes as text.
const asText = (values) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value ?? "")]));

/*
 * t(key, values): the sentence for key, its {placeholders} filled in.
 * t.word(group, code): a server code's word ("phase", "awaiting_model" → "awaiting model"); a
 *   code the translations do not know (a newer server's) is shown as its words.
 * t.parts(key, values): a sentence whose values may be templates (a <time>): a list for Lit.
 */
export const translator = (hass) => {
  const localize = hass && typeof hass.localize === "function" ? hass.localize : undefined;
  const lookup = (key, values) => {
    if (localize) {
      try {
        // An empty string is Home Assistant's answer for a key it has not (yet) loaded.
        const text = localize(PREFIX + key, values);
        if (text) return text;
      } catch (err) {
        // A frontend that cannot format it: the English below.
      }
    }
    return key in ENGLISH ? fill(ENGLISH[key], values) : undefined;
  };
  const t = (key, values = {}) => lookup(key, asText(values)) ?? key;
  t.word = (group, code) => lookup(`${group}_${keyOf(code)}`, {}) ?? String(code ?? "").replace(/_/g, " ");
  // The user's language for dates and times, as Home Assistant formats them; the browser's without it.
  t.locale = (hass && ((hass.locale && hass.locale.language) || hass.language)) || undefined;
  t.parts = (key, values = {}) => {
    const texts = {};
    const slots = {};
    for (const [name, value] of Object.entries(values)) {
      if (value !== null && typeof value === "object") slots[name] = value;
      else texts[name] = String(value ?? "");
    }
    const marks = Object.fromEntries(Object.keys(slots).map((name) => [name, `${SLOT}${name}${SLOT}`]));
    const sentence = lookup(key, { ...texts, ...marks }) ?? key;
    return sentence.split(SLOT).map((piece, i) => (i % 2 && piece in slots ? slots[piece] : piece));
  };
  return t;
};

// Load the card's words and the integration's messages (a refused answer's words) in the user's
// language; Home Assistant hands the card a new hass, with a localize that has them, once they are in.
export const loadTranslations = (hass) => {
  if (!hass || typeof hass.loadBackendTranslation !== "function") return;
  for (const category of ["common", "exceptions"]) {
    Promise.resolve(hass.loadBackendTranslation(category, "overseer")).catch(() => undefined);
  }
};

// An error from Home Assistant in the user's language: a refused service call or websocket
// command carries its translation key, domain and placeholders; else its message as sent.
export const errorText = (hass, err) => {
  const localize = hass && typeof hass.localize === "function" ? hass.localize : undefined;
  if (err && err.translation_key && err.translation_domain && localize) {
    try {
      const key = `component.${err.translation_domain}.exceptions.${err.translation_key}.message`;
      const text = localize(key, asText(err.translation_placeholders || {}));
      if (text) return text;
    } catch (error) {
      // Shown as the server worded it, below.
    }
  }
  return (err && err.message) || String(err);
};
