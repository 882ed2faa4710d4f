// streamingPreview: every prefix of a streamed LLMCP reply shows a prefix of its answer.
import { growth } from "./complexity.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

import fc from "fast-check";

import { streamingPreview } from "../../extension/sidepanel/stream_text.js";

test("each prefix of a JSON reply previews a prefix of its markdown, the whole reply all of it", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ maxLength: 20 }), (markdown, quote) => {
      const reply = JSON.stringify({ assistant: { markdown }, citations: [{ doc_id: "src:1", quote }] });
      // the decoded \\u escapes of lone surrogates aside, code units line up
      for (let end = 0; end <= reply.length; end++) {
        const shown = streamingPreview(reply.slice(0, end));
        assert.ok(markdown.startsWith(shown), `${JSON.stringify(shown)} is not a prefix`);
      }
      assert.equal(streamingPreview(reply), markdown);
    }),
    { seed: 13, numRuns: 200 },
  );
});

test("escapes split across deltas wait for their end; text that is not JSON shows as is", () => {
  const reply = '{"assistant": {"markdown": "a\\u00e9\\n\\"b\\""}}';
  const shown = [];
  for (let end = 0; end <= reply.length; end++) shown.push(streamingPreview(reply.slice(0, end)));
  assert.equal(shown.at(-1), 'aé\n"b"');
  assert.ok(!shown.some((text) => text.includes("\\")));
  assert.equal(streamingPreview("Plain answer [1]."), "Plain answer [1].");
  assert.equal(streamingPreview('{"citations": []'), "");
});

test("the preview is linear: a 4x longer reply takes about 4x the time", () => {
  const prepare = (size) => {
    const reply = JSON.stringify({ assistant: { markdown: "ab\\\"c ".repeat(size / 6) } });
    return () => streamingPreview(reply);
  };
  const ratio = growth(prepare, 1e5, 4e5, 12);
  assert.ok(ratio < 12, `4x input took ${ratio.toFixed(1)}x the time`);
});
