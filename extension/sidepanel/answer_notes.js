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
};

/**
 * @param {{status?: string, warnings?: unknown, provider?: string|null}} result
 * @returns {string[]} sentences, each ending in a full stop
 */
export function answerNotes(result) {
  const notes = [];
  const status = typeof result?.status === "string" ? result.status : "ok";
  if (status !== "ok") {
    const who = result?.provider === "offline" ? "The offline runtime (no model)" : "The model";
    notes.push(`${who} ${STATUS[status] ?? `answered with status ${status.replaceAll("_", " ")}`}.`);
  }
  for (const warning of Array.isArray(result?.warnings) ? result.warnings : []) {
    const text = typeof warning === "string" ? withoutTrailing(warning.trim(), isStopOrSpace) : "";
    const end = /[!?]$/.test(text) ? "" : ".";
    if (text) notes.push(`${text.charAt(0).toUpperCase()}${text.slice(1)}${end}`);
  }
  return notes;
}
