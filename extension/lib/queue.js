// The capture queue the panel shows ("3 of 10 saved, 1 failed: Retry"); pure state, no I/O.
// Whoever drains it (the background) calls next(), saves, then done() or fail(); the panel
// renders `items` and `summary` on every onChange.
//
// Each item is in exactly one state: pending -> running -> done | failed(reason);
// retry() puts a failed item back to pending. Any other move is a bug in the caller and
// throws, naming the item, its state and the move.

const STATES = ["pending", "running", "done", "failed"];
const ACTIVE = new Set(["pending", "running"]);

export class CaptureQueue {
  #items = new Map(); // id -> item, in insertion order
  #listeners = new Set();
  #activeKeys = new Map(); // key -> how many pending or running items hold it
  #nextId = 1;
  #concurrency;

  /** @param {{concurrency?: number}} [options] how many items may run at once (default 1) */
  constructor({ concurrency = 1 } = {}) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    }
    this.#concurrency = concurrency;
  }

  /**
   * Queue work items (any objects, e.g. {url, title, tabId, mode}). An item whose `key`
   * (default: its `url`) is already pending or running is skipped, so a double click does
   * not save twice. Returns the queued entries.
   * @param {object[]} items
   */
  add(items) {
    const added = [];
    for (const work of items) {
      const key = work.key ?? work.url ?? null;
      if (key !== null && this.#activeKeys.has(key)) continue;
      const entry = { id: `q${this.#nextId++}`, key, work, state: "new", attempts: 0,
        reason: null, result: null };
      this.#move(entry, "pending");
      this.#items.set(entry.id, entry);
      added.push(snapshot(entry));
    }
    if (added.length) this.#changed();
    return added;
  }

  /** The oldest pending item, now running; null when none is pending or enough are running. */
  next() {
    if (this.#count("running") >= this.#concurrency) return null;
    for (const entry of this.#items.values()) {
      if (entry.state === "pending") {
        this.#move(entry, "running");
        entry.attempts += 1;
        this.#changed();
        return snapshot(entry);
      }
    }
    return null;
  }

  /** A running item finished; `result` is kept for the panel (e.g. the host's save result). */
  done(id, result = null) {
    const entry = this.#expect(id, "running", "mark done");
    this.#move(entry, "done");
    entry.result = result;
    this.#changed();
  }

  /** A running item failed; `reason` says what happened in words the panel shows. */
  fail(id, reason) {
    const entry = this.#expect(id, "running", "mark failed");
    this.#move(entry, "failed");
    entry.reason = String(reason || "failed for an unknown reason");
    this.#changed();
  }

  /** Put a failed item back to pending (its reason is cleared, its attempts kept). */
  retry(id) {
    const entry = this.#expect(id, "failed", "retry");
    this.#move(entry, "pending");
    entry.reason = null;
    this.#changed();
  }

  /** Retry every failed item; returns how many. */
  retryFailed() {
    const failed = [...this.#items.values()].filter((entry) => entry.state === "failed");
    for (const entry of failed) {
      this.#move(entry, "pending");
      entry.reason = null;
    }
    if (failed.length) this.#changed();
    return failed.length;
  }

  /** Forget done items, keep the rest (failed ones stay until retried or cleared). */
  clearDone() {
    const before = this.#items.size;
    for (const [id, entry] of this.#items) if (entry.state === "done") this.#items.delete(id);
    if (this.#items.size !== before) this.#changed();
  }

  /** Copies of the items in the order they were added. */
  get items() {
    return [...this.#items.values()].map(snapshot);
  }

  /** {total, done, failed, pending, running}: the panel's "N of M". */
  get summary() {
    const summary = { total: this.#items.size };
    for (const state of STATES) summary[state] = this.#count(state);
    return summary;
  }

  /** Call `listener(summary, items)` after every change; returns the unsubscribe function. */
  onChange(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Set an entry's state, keeping the count of active keys in step. */
  #move(entry, state) {
    const wasActive = ACTIVE.has(entry.state);
    const isActive = ACTIVE.has(state);
    entry.state = state;
    if (entry.key === null || wasActive === isActive) return;
    const count = (this.#activeKeys.get(entry.key) ?? 0) + (isActive ? 1 : -1);
    if (count > 0) this.#activeKeys.set(entry.key, count);
    else this.#activeKeys.delete(entry.key);
  }

  #count(state) {
    let count = 0;
    for (const entry of this.#items.values()) if (entry.state === state) count += 1;
    return count;
  }

  #expect(id, state, move) {
    const entry = this.#items.get(id);
    if (!entry) throw new Error(`cannot ${move} ${id}: no such item in the queue`);
    if (entry.state !== state) {
      throw new Error(`cannot ${move} ${id}: it is ${entry.state}, not ${state}`);
    }
    return entry;
  }

  /** Tell every listener; one that throws does not keep the others from hearing. */
  #changed() {
    const summary = this.summary;
    const items = this.items;
    for (const listener of [...this.#listeners]) {
      try {
        listener(summary, items);
      } catch (error) {
        (globalThis.reportError ?? console.error)(error);
      }
    }
  }
}

function snapshot(entry) {
  return { ...entry };
}
