// Top bar: the collection switcher (create, rename, delete with confirm) and the host status,
// which names the exact fix when the host is missing (host_fix.js).
//
// The switcher lists the collections that exist, nothing else: with none (a new store) it
// says so, and Sources says what Save page will create. It picks which collection the views
// show; where a save goes is Sources' "Save to" (the configured default unless picked).

import { concerns } from "../ui_prefs.js";
import { $, counted, fill, h } from "../dom.js";
import { commandWords, hostFix } from "../host_fix.js";

const STATUS_TEXT = {
  connecting: "Connecting to the Laika host…",
  disconnected: "The Laika host disconnected; reconnecting…",
};

/** Which `laika install --browser` value fits the browser this panel runs in. */
function browserName(api) {
  if (api.runtime.getURL("").startsWith("moz-extension:")) return "firefox";
  const brands = (navigator.userAgentData?.brands ?? []).map((brand) => brand.brand);
  if (brands.includes("Google Chrome")) return "chrome";
  if (brands.includes("Microsoft Edge")) return "edge";
  if (brands.includes("Brave")) return "brave";
  return "chromium";
}

function onWindows() {
  const platform = navigator.userAgentData?.platform ?? navigator.platform ?? "";
  return /^win/i.test(platform);
}

/** A command to copy; shown one word per unit, so that a line breaks between words (never
 * inside `--browser`), and a path longer than the line breaks where it must. */
function commandLine(text) {
  const copy = h("button", { type: "button", class: "small", "aria-label": `Copy: ${text}` }, "Copy");
  copy.addEventListener("click", () => navigator.clipboard?.writeText(text).catch(() => {}));
  const words = commandWords(text).flatMap((word, i) => [i ? " " : null, h("span", { class: "word" }, word)]);
  return h("div", { class: "command" }, h("code", {}, words), copy);
}

function renderStatus(app, state) {
  const box = $("#host-status");
  box.dataset.status = state.status;
  const retry = () =>
    h("button", { type: "button", class: "small", id: "host-retry", onclick: () => retryHost(app) }, "Retry");
  if (state.status === "connected") {
    fill(box, h("span", { class: "dot", "aria-hidden": "true" }), `Connected · host v${state.hostVersion ?? "?"}`);
  } else if (state.status === "missing") {
    const fix = hostFix({
      browser: browserName(app.api),
      extensionId: app.api.runtime.id,
      install: state.install ?? null, // what the host said when it last answered here
      windows: onWindows(),
    });
    fill(
      box,
      h("strong", {}, "The Laika host is not installed for this browser, or cannot start."),
      h("p", { class: "muted" }, `The browser said: ${state.lastError ?? "no host"}`),
      h("p", { id: "host-fix-intro" }, fix.intro),
      fix.commands.map(commandLine),
      fix.notes.map((note) => h("p", { class: "muted host-fix-note" }, note)),
      fix.profile
        ? h("details", { id: "host-fix-profile" }, h("summary", {}, "Browser started with --user-data-dir?"), h("p", {}, fix.profile.text), commandLine(fix.profile.command))
        : null,
      retry(),
    );
  } else {
    const detail = state.status === "disconnected" && state.lastError ? ` (${state.lastError})` : "";
    fill(box, h("span", { class: "dot", "aria-hidden": "true" }), STATUS_TEXT[state.status] + detail, " ", retry());
  }
  document.body.dataset.host = state.status;
}

async function retryHost(app) {
  try {
    await app.request("host.ping");
  } catch {
    // the pushed state tells what happened
  }
}

/** `capture.default_collection`: where a save goes unless the user picks another. Kept in
 * `app.defaultCollection` (null when this host cannot say: it then decides alone). */
async function loadDefaultCollection(app) {
  if (app.host.state.status !== "connected" || !app.has("config.get")) return;
  try {
    const { value } = await app.request("config.get", { path: "capture.default_collection" });
    app.defaultCollection = typeof value === "string" && value.trim() ? value : null;
  } catch {
    app.defaultCollection = null; // a host without the registry: it still applies its default
  }
  app.emit("default-collection", app.defaultCollection);
}

/** The real list; the shown collection kept when it still exists, else the default one, else
 * the first, else none (an empty store). `announce`: tell the views when that changed. */
async function loadCollections(app, { announce = true } = {}) {
  if (app.host.state.status !== "connected") return;
  try {
    const { collections } = await app.request("collections.list");
    app.collections = collections;
  } catch (error) {
    app.fail(error);
    return;
  }
  const before = app.collection;
  if (!app.collections.some((c) => c.title === app.collection)) {
    const fallback = app.collections.find((c) => c.title === app.defaultCollection) ?? app.collections[0];
    app.collection = fallback?.title ?? null;
  }
  renderCollections(app);
  if (app.collection !== before) {
    app.saveSettings?.();
    if (announce) app.emit("collection", app.collection);
  }
  app.emit("collections", app.collections);
}

function renderCollections(app) {
  const select = $("#collection");
  const none = app.collections.length === 0;
  fill(
    select,
    none
      ? h("option", { value: "" }, "No collections yet")
      : app.collections.map((c) =>
          h("option", { value: c.title, selected: c.title === app.collection }, `${c.title} (${c.source_count})`),
        ),
  );
  select.value = app.collection ?? "";
  select.disabled = none;
  $("#collection-rename").disabled = none;
  $("#collection-delete").disabled = none;
}

function choose(app, title) {
  app.collection = title || null;
  app.saveSettings?.();
  renderCollections(app);
  app.emit("collection", title);
}

async function createCollection(app) {
  const title = await app.dialog({ title: "New collection", label: "Name", ok: "Create" });
  if (!title) return;
  try {
    const created = await app.request("collections.create", { title });
    await loadCollections(app);
    choose(app, created.title);
    app.toast(`Created “${created.title}”.`);
  } catch (error) {
    app.fail(error);
  }
}

async function renameCollection(app) {
  const current = app.collection;
  const title = await app.dialog({ title: `Rename “${current}”`, label: "New name", value: current, ok: "Rename" });
  if (!title || title === current) return;
  try {
    const renamed = await app.request("collections.rename", { collection: current, title });
    await loadCollections(app);
    choose(app, renamed.title);
  } catch (error) {
    app.fail(error);
  }
}

async function deleteCollection(app) {
  const current = app.collection;
  const count = app.collections.find((c) => c.title === current)?.source_count ?? 0;
  const sure = await app.dialog({
    title: `Delete “${current}”?`,
    text: `Its ${counted(count, "source")}, its chat and its artifacts are deleted for good. This cannot be undone.`,
    ok: "Delete",
    danger: true,
  });
  if (!sure) return;
  try {
    await app.request("collections.delete", { collection: current });
    app.collections = app.collections.filter((c) => c.title !== current);
    await loadCollections(app); // the default one, else the first, else none
    choose(app, app.collection);
    app.toast(`Deleted “${current}”.`);
  } catch (error) {
    app.fail(error);
  }
}

export function mountTopbar(app) {
  let wasConnected = false;
  app.host.onState((state) => {
    renderStatus(app, state);
    const connected = state.status === "connected";
    if (connected && !wasConnected) {
      loadDefaultCollection(app)
        .then(() => loadCollections(app, { announce: false }))
        .then(() => app.emit("connected", state));
    }
    wasConnected = connected;
  });
  renderStatus(app, app.host.state);
  renderCollections(app);
  app.chooseCollection = (title) => choose(app, title);
  app.reloadCollections = () => loadCollections(app); // one may have come from elsewhere
  app.on("config.changed", (data) => {
    if (concerns(data?.paths, ["capture.default_collection"])) loadDefaultCollection(app);
  });
  $("#collection").addEventListener("change", (event) => choose(app, event.target.value));
  $("#collection-new").addEventListener("click", () => createCollection(app));
  $("#collection-rename").addEventListener("click", () => renameCollection(app));
  $("#collection-delete").addEventListener("click", () => deleteCollection(app));
  app.on("sources-changed", () => loadCollections(app));
}
