// Laika host client: the protocol of docs/PROTOCOL.md over any port-like object.
// Pure on purpose (no chrome.* / browser.* inside): the background passes
// runtime.connectNative, the side panel passes runtime.connect to the background's relay,
// and node tests pass a fake port, so one implementation is tested and used everywhere.

/** An error reply from the host (or a local failure: "disconnected", "cancelled"). */
export class HostRequestError extends Error {
  constructor({ code = "internal", message = "request failed", retryable = false, details = {} } = {}) {
    super(message);
    this.name = "HostRequestError";
    this.code = code;
    this.retryable = retryable;
    this.details = details;
  }
}

// The browsers' own words when the host cannot be started at all (recipe README's failure
// table, Chromium; Firefox puts its text in port.error). Any of these means "install it".
const MISSING_PATTERNS = [
  /specified native messaging host not found/i, // Chromium: no/invalid manifest
  /access to the specified native messaging host is forbidden/i, // Chromium: id not allowed
  /native host has exited/i, // Chromium: launcher not executable / gone
  /no such native application/i, // Firefox: no manifest
  /does not have permission to use native application/i, // Firefox: id not allowed
];
const NATIVE_APPLICATION = /native application /i;
const NOT_THERE = / not (?:found|installed)/i;
const LINE_BREAK = /[\n\r\u2028\u2029]/; // what a regex's "." does not cross

/** Whether a line says "native application ... not found|installed" (Firefox). What the regex
 * /native application .* not (found|installed)/i says, in linear time: that regex retries
 * ".*" from every "native application" and is quadratic on a message repeating it. The first
 * "native application" of a line leaves the most room after it, so it is the only one tried. */
function saysApplicationMissing(text) {
  return text.split(LINE_BREAK).some((line) => {
    const at = line.search(NATIVE_APPLICATION);
    return at >= 0 && NOT_THERE.test(line.slice(at + "native application ".length));
  });
}

/** "missing" when the browser says the host cannot be found or started, else "disconnected". */
export function classifyDisconnect(message) {
  const text = String(message ?? "");
  const missing = MISSING_PATTERNS.some((pattern) => pattern.test(text)) || saysApplicationMissing(text);
  return missing ? "missing" : "disconnected";
}

const INITIAL_STATE = Object.freeze({
  status: "connecting",
  hostVersion: null,
  capabilities: [],
  pingMs: null,
  lastError: null,
  reconnects: 0,
});

export class HostClient {
  /**
   * connect(): a port {postMessage, onMessage.addListener, onDisconnect.addListener, disconnect}.
   * timers: {setTimeout, clearTimeout} (fake ones in tests); now(): milliseconds for pingMs.
   */
  constructor({
    connect,
    idPrefix = "ext-",
    backoff = { initialMs: 500, maxMs: 30000 },
    timers = globalThis,
    now = () => globalThis.performance?.now?.() ?? Date.now(),
    disconnectMessage = () => null,
  }) {
    this._connect = connect;
    this._idPrefix = idPrefix;
    this._backoff = { initialMs: backoff.initialMs ?? 500, maxMs: backoff.maxMs ?? 30000 };
    this._timers = timers;
    this._now = now;
    this._disconnectMessage = disconnectMessage; // e.g. () => chrome.runtime.lastError?.message
    this._port = null;
    this._nextId = 1;
    this._pending = new Map(); // id -> {resolve, reject, onEvent}
    this._partial = new Map(); // id -> {count, parts: Map(index -> data)}
    this._listeners = new Set();
    this._hostListeners = new Set();
    this._state = { ...INITIAL_STATE };
    this._remote = false; // true once an upstream relay pushed its (the host's) state
    this._failures = 0;
    this._retryTimer = null;
    this._started = false;
  }

  get state() {
    return { ...this._state, capabilities: [...this._state.capabilities] };
  }

  /** Call listener(state) on every change; returns the unsubscribe function. */
  onState(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** Call listener(frame) for every host event (`id` null, e.g. `config.changed`): frames no
   * request asked for, so no request's onEvent sees them. Returns the unsubscribe function. */
  onHostEvent(listener) {
    this._hostListeners.add(listener);
    return () => this._hostListeners.delete(listener);
  }

  /** Connect and ping; after a disconnect, reconnect with exponential backoff. */
  async start() {
    this._started = true;
    this._ensurePort();
    try {
      const started = this._now();
      const pong = await this.request("host.ping");
      const pingMs = Math.round((this._now() - started) * 100) / 100;
      this._failures = 0;
      if (!this._remote) {
        this._setState({
          status: "connected",
          hostVersion: pong.version ?? null,
          capabilities: Array.isArray(pong.capabilities) ? pong.capabilities : [],
          pingMs,
          lastError: null,
        });
      }
      return pong;
    } catch (error) {
      // a dropped port already recorded the browser's own words; keep them
      if (!this._remote && error?.code !== "disconnected") this._setState({ lastError: String(error?.message ?? error) });
      return null;
    }
  }

  /** Stop reconnecting and close the port (pending requests reject "disconnected"). */
  stop() {
    this._started = false;
    if (this._retryTimer !== null) this._timers.clearTimeout(this._retryTimer);
    this._retryTimer = null;
    const port = this._port;
    if (port) {
      this._port = null;
      try {
        port.disconnect();
      } catch {
        // already gone
      }
      this._failAll("disconnected", "the connection was closed");
    }
  }

  /**
   * Send one request; resolves with its result, rejects with HostRequestError.
   * onEvent(frame) gets every stream event before the reply; aborting `signal` sends
   * host.cancel and rejects at once with code "cancelled". `id` overrides the generated id
   * (the background's relay uses it to keep the panel's ids readable in the host log).
   */
  request(type, payload = {}, { onEvent, signal, id } = {}) {
    if (signal?.aborted) return Promise.reject(cancelledError());
    const requestId = id ?? `${this._idPrefix}${this._nextId++}`;
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, onEvent, cleanup: () => {} };
      if (signal) {
        const onAbort = () => {
          if (!this._pending.has(requestId)) return;
          this._pending.delete(requestId);
          this._partial.delete(requestId);
          this._sendCancel(requestId);
          reject(cancelledError());
        };
        signal.addEventListener("abort", onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this._pending.set(requestId, entry);
      try {
        this._ensurePort().postMessage({ id: requestId, type, payload });
      } catch (error) {
        this._pending.delete(requestId);
        entry.cleanup();
        reject(
          new HostRequestError({
            code: "disconnected",
            message: `could not send ${type}: ${error?.message ?? error}`,
            retryable: true,
          }),
        );
      }
    });
  }

  /** Ask the host to stop request `id` (its promise then rejects with code "cancelled"). */
  cancel(id) {
    return this._sendCancel(id);
  }

  _sendCancel(targetId) {
    return this.request("host.cancel", { target_id: targetId }).catch(() => null);
  }

  _ensurePort() {
    if (this._port) return this._port;
    if (this._retryTimer !== null) {
      this._timers.clearTimeout(this._retryTimer);
      this._retryTimer = null;
    }
    if (!this._remote || this._state.status !== "connected") this._setState({ status: "connecting" });
    const port = this._connect();
    this._port = port;
    port.onMessage.addListener((frame) => {
      if (this._port === port) this._receive(frame);
    });
    port.onDisconnect.addListener((p) => {
      if (this._port === port) this._onDisconnect(p);
    });
    return port;
  }

  _receive(frame) {
    if (!frame || typeof frame !== "object") return;
    if (frame.chunk) {
      frame = this._reassemble(frame);
      if (!frame) return;
    }
    if (frame.id === null && frame.event === "state" && frame.data) {
      this._remote = true;
      this._setState(frame.data);
      return;
    }
    if (frame.id === null && typeof frame.event === "string") return this._hostEvent(frame);
    const waiter = this._pending.get(frame.id);
    if (!waiter) return; // a reply to a request we cancelled or never sent
    if ("event" in frame) {
      try {
        waiter.onEvent?.(frame);
      } catch (error) {
        this._setState({ lastError: `event handler failed: ${error?.message ?? error}` });
      }
      return;
    }
    this._pending.delete(frame.id);
    waiter.cleanup();
    if (frame.ok) waiter.resolve(frame.result);
    else waiter.reject(new HostRequestError(frame.error ?? {}));
  }

  _hostEvent(frame) {
    for (const listener of [...this._hostListeners]) {
      try {
        listener(frame);
      } catch (error) {
        this._setState({ lastError: `host event handler failed: ${error?.message ?? error}` });
      }
    }
  }

  // Chunks of one frame arrive in order but may interleave with other ids' frames; the
  // parts are joined by index, so a late or out-of-order index still lands in its place.
  _reassemble(frame) {
    const { index, count } = frame.chunk;
    const entry = this._partial.get(frame.id) ?? { count, parts: new Map() };
    entry.parts.set(index, frame.data);
    this._partial.set(frame.id, entry);
    if (entry.parts.size < entry.count) return null;
    this._partial.delete(frame.id);
    const pieces = [];
    for (let i = 1; i <= entry.count; i++) pieces.push(entry.parts.get(i) ?? "");
    try {
      return JSON.parse(pieces.join(""));
    } catch (error) {
      const waiter = this._pending.get(frame.id);
      if (waiter) {
        this._pending.delete(frame.id);
        waiter.cleanup();
        waiter.reject(new HostRequestError({ code: "bad_json", message: `chunked frame: ${error.message}` }));
      }
      return null;
    }
  }

  _onDisconnect(port) {
    // Chromium reports the reason in runtime.lastError, Firefox in port.error
    const message = this._disconnectMessage() ?? port?.error?.message ?? "the host disconnected";
    this._port = null;
    this._failAll("disconnected", `the host connection closed: ${message}`);
    this._failures += 1;
    const update = { lastError: message, reconnects: this._state.reconnects + 1 };
    if (!this._remote) update.status = classifyDisconnect(message);
    else update.status = "disconnected";
    this._setState(update);
    this._scheduleReconnect();
  }

  _failAll(code, message) {
    const waiters = [...this._pending.values()];
    this._pending.clear();
    this._partial.clear();
    for (const waiter of waiters) {
      waiter.cleanup();
      waiter.reject(new HostRequestError({ code, message, retryable: true }));
    }
  }

  _scheduleReconnect() {
    if (!this._started || this._retryTimer !== null) return;
    const delay = Math.min(this._backoff.initialMs * 2 ** (this._failures - 1), this._backoff.maxMs);
    this._retryTimer = this._timers.setTimeout(() => {
      this._retryTimer = null;
      if (this._started && !this._port) this.start();
    }, delay);
  }

  _setState(update) {
    const next = { ...this._state, ...update };
    const changed = Object.keys(next).some((key) => !sameValue(next[key], this._state[key]));
    if (!changed) return;
    this._state = next;
    for (const listener of [...this._listeners]) {
      try {
        listener(this.state);
      } catch {
        // a broken listener must not stop the others
      }
    }
  }
}

function cancelledError() {
  return new HostRequestError({ code: "cancelled", message: "cancelled", retryable: false });
}

function sameValue(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}
