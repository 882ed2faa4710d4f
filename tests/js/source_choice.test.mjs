// extension/sidepanel/source_choice.js: the sources an answer reads, as the user ticked them.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";

import { SourceChoice, choiceLine } from "../../extension/sidepanel/source_choice.js";

test("every source is read until unticked, per collection", () => {
  const choice = new SourceChoice();
  assert.ok(choice.uses("Coast", "src_a"));
  assert.deepEqual(choice.leftOut("Coast"), []);
  assert.ok(choice.set("Coast", "src_a", false));
  assert.ok(!choice.set("Coast", "src_a", false)); // no change
  assert.ok(!choice.uses("Coast", "src_a"));
  assert.ok(choice.uses("Other", "src_a"));
  assert.deepEqual(choice.leftOut("Coast"), ["src_a"]);
  choice.keepOnly("Coast", ["src_b"]); // src_a was deleted
  assert.deepEqual(choice.leftOut("Coast"), []);
  assert.equal(choice.total("Coast"), 1);
  assert.equal(choice.total("Other"), null);
});

test("any sequence of ticks leaves exactly the last unticked ones out", () => {
  const step = fc.tuple(fc.constantFrom("A", "B"), fc.constantFrom("s1", "s2", "s3"), fc.boolean());
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const choice = new SourceChoice();
      const last = new Map();
      for (const [collection, id, used] of steps) {
        choice.set(collection, id, used);
        last.set(`${collection}/${id}`, used);
      }
      for (const collection of ["A", "B"]) {
        const expected = ["s1", "s2", "s3"].filter((id) => last.get(`${collection}/${id}`) === false);
        assert.deepEqual(choice.leftOut(collection).sort(), expected);
      }
    }),
  );
});

test("the line reads as a sentence, or is absent", () => {
  assert.equal(choiceLine(0, 5), null);
  assert.equal(choiceLine(1, 5), "Answers read 4 of 5 sources: 1 source unticked on the Sources tab.");
  assert.equal(choiceLine(2, 3), "Answers read 1 of 3 sources: 2 sources unticked on the Sources tab.");
  assert.match(choiceLine(3, 3), /^Every source is unticked/);
});
