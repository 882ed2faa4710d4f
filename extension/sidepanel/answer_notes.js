// The line under an answer: its status and the host's warnings, each said only where it
// applies. Pure (no DOM), so node tests it.
//
// Who answered decides the words: the offline runtime is no model, so its "unsupported" is
// not "the model's answer is unsupported". `provider` is the result's (`chat.ask`,
// `page.summarize`) or a history event's `model.provider`: "offline" for the built-in runtime,
// also when it stood in for a provider that failed.

import { isStopOrSpace, withoutTrailing } from "../lib/text_ends.js";

const STATUS = {
  partial: "is partial: the reply stopped before its end",
  invalid_output: "could not be read as an answer",
  error: "failed",
  unsupported: "found nothing in your sources that answers it",
  leads: "found no direct answer; the quotes are the nearest passages",
};

/**
 * @param {{status?: string, warnings?: unknown, provider?: string|null, citations?: unknown}} result
 * @returns {string[]} sentences, each ending in a full stop
 */
export function answerNotes(result) {
  const notes = [];
  const status = typeof result?.status === "string" ? result.status : "ok";
  if (status !== "ok") {
    const who = result?.provider === "offline" ? "The offline runtime (no model)" : "The model";
    // An unsupported answer that still quotes offers the closest passages, not an answer.
    const quoted = Array.isArray(result?.citations) && result.citations.length > 0;
    const said = STATUS[status === "unsupported" && quoted ? "leads" : status];
    notes.push(`${who} ${said ?? `answered with status ${status.replaceAll("_", " ")}`}.`);
  }
  for (const warning of Array.isArray(result?.warnings) ? result.warnings : []) {
    const text = typeof warning === "string" ? withoutTrailing(warning.trim(), isStopOrSpace) : "";
    const end = /[!?]$/.test(text) ? "" : ".";
    if (text) notes.push(`${text.charAt(0).toUpperCase()}${text.slice(1)}${end}`);
  }
  return notes;
}

/**
 * The host's coverage sentence for the line under an answer ("Read 1 source in full and 2 in
 * part; 3 of 3 citations verified."), or "" when the result has none (a history event).
 * @param {{coverage_line?: unknown}} result
 */
export function coverageNote(result) {
  return typeof result?.coverage_line === "string" ? result.coverage_line.trim() : "";
}
