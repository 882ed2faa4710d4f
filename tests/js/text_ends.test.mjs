// extension/lib/text_ends.js and the places it replaced a quadratic regex: each gives what the
// regex gave (the old regex is the oracle, on short random texts full of the characters that
// matter) and runs in linear time where the regex was quadratic.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";

import { classifyDisconnect } from "../../extension/lib/host.js";
import { isStopOrSpace, withoutLeading, withoutTrailing } from "../../extension/lib/text_ends.js";
import { describeError } from "../../extension/sidepanel/errors.js";
import { exportFile } from "../../extension/sidepanel/transform_form.js";
import { growth } from "./complexity.mjs";

/** Texts made mostly of stops, ellipses and the many kinds of white space, with some letters
 * and astral characters between them, and any text at all. */
const stopsAndSpaces = fc.oneof(
  fc.string({
    unit: fc.constantFrom(".", "…", " ", "\t", "\n", "\u00a0", "\u2028", "\ufeff", "\u3000", "a", "Z", "😀", "_"),
    maxLength: 30,
  }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
);

test("withoutTrailing / withoutLeading with isStopOrSpace give what /[.\\s]*$/, /[.\\s]+$/ and /^[.\\s]+/ gave", () => {
  fc.assert(
    fc.property(stopsAndSpaces, (text) => {
      assert.equal(withoutTrailing(text, isStopOrSpace), text.replace(/[.\s]*$/, ""));
      assert.equal(withoutTrailing(text, isStopOrSpace), text.replace(/[.\s]+$/, ""));
      assert.equal(withoutLeading(text, isStopOrSpace), text.replace(/^[.\s]+/, ""));
      const either = (c) => c === "…" || isStopOrSpace(c);
      assert.equal(withoutTrailing(text, either), text.replace(/[.…\s]*$/, ""));
    }),
    { numRuns: 2000 },
  );
});

test("describeError keeps its sentence: the message without closing stops, then the advice", () => {
  const advice = describeError({ message: "", code: "busy" }).slice(2);
  fc.assert(
    fc.property(stopsAndSpaces, (message) => {
      const trimmed = message.trim();
      const before = trimmed.includes(advice) ? trimmed : `${trimmed.replace(/[.\s]*$/, "")}. ${advice}`;
      assert.equal(describeError({ message, code: "busy" }), before);
    }),
    { numRuns: 1000 },
  );
});

test("classifyDisconnect says what the regex /native application .* not (found|installed)/i said", () => {
  const OLD = /native application .* not (found|installed)/i;
  const pieces = fc.constantFrom(
    "native application ", "Native Application ", "native application", " not found", " NOT installed",
    " not ", "found", "x", " ", "\n", "\r", "\u2028", "com.laika.host", "(", ")",
  );
  // (no piece can form the browsers' other phrases, so the old regex alone decided these)
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
      const text = parts.join("");
      assert.equal(classifyDisconnect(text), OLD.test(text) ? "missing" : "disconnected", JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
});

test("linear time where a regex was quadratic: long runs of stops, a repeated phrase", () => {
  const cases = {
    describeError: (n) => {
      const message = `${".".repeat(n)}x`;
      return () => describeError({ message, code: "busy" });
    },
    exportFile: (n) => {
      const filename = `a${" .".repeat(n / 2)}x`;
      return () => exportFile({ filename }, "md");
    },
    classifyDisconnect: (n) => {
      const message = "native application ".repeat(n / 19);
      return () => classifyDisconnect(message);
    },
  };
  for (const [name, prepare] of Object.entries(cases)) {
    const grew = growth(prepare, 20_000, 160_000, 24);
    assert.ok(grew < 24, `${name}: ${grew.toFixed(1)}x the time for 8x the input`);
  }
});
