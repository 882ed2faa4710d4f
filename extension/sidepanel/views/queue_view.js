// The visible capture queue: "N of M", pending, failed with the reason, Retry. The state is
// lib/queue.js's CaptureQueue (pure, tested in node); this module runs the items one at a
// time and draws the list.

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
    this.tasks = new Map(); // id -> {label, run, status, reason}
    this.nextId = 1;
    this.running = false;
    this.queue.onChange(() => this.render());
  }

  /** Queue [{label, run: async () => result}] and start working through them. */
  add(entries) {
    const items = entries.map((entry) => {
      const id = `q${this.nextId++}`;
      this.tasks.set(id, { ...entry, status: "pending", reason: null });
      return { id, label: entry.label };
    });
    this.queue.add(items);
    this.render();
    this.pump();
  }

  async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (let item = this.queue.next(); item; item = this.queue.next()) {
        const task = this.tasks.get(item.id);
        task.status = "running";
        this.render();
        try {
          task.result = await task.run();
          task.status = "done";
          task.reason = task.result?.note ?? null;
          this.queue.done(item.id, task.result);
        } catch (error) {
          task.status = "failed";
          task.reason = describeError(error);
          this.queue.fail(item.id, task.reason);
        }
      }
    } finally {
      this.running = false;
      this.render();
      this.onFinished?.();
    }
  }

  retry(id) {
    const task = this.tasks.get(id);
    task.status = "pending";
    task.reason = null;
    this.queue.retry(id);
    this.pump();
  }

  clearFinished() {
    for (const [id, task] of this.tasks) if (task.status === "done") this.tasks.delete(id);
    if (![...this.tasks.values()].some((task) => task.status !== "done")) {
      this.queue = new CaptureQueue();
      this.queue.onChange(() => this.render());
      this.tasks.clear();
    }
    this.render();
  }

  render() {
    const tasks = [...this.tasks.entries()];
    this.root.hidden = tasks.length === 0;
    if (!tasks.length) return fill(this.root);
    const { total, done, failed } = this.queue.summary;
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
        tasks.map(([id, task]) =>
          h(
            "li",
            { class: `queue-item status-${task.status}`, dataset: { status: task.status } },
            h("span", { class: "queue-label" }, task.label),
            h("span", { class: "queue-state" }, LABEL[task.status]),
            task.reason ? h("span", { class: "queue-reason" }, task.reason) : null,
            task.status === "failed"
              ? h("button", { type: "button", class: "small", onclick: () => this.retry(id) }, "Retry")
              : null,
          ),
        ),
      ),
    );
  }
}
