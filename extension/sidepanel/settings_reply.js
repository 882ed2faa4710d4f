// What the "Change a setting" box says once `settings.ask` answers (a SettingsReply, see
// docs/PROTOCOL.md): pure functions, no DOM. Every string in a reply may come from a model,
// so each is bounded here and shown as text only. A host that speaks in sentences (its reply
// carries `details`) is shown as it wrote them: the message, then the lines under it; an
// older host's reply gets a headline and, on a decline, the descriptions of what can change.

import { argumentRows } from "./tool_display.js";

export const MESSAGE_MAX = 500;
export const DESCRIPTION_MAX = 200;
export const CAN_CHANGE_MAX = 100;
export const DETAILS_MAX = 40;
export const NOTES_MAX = 5;

const HEADLINE = {
  applied: "Applied",
  pending: "Waiting for approval",
  denied: "Denied",
  declined: "Declined",
  failed: "Failed",
};

/** {status, headline, detail, line, headed, details, question, paths, canChange, notes}: `line`
 * is the sentence to show (`headed`: it starts with the headline, an older host's reply); `details` the lines under it (the settings shown); `canChange` (only an
 * older host's decline) the descriptions of what can be changed. An unknown status reads as a
 * failure naming it. */
export function replyOutcome(reply) {
  const known = reply && typeof reply === "object" && Object.hasOwn(HEADLINE, String(reply.status));
  const status = known ? reply.status : "failed";
  const paths = status === "applied" ? changedPaths(reply.change) : [];
  const worded = known && Array.isArray(reply.details);
  const message = text(reply?.message, MESSAGE_MAX);
  let detail = withoutHeadline(message, HEADLINE[status]);
  if (!known) detail = `the host sent an answer this panel does not know (status ${text(reply?.status, 40) || "missing"})`;
  else if (!detail && paths.length) detail = `changed ${paths.join(", ")}`;
  const headline = HEADLINE[status];
  const legacy = detail ? `${headline}: ${detail}` : `${headline}.`;
  return {
    status,
    headline,
    detail,
    line: worded && message ? message : legacy,
    headed: !(worded && message),
    details: worded ? lines(reply.details) : [],
    question: status === "declined" && known && reply.question === true,
    paths,
    canChange: status === "declined" && !worded ? canChange(reply.can_change) : [],
    notes: known && Array.isArray(reply.notes) ? reply.notes.slice(0, NOTES_MAX).map((note) => text(note, MESSAGE_MAX)).filter(Boolean) : [],
  };
}

/** The message without a leading "Declined:" when the headline already says it. */
function withoutHeadline(message, headline) {
  const prefix = `${headline.toLowerCase()}:`;
  return message.slice(0, prefix.length).toLowerCase() === prefix ? message.slice(prefix.length).trim() : message;
}

/** The lines under the message: strings only, bounded, a list marker ("- ") dropped. */
function lines(list) {
  return list
    .slice(0, DETAILS_MAX)
    .map((line) => text(line, MESSAGE_MAX).replace(/^- /, ""))
    .filter(Boolean);
}

/** The outcome as one sentence, for the live region. */
export function outcomeSentence(outcome) {
  const sentence = outcome.details.length ? `${outcome.line} ${outcome.details.join(" ")}` : outcome.line;
  if (!outcome.canChange.length) return sentence;
  const count = outcome.canChange.length;
  return `${sentence} What can be changed: ${count} ${count === 1 ? "entry" : "entries"} below.`;
}

/** The descriptions (words, never tool ids) of an older host's `can_change`, entries without
 * a description skipped. */
export function canChange(list) {
  if (!Array.isArray(list)) return [];
  const rows = [];
  for (const entry of list.slice(0, CAN_CHANGE_MAX)) {
    if (!entry || typeof entry !== "object") continue;
    const description = text(entry.description, DESCRIPTION_MAX);
    if (description) rows.push(description);
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

/** The live-region sentence for a proposal that waits for the user (a `tool_call` event): the
 * host's words for a settings tool, else the tool and its arguments. */
export function proposalSentence(event) {
  const summary = text(event?.summary, DESCRIPTION_MAX);
  if (summary) return `Laika proposes: ${summary}. Approve or Deny it below.`;
  const args = argumentRows(event?.arguments, DESCRIPTION_MAX).slice(0, 5).map((row) => `${row.key} ${row.short}`);
  const what = args.length ? `${text(event?.tool, 100)} with ${args.join(", ")}` : text(event?.tool, 100);
  return `Laika proposes ${what}. Approve or Deny it below.`;
}
