// The Settings view's "Change a setting" box (issue #17): a sentence goes to the host as
// `settings.ask`; the one change it proposes shows as a tool call card (tool_calls.js) with
// Approve / Deny, then the outcome in the host's sentences (a decline names what can be
// changed instead; a question asks back; "show my settings" lists them one per line).
// Text nodes only (dom.js): the proposal and the messages may come from a model.

import { fill, h } from "../dom.js";
import { describeError } from "../errors.js";
import { outcomeSentence, proposalSentence, replyOutcome } from "../settings_reply.js";
import { ToolCalls } from "../tool_calls.js";

export const ASK_MAX_CHARS = 2000; // what the host reads (settings.ask: 1..2,000 characters)
const OLD_HOST =
  "this Laika host cannot change settings from a sentence yet: update it (pip install -U laika-host); `laika config set PATH VALUE` works meanwhile";

export class SettingsBox {
  constructor(app) {
    this.app = app;
    this.running = false;
    this.input = h("input", {
      id: "settings-ask-text",
      type: "text",
      maxlength: String(ASK_MAX_CHARS),
      autocomplete: "off",
      placeholder: "e.g. use dark theme",
      "aria-describedby": "settings-ask-help",
    });
    this.send = h("button", { type: "submit", id: "settings-ask-send", class: "primary" }, "Send");
    this.calls = h("ul", { class: "tool-calls", id: "settings-ask-calls", "aria-label": "Proposed change", hidden: true });
    this.outcome = h("div", { class: "settings-outcome", id: "settings-ask-outcome", hidden: true });
    this.live = h("p", { class: "visually-hidden", id: "settings-ask-status", role: "status", "aria-live": "polite" });
    this.element = h(
      "form",
      { class: "card form settings-ask", id: "settings-ask-form", onsubmit: (event) => (event.preventDefault(), this.ask()) },
      h("label", { for: "settings-ask-text" }, "Say what to change"),
      h("div", { class: "settings-ask-row" }, this.input, this.send),
      h(
        "p",
        { class: "meta", id: "settings-ask-help" },
        "Laika proposes one change and asks before making it. Enter sends.",
      ),
      this.calls,
      this.outcome,
      this.live,
    );
  }

  async ask() {
    const text = this.input.value.trim();
    if (this.running) return;
    if (!text) return this.input.focus();
    if (!this.app.has("settings.ask")) return this.show({ status: "failed", message: OLD_HOST });
    this.busy(true);
    fill(this.calls);
    this.calls.hidden = true;
    this.outcome.hidden = true;
    this.live.textContent = "Asking Laika…";
    const calls = new ToolCalls(this.app, this.calls, () => {});
    const onEvent = (frame) => {
      if (frame.event === "tool_call") this.proposed(calls, frame.data);
    };
    try {
      const reply = await this.app.request("settings.ask", { text }, { onEvent });
      calls.settle([]);
      this.show(reply);
      if (reply?.status === "applied") this.input.value = "";
      if (String(reply?.tool ?? "").startsWith("policy.")) this.app.emit("tool-rules");
    } catch (error) {
      calls.settle([]); // no Approve left once the request is over: the host denied what waited
      this.show({ status: "failed", message: describeError(error) });
    } finally {
      this.busy(false);
    }
  }

  /** A `tool_call` event: show the card; a new proposal that waits for the user is announced
   * and gets the keyboard when the keyboard is not elsewhere (the input is disabled meanwhile). */
  proposed(calls, event) {
    const before = this.calls.querySelector(".tool-approve");
    calls.update(event, { run: false }); // settings tools run in the host, never in the page
    const approve = this.calls.querySelector(".tool-approve");
    if (!approve || approve === before) return;
    this.live.textContent = proposalSentence(event);
    if (this.keyboardIsFree()) approve.focus();
  }

  show(reply) {
    const outcome = replyOutcome(reply);
    const list = outcome.canChange.length
      ? h("ul", { class: "can-change", id: "settings-can-change", "aria-label": "What can be changed" }, outcome.canChange.map((row) => h("li", {}, row)))
      : null;
    const line = outcome.headed ? [h("strong", {}, outcome.headline), outcome.detail ? `: ${outcome.detail}` : "."] : outcome.line;
    fill(
      this.outcome,
      h("p", { class: "settings-outcome-line" }, line),
      outcome.details.length
        ? h("ul", { class: "settings-details", id: "settings-details", "aria-label": "Details" }, outcome.details.map((row) => h("li", {}, row)))
        : null,
      outcome.notes.map((note) => h("p", { class: "meta settings-note" }, note)),
      list ? h("p", { class: "meta" }, "What can be changed:") : null,
      list,
    );
    this.outcome.dataset.status = outcome.status;
    this.outcome.dataset.question = String(outcome.question);
    this.outcome.hidden = false;
    this.live.textContent = outcomeSentence(outcome);
  }

  busy(on) {
    this.running = on;
    const refocus = !on && this.keyboardIsFree();
    this.input.disabled = on;
    this.send.disabled = on;
    this.element.setAttribute("aria-busy", String(on));
    if (refocus) this.input.focus();
  }

  /** Focus is nowhere (a disabled control dropped it) or inside this box. */
  keyboardIsFree() {
    const active = document.activeElement;
    return !active || active === document.body || this.element.contains(active);
  }
}
