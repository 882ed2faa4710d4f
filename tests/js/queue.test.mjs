// extension/lib/queue.js: the capture queue's transitions, retry, and what the panel sees.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";

import { CaptureQueue } from "../../extension/lib/queue.js";

test("items go pending -> running -> done or failed, and a retry runs a failed one again", () => {
  const queue = new CaptureQueue();
  const seen = [];
  queue.onChange((summary) => seen.push(summary));
  const [a, b] = queue.add([{ url: "https://e.example/a" }, { url: "https://e.example/b" }]);
  assert.deepEqual(queue.summary, { total: 2, pending: 2, running: 0, done: 0, failed: 0 });

  const first = queue.next();
  assert.equal(first.id, a.id);
  assert.equal(first.attempts, 1);
  assert.equal(queue.next(), null, "one at a time by default");
  queue.done(a.id, { source_id: "s1" });
  assert.equal(queue.next().id, b.id);
  queue.fail(b.id, "the host said: page too large (max 5 MB)");
  assert.deepEqual(queue.summary, { total: 2, pending: 0, running: 0, done: 1, failed: 1 });
  const failed = queue.items.find((item) => item.id === b.id);
  assert.equal(failed.reason, "the host said: page too large (max 5 MB)");

  queue.retry(b.id);
  const again = queue.next();
  assert.equal(again.id, b.id);
  assert.equal(again.attempts, 2);
  assert.equal(again.reason, null);
  queue.done(b.id);
  assert.deepEqual(queue.summary, { total: 2, pending: 0, running: 0, done: 2, failed: 0 });
  assert.equal(queue.items[0].result.source_id, "s1");
  assert.equal(seen.length, 8, "one notice per change");
  queue.clearDone();
  assert.deepEqual(queue.summary, { total: 0, pending: 0, running: 0, done: 0, failed: 0 });
});

test("a wrong move throws, naming the item, its state and the move", () => {
  const queue = new CaptureQueue();
  const [item] = queue.add([{ url: "https://e.example/" }]);
  assert.throws(() => queue.done(item.id), /cannot mark done q1: it is pending, not running/);
  assert.throws(() => queue.retry(item.id), /cannot retry q1: it is pending, not failed/);
  assert.throws(() => queue.fail("q9", "x"), /cannot mark failed q9: no such item/);
  assert.throws(() => new CaptureQueue({ concurrency: 0 }), /positive integer, got 0/);
});

test("the same URL is not queued twice while pending or running, again once finished", () => {
  const queue = new CaptureQueue();
  assert.equal(queue.add([{ url: "u" }, { url: "u" }, { url: "v" }]).length, 2);
  const running = queue.next();
  assert.equal(queue.add([{ url: "u" }]).length, 0);
  queue.fail(running.id, "offline");
  assert.equal(queue.add([{ url: "u" }]).length, 1, "failed is not active");
  assert.equal(queue.add([{ title: "no key" }, { title: "no key" }]).length, 2);
});

test("concurrency lets that many run; retryFailed re-queues them all", () => {
  const queue = new CaptureQueue({ concurrency: 2 });
  queue.add([{ url: "a" }, { url: "b" }, { url: "c" }]);
  const [x, y] = [queue.next(), queue.next()];
  assert.equal(queue.next(), null);
  queue.fail(x.id, "e1");
  queue.fail(y.id, "e2");
  assert.equal(queue.retryFailed(), 2);
  assert.equal(queue.summary.pending, 3);
});

test("a listener that throws does not silence the others; unsubscribe works", (t) => {
  const logged = t.mock.method(console, "error", () => {});
  const saved = globalThis.reportError;
  globalThis.reportError = undefined;
  try {
    const queue = new CaptureQueue();
    let heard = 0;
    queue.onChange(() => { throw new Error("broken view"); });
    const stop = queue.onChange(() => { heard += 1; });
    queue.add([{ url: "a" }]);
    stop();
    queue.next();
    assert.equal(heard, 1);
    assert.equal(logged.mock.callCount(), 2);
  } finally {
    globalThis.reportError = saved;
  }
});

// ---- model-based: any sequence of moves keeps the queue and a plain model in step ----

class Model {
  constructor() { this.items = []; }
  count(state) { return this.items.filter((item) => item.state === state).length; }
}

const check = (model, queue) => {
  const items = queue.items;
  assert.deepEqual(items.map((item) => [item.id, item.state, item.attempts]),
    model.items.map((item) => [item.id, item.state, item.attempts]));
  const summary = queue.summary;
  assert.equal(summary.total, summary.pending + summary.running + summary.done + summary.failed);
  for (const item of items) assert.equal(item.reason !== null, item.state === "failed");
};

class Add {
  constructor(keys) { this.keys = keys; }
  check() { return true; }
  run(model, queue) {
    const active = new Set(model.items.filter((i) => ["pending", "running"].includes(i.state)).map((i) => i.key));
    const added = queue.add(this.keys.map((url) => ({ url })));
    const expected = [];
    for (const key of this.keys) {
      if (active.has(key)) continue;
      active.add(key);
      expected.push(key);
    }
    assert.deepEqual(added.map((item) => item.key), expected);
    for (const item of added) model.items.push({ id: item.id, key: item.key, state: "pending", attempts: 0 });
    check(model, queue);
  }
  toString() { return `add(${this.keys})`; }
}

class Next {
  check() { return true; }
  run(model, queue) {
    const item = queue.next();
    const expected = model.count("running") >= 1 ? undefined : model.items.find((i) => i.state === "pending");
    assert.equal(item?.id, expected?.id);
    if (expected) Object.assign(expected, { state: "running", attempts: expected.attempts + 1 });
    check(model, queue);
  }
  toString() { return "next()"; }
}

class Finish {
  constructor(pick, move) { this.pick = pick; this.move = move; }
  check() { return true; }
  run(model, queue) {
    if (!model.items.length) return;
    const item = model.items[this.pick % model.items.length];
    const from = this.move === "retry" ? "failed" : "running";
    const act = () => (this.move === "retry" ? queue.retry(item.id)
      : this.move === "done" ? queue.done(item.id, {}) : queue.fail(item.id, "reason"));
    if (item.state !== from) {
      assert.throws(act, new RegExp(`it is ${item.state}, not ${from}`));
    } else {
      act();
      item.state = { retry: "pending", done: "done", fail: "failed" }[this.move];
    }
    check(model, queue);
  }
  toString() { return `${this.move}(#${this.pick})`; }
}

test("property: any sequence of moves keeps every item in exactly one right state", () => {
  const commands = [
    fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 3 }).map((keys) => new Add(keys)),
    fc.constant(new Next()),
    fc.tuple(fc.nat(20), fc.constantFrom("done", "fail", "retry")).map(([pick, move]) => new Finish(pick, move)),
  ];
  fc.assert(
    fc.property(fc.commands(commands, { maxCommands: 60 }), (sequence) => {
      fc.modelRun(() => ({ model: new Model(), real: new CaptureQueue() }), sequence);
    }),
    { numRuns: 300 },
  );
});
