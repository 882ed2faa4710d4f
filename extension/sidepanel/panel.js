// Side panel entry: one HostClient over the background's relay (never its own native port),
// the shared app context the views use, the tab bar, the dialog and the toast.

import { HostClient } from "../lib/host.js";
import { $ } from "./dom.js";
import { describeError } from "./errors.js";
import { mountUi } from "./ui_live.js";
import { mountChat } from "./views/chat.js";
import { mountReader } from "./views/reader.js";
import { SourceChoice } from "./source_choice.js";
import { mountSettings } from "./views/settings.js";
import { mountSources } from "./views/sources.js";
import { mountTopbar } from "./views/topbar.js";
import { mountTransforms } from "./views/transforms.js";

const api = globalThis.browser ?? globalThis.chrome;

function createApp() {
  const host = new HostClient({
    connect: () => api.runtime.connect({ name: "laika-panel" }),
    idPrefix: "p-",
    disconnectMessage: () => api.runtime.lastError?.message ?? null,
  });
  const listeners = new Map();
  const app = {
    api,
    host,
    collection: null, // the collection the views show (none: the store has none yet)
    collections: [],
    sourceChoice: new SourceChoice(), // the sources answers read (ticks on the source list)
    defaultCollection: null, // `capture.default_collection`, read from the host on connect
    settings: { capture: { mode: "auto", maxChars: 8000000 }, provider: "" }, // capture.js's own defaults
    request: (type, payload = {}, options = {}) => host.request(type, payload, options),
    has: (type) => host.state.capabilities.includes(type),
    on(name, fn) {
      if (!listeners.has(name)) listeners.set(name, new Set());
      listeners.get(name).add(fn);
    },
    emit(name, data) {
      for (const fn of listeners.get(name) ?? []) fn(data);
    },
    toast,
    fail: (error) => toast(describeError(error), "error"),
    dialog,
    showView,
  };
  host.onHostEvent((frame) => app.emit(frame.event, frame.data)); // e.g. "config.changed"
  return app;
}

let toastTimer = null;
function toast(message, kind = "info") {
  const box = $("#toast");
  box.textContent = message;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), kind === "error" ? 12000 : 4000);
}

/** A modal confirm or text prompt; resolves to the text (prompt), true (confirm) or null. */
function dialog({ title, text = "", label = null, value = "", ok = "OK", danger = false }) {
  const box = $("#dialog");
  $("#dialog-title").textContent = title;
  $("#dialog-text").textContent = text;
  $("#dialog-field").hidden = label === null;
  $("#dialog-label").textContent = label ?? "";
  const input = $("#dialog-input");
  input.value = value;
  input.required = label !== null;
  const okButton = $("#dialog-ok");
  okButton.textContent = ok;
  okButton.classList.toggle("danger", danger);
  return new Promise((resolve) => {
    box.addEventListener(
      "close",
      () => {
        if (box.returnValue !== "ok") resolve(null);
        else resolve(label === null ? true : input.value.trim() || null);
      },
      { once: true },
    );
    box.returnValue = "";
    box.showModal();
    (label === null ? okButton : input).focus();
  });
}

const VIEWS = ["sources", "chat", "transforms", "settings"];

/** Show a tab's view (or the reader, which sits in place of Sources). */
function showView(name) {
  const tabName = name === "reader" ? "sources" : name;
  for (const view of VIEWS) {
    const tab = $(`#tab-${view}`);
    const selected = view === tabName;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`#panel-${view}`).hidden = !selected || name === "reader";
  }
  $("#panel-reader").hidden = name !== "reader";
  document.body.dataset.view = name;
}

function wireTabs(app) {
  const tabs = VIEWS.map((view) => $(`#tab-${view}`));
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => app.showView(VIEWS[index]));
    tab.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      const next = (moves[event.key] + tabs.length) % tabs.length;
      app.showView(VIEWS[next]);
      tabs[next].focus();
    });
  });
}

async function loadSettings(app) {
  const stored = await api.storage?.local?.get("laikaPanel").catch(() => null);
  const saved = stored?.laikaPanel ?? {};
  app.settings = { ...app.settings, ...saved, capture: { ...app.settings.capture, ...(saved.capture ?? {}) } };
  if (saved.collection) app.collection = saved.collection;
  app.saveSettings = () =>
    api.storage?.local?.set({ laikaPanel: { ...app.settings, collection: app.collection ?? undefined } }).catch(() => {});
}

async function main() {
  const app = createApp();
  mountUi(app); // first: the panel paints in its theme
  await loadSettings(app);
  wireTabs(app);
  mountTopbar(app);
  mountReader(app, $("#panel-reader"));
  mountSources(app, $("#panel-sources"));
  mountChat(app, $("#panel-chat"));
  mountTransforms(app, $("#panel-transforms"));
  mountSettings(app, $("#panel-settings"));
  showView("sources");
  globalThis.laikaPanel = app; // for diagnostics from devtools and the E2E tests
  await app.host.start();
  document.body.dataset.ready = "true";
}

main();
