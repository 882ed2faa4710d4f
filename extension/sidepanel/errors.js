// Every failure the panel shows says what happened and what to do next, in words.

import { isStopOrSpace, withoutTrailing } from "../lib/text_ends.js";

const ADVICE = {
  disconnected: "The Laika host is not connected: see the status at the top, or run `laika doctor`.",
  missing: "The Laika host is not installed for this browser: see the fix at the top.",
  cancelled: "Stopped.",
  not_found: "It may have been deleted meanwhile: refresh the list.",
  provider_error: "Check the provider in Settings (Test), or ask with the offline runtime.",
  busy: "Another Laika process holds the database: try again in a moment.",
  unknown_type: "This Laika host is older than the extension: update it (pip install -U laika-host), then reload.",
  too_large: "Try a smaller page or selection.",
  internal: "This is a bug in the host: its log file (Settings → Diagnostics) has the details.",
};

/** "What happened. What to do." for an error from the host, the relay, or the browser. */
export function describeError(error) {
  const message = String(error?.message ?? error ?? "unknown error").trim();
  const advice = ADVICE[error?.code];
  if (!advice || message.includes(advice)) return message;
  return `${withoutTrailing(message, isStopOrSpace)}. ${advice}`;
}
