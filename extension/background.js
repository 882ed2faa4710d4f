// Laika background: one long-lived native-messaging port to the host (com.laika.host).
// Every sendNativeMessage would start a new host process (~200 ms), so we keep one
// connectNative port open, reconnect with backoff, and multiplex requests over it by id.
// Protocol: docs/PROTOCOL.md. Replies over 256 KiB arrive as chunk frames to reassemble.

const HOST_NAME = "com.laika.host";
const api = globalThis.browser ?? globalThis.chrome;

const state = { connected: false, lastError: null, pingMs: null, hostVersion: null, reconnects: 0 };
const pending = new Map(); // id -> {resolve, reject, onEvent}
const partial = new Map(); // id -> {count, parts: Map(index -> data)}
let port = null;
let nextId = 1;
let backoffMs = 500;

function connect() {
  port = api.runtime.connectNative(HOST_NAME);
  state.connected = true;
  port.onMessage.addListener(receive);
  port.onDisconnect.addListener((p) => {
    // Chrome reports the reason in runtime.lastError, Firefox in port.error
    state.lastError = api.runtime.lastError?.message ?? p?.error?.message ?? "disconnected";
    state.connected = false;
    port = null;
    for (const waiter of pending.values()) waiter.reject(new Error(state.lastError));
    pending.clear();
    partial.clear();
    state.reconnects += 1;
    setTimeout(start, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 30_000);
  });
}

function receive(frame) {
  if (frame.chunk) {
    const entry = partial.get(frame.id) ?? { count: frame.chunk.count, parts: new Map() };
    entry.parts.set(frame.chunk.index, frame.data);
    partial.set(frame.id, entry);
    if (entry.parts.size < entry.count) return;
    partial.delete(frame.id);
    let text = "";
    for (let i = 1; i <= entry.count; i++) text += entry.parts.get(i);
    frame = JSON.parse(text);
  }
  const waiter = pending.get(frame.id);
  if (!waiter) return;
  if ("event" in frame) {
    waiter.onEvent?.(frame);
    return;
  }
  pending.delete(frame.id);
  if (frame.ok) waiter.resolve(frame.result);
  else waiter.reject(Object.assign(new Error(frame.error.message), { code: frame.error.code, error: frame.error }));
}

function request(type, payload = {}, onEvent = undefined) {
  if (!port) connect();
  const id = `ext-${nextId++}`;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onEvent });
    port.postMessage({ id, type, payload });
  });
}

async function start() {
  try {
    const started = performance.now();
    const pong = await request("host.ping");
    state.pingMs = +(performance.now() - started).toFixed(2);
    state.hostVersion = pong.version;
    backoffMs = 500;
    await request("host.log", {
      level: "info",
      message: "extension connected: ping ok",
      context: { ping_ms: state.pingMs, host_version: pong.version, reconnects: state.reconnects },
    });
  } catch (error) {
    state.lastError = String(error?.message ?? error);
  }
  await api.storage?.local?.set({ laikaHost: { ...state } });
}

// --- Save page: the toolbar button (or the context menu) sends the page the user sees ------

// Runs inside the page (injected with activeTab + scripting): the live DOM without scripts
// and styles, the URL, the title and the selection, if any. The host sanitizes again.
function serializePage() {
  const clone = document.documentElement.cloneNode(true);
  for (const node of clone.querySelectorAll("script, style, noscript, template, link[rel=stylesheet]")) {
    node.remove();
  }
  let selectionHtml = null;
  const selection = window.getSelection();
  if (selection && !selection.isCollapsed && selection.rangeCount) {
    const box = document.createElement("div");
    for (let i = 0; i < selection.rangeCount; i++) box.appendChild(selection.getRangeAt(i).cloneContents());
    selectionHtml = box.innerHTML;
  }
  return { url: location.href, title: document.title, html: "<!DOCTYPE html>" + clone.outerHTML, selection_html: selectionHtml };
}

async function savePage(tab, collection = "Inbox") {
  const [injection] = await api.scripting.executeScript({ target: { tabId: tab.id }, func: serializePage });
  const page = injection?.result;
  if (!page || !/^https?:/i.test(page.url)) throw new Error("only http(s) pages can be saved");
  const saved = await request("sources.save_page", { ...page, collection });
  state.lastSaved = { id: saved.source.id, outcome: saved.outcome, title: saved.source.title };
  return saved;
}

async function saveFromUserAction(tab) {
  try {
    const saved = await savePage(tab);
    await api.action.setBadgeText({ tabId: tab.id, text: "✓" });
    await api.action.setTitle({ tabId: tab.id, title: `Saved to ${saved.collection} (${saved.outcome})` });
  } catch (error) {
    state.lastError = String(error?.message ?? error);
    await api.action.setBadgeText({ tabId: tab.id, text: "!" });
    await api.action.setTitle({ tabId: tab.id, title: `Laika could not save this page: ${state.lastError}` });
    request("host.log", { level: "warning", message: `save page failed: ${state.lastError}` }).catch(() => {});
  }
}

api.action.onClicked.addListener(saveFromUserAction);
api.runtime.onInstalled.addListener(() => {
  api.contextMenus.create({ id: "laika-save-page", title: "Save page to Laika", contexts: ["page", "selection"] });
});
api.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === "laika-save-page" && tab) saveFromUserAction(tab);
});

globalThis.laika = { request, state, savePage };
start();
