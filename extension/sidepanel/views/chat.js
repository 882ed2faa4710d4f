// Chat: the collection's conversation (chat.history), the answer streaming in as plain text,
// then the host-rendered answer (through setSafeHtml) with one chip per citation. A verified
// chip opens the live page at the quote, or the stored copy when the page lost the words.
// Tool calls the model proposes show as cards in the answer (tool_calls.js).

import { answerAsMarkdown } from "../../lib/citations.js";
import { setSafeHtml } from "../../lib/safe_html.js";
import { answerNotes, coverageNote } from "../answer_notes.js";
import { attachChips } from "../chips.js";
import { describeError } from "../errors.js";
import { fill, h } from "../dom.js";
import { choiceLine } from "../source_choice.js";
import { streamingPreview } from "../stream_text.js";
import { ToolCalls } from "../tool_calls.js";

const ASK_HINT = "Ask a question: answers cite your saved sources.";
const NOTHING_SAVED =
  "Nothing is saved yet: Ask about this page answers from the page you are on (it is saved first), or save pages in Sources, then ask.";

export function mountChat(app, root) {
  const view = new ChatView(app, root);
  app.on("connected", () => view.loadHistory());
  app.on("collection", () => view.loadHistory());
  app.on("collection", () => view.showChoice());
  app.on("collections", () => view.showChoice());
  app.on("source-choice", () => view.showChoice());
  return view;
}

class ChatView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.controller = null;
    this.generation = 0;
    this.log = h("ol", { class: "chat-log", id: "chat-log", "aria-label": "Conversation" });
    this.question = h("textarea", {
      id: "question",
      rows: "3",
      maxlength: "4000",
      placeholder: "Ask your sources…",
      onkeydown: (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) this.form.requestSubmit();
      },
    });
    this.askButton = h("button", { type: "submit", id: "ask", class: "primary" }, "Ask");
    this.stopButton = h("button", { type: "button", id: "stop", disabled: true, onclick: () => this.stop() }, "Stop");
    this.pageButton = h(
      "button",
      {
        type: "button",
        id: "ask-page",
        title: "Ask the question about the page you are on (saved first); with the box empty, summarize it",
        onclick: () => this.askPage(),
      },
      "Ask about this page",
    );
    this.form = h(
      "form",
      { class: "ask", id: "ask-form", onsubmit: (event) => (event.preventDefault(), this.ask()) },
      h("label", { for: "question" }, "Question (Ctrl+Enter to ask)"),
      this.question,
      h("div", { class: "actions" }, this.askButton, this.stopButton, this.pageButton),
    );
    this.choice = h("p", { class: "muted choice-line", id: "source-choice-line", hidden: true });
    this.form.append(this.choice);
    this.empty = h("p", { class: "muted", id: "chat-empty" }, ASK_HINT);
    // approvals are announced here, politely: focus never jumps away from what the user types
    this.live = h("p", { class: "visually-hidden", id: "chat-announce", role: "status", "aria-live": "polite" });
    fill(root, this.empty, this.log, this.form, this.live);
  }

  async loadHistory() {
    if (this.app.host.state.status !== "connected" || this.controller) return;
    const generation = ++this.generation;
    if (!this.app.collection) {
      fill(this.log); // an empty store: nothing to show, nothing to ask yet
      this.empty.textContent = NOTHING_SAVED;
      this.empty.hidden = false;
      return;
    }
    this.empty.textContent = ASK_HINT;
    try {
      const { events } = await this.app.request("chat.history", { collection: this.app.collection, limit: 50 });
      if (generation !== this.generation) return; // an ask or a newer load came first: keep it
      fill(this.log, events.map((event) => this.historyItem(event)));
    } catch (error) {
      if (generation !== this.generation) return;
      fill(this.log);
      if (error?.code !== "not_found") this.app.fail(error);
    }
    this.empty.hidden = this.log.children.length > 0;
  }

  historyItem(event) {
    if (event.role === "user") return userBubble(event.markdown);
    const bubble = assistantBubble();
    this.finish(bubble, {
      status: event.model?.status ?? "ok",
      answer_markdown: event.markdown,
      answer_html: event.answer_html,
      citations: event.citations ?? [],
      warnings: [],
      provider: event.model?.provider ?? null,
      tool_calls: event.tool_calls ?? [],
    });
    return bubble.item;
  }

  /** How many of the shown collection's sources answers leave out (unticked), if any. */
  showChoice() {
    const collection = this.app.collection;
    const listed = this.app.collections.find((c) => c.title === collection)?.source_count ?? 0;
    const total = this.app.sourceChoice.total(collection) ?? listed; // the list the user ticks
    const line = collection ? choiceLine(this.app.sourceChoice.leftOut(collection).length, total) : null;
    this.choice.textContent = line ?? "";
    this.choice.hidden = !line;
  }

  /** The sources unticked on the list, which the answer must not read. */
  choicePayload() {
    const left = this.app.sourceChoice.leftOut(this.app.collection);
    return left.length ? { skip_sources: left } : {};
  }

  providerPayload() {
    const provider = this.app.settings.provider;
    return provider ? { provider } : {};
  }

  async ask() {
    if (this.controller) return; // Ctrl+Enter while an answer runs: the typed question stays
    const question = this.question.value.trim();
    if (!question) return this.question.focus();
    // none shown: the CLI, another window or a tool may have saved one since the list was read
    if (!this.app.collection) await this.app.reloadCollections?.();
    if (!this.app.collection) return this.app.toast(NOTHING_SAVED, "error"); // the question stays
    this.question.value = "";
    const payload = {
      question,
      collection: this.app.collection,
      ...this.providerPayload(),
      ...this.choicePayload(),
    };
    this.run(question, "Thinking…", (options) => this.app.request("chat.ask", payload, options));
  }

  /** The question in the box, asked about the page the user is on (the page is saved as a
   * source first); an empty box summarizes the page. */
  askPage() {
    if (this.controller) return;
    const question = this.question.value.trim();
    this.question.value = "";
    // the shown collection; none yet: the host's default, which the save creates
    const payload = { ...(this.app.collection ? { collection: this.app.collection } : {}), ...this.providerPayload() };
    if (question) payload.question = question;
    this.run(question || "Summarize this page.", "Reading the page…", async (options) => {
      const answer = await this.app.request("ext.summarize", payload, options);
      // the page is a source of the collection now: Sources and the switcher's counts show it
      this.app.emit("sources-reload");
      this.app.emit("sources-changed");
      return answer;
    });
  }

  /** One exchange: the user's words, then the answer `send(options)` resolves with. */
  async run(question, waiting, send) {
    if (this.controller) return;
    this.generation++; // a history load still on its way must not replace this exchange
    this.empty.hidden = true;
    this.log.append(userBubble(question));
    const bubble = assistantBubble();
    this.log.append(bubble.item);
    bubble.status.textContent = waiting;
    bubble.item.scrollIntoView({ block: "end" });
    this.controller = new AbortController();
    this.busy(true);
    let streamed = "";
    const calls = this.toolCalls(bubble);
    const onEvent = (frame) => {
      if (frame.event === "tool_call") return calls.update(frame.data);
      if (frame.event !== "delta" || typeof frame.data?.text !== "string") return;
      streamed += frame.data.text;
      // plain text while streaming; HTML only from the host's final render
      bubble.answer.textContent = streamingPreview(streamed);
      bubble.item.dataset.state = "streaming";
      bubble.status.textContent = "Answering…";
    };
    try {
      const result = await send({ onEvent, signal: this.controller.signal });
      this.finish(bubble, result, calls);
    } catch (error) {
      bubble.item.dataset.state = error?.code === "cancelled" ? "cancelled" : "error";
      bubble.status.textContent =
        error?.code === "cancelled" ? "Stopped. Ask again when you like." : describeError(error);
      bubble.status.classList.toggle("error", error?.code !== "cancelled");
      calls.settle([]); // no Approve left on a finished exchange: the host denied what still waited
    } finally {
      this.controller = null;
      this.busy(false);
    }
  }

  busy(on) {
    this.askButton.disabled = on;
    this.pageButton.disabled = on;
    this.stopButton.disabled = !on;
    this.root.setAttribute("aria-busy", String(on));
  }

  stop() {
    this.controller?.abort();
  }

  toolCalls(bubble) {
    return new ToolCalls(this.app, bubble.tools, (text) => {
      this.live.textContent = text;
    });
  }

  /** The final answer: host HTML (sanitized again here), chips, the tool calls folded to a
   * line each, status, Copy as Markdown. */
  finish(bubble, result, calls = this.toolCalls(bubble)) {
    calls.settle(result.tool_calls);
    if (typeof result.answer_html === "string") setSafeHtml(bubble.answer, result.answer_html);
    else bubble.answer.textContent = result.answer_markdown ?? "";
    bubble.item.dataset.state = "done";
    attachChips(this.app, { body: bubble.answer, list: bubble.chips, citations: result.citations, from: "chat" });
    const notes = answerNotes(result);
    bubble.status.textContent = notes.join(" ");
    bubble.status.classList.toggle("warn", notes.length > 0);
    bubble.coverage.textContent = coverageNote(result);
    fill(
      bubble.actions,
      h(
        "button",
        { type: "button", class: "small copy-md", onclick: () => this.copy(result) },
        "Copy as Markdown",
      ),
    );
  }

  async copy(result) {
    try {
      await navigator.clipboard.writeText(answerAsMarkdown(result));
      this.app.toast("Copied the answer as Markdown, citations as footnotes.");
    } catch (error) {
      this.app.toast(`Could not copy: ${error.message}. Click into the panel first, then try again.`, "error");
    }
  }
}

function userBubble(text) {
  return h("li", { class: "msg user" }, h("div", { class: "bubble" }, text));
}

function assistantBubble() {
  const answer = h("div", { class: "answer", "aria-live": "polite" });
  const status = h("p", { class: "msg-status", role: "status" });
  const coverage = h("p", { class: "msg-coverage" });
  const chips = h("ul", { class: "chips", "aria-label": "Citations" });
  const actions = h("div", { class: "msg-actions" });
  const tools = h("ul", { class: "tool-calls", "aria-label": "Tool calls", hidden: true });
  const item = h("li", { class: "msg assistant", dataset: { state: "waiting" } }, tools, answer, status, coverage, chips, actions);
  return { item, answer, status, coverage, chips, actions, tools };
}
