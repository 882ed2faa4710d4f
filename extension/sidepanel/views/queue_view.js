// The visible capture queue: "N of M", pending, failed with the reason, Retry. The state is
// lib/queue.js's CaptureQueue (pure, tested in node); this module runs the items one at a
// time and draws the list on every change.

import { CaptureQueue } from "../../lib/queue.js";
import { describeError } from "../errors.js";
import { fill, h } from "../dom.js";

const LABEL = { pending: "waiting", running: "saving…", done: "saved", failed: "failed" };

export class QueueView {
  constructor(app, root, onFinished) {
    this.app = app;
    this.root = root;
    this.onFinished = onFinished;
    this.queue = new CaptureQueue();
    this.runs = new Map(); // queue item id -> async () => result
    this.running = false;
    this.queue.onChange((summary, items) => this.render(summary, items));
  }

  /** Queue [{label, key?, run: async () => result}]; a key already queued is skipped. */
  add(entries) {
    const added = this.queue.add(entries.map(({ label, key }, index) => ({ label, key: key ?? null, index })));
    for (const item of added) this.runs.set(item.id, entries[item.work.index].run);
    this.pump();
  }

  async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (let item = this.queue.next(); item; item = this.queue.next()) {
        try {
          this.queue.done(item.id, await this.runs.get(item.id)());
        } catch (error) {
          this.queue.fail(item.id, describeError(error));
        }
      }
    } finally {
      this.running = false;
      this.onFinished?.();
    }
  }

  /** Draw again (the shown collection changed: "Show" buttons follow it). */
  refresh() {
    this.render(this.queue.summary, this.queue.items);
  }

  retry(id) {
    this.queue.retry(id);
    this.pump();
  }

  clearFinished() {
    this.queue.clearDone();
    if (!this.queue.items.length) this.render(this.queue.summary, []);
  }

  render(summary, items) {
    this.root.hidden = items.length === 0;
    if (!items.length) return fill(this.root);
    const { total, done, failed } = summary;
    const finished = done + failed;
    const heading =
      finished < total ? `Saving ${Math.min(finished + 1, total)} of ${total}` : `Saved ${done} of ${total}`;
    fill(
      this.root,
      h(
        "div",
        { class: "queue-head" },
        h("strong", { id: "queue-summary" }, heading, failed ? ` · ${failed} failed` : ""),
        h("progress", { max: String(total), value: String(finished), "aria-label": "Capture progress" }),
        h("button", { type: "button", class: "small", onclick: () => this.clearFinished() }, "Clear"),
      ),
      h(
        "ul",
        { class: "queue-items", "aria-label": "Capture queue" },
        items.map((item) => {
          const note = item.state === "failed" ? item.reason : item.state === "done" ? item.result?.note : null;
          const where = item.state === "done" ? item.result?.collection : null; // "Saved to ..."
          const elsewhere = where && where !== this.app.collection && this.app.chooseCollection;
          return h(
            "li",
            { class: `queue-item status-${item.state}`, dataset: { status: item.state } },
            h("span", { class: "queue-label" }, item.work.label),
            h("span", { class: "queue-state" }, LABEL[item.state]),
            note ? h("span", { class: "queue-reason" }, note) : null,
            elsewhere
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "small queue-show",
                    onclick: () => this.app.chooseCollection(where),
                  },
                  `Show ${where}`,
                )
              : null,
            item.state === "failed"
              ? h("button", { type: "button", class: "small", onclick: () => this.retry(item.id) }, "Retry")
              : null,
          );
        }),
      ),
    );
  }
}
