// What the "Change a setting" box says once `settings.ask` answers (a SettingsReply, see
// docs/PROTOCOL.md): pure functions, no DOM. Every string in a reply may come from a model,
// so each is bounded here and shown as text only.

import { argumentRows } from "./tool_display.js";

export const MESSAGE_MAX = 500;
export const DESCRIPTION_MAX = 200;
export const CAN_CHANGE_MAX = 100;

export const NOTES_MAX = 5;

const HEADLINE = {
  applied: "Applied",
  pending: "Waiting for approval",
  denied: "Denied",
  declined: "Declined",
  failed: "Failed",
};

/** {status, headline, detail, paths, canChange, notes}: the outcome line, the notes (e.g. the
 * model's reply was unusable and the matcher chose) and, on a decline, the list of what can be
 * changed. An unknown status reads as a failure naming it. */
export function replyOutcome(reply) {
  const known = reply && typeof reply === "object" && Object.hasOwn(HEADLINE, String(reply.status));
  const status = known ? reply.status : "failed";
  const paths = status === "applied" ? changedPaths(reply.change) : [];
  let detail = withoutHeadline(text(reply?.message, MESSAGE_MAX), HEADLINE[status]);
  if (!known) detail = `the host sent an answer this panel does not know (status ${text(reply?.status, 40) || "missing"})`;
  else if (!detail && paths.length) detail = `changed ${paths.join(", ")}`;
  return {
    status,
    headline: HEADLINE[status],
    detail,
    paths,
    canChange: status === "declined" ? canChange(reply.can_change) : [],
    notes: known && Array.isArray(reply.notes) ? reply.notes.slice(0, NOTES_MAX).map((note) => text(note, MESSAGE_MAX)).filter(Boolean) : [],
  };
}

/** The message without a leading "Declined:" when the headline already says it. */
function withoutHeadline(message, headline) {
  const prefix = `${headline.toLowerCase()}:`;
  return message.slice(0, prefix.length).toLowerCase() === prefix ? message.slice(prefix.length).trim() : message;
}

/** The outcome as one sentence, for the live region. */
export function outcomeSentence(outcome) {
  const sentence = outcome.detail ? `${outcome.headline}: ${outcome.detail}` : `${outcome.headline}.`;
  if (!outcome.canChange.length) return sentence;
  const count = outcome.canChange.length;
  return `${sentence} What can be changed: ${count} ${count === 1 ? "entry" : "entries"} below.`;
}

/** [{name, description}] from a decline's `can_change`, entries without a name skipped. */
export function canChange(list) {
  if (!Array.isArray(list)) return [];
  const rows = [];
  for (const entry of list.slice(0, CAN_CHANGE_MAX)) {
    if (!entry || typeof entry !== "object" || typeof entry.name !== "string" || !entry.name) continue;
    rows.push({ name: text(entry.name, DESCRIPTION_MAX), description: text(entry.description, DESCRIPTION_MAX) });
  }
  return rows;
}

function changedPaths(change) {
  if (!change || typeof change !== "object" || !Array.isArray(change.paths)) return [];
  return change.paths.slice(0, CAN_CHANGE_MAX).filter((path) => typeof path === "string").map((path) => text(path, DESCRIPTION_MAX));
}

/** A string value bounded to `max` characters (an ellipsis marks the cut); "" otherwise. */
export function text(value, max) {
  if (typeof value !== "string") return "";
  const trimmed = value.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}

/** The live-region sentence for a proposal that waits for the user (a `tool_call` event). */
export function proposalSentence(event) {
  const args = argumentRows(event?.arguments, DESCRIPTION_MAX).slice(0, 5).map((row) => `${row.key} ${row.short}`);
  const what = args.length ? `${text(event?.tool, 100)} with ${args.join(", ")}` : text(event?.tool, 100);
  return `Laika proposes ${what}. Approve or Deny it below.`;
}
