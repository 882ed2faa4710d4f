// extension/lib/tool_runner.js: argument checks at the extension's boundary, the timeout, and
// the per-tab observation bookkeeping, with the page function run for real in a jsdom page.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JSDOM } from "jsdom";

import { pageTool } from "../../extension/lib/browser_tools.js";
import { BROWSER_TOOLS, STALE_HANDLE, ToolRunner, checkToolCall, isWebUrl, withTimeout } from "../../extension/lib/tool_runner.js";

/** Fake timers: setTimeout only records; fire() runs what is due. */
function fakeTimers() {
  const queue = new Map();
  let next = 1;
  return {
    setTimeout: (fn, ms) => (queue.set(next, { fn, ms }), next++),
    clearTimeout: (id) => queue.delete(id),
    fire: () => [...queue.entries()].forEach(([id, { fn }]) => (queue.delete(id), fn())),
    get size() {
      return queue.size;
    },
  };
}

function fakeTabs(pages) {
  const listeners = new Set();
  const tabs = new Map([[1, { id: 1, url: "https://page.example/", title: "One", status: "complete" }]]);
  return {
    listeners,
    tabs,
    get: async (id) => tabs.get(id) ?? Promise.reject(new Error(`No tab with id: ${id}.`)),
    create: async ({ url }) => {
      const tab = { id: tabs.size + 1, url, title: "New", status: "loading" };
      tabs.set(tab.id, tab);
      setTimeout(() => ((tab.status = "complete"), listeners.forEach((fn) => fn(tab.id, { status: "complete" }))), 5);
      return tab;
    },
    update: async (id, { url }) => {
      Object.assign(tabs.get(id), { url, title: "Moved" });
      pages.set(id, jsdomPage("<button>fresh</button>"));
      setTimeout(() => listeners.forEach((fn) => fn(id, { status: "complete" })), 5);
    },
    onUpdated: { addListener: (fn) => listeners.add(fn), removeListener: (fn) => listeners.delete(fn) },
  };
}

function jsdomPage(html) {
  const dom = new JSDOM(`<body>${html}</body>`, { runScripts: "outside-only", url: "https://page.example/" });
  const run = dom.window.eval(`(${pageTool})`);
  return { dom, run: (request) => JSON.parse(JSON.stringify(run(request))) };
}

function runner(html, options = {}) {
  const pages = new Map([[1, jsdomPage(html)]]);
  const tabs = fakeTabs(pages);
  const tools = new ToolRunner({
    page: async (tabId, request) => pages.get(tabId).run(request),
    selectionLinks: async () => [{ url: "https://a.example/", text: "a" }, { url: "javascript:alert(1)", text: "x" }],
    tabs,
    ...options,
  });
  return { tools, pages, tabs };
}

test("arguments: unknown tools and keys, wrong types and missing keys are refused, naming the field", () => {
  assert.throws(() => checkToolCall("browser.delete_history", {}), /unknown browser tool "browser.delete_history"/);
  assert.throws(() => checkToolCall("search", {}), /unknown browser tool/);
  assert.throws(() => checkToolCall("browser.click", { handleId: "h1", force: true }), /browser.click arguments: force: unknown key/);
  assert.throws(() => checkToolCall("browser.click", {}), /handleId: required/);
  assert.throws(() => checkToolCall("browser.type", { handleId: "h1", text: 3 }), /text: must be text/);
  assert.throws(() => checkToolCall("browser.scroll", { deltaY: Infinity }), /deltaY: must be a number/);
  assert.throws(() => checkToolCall("browser.observe_dom", { maxChars: 0 }), /maxChars: must be a whole number/);
  for (const url of ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "chrome://settings", "http://"]) {
    assert.throws(() => checkToolCall("browser.navigate", { url }), /url: must be an http\(s\) URL/, url);
  }
  assert.deepEqual(checkToolCall("browser.open_tab", { url: "https://ok.example/a" }), { url: "https://ok.example/a" });
  assert.deepEqual(checkToolCall("browser.back", undefined), {});
});

test("arguments: any object either passes with only known, valid keys or is refused", () => {
  const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.webUrl());
  const key = fc.oneof(fc.constantFrom("handleId", "text", "value", "deltaY", "url", "maxChars", "maxLinks"), fc.string({ maxLength: 6 }));
  fc.assert(
    fc.property(fc.constantFrom(...Object.keys(BROWSER_TOOLS)), fc.dictionary(key, value, { maxKeys: 4 }), (tool, args) => {
      let passed;
      try {
        passed = checkToolCall(tool, args);
      } catch (error) {
        assert.match(error.message, new RegExp(`^${tool.replace(".", "\\.")} arguments: `));
        return;
      }
      for (const name of Object.keys(passed)) assert.ok(Object.hasOwn(BROWSER_TOOLS[tool], name));
      if (passed.url !== undefined) assert.ok(isWebUrl(passed.url));
    }),
  );
});

test("withTimeout rejects naming the tool when the work hangs, and clears its timer either way", async () => {
  const timers = fakeTimers();
  const hung = withTimeout(new Promise(() => {}), 10_000, "browser.click", timers);
  timers.fire();
  await assert.rejects(hung, /browser.click did not finish within 10 s/);
  assert.equal(await withTimeout(Promise.resolve(7), 10_000, "x", timers), 7);
  assert.equal(timers.size, 0);
});

test("a hung page call answers {ok: false} after the timeout instead of hanging the chat", async () => {
  const timers = fakeTimers();
  const tools = new ToolRunner({ page: () => new Promise(() => {}), selectionLinks: null, tabs: null, timers });
  const pending = tools.run({ tool: "browser.observe_dom", arguments: {} }, 1);
  await new Promise((resolve) => setImmediate(resolve));
  timers.fire();
  assert.deepEqual(await pending, { ok: false, error: "browser.observe_dom did not finish within 10 s", tabId: 1 });
});

test("act before observing, or on an older observation's handle, is stale; the latest works", async () => {
  const { tools, pages } = runner(`<button id="b">Go</button><input name="q">`);
  const document = pages.get(1).dom.window.document;
  let clicks = 0;
  document.getElementById("b").addEventListener("click", () => clicks++);
  const call = (tool, args) => tools.run({ tool, arguments: args }, 1);

  assert.deepEqual(await call("browser.click", { handleId: "h1" }), { ok: false, error: STALE_HANDLE, tabId: 1 });
  const first = await call("browser.observe_dom", {});
  assert.deepEqual(first.result.handles.map((h) => h.id), ["h1", "h2"]);
  const second = await call("browser.observe_dom", {});
  assert.deepEqual(second.result.handles.map((h) => h.id), ["h3", "h4"]);
  assert.equal((await call("browser.click", { handleId: "h1" })).error, STALE_HANDLE);
  assert.equal(clicks, 0);
  assert.deepEqual(await call("browser.click", { handleId: "h3" }), {
    ok: true,
    result: { ok: true, url: "https://page.example/", title: "" },
    tabId: 1,
  });
  assert.equal(clicks, 1);
  assert.equal((await call("browser.type", { handleId: "h4", text: "x".repeat(10001) })).error, "browser.type: the text has 10001 characters; at most 10000");
});

test("navigating forgets the tab's handles; numbering goes on; open_tab pins the new tab", async () => {
  const { tools } = runner(`<button>Go</button>`);
  const call = (tool, args, tabId = 1) => tools.run({ tool, arguments: args }, tabId);
  await call("browser.observe_dom", {});
  const moved = await call("browser.navigate", { url: "https://other.example/" });
  assert.deepEqual(moved, { ok: true, result: { ok: true, url: "https://other.example/", title: "Moved", tabId: 1 }, tabId: 1 });
  assert.equal((await call("browser.click", { handleId: "h1" })).error, STALE_HANDLE);
  assert.deepEqual((await call("browser.observe_dom", {})).result.handles.map((h) => h.id), ["h2"]);
  const opened = await call("browser.open_tab", { url: "https://new.example/" });
  assert.equal(opened.ok, true);
  assert.equal(opened.tabId, 2);
  assert.equal(opened.result.url, "https://new.example/");
  const refused = await call("browser.open_tab", { url: "javascript:alert(1)" });
  assert.match(refused.error, /url: must be an http\(s\) URL/);
  const links = await call("browser.get_selection_links", { maxLinks: 5 });
  assert.deepEqual(links.result, { links: [{ url: "https://a.example/", text: "a" }] });
});
