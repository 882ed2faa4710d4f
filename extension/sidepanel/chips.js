// Citation chips, shared by Chat and the artifact viewer so a chip looks and opens the same
// everywhere: a verified chip opens the live page at the quote (ext.open_citation), or the
// stored copy in the reader when the page lost the words or the citation is not verified.

import { chipModels } from "../lib/citations.js";
import { fill, h } from "./dom.js";

const STATE_TEXT = { verified: "verified", unverified: "unverified", rejected: "rejected" };

/**
 * Fill `list` (a <ul>) with one chip per citation, and make the `[n]` markers inside `body`
 * (host HTML: <a class="citation">) open the same citations. `from` is the view the reader's
 * Back button returns to.
 */
export function attachChips(app, { body, list, citations, from }) {
  const items = Array.isArray(citations) ? citations : [];
  const models = chipModels(items); // each its own source's title, shortened per answer
  fill(list, models.map((model, i) => chip(app, model, items[i], from)));
  body.addEventListener("click", (event) => {
    const link = event.target.closest?.("a.citation");
    if (!link) return;
    event.preventDefault();
    const number = Number(/\d+/.exec(link.textContent)?.[0]);
    const index = models.findIndex((model) => Number(model.marker) === number);
    if (index >= 0) openCitation(app, models[index], items[index], from);
  });
  return models;
}

function chip(app, model, citation, from) {
  const tipId = `tip-${Math.random().toString(36).slice(2)}`;
  const stateText =
    model.state === "verified"
      ? "verified"
      : `${STATE_TEXT[model.state] ?? model.state}${model.reason ? `: ${model.reason}` : ""}`;
  return h(
    "li",
    { class: "chip-item" },
    h(
      "button",
      {
        type: "button",
        class: `chip state-${model.state}`,
        dataset: { state: model.state, marker: String(model.marker ?? "") },
        "aria-describedby": tipId,
        onclick: () => openCitation(app, model, citation, from),
      },
      h("span", { class: "chip-label" }, model.label),
      h("span", { class: "chip-state" }, model.state === "verified" ? "✓" : "?"),
    ),
    h(
      "span",
      { class: "tip", role: "tooltip", id: tipId },
      h("strong", { class: "tip-title" }, model.title),
      h("br"),
      h("span", { class: "tip-quote" }, `“${model.quote}” — ${stateText}`),
    ),
  );
}

/** Open a citation: the live page at the quote when verified, else the stored copy. */
export async function openCitation(app, model, citation, from) {
  const sourceId = citation.source_id;
  if (!model.href) {
    if (!sourceId) return app.toast("This citation names no stored source.", "error");
    const notice = `This citation is ${model.state}${model.reason ? ` (${model.reason})` : ""}: the stored copy is shown.`;
    return app.emit("open-reader", { source_id: sourceId, highlight: model.quote, from, notice });
  }
  try {
    app.toast("Opening the page at the quote…");
    const opened = await app.request("ext.open_citation", {
      url: citation.url,
      locator: model.href,
      source_id: sourceId,
      quote: model.quote,
    });
    if (opened.opened === "reader" && sourceId) {
      const notice = "The live page no longer holds these words: this is the stored copy, quote marked.";
      app.emit("open-reader", { source_id: sourceId, highlight: model.quote, from, notice });
    }
  } catch (error) {
    app.fail(error);
  }
}
