// Reader: a stored source as the host rendered it (safe HTML, re-checked by safe_html.js),
// with the cited quote marked when the reader was opened from a citation.

import { setSafeHtml } from "../../lib/safe_html.js";
import { fill, h, shortUrl } from "../dom.js";

export function mountReader(app, root) {
  let back = "sources";
  const title = h("h2", { id: "reader-title", tabindex: "-1" });
  const meta = h("div", { class: "meta", id: "reader-meta" });
  const note = h("p", { class: "notice", id: "reader-note", hidden: true });
  const body = h("article", { class: "reader-body", id: "reader-body", "aria-labelledby": "reader-title" });
  fill(
    root,
    h(
      "div",
      { class: "toolbar" },
      h("button", { type: "button", id: "reader-back", onclick: () => app.showView(back) }, "← Back"),
    ),
    title,
    meta,
    note,
    body,
  );

  app.on("open-reader", async ({ source_id: sourceId, highlight = null, from = "sources", notice = null }) => {
    back = from;
    app.showView("reader");
    title.textContent = "Loading…";
    fill(meta);
    fill(body);
    note.hidden = !notice;
    note.textContent = notice ?? "";
    const payload = { source_id: sourceId };
    if (highlight) payload.highlight = highlight;
    try {
      const source = await app.request("sources.get", payload);
      render(source, highlight);
    } catch (error) {
      title.textContent = "Could not open this source";
      fill(body, h("p", { class: "error" }, error.message));
    }
    title.focus();
  });

  function render(source, highlight) {
    title.textContent = source.title || source.url || "(untitled)";
    const link = /^https?:\/\//i.test(source.url ?? "")
      ? h("a", { href: source.url, target: "_blank", rel: "noopener noreferrer" }, shortUrl(source.url))
      : null;
    fill(meta, link, source.captured_at ? ` · saved ${source.captured_at.slice(0, 10)}` : "");
    if (typeof source.html === "string") setSafeHtml(body, source.html);
    else fill(body, h("pre", { class: "markdown" }, source.markdown ?? ""));
    const mark = body.querySelector("mark");
    if (mark) mark.scrollIntoView({ block: "center" });
    else if (highlight) {
      note.hidden = false;
      note.textContent = `${note.textContent} The quoted words were not found in the stored copy either.`.trim();
    }
  }
}
