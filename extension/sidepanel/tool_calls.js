// The tool calls of one chat answer (issue #16): a card per call inside the answer bubble,
// re-rendered on every `tool_call` event; Approve / Deny (+ remember) send `tool.decide`; a
// call the host forwards runs in the page through the background (`ext.run_tool`) and its
// outcome goes back as `tool.result`. Text nodes only (dom.js): arguments are hostile text.

import { fill, h } from "./dom.js";
import { describeError } from "./errors.js";
import { STATUS_TEXT, announcement, argumentRows, callSummary, isNewer, outcomeText, ruleText } from "./tool_display.js";

const REMEMBER = [
  ["once", "just this once"],
  ["session", "for this session"],
  ["always", "always"],
];
let serial = 0;

export class ToolCalls {
  /** list: the bubble's <ul>; announce(text): the chat's polite live region (no focus moves). */
  constructor(app, list, announce) {
    this.app = app;
    this.list = list;
    this.announce = announce;
    this.calls = new Map(); // call_id -> {event, item}
    this.forwarded = new Set();
    this.tabId = null; // the chat's tab, pinned by the first browser tool that runs
    this.compact = false;
  }

  /** Show (or update) the call of a `tool_call` event; run it when the chat's stream says
   * the host forwards it (`run`): only then does the host wait for its `tool.result`. */
  update(event, { run = true } = {}) {
    if (!event || typeof event.call_id !== "string") return;
    const known = this.calls.get(event.call_id);
    if (known && !isNewer(known.event, event)) return;
    const item = known?.item ?? h("li", { class: "tool-call" });
    const hadFocus = item.contains(document.activeElement);
    this.calls.set(event.call_id, { event, item });
    this.render(item, event);
    if (!known) this.list.append(item);
    this.list.hidden = false;
    if (hadFocus) item.focus(); // the pressed button is gone: keep the keyboard on the card
    if (event.status === "pending" && known?.event.status !== "pending") this.announce(announcement(event));
    if (event.forward && run) this.forward(event);
  }

  /** The final answer's `tool_calls`: each card in its last state, folded to one line. */
  settle(calls) {
    this.compact = true;
    for (const event of Array.isArray(calls) ? calls : []) this.update(event, { run: false });
    for (const { item, event } of this.calls.values()) this.render(item, event);
  }

  render(item, event) {
    item.className = `tool-call${this.compact ? " compact" : " card"}`;
    item.dataset.callId = event.call_id;
    item.dataset.status = event.status ?? "";
    item.tabIndex = -1;
    const outcome = outcomeText(event);
    const said = callSummary(event); // a settings tool in words: its tool and arguments fold away
    const technical = [this.argumentList(event), h("p", { class: "meta tool-rule" }, ruleText(event))];
    const details = said
      ? [this.reason(event), h("details", { class: "tool-more" }, h("summary", {}, "Details"), h("code", { class: "tool-name" }, event.tool), ...technical)]
      : [this.argumentList(event), this.reason(event), technical[1]];
    if (this.compact) {
      const summary = h("summary", {}, said ? h("span", { class: "tool-summary" }, said) : h("code", {}, event.tool), ` — ${outcome}`);
      return fill(item, h("details", {}, summary, ...details));
    }
    fill(
      item,
      h(
        "div",
        { class: "tool-head" },
        said ? h("span", { class: "tool-summary" }, said) : h("code", { class: "tool-name" }, event.tool),
        h("span", { class: `pill tool-status status-${event.status}` }, STATUS_TEXT[event.status] ?? event.status),
      ),
      ...details,
      event.status === "pending" && event.approval_id ? this.decision(event) : null,
      event.status === "pending" ? null : h("p", { class: "tool-outcome" }, outcome),
    );
  }

  argumentList(event) {
    const rows = argumentRows(event.arguments);
    if (!rows.length) return h("p", { class: "meta" }, "no arguments");
    return h(
      "dl",
      { class: "tool-args", "aria-label": `Arguments of ${event.tool}` },
      rows.map((row) => [
        h("dt", {}, row.key),
        h("dd", {}, row.truncated ? h("details", {}, h("summary", {}, row.short), h("span", { class: "full" }, row.full)) : row.full),
      ]),
    );
  }

  reason(event) {
    return event.reason ? h("p", { class: "tool-reason" }, event.reason) : null;
  }

  decision(event) {
    const id = `tool-remember-${++serial}`;
    const remember = h("select", { id, class: "tool-remember" }, REMEMBER.map(([value, text]) => h("option", { value }, text)));
    const buttons = [];
    const send = (approve) => this.decide(event, approve, remember.value, [...buttons, remember]);
    buttons.push(
      h("button", { type: "button", class: "primary tool-approve", onclick: () => send(true) }, "Approve"),
      h("button", { type: "button", class: "danger tool-deny", onclick: () => send(false) }, "Deny"),
    );
    return h(
      "div",
      { class: "tool-decide actions", role: "group", "aria-label": `Approve or deny ${event.tool}` },
      buttons,
      h("span", { class: "tool-remember-field" }, h("label", { for: id }, "Remember"), remember),
    );
  }

  async decide(event, approve, remember, controls) {
    for (const control of controls) control.disabled = true;
    try {
      const payload = { approval_id: event.approval_id, decision: approve ? "approve" : "deny", remember };
      const { call } = await this.app.request("tool.decide", payload);
      this.update(call, { run: false }); // the chat's own event says when the host waits for it
      if (remember !== "once") this.app.emit("tool-rules");
    } catch (error) {
      for (const control of controls) control.disabled = false;
      this.app.fail(error);
    }
  }

  /** Run a forwarded call in the page once, then hand its outcome to the host. */
  async forward(event) {
    if (this.forwarded.has(event.call_id)) return;
    this.forwarded.add(event.call_id);
    let ran;
    try {
      const payload = { call_id: event.call_id, tool: event.tool, arguments: event.arguments ?? {}, tabId: this.tabId };
      ran = await this.app.request("ext.run_tool", payload);
    } catch (error) {
      ran = { ok: false, error: describeError(error) };
    }
    if (ran.tabId !== undefined && ran.tabId !== null) this.tabId = ran.tabId;
    const reply = { call_id: event.call_id, ok: !!ran.ok, result: ran.ok ? (ran.result ?? null) : null, error: ran.ok ? null : String(ran.error ?? "failed") };
    try {
      await this.app.request("tool.result", reply);
    } catch (error) {
      this.app.fail(error);
    }
  }
}
