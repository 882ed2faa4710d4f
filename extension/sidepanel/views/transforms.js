// Transforms: the collection's artifacts, a gallery of transform types with a config form
// generated from each type's JSON schema, a run with live progress and items (Cancel), and the
// artifact viewer: host HTML through setSafeHtml, citation chips as in chat, stale -> Re-run,
// Export (a Blob downloaded through <a download>: no extra permission), Copy, Delete.

import { setSafeHtml } from "../../lib/safe_html.js";
import { isStopOrSpace, withoutTrailing } from "../../lib/text_ends.js";
import { attachChips } from "../chips.js";
import { counted, fill, h } from "../dom.js";
import { describeError } from "../errors.js";
import {
  artifactSummary,
  configFrom,
  exportChoices,
  exportFile,
  fieldsOf,
  initialValues,
  itemPreview,
  progressText,
} from "../transform_form.js";
import { renderField, readValues, showFieldErrors } from "./transform_fields.js";

export function mountTransforms(app, root) {
  const view = new TransformsView(app, root);
  app.on("connected", () => view.reload());
  app.on("collection", () => view.collectionChanged());
  return view;
}

class TransformsView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.types = [];
    this.selected = null; // {type, fields, inputs}
    this.runId = null; // the running transform.run's request id (Cancel sends host.cancel for it)
    this.runs = 0;
    this.artifact = null; // the one in the viewer
    this.listGeneration = 0;
    this.home = this.buildHome();
    this.viewer = this.buildViewer();
    fill(root, this.home, this.viewer);
  }

  // --- layout ------------------------------------------------------------------------------

  buildHome() {
    this.runBox = this.buildRunBox();
    this.listTitle = h("h2", { id: "artifacts-title" }, "Artifacts");
    this.listStatus = h("p", { class: "muted", id: "artifacts-status", role: "status" });
    this.list = h("ul", { class: "artifact-list", id: "artifact-list", "aria-labelledby": "artifacts-title" });
    this.gallery = h("ul", { class: "type-grid", id: "transform-types", "aria-label": "Transform types" });
    this.typesStatus = h("p", { class: "muted", id: "transform-types-status", role: "status" }, "Loading the types…");
    this.form = this.buildForm();
    return h(
      "div",
      { id: "transforms-home" },
      this.runBox,
      h(
        "div",
        { class: "section-head" },
        this.listTitle,
        h("button", { type: "button", class: "ghost small", id: "artifacts-reload", onclick: () => this.loadList() }, "Reload"),
      ),
      this.listStatus,
      this.list,
      h("h2", { id: "transform-gallery-title" }, "Make an artifact"),
      h("p", { class: "muted" }, "Pick a type: every item it writes cites the saved sources, checked against their text."),
      this.typesStatus,
      this.gallery,
      this.form,
    );
  }

  buildForm() {
    this.formTitle = h("h3", { id: "transform-form-title", tabindex: "-1" });
    this.formText = h("p", { class: "muted", id: "transform-form-text" });
    this.formNeeds = h("p", { class: "notice", id: "transform-needs-model", hidden: true });
    this.fieldsBox = h("div", { id: "transform-fields" });
    this.provider = h(
      "select",
      { id: "transform-provider" },
      h("option", { value: "" }, "The default in Settings"),
      h("option", { value: "offline" }, "Offline runtime (no model)"),
    );
    this.force = h("input", { type: "checkbox", id: "transform-force" });
    this.formError = h("p", { class: "form-error", id: "transform-form-error", role: "alert" });
    this.runButton = h("button", { type: "submit", class: "primary", id: "transform-run" }, "Run");
    return h(
      "form",
      {
        class: "card form transform-form",
        id: "transform-form",
        hidden: true,
        novalidate: true,
        "aria-labelledby": "transform-form-title",
        onsubmit: (event) => (event.preventDefault(), this.submit()),
      },
      this.formTitle,
      this.formText,
      this.formNeeds,
      this.fieldsBox,
      h("label", { for: "transform-provider" }, "Model"),
      this.provider,
      h(
        "label",
        { class: "check" },
        this.force,
        h("span", {}, "Make a new one even if an identical artifact exists"),
      ),
      this.formError,
      h("div", { class: "actions" }, this.runButton),
    );
  }

  buildRunBox() {
    this.runTitle = h("h3", { id: "transform-run-title" });
    this.bar = h("progress", { id: "transform-progress-bar", "aria-labelledby": "transform-run-title" });
    this.progress = h("p", { class: "run-status", id: "transform-progress", role: "status", "aria-live": "polite" });
    this.cancelButton = h(
      "button",
      { type: "button", id: "transform-cancel", disabled: true, onclick: () => this.cancel() },
      "Cancel",
    );
    this.items = h("ol", { class: "run-items", id: "transform-items", "aria-label": "Items so far" });
    return h(
      "section",
      { class: "card run-box", id: "transform-run-box", hidden: true, "aria-labelledby": "transform-run-title" },
      h("div", { class: "run-head" }, this.runTitle, this.cancelButton),
      this.bar,
      this.progress,
      this.items,
    );
  }

  buildViewer() {
    this.viewTitle = h("h2", { id: "artifact-title", tabindex: "-1" });
    this.viewMeta = h("div", { class: "meta", id: "artifact-meta" });
    this.staleText = h("span", { id: "artifact-stale-text" });
    this.stale = h(
      "div",
      { class: "notice stale", id: "artifact-stale", hidden: true },
      this.staleText,
      h("button", { type: "button", class: "small", id: "artifact-rerun", onclick: () => this.rerun() }, "Re-run"),
    );
    this.viewStatus = h("p", { class: "msg-status", id: "artifact-status", role: "status" });
    this.body = h("article", { class: "answer artifact-body", id: "artifact-body", "aria-labelledby": "artifact-title" });
    this.chips = h("ul", { class: "chips", id: "artifact-chips", "aria-label": "Citations" });
    this.format = h("select", { id: "export-format" }); // filled per artifact (render)
    this.choices = [];
    const button = (id, text, onclick, extra = {}) => h("button", { type: "button", id, onclick, ...extra }, text);
    return h(
      "div",
      { id: "artifact-viewer", hidden: true },
      h("div", { class: "toolbar" }, button("artifact-back", "← Back", () => this.showHome())),
      this.viewTitle,
      this.viewMeta,
      this.stale,
      this.viewStatus,
      this.body,
      this.chips,
      h(
        "div",
        { class: "card export-box", role: "group", "aria-label": "Export and copy" },
        h("label", { for: "export-format" }, "Export as"),
        h("div", { class: "export-row" }, this.format, button("export-download", "Download", () => this.download(), { class: "primary" })),
        h(
          "div",
          { class: "actions" },
          button("copy-md", "Copy Markdown", () => this.copy("md")),
          button("copy-txt", "Copy text", () => this.copy("txt")),
          button("artifact-delete", "Delete", () => this.remove(), { class: "danger" }),
        ),
      ),
    );
  }

  // --- loading -----------------------------------------------------------------------------

  reload() {
    this.loadTypes();
    this.loadList();
  }

  collectionChanged() {
    if (!this.viewer.hidden) this.showHome();
    this.loadList();
  }

  async loadTypes() {
    if (this.app.host.state.status !== "connected") return;
    try {
      const { types } = await this.app.request("transform.list_types");
      this.types = Array.isArray(types) ? types : [];
      this.typesStatus.textContent = "";
      this.typesStatus.hidden = true;
    } catch (error) {
      this.types = [];
      this.typesStatus.hidden = false;
      this.typesStatus.textContent = describeError(error);
    }
    fill(this.gallery, this.types.map((type) => this.typeCard(type)));
  }

  typeCard(type) {
    const ready = type.ready !== false;
    return h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          class: "type-card",
          dataset: { type: type.id },
          "aria-pressed": "false",
          disabled: !ready,
          onclick: () => this.choose(type),
        },
        h("span", { class: "type-title" }, type.title ?? type.id),
        h("span", { class: "type-text" }, ready ? type.description ?? "" : "Coming soon."),
        type.needs_model ? h("span", { class: "type-needs" }, "Needs a model") : null,
      ),
    );
  }

  async loadList() {
    if (this.app.host.state.status !== "connected") return;
    const generation = ++this.listGeneration;
    const collection = this.app.collection;
    if (!collection) {
      this.listTitle.textContent = "Artifacts";
      fill(this.list);
      this.listStatus.textContent = "Nothing saved yet: an artifact is made from saved pages. Save some in Sources first.";
      return;
    }
    this.listTitle.textContent = `Artifacts in ${collection}`;
    try {
      const { artifacts } = await this.app.request("artifacts.list", { collection });
      if (generation !== this.listGeneration) return;
      fill(this.list, artifacts.map((summary) => this.artifactRow(summary)));
      this.listStatus.textContent = artifacts.length ? counted(artifacts.length, "artifact") : "None yet: make one below.";
    } catch (error) {
      if (generation !== this.listGeneration) return;
      fill(this.list);
      this.listStatus.textContent = error?.code === "not_found" ? "None yet: make one below." : describeError(error);
    }
  }

  artifactRow(summary) {
    const titles = Object.fromEntries(this.types.map((type) => [type.id, type.title]));
    const view = artifactSummary(summary, titles);
    return h(
      "li",
      { class: "artifact", dataset: { id: summary.id, status: view.status } },
      h("button", { type: "button", class: "link artifact-open", onclick: () => this.open(summary.id) }, view.title),
      h(
        "div",
        { class: "meta" },
        h("span", { class: `pill status-${view.status}` }, view.status),
        view.stale ? h("span", { class: "pill warn" }, "stale") : null,
        ` ${view.meta}`,
      ),
    );
  }

  // --- the form and a run --------------------------------------------------------------------

  choose(type) {
    const fields = fieldsOf(type.config_schema ?? {});
    const values = initialValues(fields);
    const inputs = new Map();
    fill(this.fieldsBox, fields.map((field) => renderField(field, values[field.name], inputs)));
    this.selected = { type, fields, inputs };
    for (const card of this.gallery.querySelectorAll(".type-card")) {
      card.setAttribute("aria-pressed", String(card.dataset.type === type.id));
    }
    this.formTitle.textContent = type.title ?? type.id;
    this.formText.textContent = type.description ?? "";
    this.formNeeds.hidden = !type.needs_model;
    this.formNeeds.textContent = type.needs_model ? needsModelText(type.needs_model) : "";
    this.offlineChoice(type);
    this.formError.textContent = "";
    this.form.hidden = false;
    this.loadProviders();
    this.form.scrollIntoView({ block: "nearest" });
    this.formTitle.focus();
  }

  submit() {
    if (!this.selected || this.runId) return;
    if (!this.app.collection) {
      this.formError.textContent = "Nothing is saved yet: save pages in Sources first, then make an artifact from them.";
      return;
    }
    const { type, fields, inputs } = this.selected;
    const { config, errors } = configFrom(fields, readValues(fields, inputs));
    showFieldErrors(fields, inputs, errors);
    if (errors.length) {
      this.formError.textContent = errors.map((error) => error.message).join(" ");
      inputs.get(errors[0].name)?.focus();
      return;
    }
    this.formError.textContent = "";
    this.run({ type: type.id, title: type.title, config, collection: this.app.collection, force: this.force.checked });
  }

  /** The chosen model: a provider id, "offline", or "" for the default (as chat.ask's). */
  providerPayload() {
    const provider = this.provider.value || this.app.settings.provider;
    return provider ? { provider } : {};
  }

  /** The provider choices: the default, the offline runtime, and each configured provider. */
  async loadProviders() {
    if (!this.app.has("models.list")) return;
    try {
      const { providers } = await this.app.request("models.list");
      const chosen = this.provider.value;
      fill(
        this.provider,
        h("option", { value: "" }, "The default in Settings"),
        h("option", { value: "offline" }, "Offline runtime (no model)"),
        providers.map((p) => h("option", { value: p.id }, `${p.id} (${p.model})`)),
      );
      this.provider.value = [...this.provider.options].some((o) => o.value === chosen) ? chosen : "";
    } catch {
      // the two built-in choices stay; Settings shows why providers cannot be listed
    }
    if (this.selected) this.offlineChoice(this.selected.type);
  }

  /** A type that needs a model cannot be run offline: that choice is greyed out. */
  offlineChoice(type) {
    const offline = [...this.provider.options].find((option) => option.value === "offline");
    if (!offline) return;
    offline.disabled = Boolean(type.needs_model);
    if (offline.disabled && this.provider.value === "offline") this.provider.value = "";
  }

  async run({ type, title, config, collection, force }) {
    if (this.runId) return;
    const payload = { collection, type, config, ...this.providerPayload() };
    if (force) payload.force = true;
    this.startRun(title ?? type);
    let count = 0;
    let listed = false;
    const onEvent = (frame) => {
      if (frame.event === "progress") {
        if (!listed) this.loadList(); // the artifact now exists: list it (as running)
        listed = true;
        this.showProgress(frame.data);
      }
      else if (frame.event === "item") this.addItem(frame.data?.item, ++count);
    };
    try {
      const result = await this.app.request("transform.run", payload, { onEvent, id: this.runId });
      this.finishRun(result);
      await this.open(result.artifact.id, result.artifact);
    } catch (error) {
      this.failRun(error);
    } finally {
      this.runId = null;
      this.busy(false);
      this.loadList();
    }
  }

  startRun(title) {
    this.runId = `p-transform-${Date.now().toString(36)}-${++this.runs}`;
    this.busy(true);
    this.showHome();
    this.runBox.hidden = false;
    this.runBox.dataset.state = "running";
    this.runTitle.textContent = `Making: ${title}`;
    this.bar.removeAttribute("value");
    this.progress.textContent = "Starting…";
    fill(this.items);
    this.runBox.scrollIntoView({ block: "nearest" });
  }

  /** Ask the host to stop the run; its reply (`cancelled`) comes once the artifact is stored
   * cancelled with the items so far, so the list reloaded then shows it so. */
  cancel() {
    if (!this.runId) return;
    this.cancelButton.disabled = true;
    this.progress.textContent = "Cancelling…";
    this.app.host.cancel(this.runId);
  }

  busy(on) {
    this.runButton.disabled = on;
    this.cancelButton.disabled = !on;
    this.root.setAttribute("aria-busy", String(on));
  }

  showProgress(data) {
    const { text, value, max } = progressText(data);
    this.progress.textContent = text;
    if (max === null || max === 0) this.bar.removeAttribute("value");
    else {
      this.bar.max = max;
      this.bar.value = value;
    }
  }

  addItem(item, number) {
    const preview = itemPreview(item);
    const state = preview.verified ? "verified" : "flagged";
    const mark = preview.verified ? "✓" : "?";
    const note = preview.verified ? "verified" : (preview.flag ?? "not verified");
    this.items.append(
      h(
        "li",
        { class: "run-item", dataset: { state } },
        h("span", { class: "item-state", title: note, "aria-label": note }, mark),
        h("span", { class: "item-text" }, preview.text),
      ),
    );
    this.progress.textContent = `${counted(number, "item")} so far…`;
  }

  finishRun(result) {
    const artifact = result.artifact ?? {};
    const items = Array.isArray(artifact.items) ? artifact.items : [];
    const verified = items.filter((item) => item.verified === true).length;
    const failed = result.status === "failed";
    const notes = failed
      ? [`Failed: ${withoutTrailing(String(artifact.error ?? "the run stopped"), isStopOrSpace)}. ${counted(items.length, "item")} kept.`]
      : [`Done: ${counted(items.length, "item")}, ${verified} verified.`];
    if (result.reused) notes.push("An identical artifact already existed: it is shown (tick “Make a new one” to run again).");
    if (result.joined) notes.push("The same run was already going: joined it.");
    notes.push(...(result.warnings ?? []));
    this.runBox.dataset.state = failed ? "error" : "done";
    this.bar.max = 1;
    this.bar.value = failed ? 0 : 1;
    this.progress.textContent = notes.join(" ");
  }

  failRun(error) {
    this.runBox.dataset.state = error?.code === "cancelled" ? "cancelled" : "error";
    this.bar.max = 1;
    this.bar.value = 0;
    if (error?.code === "cancelled") {
      this.progress.textContent = "Cancelled: the items so far are kept in a cancelled artifact.";
      return;
    }
    this.progress.textContent = describeError(error);
    if (error?.code === "bad_request" && !this.form.hidden) this.formError.textContent = error.message;
  }

  // --- the viewer ----------------------------------------------------------------------------

  showHome() {
    this.viewer.hidden = true;
    this.home.hidden = false;
    this.artifact = null;
  }

  /** Show one artifact; `known` (a run's result) is used when it already has the HTML. */
  async open(id, known = null) {
    let artifact = known;
    if (typeof artifact?.html !== "string") {
      try {
        artifact = await this.app.request("artifacts.get", { artifact_id: id });
      } catch (error) {
        this.app.fail(error);
        if (error?.code === "not_found") this.loadList();
        return;
      }
    }
    this.render(artifact);
    this.home.hidden = true;
    this.viewer.hidden = false;
    this.viewTitle.focus();
  }

  render(artifact) {
    this.artifact = artifact;
    const titles = Object.fromEntries(this.types.map((type) => [type.id, type.title]));
    const items = Array.isArray(artifact.items) ? artifact.items : [];
    const view = artifactSummary(
      { ...artifact, items: items.length, verified: items.filter((item) => item.verified === true).length },
      titles,
    );
    this.viewTitle.textContent = view.title;
    fill(this.viewMeta, h("span", { class: `pill status-${view.status}` }, view.status), ` ${view.meta}`);
    const changed = Array.isArray(artifact.stale_sources) ? artifact.stale_sources.length : 0;
    this.stale.hidden = artifact.stale !== true;
    this.staleText.textContent = `Out of date: ${changed ? counted(changed, "source") : "a source"} changed since it was made. `;
    const notes = [];
    if (artifact.error) notes.push(String(artifact.error));
    notes.push(...(Array.isArray(artifact.warnings) ? artifact.warnings : []));
    this.viewStatus.textContent = notes.join(" ");
    this.viewStatus.classList.toggle("warn", notes.length > 0);
    const body = h("article", { class: "answer artifact-body", id: "artifact-body", "aria-labelledby": "artifact-title" });
    if (typeof artifact.html === "string") {
      setSafeHtml(body, artifact.html);
      const heading = body.firstElementChild;
      if (heading?.localName === "h1" && heading.textContent.trim() === view.title) heading.remove(); // shown above
    }
    else body.append(h("pre", { class: "markdown" }, artifact.content_markdown ?? ""));
    this.showExports(artifact);
    this.body.replaceWith(body); // a fresh element: no click handler of the last artifact stays
    this.body = body;
    attachChips(this.app, { body, list: this.chips, citations: artifact.citations, from: "transforms" });
  }

  /** The Export menu: only what the host can make of this artifact (no CSV of a brief). */
  showExports(artifact) {
    const chosen = this.format.value;
    this.choices = exportChoices(artifact);
    fill(this.format, this.choices.map((choice) => h("option", { value: choice.value }, choice.label)));
    if (this.choices.some((choice) => choice.value === chosen)) this.format.value = chosen;
  }

  rerun() {
    const artifact = this.artifact;
    if (!artifact) return;
    const title = this.types.find((type) => type.id === artifact.type)?.title;
    const collection = artifact.collection_id ?? this.app.collection;
    this.run({ type: artifact.type, title, config: artifact.config ?? {}, collection, force: true });
  }

  async exported(format, table = null) {
    const payload = { artifact_id: this.artifact.id, format };
    if (table) payload.table = table;
    const result = await this.app.request("artifacts.export", payload);
    return { ...exportFile(result, format), content: String(result.content ?? "") };
  }

  async download() {
    if (!this.artifact) return;
    const choice = this.choices.find((entry) => entry.value === this.format.value);
    if (!choice) return;
    try {
      const file = await this.exported(choice.format, choice.table);
      const url = URL.createObjectURL(new Blob([file.content], { type: file.mime }));
      const link = h("a", { href: url, download: file.filename, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000); // the download has read it by then
      this.app.toast(`Saved ${file.filename} to your downloads.`);
    } catch (error) {
      this.app.fail(error);
    }
  }

  async copy(format) {
    if (!this.artifact) return;
    let file;
    try {
      file = await this.exported(format);
    } catch (error) {
      return this.app.fail(error);
    }
    try {
      await navigator.clipboard.writeText(file.content);
      this.app.toast(format === "md" ? "Copied as Markdown (with its front matter)." : "Copied as plain text.");
    } catch (error) {
      this.app.toast(`Could not copy: ${error.message}. Click into the panel first, then try again.`, "error");
    }
  }

  async remove() {
    const artifact = this.artifact;
    if (!artifact) return;
    const sure = await this.app.dialog({
      title: `Delete “${artifact.title}”?`,
      text: "The artifact is deleted for good (its sources stay). A run still going is cancelled first.",
      ok: "Delete",
      danger: true,
    });
    if (!sure) return;
    try {
      await this.app.request("artifacts.delete", { artifact_id: artifact.id });
      this.app.toast(`Deleted “${artifact.title}”.`);
      this.showHome();
      this.loadList();
    } catch (error) {
      this.app.fail(error);
    }
  }
}

/** Why a type needs a model, and where to choose one, as one sentence for the form. */
export function needsModelText(reason) {
  const why = withoutTrailing(String(reason).trim(), isStopOrSpace);
  return `Needs a model: ${why}. Choose one under Model below (Settings › Model providers adds one).`;
}
