/*
 * Formatting: plain text from the status object's values, no markup. Every function that
 * depends on the time takes `now` (ms), so the card's one-second tick moves them all at once;
 * the ones with words take the card's translator `t` (i18n.js).
 */

// How long ago: "42s ago", "9m ago", "never".
export const ago = (iso, now, t) => {
  if (!iso) return t("never");
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(seconds)) return "";
  if (seconds < 60) return t("ago_seconds", { n: seconds });
  if (seconds < 3600) return t("ago_minutes", { n: Math.round(seconds / 60) });
  return t("ago_hours", { n: Math.round(seconds / 3600) });
};

// When something ends, counted down: "in 42s", "in 9m", "now".
export const until = (iso, now, t) => {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return "";
  if (seconds <= 0) return t("due_now");
  if (seconds < 60) return t("in_seconds", { n: seconds });
  if (seconds < 3600) return t("in_minutes", { n: Math.round(seconds / 60) });
  return t("in_hours", { n: Math.round(seconds / 3600) });
};

// Whole seconds left on a cooldown that ends at `cooldown.until`; 0 once it has ended.
export const remaining = (cooldown, now) => {
  if (!cooldown || !cooldown.until) return 0;
  return Math.max(0, Math.ceil((Date.parse(cooldown.until) - now) / 1000));
};

// Thousands apart by a narrow no-break space, as both English and Spanish may write them: "3 845".
export const num = (value) =>
  typeof value === "number" ? Math.round(value).toLocaleString("en-US").replace(/,/g, "\u202f") : String(value ?? "?");

// A value with its unit, or a dash when there is none.
export const orDash = (value, unit = "") => (value === null || value === undefined ? "–" : `${value}${unit}`);

// A ratio as a percentage, or a dash.
export const pct = (value) => (value === null || value === undefined ? "–" : `${Math.round(value * 100)}%`);

// A moment as the clock time and as its full date and time, in the user's language (a locale
// the browser does not know falls back to its own); null when it is none.
export const moment = (iso, locale) => {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const date = new Date(at);
  try {
    return { time: date.toLocaleTimeString(locale), full: date.toLocaleString(locale) };
  } catch (err) {
    return { time: date.toLocaleTimeString(), full: date.toLocaleString() };
  }
};

// The model input's size: the server's prompt token count beside the estimate when the
// backend reports it.
export const inputSize = (input, decision, t) => {
  if (!input) return "–";
  const size = t("input_size", { messages: num(input.messages), characters: num(input.characters) });
  const estimated = num(input.estimated_tokens);
  if (!decision || typeof decision.prompt_tokens !== "number") return t("input_estimated", { size, estimated });
  return t("input_server", { size, server: num(decision.prompt_tokens), estimated });
};

// A decision's tokens over all its requests: in (of them from the server's prompt cache) / out.
export const spentTokens = (decision, t) => {
  const spent = decision.spent;
  if (!spent || spent.requests === spent.unreported) return "?";
  const tokens = `${num(spent.prompt_tokens)} (${num(spent.cached_tokens)}) / ${num(spent.completion_tokens)}`;
  return spent.requests > 1 ? t("spent_requests", { tokens, requests: spent.requests }) : tokens;
};
