// extension/sidepanel/answer_notes.js: the line under an answer says what applies to it.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";

import { answerNotes, coverageNote } from "../../extension/sidepanel/answer_notes.js";

test("the offline runtime's answer is never called the model's", () => {
  const offline = answerNotes({ status: "unsupported", provider: "offline", warnings: [] });
  assert.deepEqual(offline, ["The offline runtime (no model) found nothing in your sources that answers it."]);
  assert.ok(!offline.join(" ").includes("model's"));
  const model = answerNotes({ status: "unsupported", provider: "ollama", warnings: [] });
  assert.deepEqual(model, ["The model found nothing in your sources that answers it."]);
  assert.deepEqual(answerNotes({ status: "partial", provider: "x" }), ["The model is partial: the reply stopped before its end."]);
});

test("an unsupported answer that still quotes offers its quotes as the closest, not as an answer", () => {
  const leads = answerNotes({ status: "unsupported", provider: "offline", citations: [{ quote: "x" }] });
  assert.deepEqual(leads, [
    "The offline runtime (no model) found no direct answer; the quotes are the nearest passages.",
  ]);
});

test("the coverage line is the host's sentence, or nothing", () => {
  const line = "Read 1 source in full and 2 in part; 3 of 3 citations verified.";
  assert.equal(coverageNote({ coverage_line: ` ${line} ` }), line);
  assert.equal(coverageNote({}), "");
  assert.equal(coverageNote({ coverage_line: 7 }), "");
  assert.equal(coverageNote(null), "");
});

test("an ok answer has only the host's warnings, each a sentence", () => {
  assert.deepEqual(answerNotes({ status: "ok", provider: "offline", warnings: [] }), []);
  assert.deepEqual(
    answerNotes({
      status: "ok",
      provider: "offline",
      warnings: ["the offline runtime read the 12 most relevant of 40 sources; 28 were left out", "Done?", "  ", 7],
    }),
    ["The offline runtime read the 12 most relevant of 40 sources; 28 were left out.", "Done?"],
  );
  // the host's own full stop is kept once
  assert.deepEqual(answerNotes({ warnings: ["3 source(s) were sent as summaries."] }), ["3 source(s) were sent as summaries."]);
});

test("property: any result gives sentences, never a throw", () => {
  fc.assert(
    fc.property(fc.record({ status: fc.anything(), provider: fc.anything(), warnings: fc.anything(), citations: fc.anything() }, { requiredKeys: [] }), (result) => {
      for (const note of answerNotes(result)) {
        assert.equal(typeof note, "string");
        assert.ok(/[.!?]$/.test(note), note);
      }
    }),
  );
});
