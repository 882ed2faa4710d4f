// Top bar: the collection switcher (create, rename, delete with confirm) and the host status,
// which names the exact fix when the host is missing.

import { $, counted, fill, h } from "../dom.js";

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

export function installCommand(api) {
  const browser = browserName(api);
  const idFlag = browser === "firefox" ? "--gecko-id" : "--extension-id";
  return `laika install --browser ${browser} ${idFlag} ${api.runtime.id}`;
}

function commandLine(text) {
  const copy = h("button", { type: "button", class: "small", "aria-label": `Copy: ${text}` }, "Copy");
  copy.addEventListener("click", () => navigator.clipboard?.writeText(text).catch(() => {}));
  return h("div", { class: "command" }, h("code", {}, text), copy);
}

function renderStatus(app, state) {
  const box = $("#host-status");
  box.dataset.status = state.status;
  const retry = () =>
    h("button", { type: "button", class: "small", id: "host-retry", onclick: () => retryHost(app) }, "Retry");
  if (state.status === "connected") {
    fill(box, h("span", { class: "dot", "aria-hidden": "true" }), `Connected · host v${state.hostVersion ?? "?"}`);
  } else if (state.status === "missing") {
    fill(
      box,
      h("strong", {}, "The Laika host is not installed for this browser, or cannot start."),
      h("p", { class: "muted" }, `The browser said: ${state.lastError ?? "no host"}`),
      h("p", {}, "Fix: run these two commands in a terminal, then press Retry."),
      commandLine(installCommand(app.api)),
      commandLine("laika doctor"),
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

async function loadCollections(app) {
  if (app.host.state.status !== "connected") return;
  try {
    const { collections } = await app.request("collections.list");
    app.collections = collections;
  } catch (error) {
    app.fail(error);
    return;
  }
  if (!app.collections.some((c) => c.title === app.collection)) {
    app.collection = app.collections.find((c) => c.title === "Inbox")?.title ?? app.collections[0]?.title ?? "Inbox";
  }
  renderCollections(app);
}

function renderCollections(app) {
  const select = $("#collection");
  const titles = app.collections.map((c) => c.title);
  if (!titles.includes(app.collection)) titles.unshift(app.collection);
  fill(
    select,
    titles.map((title) => {
      const count = app.collections.find((c) => c.title === title)?.source_count ?? 0;
      return h("option", { value: title, selected: title === app.collection }, `${title} (${count})`);
    }),
  );
  select.value = app.collection;
}

function choose(app, title) {
  app.collection = title;
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
    app.collection = "Inbox";
    await loadCollections(app);
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
    if (connected && !wasConnected) loadCollections(app).then(() => app.emit("connected", state));
    wasConnected = connected;
  });
  renderStatus(app, app.host.state);
  renderCollections(app);
  $("#collection").addEventListener("change", (event) => choose(app, event.target.value));
  $("#collection-new").addEventListener("click", () => createCollection(app));
  $("#collection-rename").addEventListener("click", () => renameCollection(app));
  $("#collection-delete").addEventListener("click", () => deleteCollection(app));
  app.on("sources-changed", () => loadCollections(app));
}
