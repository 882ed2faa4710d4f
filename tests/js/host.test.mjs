// lib/host.js against a fake port: what the host can send (chunks interleaved and out of
// order, events before the reply, error replies), cancel, disconnect and reconnect.
import assert from "node:assert/strict";
import { test } from "node:test";

import { HostClient, HostRequestError, classifyDisconnect } from "../../extension/lib/host.js";

/** A port like runtime.connectNative's: records what the client posts, lets the test reply. */
class FakePort {
  constructor() {
    this.sent = [];
    this.messageListeners = [];
    this.disconnectListeners = [];
    this.closed = false;
    this.onMessage = { addListener: (fn) => this.messageListeners.push(fn) };
    this.onDisconnect = { addListener: (fn) => this.disconnectListeners.push(fn) };
  }
  postMessage(frame) {
    if (this.closed) throw new Error("Attempting to use a disconnected port object");
    this.sent.push(structuredClone(frame));
  }
  disconnect() {
    this.closed = true;
  }
  deliver(frame) {
    for (const fn of this.messageListeners) fn(structuredClone(frame));
  }
  drop(message) {
    this.closed = true;
    for (const fn of this.disconnectListeners) fn({ error: message ? { message } : undefined });
  }
  last(type) {
    return [...this.sent].reverse().find((frame) => frame.type === type);
  }
}

/** Timers the test advances by hand. */
class FakeTimers {
  constructor() {
    this.now = 0;
    this.queue = [];
    this.nextHandle = 1;
  }
  setTimeout(fn, ms) {
    const handle = this.nextHandle++;
    this.queue.push({ handle, at: this.now + ms, fn });
    return handle;
  }
  clearTimeout(handle) {
    this.queue = this.queue.filter((timer) => timer.handle !== handle);
  }
  advance(ms) {
    this.now += ms;
    const due = this.queue.filter((timer) => timer.at <= this.now);
    this.queue = this.queue.filter((timer) => timer.at > this.now);
    for (const timer of due) timer.fn();
  }
  pendingDelays() {
    return this.queue.map((timer) => timer.at - this.now);
  }
}

function client(options = {}) {
  const ports = [];
  const timers = new FakeTimers();
  const host = new HostClient({
    connect: () => {
      const port = new FakePort();
      ports.push(port);
      return port;
    },
    timers,
    now: () => timers.now,
    ...options,
  });
  return { host, ports, timers };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Split the JSON text of `frame` into `count` chunk frames for `id`. */
function chunked(frame, count) {
  const text = JSON.stringify(frame);
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, i) => ({
    id: frame.id,
    chunk: { index: i + 1, count },
    data: text.slice(i * size, (i + 1) * size),
  }));
}

/** A deterministic shuffle (seeded LCG) so a failure reproduces. */
function shuffled(items, seed) {
  const out = [...items];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

test("requests get unique ids and resolve with their own result", async () => {
  const { host, ports } = client();
  const a = host.request("collections.list");
  const b = host.request("host.echo", { data: "hi" });
  const [first, second] = ports[0].sent;
  assert.notEqual(first.id, second.id);
  assert.deepEqual(second, { id: second.id, type: "host.echo", payload: { data: "hi" } });
  ports[0].deliver({ id: second.id, ok: true, result: { data: "hi" } });
  ports[0].deliver({ id: first.id, ok: true, result: { collections: [] } });
  assert.deepEqual(await a, { collections: [] });
  assert.deepEqual(await b, { data: "hi" });
});

test("interleaved, out-of-order chunks of many replies reassemble to each reply", async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const { host, ports } = client();
    const count = 1 + (seed % 4);
    const promises = Array.from({ length: count }, (_, i) => host.request("host.echo", { i }));
    const frames = ports[0].sent.flatMap((request, i) => {
      const reply = { id: request.id, ok: true, result: { data: "x".repeat(50 + i * 37), n: i, s: "é\u2028\"}" } };
      return chunked(reply, 1 + ((seed + i) % 7));
    });
    for (const frame of shuffled(frames, seed)) ports[0].deliver(frame);
    const results = await Promise.all(promises);
    results.forEach((result, i) => {
      assert.equal(result.n, i);
      assert.equal(result.data.length, 50 + i * 37);
      assert.equal(result.s, "é\u2028\"}");
    });
  }
});

test("events before the reply reach onEvent in order, including a chunked event", async () => {
  const { host, ports } = client();
  const seen = [];
  const answer = host.request("chat.ask", { question: "q" }, { onEvent: (frame) => seen.push(frame) });
  const { id } = ports[0].sent[0];
  ports[0].deliver({ id, event: "delta", seq: 0, data: { text: "Hel" } });
  for (const part of chunked({ id, event: "delta", seq: 1, data: { text: "lo".repeat(100) } }, 3)) {
    ports[0].deliver(part);
  }
  ports[0].deliver({ id: "someone-else", event: "delta", seq: 0, data: { text: "no" } });
  ports[0].deliver({ id, ok: true, result: { answer_markdown: "Hello" } });
  assert.deepEqual(await answer, { answer_markdown: "Hello" });
  assert.deepEqual(
    seen.map((frame) => [frame.seq, frame.data.text.length]),
    [
      [0, 3],
      [1, 200],
    ],
  );
});

test("an error reply rejects with a HostRequestError carrying code, retryable, details", async () => {
  const { host, ports } = client();
  const failing = host.request("sources.get", { source_id: "nope" });
  const { id } = ports[0].sent[0];
  const error = { code: "not_found", message: "no source nope", retryable: false, details: { source_id: "nope" } };
  ports[0].deliver({ id, ok: false, error });
  await assert.rejects(failing, (thrown) => {
    assert.ok(thrown instanceof HostRequestError);
    assert.equal(thrown.code, "not_found");
    assert.equal(thrown.message, "no source nope");
    assert.equal(thrown.retryable, false);
    assert.deepEqual(thrown.details, { source_id: "nope" });
    return true;
  });
});

test("aborting the signal sends host.cancel for that id and rejects with cancelled", async () => {
  const { host, ports } = client();
  const controller = new AbortController();
  const asking = host.request("chat.ask", { question: "q" }, { signal: controller.signal });
  const { id } = ports[0].sent[0];
  controller.abort();
  await assert.rejects(asking, (thrown) => thrown.code === "cancelled");
  const cancel = ports[0].last("host.cancel");
  assert.deepEqual(cancel.payload, { target_id: id });
  // the host's own "cancelled" reply that follows is ignored, not an unhandled rejection
  ports[0].deliver({ id, ok: false, error: { code: "cancelled", message: "cancelled" } });
  ports[0].deliver({ id: cancel.id, ok: true, result: { cancelled: true, target_id: id } });
  await flush();
  // an already-aborted signal never sends the request
  const sentBefore = ports[0].sent.length;
  await assert.rejects(host.request("chat.ask", {}, { signal: controller.signal }), (e) => e.code === "cancelled");
  assert.equal(ports[0].sent.length, sentBefore);
});

test("cancel(id) sends host.cancel", async () => {
  const { host, ports } = client();
  host.request("jobs.run").catch(() => {});
  const { id } = ports[0].sent[0];
  host.cancel(id);
  assert.deepEqual(ports[0].last("host.cancel").payload, { target_id: id });
});

test("a disconnect rejects every pending request with code disconnected", async () => {
  const { host, ports } = client();
  const pending = [host.request("a.b"), host.request("c.d"), host.request("e.f")];
  ports[0].deliver({ id: ports[0].sent[0].id, chunk: { index: 1, count: 2 }, data: "{" });
  ports[0].drop("Error when communicating with the native messaging host.");
  for (const promise of pending) {
    await assert.rejects(promise, (thrown) => thrown instanceof HostRequestError && thrown.code === "disconnected");
  }
  assert.equal(host.state.status, "disconnected");
  assert.equal(host.state.lastError, "Error when communicating with the native messaging host.");
});

test("start pings, fills the state, and reconnects with doubling backoff up to the cap", async () => {
  const { host, ports, timers } = client({ backoff: { initialMs: 100, maxMs: 1000 } });
  const states = [];
  host.onState((state) => states.push(state.status));
  const started = host.start();
  const ping = ports[0].sent[0];
  assert.equal(ping.type, "host.ping");
  timers.now += 3;
  ports[0].deliver({ id: ping.id, ok: true, result: { pong: true, version: "1.2.3", capabilities: ["chat.ask"] } });
  await started;
  assert.equal(host.state.status, "connected");
  assert.equal(host.state.hostVersion, "1.2.3");
  assert.deepEqual(host.state.capabilities, ["chat.ask"]);
  assert.equal(host.state.pingMs, 3);

  const delays = [];
  for (let failure = 1; failure <= 6; failure++) {
    ports.at(-1).drop("Specified native messaging host not found.");
    await flush();
    assert.equal(host.state.status, "missing");
    delays.push(...timers.pendingDelays());
    const before = ports.length;
    timers.advance(timers.pendingDelays()[0]);
    assert.equal(ports.length, before + 1, "the timer opened a new port");
    assert.equal(ports.at(-1).sent[0].type, "host.ping");
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 1000, 1000]);
  assert.equal(host.state.reconnects, 6);

  // a successful ping resets the backoff
  const last = ports.at(-1);
  last.deliver({ id: last.sent[0].id, ok: true, result: { pong: true, version: "1.2.4", capabilities: [] } });
  await flush();
  assert.equal(host.state.status, "connected");
  last.drop("Native host has exited.");
  await flush();
  assert.deepEqual(timers.pendingDelays(), [100]);
  assert.ok(states.includes("connecting") && states.includes("missing"));
  host.stop();
  assert.deepEqual(timers.pendingDelays(), []);
});

test("a request while disconnected reconnects at once instead of waiting for the timer", async () => {
  const { host, ports, timers } = client();
  host.start();
  ports[0].drop("Native host has exited.");
  await flush();
  assert.equal(timers.pendingDelays().length, 1);
  host.request("collections.list").catch(() => {});
  assert.equal(ports.length, 2);
  assert.equal(timers.pendingDelays().length, 0, "the scheduled retry is dropped");
  assert.equal(ports[1].sent.at(-1).type, "collections.list");
});

test("a relay's pushed state (id null, event state) is adopted as the client's state", async () => {
  const { host, ports } = client();
  host.start();
  const pushed = { status: "missing", hostVersion: null, capabilities: [], pingMs: null, lastError: "x", reconnects: 2 };
  ports[0].deliver({ id: null, event: "state", data: pushed });
  assert.equal(host.state.status, "missing");
  assert.equal(host.state.reconnects, 2);
  // the relay answers the panel's ping with an error: the pushed status stays
  ports[0].deliver({ id: ports[0].sent[0].id, ok: false, error: { code: "disconnected", message: "gone" } });
  await flush();
  assert.equal(host.state.status, "missing");
});

test("classifyDisconnect: the browsers' exact messages for an absent or forbidden host", () => {
  const missing = [
    "Specified native messaging host not found.",
    "Access to the specified native messaging host is forbidden.",
    "Native host has exited.",
    "No such native application com.laika.host",
    "This extension does not have permission to use native application com.laika.host (or the application is not installed)",
  ];
  for (const message of missing) assert.equal(classifyDisconnect(message), "missing", message);
  const transient = [
    "Error when communicating with the native messaging host.",
    "The sender sent an invalid JSON message; message ignored.",
    "",
    null,
    undefined,
  ];
  for (const message of transient) assert.equal(classifyDisconnect(message), "disconnected", String(message));
});

test("a custom id is used as is (the relay's panel<N>:<id>)", async () => {
  const { host, ports } = client();
  const answer = host.request("host.echo", {}, { id: "panel3:p-1" });
  assert.equal(ports[0].sent[0].id, "panel3:p-1");
  ports[0].deliver({ id: "panel3:p-1", ok: true, result: { data: null } });
  assert.deepEqual(await answer, { data: null });
});
