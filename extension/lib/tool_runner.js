// Browser tools, background side (issue #16): checks a forwarded call's arguments, runs it in
// the chat's tab within TOOL_TIMEOUT_MS, and answers {ok, result|error}, never a rejection, so
// the panel always has something to send back as `tool.result`. Pure of chrome.* on purpose:
// the background passes its tabs API and injector, node tests pass fakes.
//
// Per tab it remembers the latest observation (its id and handle ids) and the next handle
// number: a click on a handle of an older observation is refused here, before any injection,
// and again on the page (lib/browser_tools.js), which holds the elements themselves.

export const TOOL_TIMEOUT_MS = 10_000;
export const STALE_HANDLE = "stale or unknown handle: observe the page again";

const COUNT = { type: "count" };
const OBSERVE_KEYS = [
  "maxChars",
  "maxElements",
  "maxBlocks",
  "maxPrimaryChars",
  "maxOutline",
  "maxOutlineChars",
  "maxItems",
  "maxItemChars",
  "maxComments",
  "maxCommentChars",
];
/** Each browser tool's argument keys (camelCase, as protocol/tools.py puts them on the wire). */
export const BROWSER_TOOLS = Object.freeze({
  "browser.observe_dom": { ...Object.fromEntries(OBSERVE_KEYS.map((key) => [key, COUNT])), rootHandleId: { type: "handle" } },
  "browser.get_selection_links": { maxLinks: COUNT },
  "browser.click": { handleId: { type: "handle", required: true } },
  "browser.type": { handleId: { type: "handle", required: true }, text: { type: "string", required: true } },
  "browser.select": { handleId: { type: "handle", required: true }, value: { type: "string", required: true } },
  "browser.scroll": { deltaY: { type: "number", required: true } },
  "browser.open_tab": { url: { type: "url", required: true } },
  "browser.navigate": { url: { type: "url", required: true } },
  "browser.back": {},
  "browser.forward": {},
  "browser.refresh": {},
});

const CHECKS = {
  count: (v) => (Number.isInteger(v) && v >= 1 ? null : "must be a whole number of at least 1"),
  handle: (v) => (typeof v === "string" && v.length > 0 && v.length <= 100 ? null : "must be a handle id such as h3"),
  string: (v) => (typeof v === "string" ? null : "must be text"),
  number: (v) => (Number.isFinite(v) && Math.abs(v) <= 1e6 ? null : "must be a number of pixels (at most 1000000 either way)"),
  url: (v) => (isWebUrl(v) ? null : "must be an http(s) URL (other schemes are refused)"),
};

export function isWebUrl(value) {
  if (typeof value !== "string" || value.length > 8192) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && !!url.hostname;
  } catch {
    return false;
  }
}

/** The call's arguments when every key is known and valid; else throws naming the field. */
export function checkToolCall(tool, args) {
  const spec = Object.hasOwn(BROWSER_TOOLS, tool) ? BROWSER_TOOLS[tool] : null;
  if (!spec) throw new Error(`unknown browser tool ${JSON.stringify(String(tool).slice(0, 100))}: the extension runs ${Object.keys(BROWSER_TOOLS).join(", ")}`);
  const given = args ?? {};
  if (typeof given !== "object" || Array.isArray(given)) throw new Error(`${tool} arguments: must be an object`);
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(spec, key)) throw new Error(`${tool} arguments: ${key.slice(0, 60)}: unknown key`);
    const problem = CHECKS[spec[key].type](given[key]);
    if (problem) throw new Error(`${tool} arguments: ${key}: ${problem}`);
  }
  for (const [key, rule] of Object.entries(spec)) {
    if (rule.required && !(key in given)) throw new Error(`${tool} arguments: ${key}: required`);
  }
  return given;
}

/** `promise`, or a rejection naming `what` once `ms` pass (the timer is always cleared). */
export function withTimeout(promise, ms, what, timers = globalThis) {
  let timer = null;
  const expired = new Promise((_, reject) => {
    timer = timers.setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => timers.clearTimeout(timer));
}

export class ToolRunner {
  /**
   * page(tabId, request): runs lib/browser_tools.js's pageTool in the tab, resolves its reply.
   * selectionLinks(tabId): capture.js's selectionLinks in the tab.
   * tabs: {get, create, update, goBack, goForward, reload, onUpdated} (the browser's tabs API).
   */
  constructor({ page, selectionLinks, tabs, timeoutMs = TOOL_TIMEOUT_MS, timers = globalThis }) {
    this.page = page;
    this.selectionLinks = selectionLinks;
    this.tabs = tabs;
    this.timeoutMs = timeoutMs;
    this.timers = timers;
    this.observations = new Map(); // tabId -> {id, handles: Set, next}
  }

  /** Run {tool, arguments} in `tabId`: {ok: true, result, tabId} or {ok: false, error, tabId}. */
  async run({ tool, arguments: args }, tabId) {
    try {
      const checked = checkToolCall(tool, args);
      const work = this.dispatch(tool, checked, tabId);
      const outcome = await withTimeout(work, this.timeoutMs, tool, this.timers);
      return { ok: true, result: outcome.result, tabId: outcome.tabId ?? tabId };
    } catch (error) {
      return { ok: false, error: String(error?.message ?? error), tabId };
    }
  }

  /** Forget a tab's observation (it navigated or closed): its handles are stale now. */
  forget(tabId) {
    const known = this.observations.get(tabId);
    if (known) this.observations.set(tabId, { id: null, handles: new Set(), next: known.next });
  }

  async dispatch(tool, args, tabId) {
    const name = tool.slice("browser.".length);
    if (name === "observe_dom") return { result: await this.observe(args, tabId) };
    if (name === "get_selection_links") {
      const links = (await this.selectionLinks(tabId)) ?? [];
      return { result: { links: links.filter((link) => isWebUrl(link.url)).slice(0, args.maxLinks ?? 100) } };
    }
    if (["click", "type", "select"].includes(name)) return { result: await this.act(name, args, tabId) };
    if (name === "scroll") return { result: await this.onPage(tabId, { op: "scroll", deltaY: args.deltaY }) };
    return this.navigate(name, args, tabId);
  }

  async observe(args, tabId) {
    const known = this.observations.get(tabId);
    if (args.rootHandleId && !known?.handles.has(args.rootHandleId)) throw new Error(STALE_HANDLE);
    const firstHandle = known?.next ?? 1;
    const result = await this.onPage(tabId, { ...args, op: "observe", firstHandle, observationId: known?.id ?? undefined });
    const numbers = result.handles.map((handle) => Number(handle.id.slice(1)));
    const next = Math.max(firstHandle, ...numbers.map((n) => n + 1));
    this.observations.set(tabId, { id: result.observation_id, handles: new Set(result.handles.map((h) => h.id)), next });
    return result;
  }

  async act(name, args, tabId) {
    const known = this.observations.get(tabId);
    if (!known?.id || !known.handles.has(args.handleId)) throw new Error(STALE_HANDLE);
    return this.onPage(tabId, { ...args, op: name, observationId: known.id });
  }

  async onPage(tabId, request) {
    const reply = await this.page(tabId, request);
    if (!reply || typeof reply !== "object") throw new Error("the page did not answer (it may be loading, or not scriptable)");
    if (!reply.ok) throw new Error(reply.error);
    return reply.result;
  }

  async navigate(name, args, tabId) {
    let target = tabId;
    if (name === "open_tab") {
      target = (await this.tabs.create({ url: args.url, active: true })).id;
      await this.loaded(target, true);
    } else {
      const loading = this.loaded(tabId, false);
      if (name === "navigate") await this.tabs.update(tabId, { url: args.url });
      else if (name === "back") await this.tabs.goBack(tabId);
      else if (name === "forward") await this.tabs.goForward(tabId);
      else await this.tabs.reload(tabId);
      this.forget(tabId);
      await loading;
    }
    const tab = await this.tabs.get(target);
    return { tabId: target, result: { ok: true, url: tab.url ?? "", title: tab.title ?? "", tabId: target } };
  }

  /** Resolves when the tab finishes loading (status "complete"), at the latest after the
   * call's timeout. The listener is added before the tab is asked to move (or, for a new tab,
   * before its status is read: `checkNow`), so no completion is missed. */
  loaded(tabId, checkNow) {
    return new Promise((resolve) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        this.timers.clearTimeout(timer);
        this.tabs.onUpdated.removeListener(listener);
        resolve();
      };
      const listener = (id, change) => {
        if (id === tabId && change.status === "complete") done();
      };
      const timer = this.timers.setTimeout(done, this.timeoutMs);
      this.tabs.onUpdated.addListener(listener);
      if (checkNow) {
        this.tabs.get(tabId).then((tab) => tab?.status === "complete" && done(), done);
      }
    });
  }
}
