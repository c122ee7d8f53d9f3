/*
 * Formatting: plain text from the status object's values, no markup. Every function that
 * depends on the time takes `now` (ms), so the card's one-second tick moves them all at once.
 */

// How long ago: "42s ago", "9m ago", "never".
export const ago = (iso, now) => {
  if (!iso) return "never";
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(seconds)) return "";
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
};

// When something ends, counted down: "in 42s", "in 9m", "now".
export const until = (iso, now) => {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return "";
  if (seconds <= 0) return "now";
  if (seconds < 60) return `in ${seconds}s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)}m`;
  return `in ${Math.round(seconds / 3600)}h`;
};

// Whole seconds left on a cooldown that ends at `cooldown.until`; 0 once it has ended.
export const remaining = (cooldown, now) => {
  if (!cooldown || !cooldown.until) return 0;
  return Math.max(0, Math.ceil((Date.parse(cooldown.until) - now) / 1000));
};

// Thousands apart by a narrow no-break space: "3 845".
export const num = (value) =>
  typeof value === "number" ? Math.round(value).toLocaleString("en-US").replace(/,/g, "\u202f") : String(value ?? "?");

// A value with its unit, or a dash when there is none.
export const orDash = (value, unit = "") => (value === null || value === undefined ? "–" : `${value}${unit}`);

// A ratio as a percentage, or a dash.
export const pct = (value) => (value === null || value === undefined ? "–" : `${Math.round(value * 100)}%`);

// A server key as words: "awaiting_model" → "awaiting model".
export const words = (key) => String(key ?? "").replace(/_/g, " ");

// A moment as the browser's clock time and as its full date and time; null when it is none.
export const moment = (iso) => {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const date = new Date(at);
  return { time: date.toLocaleTimeString(), full: date.toLocaleString() };
};

// The model input's size: the server's prompt token count beside the estimate when the
// backend reports it.
export const inputSize = (input, decision) => {
  if (!input) return "–";
  const size = `${num(input.messages)} msgs · ${num(input.characters)} chars`;
  if (!decision || typeof decision.prompt_tokens !== "number") return `${size} · ~${num(input.estimated_tokens)} tok (est.)`;
  return `${size} · ${num(decision.prompt_tokens)} tok (server) / ~${num(input.estimated_tokens)} est.`;
};

// A decision's tokens over all its requests: in (of them from the server's prompt cache) / out.
export const spentTokens = (decision) => {
  const spent = decision.spent;
  if (!spent || spent.requests === spent.unreported) return "?";
  const requests = spent.requests > 1 ? ` · ${spent.requests} requests` : "";
  return `${num(spent.prompt_tokens)} (${num(spent.cached_tokens)}) / ${num(spent.completion_tokens)}${requests}`;
};
