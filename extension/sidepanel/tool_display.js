// What a tool call card says, from a `tool_call` event (docs/PROTOCOL.md): pure functions, no
// DOM, so node tests cover every shape. The card itself is tool_cards.js.

export const VALUE_PREVIEW = 120;

/** Status -> how far along a call is: an update never moves a card backwards (a late
 * `tool_call` event may arrive after tool.decide's own answer). */
const RANK = { pending: 0, approved: 1, running: 2, forward: 2, denied: 3, executed: 3, failed: 3 };

export const STATUS_TEXT = {
  pending: "waiting for your approval",
  approved: "approved",
  denied: "denied",
  running: "running",
  forward: "running in the page",
  executed: "done",
  failed: "failed",
};

/** True when `next` should replace `current` on the card. */
export function isNewer(current, next) {
  if (!current) return true;
  return (RANK[next?.status] ?? 0) >= (RANK[current.status] ?? 0);
}

/** The text of one argument value: strings as they are, anything else as compact JSON. */
export function valueText(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One row per argument {key, full, short, truncated}: long values keep a preview and the
 * full text for the expand control. Keys are sorted so a card reads the same every time. */
export function argumentRows(args, preview = VALUE_PREVIEW) {
  if (!args || typeof args !== "object" || Array.isArray(args)) return [];
  return Object.keys(args)
    .sort()
    .map((key) => {
      const full = valueText(args[key]);
      const truncated = full.length > preview;
      return { key, full, short: truncated ? `${full.slice(0, preview)}…` : full, truncated };
    });
}

/** "done: Example page (https://…)" and the like: a one-line outcome, bounded. */
export function outcomeText(event, max = 200) {
  if (!event) return "";
  const status = STATUS_TEXT[event.status] ?? String(event.status ?? "");
  if (event.status === "failed" || (event.error && event.status !== "executed")) {
    return clip(`${status}: ${event.error ?? "no reason given"}`, max);
  }
  if (event.status !== "executed" || event.result === null || event.result === undefined) return status;
  return clip(`${status}: ${resultSummary(event.result)}`, max);
}

/** A result in a few words: a settings tool's own sentence, an observation's size, a page's
 * title, else compact JSON. */
export function resultSummary(result) {
  if (result && typeof result === "object" && !Array.isArray(result)) {
    if (typeof result.summary === "string" && result.summary.trim()) return clip(result.summary.trim().split("\n").join(" "), 200);
    if (Array.isArray(result.handles)) {
      return `${result.handles.length} elements, ${String(result.text ?? "").length} characters of text`;
    }
    if (typeof result.title === "string" || typeof result.url === "string") {
      return [result.title, result.url].filter(Boolean).join(" — ");
    }
  }
  return clip(valueText(result), 120);
}

/** Who decided: the rule and whether untrusted content forced the question. */
export function ruleText(event) {
  const parts = [];
  if (event?.rule_id) parts.push(`rule ${event.rule_id}`);
  if (event?.decision) parts.push(`decision ${event.decision}`);
  if (event?.forced_ask) parts.push("asked because untrusted page content is in the conversation");
  return parts.join(" · ");
}

/** What the call does in words: the host's `summary` of a settings tool, else "". */
export function callSummary(event, max = 200) {
  return typeof event?.summary === "string" && event.summary.trim() ? clip(event.summary.trim(), max) : "";
}

/** The live-region sentence for a call that waits for the user. */
export function announcement(event) {
  const summary = callSummary(event);
  if (summary) return `Laika asks: ${summary}? ${event.reason || "no reason given"}. Approve or Deny it in the answer.`;
  return `Laika asks to run ${event.tool}: ${event.reason || "no reason given"}. Approve or Deny it in the answer.`;
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
