// Sources: capture actions with a checkbox preview and the visible queue, FTS search with
// highlighted snippets, the list with each source's status, add a URL or a note, refresh, delete.
//
// Where a save goes: the configured default collection (`capture.default_collection`), unless
// the user picks another in "Save to" for this save (the pick applies to the next save, then
// the choice is the default again). The collection the switcher shows is what the list shows,
// not where pages go. Each saved item says where it went ("Saved to Reading").

import { counted, fill, h, markedText, shortUrl } from "../dom.js";
import { QueueView } from "./queue_view.js";

const DEFAULT_TARGET = ""; // the Save to option for "the configured default"

export function mountSources(app, root) {
  const view = new SourcesView(app, root);
  app.on("connected", () => view.reload());
  app.on("collection", () => (view.reload(), view.queue.refresh()));
  app.on("sources-reload", () => view.reload());
  app.on("collections", () => view.renderTargets());
  app.on("default-collection", () => view.renderTargets());
  return view;
}

class SourcesView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.searchTimer = null;
    this.build();
    this.queue = new QueueView(app, this.queueBox, () => {
      this.reload();
      app.emit("sources-changed");
    });
  }

  build() {
    const button = (id, text, onclick, extra = {}) => h("button", { type: "button", id, onclick, ...extra }, text);
    this.picker = h("div", { class: "picker card", id: "picker", hidden: true });
    this.queueBox = h("div", { class: "queue card", id: "queue", hidden: true, "aria-live": "polite" });
    this.addUrlForm = this.buildAddUrl();
    this.addNoteForm = this.buildAddNote();
    this.searchInput = h("input", {
      type: "search",
      id: "search-input",
      placeholder: "Search this collection",
      "aria-label": "Search sources",
      oninput: () => this.scheduleSearch(),
    });
    this.list = h("ul", { class: "source-list", id: "source-list", "aria-label": "Sources" });
    this.results = h("ul", { class: "source-list", id: "search-results", "aria-label": "Search results", hidden: true });
    this.listStatus = h("p", { class: "muted", id: "sources-status", role: "status" });
    this.target = h("select", { id: "save-to", "aria-describedby": "save-to-hint", onchange: () => this.showHint() });
    this.targetHint = h("span", { class: "muted save-to-hint", id: "save-to-hint", hidden: true });
    this.empty = h("div", { class: "card empty-state", id: "sources-empty", role: "note", hidden: true });
    fill(
      this.root,
      h(
        "div",
        { class: "toolbar", role: "toolbar", "aria-label": "Capture" },
        button("save-page", "Save page", () => this.savePage(), { class: "primary" }),
        button("save-selection", "Save selection", () => this.saveSelection()),
        button("save-links", "Links in selection…", () => this.pickLinks()),
        button("save-tabs", "Open tabs…", () => this.pickTabs()),
      ),
      h("div", { class: "save-to" }, h("label", { for: "save-to" }, "Save to"), this.target, this.targetHint),
      this.empty,
      this.picker,
      this.queueBox,
      (this.searchForm = h(
        "form",
        { role: "search", class: "search", onsubmit: (event) => (event.preventDefault(), this.search()) },
        this.searchInput,
      )),
      h(
        "div",
        { class: "toolbar" },
        button("add-url", "Add URL", () => this.toggle(this.addUrlForm)),
        button("add-note", "Add note", () => this.toggle(this.addNoteForm)),
        button("sources-reload", "Reload", () => this.reload(), { class: "ghost" }),
      ),
      this.addUrlForm,
      this.addNoteForm,
      this.listStatus,
      this.results,
      this.list,
    );
  }

  toggle(form) {
    form.hidden = !form.hidden;
    if (!form.hidden) form.querySelector("input, textarea")?.focus();
  }

  buildAddUrl() {
    const input = h("input", { type: "url", id: "add-url-input", required: true, placeholder: "https://…" });
    return h(
      "form",
      {
        class: "card form",
        id: "add-url-form",
        hidden: true,
        onsubmit: (event) => {
          event.preventDefault();
          const url = input.value.trim();
          if (!url) return;
          const target = this.takeTarget();
          this.queue.add([{ label: shortUrl(url), key: url, run: () => this.fetchUrl(url, target) }]);
          input.value = "";
          event.target.hidden = true;
        },
      },
      h("label", { for: "add-url-input" }, "Page address (the host fetches it)"),
      input,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add")),
    );
  }

  buildAddNote() {
    const title = h("input", { type: "text", id: "note-title", maxlength: "300", placeholder: "Optional" });
    const text = h("textarea", { id: "note-text", rows: "4", required: true });
    return h(
      "form",
      {
        class: "card form",
        id: "add-note-form",
        hidden: true,
        onsubmit: async (event) => {
          event.preventDefault();
          const form = event.target;
          if (!this.app.has("sources.add_note")) {
            return this.app.toast("This Laika host cannot store notes yet: update the host, then reload.", "error");
          }
          const target = this.takeTarget();
          try {
            const payload = { text: text.value, ...SourcesView.collectionOf(target) };
            if (title.value.trim()) payload.title = title.value.trim();
            const saved = await this.app.request("sources.add_note", payload);
            title.value = text.value = "";
            form.hidden = true;
            const where = saved.collection ?? target.title;
            this.app.toast(where ? `Note saved to ${where}.` : "Note saved.");
            this.reload();
            this.app.emit("sources-changed");
          } catch (error) {
            this.restoreTarget(target); // the note stays in the form, and so does where it goes
            this.app.fail(error);
          }
        },
      },
      h("label", { for: "note-title" }, "Title"),
      title,
      h("label", { for: "note-text" }, "Note (stored as plain text)"),
      text,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Save note")),
    );
  }

  // --- where a save goes --------------------------------------------------------------

  /** The Save to choices: the default first (named when the host said which), then every
   * other collection that exists. A pick no longer listed falls back to the default. */
  renderTargets() {
    const chosen = this.target.value;
    const fallback = this.app.defaultCollection;
    const others = this.app.collections.map((c) => c.title).filter((title) => title !== fallback);
    fill(
      this.target,
      h("option", { value: DEFAULT_TARGET }, fallback ? `${fallback} (default)` : "The default collection"),
      others.map((title) => h("option", { value: title }, title)),
    );
    this.target.value = others.includes(chosen) ? chosen : DEFAULT_TARGET;
    this.showHint();
    this.renderEmpty();
  }

  /** Under a picked collection, what the pick does: it is for the next save only. */
  showHint() {
    const picked = this.target.value !== DEFAULT_TARGET;
    this.targetHint.hidden = !picked;
    const fallback = this.app.defaultCollection;
    this.targetHint.textContent = picked
      ? `For the next save only; then ${fallback ?? "the default collection"} again.`
      : "";
  }

  /** An empty store: say what Save page will do, in place of an empty list. */
  renderEmpty() {
    const none = this.app.host.state.status === "connected" && this.app.collections.length === 0;
    this.empty.hidden = !none;
    this.searchForm.hidden = none; // nothing to search yet
    if (!none) return;
    const name = this.app.defaultCollection;
    fill(
      this.empty,
      h("strong", {}, "Nothing saved yet"),
      h(
        "p",
        {},
        name
          ? `Save page keeps the page you are on in “${name}”, your default collection: it is created with the first save.`
          : "Save page keeps the page you are on in your default collection: it is created with the first save.",
      ),
      h("p", { class: "muted" }, "Save selection, Add URL and Add note save there too."),
    );
  }

  /** Where this save goes: {title, picked: true} when the user picked a collection, else
   * {title: the default's name (null when this host cannot say), picked: false}. The pick is
   * for this save only: the choice goes back to the default. */
  takeTarget() {
    const picked = this.target.value;
    this.target.value = DEFAULT_TARGET;
    this.showHint();
    if (picked !== DEFAULT_TARGET) return { title: picked, picked: true };
    return { title: this.app.defaultCollection, picked: false };
  }

  /** A save that did not start (a refused note): its pick is the choice again. */
  restoreTarget(target) {
    if (!target.picked || this.target.value !== DEFAULT_TARGET) return;
    if ([...this.target.options].some((option) => option.value === target.title)) this.target.value = target.title;
    this.showHint();
  }

  /** The payload's collection: named only when picked (else the host applies its setting,
   * even one changed a moment ago). */
  static collectionOf(target) {
    return target.picked ? { collection: target.title } : {};
  }

  // --- capture ---------------------------------------------------------------------

  describeSave(saved, target) {
    const words = { new: "new source", updated: "updated the saved copy", unchanged: "already saved, unchanged" };
    const where = saved?.collection ?? target?.title ?? null;
    const what = saved?.outcome === "kept" ? `kept the saved copy: ${saved.reason}` : (words[saved?.outcome] ?? saved?.outcome);
    const note = where ? `Saved to ${where} · ${what}` : what;
    return { ...saved, note, collection: where };
  }

  savePage(tabId = undefined, label = "This page", target = this.takeTarget()) {
    const payload = { ...SourcesView.collectionOf(target), mode: this.app.settings.capture.mode };
    if (tabId !== undefined) payload.tabId = tabId;
    this.queue.add([
      {
        label,
        key: `page:${tabId ?? "current"}`, // a double click does not save twice
        run: async () => this.describeSave(await this.app.request("ext.save_page", payload), target),
      },
    ]);
  }

  saveSelection() {
    const target = this.takeTarget();
    const payload = SourcesView.collectionOf(target);
    this.queue.add([
      {
        label: "The selection",
        run: async () => this.describeSave(await this.app.request("ext.save_selection", payload), target),
      },
    ]);
  }

  /** add_url, then run that job now: the queue shows the fetch's own outcome or error. */
  async fetchUrl(url, target = { title: this.app.defaultCollection, picked: false }) {
    const added = await this.app.request("sources.add_url", { url, ...SourcesView.collectionOf(target) });
    const where = this.app.collections.find((c) => c.id === added.source?.collection_id)?.title ?? target.title;
    const saved = (note) => ({ note: where ? `Saved to ${where} · ${note}` : note, collection: where });
    if (!added.job || added.job.status === "succeeded") return saved(added.outcome);
    await this.app.request("jobs.run", { max_jobs: 1 });
    const job = await this.app.request("jobs.status", { job_id: added.job.id });
    if (job.status === "succeeded") return saved(job.outcome_reason ? `kept: ${job.outcome_reason}` : job.outcome);
    const reason = job.last_error ?? `the fetch is ${job.status}`;
    throw new Error(job.status === "queued" ? `${reason} (the host retries it later)` : reason);
  }

  async pickLinks() {
    try {
      const { links } = await this.app.request("ext.selection_links", {});
      if (!links.length) {
        return this.app.toast("No links in the selection: select text that contains links, then try again.", "error");
      }
      this.showPicker(
        `Links in the selection (${links.length})`,
        links.map((link) => ({ key: link.url, label: link.text, detail: shortUrl(link.url) })),
        (chosen) => {
          const target = this.takeTarget();
          this.queue.add(
            chosen.map((item) => ({ label: item.label, key: item.key, run: () => this.fetchUrl(item.key, target) })),
          );
        },
      );
    } catch (error) {
      this.app.fail(error);
    }
  }

  async pickTabs() {
    try {
      const { tabs } = await this.app.request("ext.tabs", {});
      if (!tabs.length) return this.app.toast("No web pages are open in this browser.", "error");
      this.showPicker(
        `Open tabs (${tabs.length})`,
        tabs.map((tab) => ({ key: tab.tabId, label: tab.title, detail: shortUrl(tab.url) })),
        (chosen) => {
          const target = this.takeTarget();
          chosen.forEach((item) => this.savePage(item.key, item.label, target));
        },
      );
    } catch (error) {
      this.app.fail(error);
    }
  }

  /** A checkbox preview: everything checked, the user unticks what they do not want. */
  showPicker(title, items, onSave) {
    const boxes = items.map((item, i) =>
      h("input", { type: "checkbox", id: `pick-${i}`, checked: true, dataset: { index: String(i) } }),
    );
    const count = h("span", {}, String(items.length));
    const update = () => (count.textContent = String(boxes.filter((box) => box.checked).length));
    const all = h("input", {
      type: "checkbox",
      id: "pick-all",
      checked: true,
      onchange: () => {
        boxes.forEach((box) => (box.checked = all.checked));
        update();
      },
    });
    fill(
      this.picker,
      h("h3", {}, title),
      h("label", { class: "check" }, all, "Select all"),
      h(
        "ul",
        { class: "pick-list", onchange: update },
        items.map((item, i) =>
          h(
            "li",
            {},
            h("label", { class: "check", for: `pick-${i}` }, boxes[i], h("span", {}, item.label, h("small", {}, item.detail))),
          ),
        ),
      ),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => (this.picker.hidden = true) }, "Cancel"),
        h(
          "button",
          {
            type: "button",
            id: "pick-save",
            class: "primary",
            onclick: () => {
              this.picker.hidden = true;
              const chosen = items.filter((_, i) => boxes[i].checked);
              if (chosen.length) onSave(chosen);
            },
          },
          "Save ",
          count,
        ),
      ),
    );
    this.picker.hidden = false;
    all.focus();
  }

  // --- list and search -------------------------------------------------------------

  async reload() {
    if (this.app.host.state.status !== "connected") return;
    this.renderTargets();
    if (!this.app.collection) {
      fill(this.list);
      this.listStatus.textContent = "";
      return;
    }
    this.listStatus.textContent = "Loading…";
    try {
      const { sources } = await this.app.request("sources.list", { collection: this.app.collection, limit: 200 });
      this.app.sourceChoice.keepOnly(this.app.collection, sources.map((source) => source.id));
      fill(this.list, sources.map((source) => this.row(source)));
      this.listStatus.textContent = sources.length
        ? `${counted(sources.length, "source")} in ${this.app.collection}; answers read the ticked ones`
        : this.noSources();
      this.app.emit("source-choice");
    } catch (error) {
      fill(this.list);
      this.listStatus.textContent =
        error?.code === "not_found" ? this.noSources() : `Could not list the sources: ${error.message}`;
    }
    if (this.searchInput.value.trim()) this.search();
  }

  /** The shown collection is empty: how to put something in it, which is not Save page
   * alone when the saves go to another (the default) collection. */
  noSources() {
    const shown = this.app.collection;
    const fallback = this.app.defaultCollection;
    if (!fallback || fallback === shown) return `No sources in ${shown} yet: save a page, add a URL or write a note.`;
    return `No sources in ${shown} yet. Saves go to ${fallback}, your default collection: pick ${shown} in “Save to” to save here.`;
  }

  statusChips(source) {
    const chips = [h("span", { class: `pill status-${source.capture_status}` }, source.capture_status)];
    if (source.capture_status === "failed" && source.capture_error) {
      chips.push(h("span", { class: "pill status-failed" }, source.capture_error));
    }
    if (source.truncated) chips.push(h("span", { class: "pill warn" }, "truncated"));
    for (const signal of source.signals ?? []) chips.push(h("span", { class: "pill warn" }, signal.replaceAll("_", " ")));
    return chips;
  }

  row(source) {
    const title = source.title || source.url || "(untitled)";
    const actions = [
      source.url
        ? h(
            "button",
            {
              type: "button",
              class: "small",
              "aria-label": `Refresh ${title}`,
              onclick: () =>
                this.queue.add([
                  {
                    label: `Refresh: ${title}`,
                    key: source.url,
                    // its own collection: a refresh never moves a source
                    run: () => this.fetchUrl(source.url, { title: this.app.collection, picked: true }),
                  },
                ]),
            },
            "Refresh",
          )
        : null,
      h(
        "button",
        { type: "button", class: "small danger", "aria-label": `Delete ${title}`, onclick: () => this.remove(source, title) },
        "Delete",
      ),
    ];
    const collection = this.app.collection;
    const use = h("input", {
      type: "checkbox",
      class: "use-source",
      checked: this.app.sourceChoice.uses(collection, source.id),
      title: "Read in answers",
      "aria-label": `Read ${title} in answers`,
      onchange: (event) => {
        if (this.app.sourceChoice.set(collection, source.id, event.target.checked)) this.app.emit("source-choice");
      },
    });
    return h(
      "li",
      { class: "source", dataset: { id: source.id } },
      h("div", { class: "source-head" }, use, h("button", { type: "button", class: "link title", onclick: () => this.open(source.id) }, title)),
      h("div", { class: "meta" }, source.url ? shortUrl(source.url) : source.kind, " ", this.statusChips(source)),
      h("div", { class: "row-actions" }, actions),
    );
  }

  open(sourceId, highlight = null) {
    this.app.emit("open-reader", { source_id: sourceId, highlight });
  }

  async remove(source, title) {
    const sure = await this.app.dialog({
      title: "Delete this source?",
      text: `“${title}” and its saved versions are deleted for good.`,
      ok: "Delete",
      danger: true,
    });
    if (!sure) return;
    try {
      await this.app.request("sources.delete", { source_id: source.id });
      this.app.toast("Deleted.");
      this.reload();
      this.app.emit("sources-changed");
    } catch (error) {
      this.app.fail(error);
    }
  }

  scheduleSearch() {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.search(), 250);
  }

  async search() {
    const query = this.searchInput.value.trim();
    this.results.hidden = !query;
    this.list.hidden = !!query;
    if (!query) return this.reload();
    this.listStatus.textContent = "Searching…";
    try {
      const { hits } = await this.app.request("search.query", { query, collection: this.app.collection, limit: 50 });
      if (query !== this.searchInput.value.trim()) return; // a newer search is on its way
      fill(
        this.results,
        hits.map((hit) =>
          h(
            "li",
            { class: "source hit" },
            h(
              "button",
              { type: "button", class: "link title", onclick: () => hit.kind === "source" && this.open(hit.id) },
              hit.title || hit.url || hit.id,
            ),
            h("p", { class: "snippet" }, markedText(hit.snippet)),
            hit.url ? h("div", { class: "meta" }, shortUrl(hit.url)) : null,
          ),
        ),
      );
      this.listStatus.textContent = hits.length ? counted(hits.length, "match", "matches") : `No matches for “${query}”.`;
    } catch (error) {
      this.listStatus.textContent =
        error?.code === "not_found" ? "This collection has nothing to search yet." : `Search failed: ${error.message}`;
    }
  }
}
