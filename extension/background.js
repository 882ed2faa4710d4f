// Laika background (entry point): one long-lived native port to the host, shared by the
// toolbar badge, context menus, keyboard commands, the side panel (through a relay: a second
// port would start a second host) and the automation API globalThis.laika.
// Protocol: docs/PROTOCOL.md; the client itself is lib/host.js.

import { HostClient } from "./lib/host.js";
import { askPagePayload, savePagePayload, selectionLinks, serializePage } from "./lib/capture.js";
import { pickTab } from "./lib/citations.js";
import { showQuoteInPage } from "./lib/page_probes.js";
import { pageTool } from "./lib/browser_tools.js";
import { ToolRunner } from "./lib/tool_runner.js";

const HOST_NAME = "com.laika.host";
const PANEL_PORT = "laika-panel";
const api = globalThis.browser ?? globalThis.chrome;

const host = new HostClient({
  connect: () => api.runtime.connectNative(HOST_NAME),
  disconnectMessage: () => api.runtime.lastError?.message ?? null,
});
// install: what the host said of how it was installed ({cli, userDataDir, platform}, from
// `host.info`), remembered across restarts: the "host missing" screen names that laika
const extra = { lastSaved: null, lastSaveError: null, install: null };
const INSTALL_KEY = "laikaInstall";
const panels = new Set(); // the side panels' runtime ports

// --- state: kept in storage (diagnostics), pushed to every open panel ------------------------

function currentState() {
  return { ...host.state, ...extra };
}

function publishState() {
  const state = currentState();
  for (const port of panels) post(port, { id: null, event: "state", data: state });
  api.storage?.local?.set({ laikaHost: state }).catch?.(() => {});
}

// host events (`id` null, e.g. `config.changed`) go to every open panel as they are
host.onHostEvent((frame) => {
  for (const port of panels) post(port, frame);
});

let wasConnected = false;
host.onState((state) => {
  publishState();
  const connected = state.status === "connected";
  if (connected && !wasConnected) announce(state);
  wasConnected = connected;
});

function announce(state) {
  // test_browser_e2e.py waits for this exact line in the host log
  request("host.log", {
    level: "info",
    message: "extension connected: ping ok",
    context: { ping_ms: state.pingMs, host_version: state.hostVersion, reconnects: state.reconnects },
  }).catch(() => {});
  rememberInstall();
}

/** The `laika` that installed the host and the browser's profile folder, as the host reports
 * them: kept, so that if the host goes missing later the fix names that laika. */
async function rememberInstall() {
  try {
    const info = await request("host.info");
    const text = (value) => (typeof value === "string" && value ? value : null);
    extra.install = { cli: text(info?.cli), userDataDir: text(info?.caller?.user_data_dir), platform: text(info?.platform) };
    publishState();
    await api.storage?.local?.set({ [INSTALL_KEY]: extra.install });
  } catch {
    // an older host or a dropped port: the fix falls back to the README's command
  }
}

async function recallInstall() {
  const stored = await api.storage?.local?.get(INSTALL_KEY).catch(() => null);
  const install = stored?.[INSTALL_KEY];
  if (install && typeof install === "object" && extra.install === null) {
    extra.install = install;
    publishState();
  }
}

function request(type, payload = {}, onEvent = undefined, options = {}) {
  return host.request(type, payload, { ...options, onEvent });
}

// --- tabs and pages ---------------------------------------------------------------------

const isWeb = (url) => /^https?:\/\//i.test(url ?? "");

/** The tab the user means: the active one if it is a web page, else the last web tab used
 * (the panel may itself be open in a tab, e.g. in tests or Firefox's "open in tab"). */
async function targetTab(tabId) {
  if (tabId !== undefined && tabId !== null) return api.tabs.get(tabId);
  const [active] = await api.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && isWeb(active.url)) return active;
  const web = (await api.tabs.query({})).filter((tab) => isWeb(tab.url));
  web.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  if (!web.length) throw new Error("no web page is open: open an http(s) page, then save it");
  return web[0];
}

async function inject(tabId, func, args = []) {
  const [injection] = await api.scripting.executeScript({ target: { tabId }, func, args });
  return injection?.result;
}

async function capturePage(tabId, mode) {
  const stored = await api.storage?.local?.get("laikaPanel").catch(() => null);
  const defaults = stored?.laikaPanel?.capture ?? {};
  const options = { mode: mode ?? defaults.mode ?? "auto" };
  if (defaults.maxChars) options.maxChars = defaults.maxChars;
  const page = await inject(tabId, serializePage, [options]);
  if (!page || !isWeb(page.url)) throw new Error("only http(s) pages can be saved");
  if (mode === "selection" && !page.selection_html) {
    throw new Error("nothing is selected on the page: select some text, then save the selection");
  }
  return page;
}

/** Capture the tab's page as the user sees it and store it; resolves with the host's result.
 * No `collection`: the host's configured default (`capture.default_collection`). */
async function savePage(tabId, { collection = undefined, mode = undefined } = {}, onEvent = undefined) {
  try {
    const started = performance.now();
    const tab = await targetTab(tabId);
    const page = await capturePage(tab.id, mode);
    const serialized = performance.now();
    const payload = savePagePayload(page, collection);
    if (payload.mode === "auto") delete payload.mode; // the default
    const saved = await request("sources.save_page", payload, onEvent);
    const timings = { serializeMs: Math.round(serialized - started), hostMs: Math.round(performance.now() - serialized) };
    extra.lastSaved = { id: saved.source?.id, outcome: saved.outcome, title: saved.source?.title, timings };
    extra.lastSaveError = null;
    publishState();
    markTab(tab.id, tab.url);
    return saved;
  } catch (error) {
    extra.lastSaveError = String(error?.message ?? error);
    publishState();
    throw error;
  }
}

async function saveLinks(tabId, urls, collection = undefined) {
  const chosen = urls ?? (await selectionLinksOf(tabId)).links.map((link) => link.url);
  const results = [];
  for (const url of chosen) {
    try {
      const payload = collection ? { url, collection } : { url };
      results.push({ url, ok: true, result: await request("sources.add_url", payload) });
    } catch (error) {
      results.push({ url, ok: false, error: String(error?.message ?? error) });
    }
  }
  if (results.some((item) => item.ok)) await request("jobs.run", {}).catch(() => null);
  return { results };
}

async function saveTabs(tabIds, collection = undefined) {
  const ids = tabIds ?? (await openTabs()).tabs.map((tab) => tab.tabId);
  const results = [];
  for (const tabId of ids) {
    try {
      results.push({ tabId, ok: true, result: await savePage(tabId, { collection }) });
    } catch (error) {
      results.push({ tabId, ok: false, error: String(error?.message ?? error) });
    }
  }
  return { results };
}

async function openTabs() {
  const tabs = (await api.tabs.query({})).filter((tab) => isWeb(tab.url));
  return {
    tabs: tabs.map((tab) => ({ tabId: tab.id, url: tab.url, title: tab.title ?? tab.url, active: !!tab.active })),
  };
}

async function selectionLinksOf(tabId) {
  const tab = await targetTab(tabId);
  const links = (await inject(tab.id, selectionLinks)) ?? [];
  return { tabId: tab.id, links: links.filter((link) => isWeb(link.url)) };
}

/** "Ask about this page": the page captured as Save page does, stored, then the typed
 * question answered from it (no question: the page summarized). */
async function askPage(tabId, { collection, provider, question }, onEvent, id = undefined) {
  const tab = await targetTab(tabId);
  const page = await capturePage(tab.id, undefined);
  const payload = askPagePayload(page, { collection, provider, question });
  const answer = await request("page.summarize", payload, onEvent, { id });
  markTab(tab.id, tab.url); // the page is saved now: the badge says so
  return answer;
}

// --- citations: open the live page at the quote, or say the reader must show it -----------

/** Until the tab's document has loaded (at most `seconds`). */
function waitForLoad(tabId, seconds = 15) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, seconds * 1000);
    function done() {
      clearTimeout(timer);
      api.tabs.onUpdated.removeListener(listener);
      resolve();
    }
    function listener(id, change) {
      if (id === tabId && change.status === "complete") done();
    }
    api.tabs.onUpdated.addListener(listener);
    // it may have loaded before the listener was added
    api.tabs.get(tabId).then((tab) => tab?.status === "complete" && done(), done);
  });
}

/** A chip: the live page with the quote in view and selected (showQuoteInPage), or
 * `opened: "reader"` when the page no longer holds the words (the panel shows the stored copy).
 * A tab already showing the page is brought forward, not navigated: a new `#:~:text=` fragment
 * fires the page's hashchange and popstate (a real news page answers them by leaving for its
 * home page) and Chromium ignores a text directive an extension navigates to anyway. Any other
 * page opens in a new tab at the `#:~:text=` locator. */
async function openCitation({ url, locator, quote }) {
  const target = locator || url;
  if (!isWeb(target)) return { opened: "reader", tabId: null };
  const reuse = pickTab(await api.tabs.query({}), target);
  const tab = reuse
    ? await api.tabs.update(reuse.id, { active: true })
    : await api.tabs.create({ url: target, active: true });
  await waitForLoad(tab.id);
  let found = false;
  try {
    found = !quote || (await inject(tab.id, showQuoteInPage, [quote])) === true;
  } catch {
    found = false; // an error page or a page we may not script: show the stored copy
  }
  return { opened: found ? "live" : "reader", tabId: tab.id };
}

// --- browser tools: a call the host forwarded, run in the chat's tab (lib/tool_runner.js) --

const tools = new ToolRunner({
  page: (tabId, toolRequest) => inject(tabId, pageTool, [toolRequest]),
  selectionLinks: (tabId) => inject(tabId, selectionLinks),
  tabs: api.tabs,
});

/** {ok, result|error, tabId}: the panel sends it on as `tool.result`. `tabId` pins the chat's
 * tab once chosen (targetTab: the active web page, as for "Ask about this page"). */
async function runTool({ tool, arguments: args, tabId }) {
  let tab;
  try {
    tab = await targetTab(tabId);
  } catch (error) {
    return { ok: false, error: `no tab to run ${tool} in: ${error?.message ?? error}`, tabId: null };
  }
  return tools.run({ tool, arguments: args }, tab.id);
}

// --- the panel relay ------------------------------------------------------------------

const LOCAL = {
  "ext.state": async () => currentState(),
  "ext.save_page": async (p, onEvent) => savePage(p.tabId, { collection: p.collection, mode: p.mode }, onEvent),
  "ext.save_selection": async (p, onEvent) =>
    savePage(p.tabId, { collection: p.collection, mode: "selection" }, onEvent),
  "ext.save_links": async (p) => saveLinks(p.tabId, p.urls, p.collection),
  "ext.save_tabs": async (p) => saveTabs(p.tabIds, p.collection),
  "ext.tabs": async () => openTabs(),
  "ext.selection_links": async (p) => selectionLinksOf(p.tabId),
  // the host request takes the panel's relayed id, so the panel's Stop (host.cancel) reaches it
  "ext.summarize": async (p, onEvent, id) => askPage(p.tabId, p, onEvent, id),
  "ext.open_citation": async (p) => openCitation(p),
  "ext.run_tool": async (p) => runTool(p),
};

function post(port, frame) {
  try {
    port.postMessage(frame);
  } catch {
    panels.delete(port); // the panel closed meanwhile
  }
}

function errorFrame(id, error) {
  return {
    id,
    ok: false,
    error: {
      code: error?.code ?? "extension_error",
      message: String(error?.message ?? error),
      retryable: !!error?.retryable,
      details: error?.details ?? {},
    },
  };
}

function relayPanel(port) {
  const number = (relayPanel.count = (relayPanel.count ?? 0) + 1);
  const prefix = `panel${number}:`;
  const running = new Set();
  panels.add(port);
  post(port, { id: null, event: "state", data: currentState() });
  port.onMessage.addListener(async (frame) => {
    if (!frame || typeof frame.type !== "string") return;
    const onEvent = (event) => post(port, { ...event, id: frame.id });
    const payload = frame.payload ?? {};
    if (frame.type !== "host.cancel") running.add(prefix + frame.id);
    try {
      let result;
      if (frame.type in LOCAL) result = await LOCAL[frame.type](payload, onEvent, prefix + frame.id);
      else if (frame.type.startsWith("ext.")) throw new Error(`unknown panel request ${frame.type}`);
      else {
        const forwarded = frame.type === "host.cancel" ? { target_id: prefix + payload.target_id } : payload;
        result = await request(frame.type, forwarded, onEvent, { id: prefix + frame.id });
      }
      post(port, { id: frame.id, ok: true, result });
    } catch (error) {
      post(port, errorFrame(frame.id, error));
    } finally {
      running.delete(prefix + frame.id);
    }
  });
  port.onDisconnect.addListener(() => {
    panels.delete(port);
    for (const id of running) host.cancel(id); // a closed panel's work is not wanted any more
  });
}

api.runtime.onConnect.addListener((port) => {
  if (port.name === PANEL_PORT) relayPanel(port);
});

// --- toolbar badge: is this tab's page already saved? ---------------------------------

async function markTab(tabId, url) {
  if (!isWeb(url) || !host.state.capabilities.includes("sources.lookup")) return;
  try {
    const { matches } = await request("sources.lookup", { url });
    const names = [...new Set(matches.map((match) => match.collection))];
    await api.action.setBadgeText({ tabId, text: names.length ? "✓" : "" });
    await api.action.setTitle({
      tabId,
      title: names.length ? `Saved in ${names.join(", ")} — open Laika` : "Open Laika",
    });
  } catch {
    // the badge is a hint; the panel shows errors
  }
}

api.tabs.onActivated.addListener(async ({ tabId }) => {
  const tab = await api.tabs.get(tabId).catch(() => null);
  if (tab) markTab(tab.id, tab.url);
});
api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.url) tools.forget(tabId); // a new document: the old observation's handles are gone
  if (change.status === "complete" || change.url) markTab(tabId, tab.url);
});
api.tabs.onRemoved?.addListener((tabId) => tools.forget(tabId));

// --- panel opening, menus, commands ---------------------------------------------------

function openPanel(tab) {
  if (api.sidePanel?.open) return api.sidePanel.open({ windowId: tab?.windowId }).catch(() => {});
  if (api.sidebarAction?.open) return api.sidebarAction.open().catch(() => {});
  return Promise.resolve();
}

/** The menu's and the keyboard's saves: to the configured default collection (the host's
 * setting), never to whichever collection the panel showed last. */
async function saveByUser(tab, mode) {
  try {
    const saved = await savePage(tab?.id, { mode });
    if (tab?.id) await api.action.setTitle({ tabId: tab.id, title: `Saved to ${saved.collection} (${saved.outcome})` });
    if (tab?.id) await api.action.setBadgeText({ tabId: tab.id, text: "✓" });
  } catch (error) {
    const message = String(error?.message ?? error);
    if (tab?.id) await api.action.setBadgeText({ tabId: tab.id, text: "!" });
    if (tab?.id) await api.action.setTitle({ tabId: tab.id, title: `Laika could not save this page: ${message}` });
    request("host.log", { level: "warning", message: `save page failed: ${message}` }).catch(() => {});
  }
}

async function saveLinksByUser(tab) {
  try {
    const { results } = await saveLinks(tab?.id, undefined);
    const failed = results.filter((item) => !item.ok).length;
    if (tab?.id) {
      await api.action.setTitle({ tabId: tab.id, title: `Queued ${results.length - failed} links (${failed} failed)` });
    }
  } catch (error) {
    request("host.log", { level: "warning", message: `save links failed: ${error?.message ?? error}` }).catch(() => {});
  }
}

const MENU = {
  "laika-save-page": (tab) => saveByUser(tab, undefined),
  "laika-save-selection": (tab) => saveByUser(tab, "selection"),
  "laika-save-links": (tab) => saveLinksByUser(tab),
  "laika-open-panel": (tab) => openPanel(tab),
};

api.runtime.onInstalled.addListener(() => {
  api.contextMenus.removeAll(() => {
    api.contextMenus.create({ id: "laika-save-page", title: "Save page to Laika", contexts: ["page"] });
    api.contextMenus.create({ id: "laika-save-selection", title: "Save selection to Laika", contexts: ["selection"] });
    api.contextMenus.create({ id: "laika-save-links", title: "Save links in selection to Laika", contexts: ["selection"] });
    api.contextMenus.create({ id: "laika-open-panel", title: "Open Laika panel", contexts: ["page", "selection"] });
  });
});
api.contextMenus.onClicked.addListener((info, tab) => {
  // open the panel synchronously: sidePanel.open needs the user gesture still in effect
  if (info.menuItemId === "laika-open-panel") openPanel(tab);
  else MENU[info.menuItemId]?.(tab);
});

api.commands?.onCommand.addListener((command, tab) => {
  if (command === "open-panel") openPanel(tab);
  else if (command === "save-page") saveByUser(tab, undefined);
  else if (command === "save-selection") saveByUser(tab, "selection");
});

// Chrome: the toolbar button opens the side panel. Firefox: it toggles the sidebar.
if (api.sidePanel?.setPanelBehavior) {
  api.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
} else if (api.sidebarAction?.toggle) {
  api.action.onClicked.addListener(() => api.sidebarAction.toggle());
}

// --- the automation API (stable: the E2E tests and acceptance checks use it) ------------

globalThis.laika = {
  request: (type, payload = {}, onEvent = undefined) => request(type, payload, onEvent),
  savePage: (tabId, options = {}) => savePage(tabId, options),
  get state() {
    return currentState();
  },
};

recallInstall();
host.start();
