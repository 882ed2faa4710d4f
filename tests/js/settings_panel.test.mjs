// Issue #17 in the panel: the "Change a setting" box (settings_box.js, settings_reply.js), the
// registry's ui.* applied live (ui_prefs.js, ui_live.js) and host events (`id` null) reaching
// listeners (lib/host.js), against jsdom and a fake app that records what is sent.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JSDOM } from "jsdom";

import { HostClient } from "../../extension/lib/host.js";
import {
  CAN_CHANGE_MAX,
  DESCRIPTION_MAX,
  DETAILS_MAX,
  MESSAGE_MAX,
  NOTES_MAX,
  outcomeSentence,
  proposalSentence,
  replyOutcome,
} from "../../extension/sidepanel/settings_reply.js";
import { THEMES, concerns, effectiveTheme, overlaps, uiAttributes, uiSettings } from "../../extension/sidepanel/ui_prefs.js";

const window = new JSDOM("<!doctype html><html><body></body></html>", { url: "https://panel.test/" }).window;
globalThis.document = window.document;
globalThis.Node = window.Node;
globalThis.localStorage = window.localStorage; // ui_live.js caches the last ui seen there
const { SettingsBox } = await import("../../extension/sidepanel/views/settings_box.js");
const { mountUi } = await import("../../extension/sidepanel/ui_live.js");

const STATUSES = ["applied", "pending", "denied", "declined", "failed"];
const settle = () => new Promise((resolve) => setImmediate(resolve));
const path = fc.array(fc.constantFrom("ui", "theme", "providers", "default", "u", "i", "policy", "rules"), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("."));

// --- ui_prefs.js -------------------------------------------------------------------------------

test("any ui section reads as a valid one: a known theme and a boolean, the rest the defaults", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (section, systemDark) => {
      const ui = uiSettings(section);
      assert.ok(THEMES.includes(ui.theme));
      assert.equal(typeof ui.show_citations, "boolean");
      const known = section !== null && typeof section === "object" && !Array.isArray(section);
      if (known && THEMES.includes(section.theme)) assert.equal(ui.theme, section.theme);
      if (known && typeof section.show_citations === "boolean") assert.equal(ui.show_citations, section.show_citations);
      const attributes = uiAttributes(section, systemDark);
      assert.ok(["light", "dark"].includes(attributes.theme));
      assert.equal(attributes.citations, ui.show_citations ? "shown" : "hidden");
    }),
  );
});

test("the effective theme is the setting, or the system's when the setting is system", () => {
  for (const systemDark of [false, true]) {
    assert.equal(effectiveTheme("light", systemDark), "light");
    assert.equal(effectiveTheme("dark", systemDark), "dark");
    assert.equal(effectiveTheme("system", systemDark), systemDark ? "dark" : "light");
  }
});

test("two dotted paths overlap exactly when one's segments start the other's", () => {
  fc.assert(
    fc.property(path, path, (a, b) => {
      const [x, y] = [a.split("."), b.split(".")];
      const prefix = (short, long) => short.length <= long.length && short.every((part, i) => part === long[i]);
      assert.equal(overlaps(a, b), prefix(x, y) || prefix(y, x));
      assert.equal(overlaps(a, b), overlaps(b, a));
    }),
  );
  assert.equal(overlaps("ui", "uix.theme"), false, "a name that merely starts the same is another setting");
});

test("a change concerns a view when one of its paths overlaps what the view shows; no paths concern all", () => {
  fc.assert(
    fc.property(fc.array(path, { maxLength: 5 }), fc.array(path, { minLength: 1, maxLength: 3 }), (changed, shown) => {
      const expected = changed.length === 0 || changed.some((p) => shown.some((s) => overlaps(p, s)));
      assert.equal(concerns(changed, shown), expected);
    }),
  );
  assert.equal(concerns(undefined, ["ui"]), true);
  assert.equal(concerns(["providers.default"], ["ui"]), false);
  assert.equal(concerns(["ui.theme"], ["ui"]), true);
});

// --- settings_reply.js -------------------------------------------------------------------------

const replyShape = fc.record(
  {
    status: fc.oneof(fc.constantFrom(...STATUSES), fc.string({ maxLength: 12 })),
    tool: fc.string({ maxLength: 40 }),
    message: fc.oneof(fc.string({ maxLength: 800 }), fc.jsonValue({ maxDepth: 1 })),
    change: fc.oneof(fc.constant(null), fc.record({ version: fc.nat(), paths: fc.array(fc.oneof(path, fc.integer()), { maxLength: 4 }) })),
    notes: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 700 }), fc.integer()), { maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })),
    can_change: fc.oneof(
      fc.array(fc.record({ name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()), description: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(null)) }, { requiredKeys: [] }), { maxLength: 130 }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    details: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 700 }), fc.integer()), { maxLength: 60 }), fc.jsonValue({ maxDepth: 1 })),
    question: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
  },
  { requiredKeys: [] },
);

test("any reply gives a bounded outcome with a known status; only an older host's decline lists what can be changed", () => {
  fc.assert(
    fc.property(fc.oneof(replyShape, fc.jsonValue({ maxDepth: 2 })), (reply) => {
      const outcome = replyOutcome(reply);
      assert.ok(STATUSES.includes(outcome.status));
      const known = reply !== null && typeof reply === "object" && STATUSES.includes(reply.status);
      assert.equal(outcome.status, known ? reply.status : "failed");
      if (!known) assert.match(outcome.detail, /does not know/);
      assert.ok(outcome.detail.length <= MESSAGE_MAX + 20 + 100 * (DESCRIPTION_MAX + 2));
      assert.ok(outcome.line.length <= MESSAGE_MAX + 40 + 100 * (DESCRIPTION_MAX + 2));
      const worded = known && Array.isArray(reply.details);
      if (outcome.status !== "declined" || worded) assert.deepEqual(outcome.canChange, []);
      if (!worded) assert.deepEqual(outcome.details, []);
      if (outcome.status !== "applied") assert.deepEqual(outcome.paths, []);
      assert.equal(outcome.question, known && reply.status === "declined" && reply.question === true);
      assert.ok(outcome.canChange.length <= CAN_CHANGE_MAX);
      assert.ok(outcome.details.length <= DETAILS_MAX && outcome.details.every((line) => typeof line === "string" && line && line.length <= MESSAGE_MAX));
      assert.ok(outcome.notes.length <= NOTES_MAX && outcome.notes.every((note) => note.length <= MESSAGE_MAX));
      for (const row of outcome.canChange) assert.ok(typeof row === "string" && row.length > 0 && row.length <= DESCRIPTION_MAX);
      if (outcome.headed) assert.ok(outcomeSentence(outcome).startsWith(outcome.headline));
      else assert.ok(outcomeSentence(outcome).startsWith(outcome.line));
    }),
  );
});

test("a host's sentences are shown as written: the message, then its lines; never a tool id", () => {
  const shown = replyOutcome({ status: "applied", message: "Your settings:", details: ["Captured pages keep at most 24,000 characters.", "- weekly: when a page is captured, run summary on its collection"], change: null });
  assert.equal(shown.line, "Your settings:");
  assert.equal(shown.headed, false);
  assert.deepEqual(shown.details, ["Captured pages keep at most 24,000 characters.", "weekly: when a page is captured, run summary on its collection"]);
  assert.equal(outcomeSentence(shown), "Your settings: Captured pages keep at most 24,000 characters. weekly: when a page is captured, run summary on its collection");
  const declined = replyOutcome({
    status: "declined",
    message: "Laika's settings can't do that. I can change the maximum capture length, the default collection, or the theme.",
    details: [],
    suggestions: ["Change the maximum capture length", "Change the default collection", "Change the theme"],
    can_change: [{ name: "settings.set_theme", description: "Set the side panel's theme." }],
    question: false,
  });
  assert.deepEqual(declined.canChange, [], "the message already names what can change");
  assert.equal(outcomeSentence(declined), "Laika's settings can't do that. I can change the maximum capture length, the default collection, or the theme.");
  const asked = replyOutcome({ status: "declined", message: "Which theme: dark, light, or the same as your system?", details: [], question: true });
  assert.equal(asked.question, true);
  assert.equal(asked.line, "Which theme: dark, light, or the same as your system?");
  assert.equal(proposalSentence({ tool: "settings.set_theme", summary: "Switch the theme to dark", arguments: { theme: "dark" } }), "Laika proposes: Switch the theme to dark. Approve or Deny it below.");
});

test("each status reads as its own sentence", () => {
  const change = { version: 3, commit: "ab", paths: ["ui.theme"] };
  const applied = replyOutcome({ status: "applied", message: "Changed ui.theme (settings.set_theme).", change, notes: ["the model's reply was not JSON; read by the offline matcher instead"] });
  assert.equal(outcomeSentence(applied), "Applied: Changed ui.theme (settings.set_theme).");
  assert.deepEqual(applied.paths, ["ui.theme"]);
  assert.deepEqual(applied.notes, ["the model's reply was not JSON; read by the offline matcher instead"]);
  assert.equal(outcomeSentence(replyOutcome({ status: "applied", message: "", change })), "Applied: changed ui.theme", "no message: the paths say what changed");
  const declined = replyOutcome({
    status: "declined",
    message: "Declined: no settings tool does that. What can be changed is listed below.",
    can_change: [{ name: "settings.set_theme", description: "Use a light, dark or the system theme." }, { name: "settings.show" }],
  });
  assert.deepEqual(declined.canChange, ["Use a light, dark or the system theme."], "an older host: its descriptions, never the ids");
  assert.equal(outcomeSentence(declined), "Declined: no settings tool does that. What can be changed is listed below. What can be changed: 1 entry below.");
  assert.equal(outcomeSentence(replyOutcome({ status: "failed", message: "the registry is locked" })), "Failed: the registry is locked");
  assert.equal(outcomeSentence(replyOutcome({ status: "denied" })), "Denied.");
  assert.equal(replyOutcome({ status: "toString" }).status, "failed", "a name inherited by every object is no status");
  assert.equal(proposalSentence({ tool: "settings.set_theme", arguments: { theme: "dark" } }), "Laika proposes settings.set_theme with theme dark. Approve or Deny it below.");
});

// --- lib/host.js: host events ------------------------------------------------------------------

class FakePort {
  constructor() {
    this.listeners = [];
    this.sent = [];
    this.onMessage = { addListener: (fn) => this.listeners.push(fn) };
    this.onDisconnect = { addListener: () => {} };
  }
  postMessage(frame) {
    this.sent.push(frame);
  }
  deliver(frame) {
    for (const fn of this.listeners) fn(structuredClone(frame));
  }
}

test("host events (id null) reach every host-event listener, never a request's onEvent", async () => {
  const port = new FakePort();
  const client = new HostClient({ connect: () => port });
  const seen = [];
  const streamed = [];
  client.onHostEvent(() => {
    throw new Error("a broken listener");
  });
  const stop = client.onHostEvent((frame) => seen.push(frame));
  const asked = client.request("chat.ask", {}, { onEvent: (frame) => streamed.push(frame) });
  const changed = { id: null, event: "config.changed", seq: 0, data: { version: 4, paths: ["ui.theme"] } };
  port.deliver(changed);
  port.deliver({ id: null, event: "state", data: { status: "connected" } });
  port.deliver({ id: port.sent[0].id, event: "delta", seq: 0, data: { text: "a" } });
  port.deliver({ id: port.sent[0].id, ok: true, result: {} });
  await asked;
  assert.deepEqual(seen, [changed], "the relay's state frame is state, not a host event");
  assert.deepEqual(streamed.map((frame) => frame.event), ["delta"]);
  assert.equal(client.state.status, "connected");
  assert.match(client.state.lastError, /host event handler failed: a broken listener/);
  stop();
  port.deliver(changed);
  assert.equal(seen.length, 1, "unsubscribed");
});

// --- the fake app the views talk to ------------------------------------------------------------

function fakeApp({ capabilities = ["settings.ask", "tool.decide", "config.get"], answers = {} } = {}) {
  const listeners = new Map();
  const app = {
    sent: [],
    emitted: [],
    toasts: [],
    host: { state: { status: "connected" } },
    has: (type) => capabilities.includes(type),
    on(name, fn) {
      if (!listeners.has(name)) listeners.set(name, []);
      listeners.get(name).push(fn);
    },
    emit(name, data) {
      app.emitted.push(name);
      for (const fn of listeners.get(name) ?? []) fn(data);
    },
    toast: (text, kind) => app.toasts.push([kind, text]),
    fail: (error) => app.toasts.push(["error", error.message]),
    request: (type, payload, options = {}) => {
      app.sent.push([type, payload]);
      const answer = answers[type];
      return typeof answer === "function" ? answer(payload, options) : Promise.resolve(answer);
    },
  };
  return app;
}

const HOSTILE = '<img src=x onerror="globalThis.pwned=1">';
const pendingTheme = {
  call_id: "s1",
  tool: "settings.set_theme",
  arguments: { theme: "dark", note: HOSTILE },
  decision: "ask",
  rule_id: "default.settings_write",
  reason: "settings changes ask",
  forced_ask: false,
  status: "pending",
  approval_id: "a1",
  forward: false,
  result: null,
  error: null,
};

function mountBox(app) {
  document.body.replaceChildren();
  const box = new SettingsBox(app);
  document.body.append(box.element);
  return box;
}

// --- the "Change a setting" box ----------------------------------------------------------------

test("a proposal shows as data with Approve/Deny, takes the keyboard, and the outcome follows", async () => {
  let finish;
  const app = fakeApp({
    answers: {
      "settings.ask": (payload, { onEvent }) =>
        new Promise((resolve) => {
          onEvent({ id: "p-1", event: "tool_call", seq: 0, data: pendingTheme });
          finish = resolve;
        }),
      "tool.decide": (payload) => Promise.resolve({ call: { ...pendingTheme, status: payload.decision === "approve" ? "executed" : "denied", approval_id: null } }),
    },
  });
  const box = mountBox(app);
  box.input.value = "  use dark theme ";
  box.input.focus();
  box.element.requestSubmit(); // what Enter in the text field does
  await settle();
  assert.deepEqual(app.sent, [["settings.ask", { text: "use dark theme" }]]);
  assert.equal(box.input.disabled, true, "one request at a time");
  assert.equal(box.send.disabled, true);
  assert.equal(box.element.getAttribute("aria-busy"), "true");
  assert.equal(document.querySelectorAll("img").length, 0, "arguments are text, never HTML");
  const card = box.calls.querySelector("li.tool-call");
  assert.equal(card.dataset.status, "pending");
  assert.deepEqual([...card.querySelectorAll("dt")].map((dt) => dt.textContent), ["note", "theme"]);
  assert.equal(document.activeElement, card.querySelector(".tool-approve"), "the next thing to do has the keyboard");
  assert.match(box.live.textContent, /proposes settings.set_theme with note .*theme dark/);
  box.element.requestSubmit(); // Enter again while it runs sends nothing
  card.querySelector(".tool-approve").click();
  await settle();
  assert.deepEqual(app.sent[1], ["tool.decide", { approval_id: "a1", decision: "approve", remember: "once" }]);
  assert.equal(card.dataset.status, "executed");
  finish({ status: "applied", tool: "settings.set_theme", arguments: { theme: "dark" }, message: "Changed ui.theme (settings.set_theme).", change: { version: 2, commit: "c0ffee", paths: ["ui.theme"] }, can_change: [] });
  await settle();
  assert.equal(box.outcome.hidden, false);
  assert.equal(box.outcome.dataset.status, "applied");
  assert.equal(box.outcome.textContent, "Applied: Changed ui.theme (settings.set_theme).");
  assert.equal(box.live.textContent, "Applied: Changed ui.theme (settings.set_theme).");
  assert.ok(box.calls.querySelector(".tool-call.compact"), "the card folds to a line");
  assert.equal(box.calls.querySelector("button"), null);
  assert.equal(box.input.disabled, false);
  assert.equal(box.input.value, "", "an applied sentence is done");
  assert.equal(document.activeElement, box.input, "the keyboard comes back to the text field");
  assert.equal(app.sent.length, 2);
});

test("an older host's decline lists what can be changed in words, never tool ids; the sentence stays to be edited", async () => {
  const can = [
    { name: "settings.set_theme", description: "Use a light, dark or the system theme." },
    { name: "policy.allow_domain", description: HOSTILE },
  ];
  const app = fakeApp({ answers: { "settings.ask": () => Promise.resolve({ status: "declined", tool: null, arguments: {}, message: "no tool disables the policy gate", change: null, can_change: can }) } });
  const box = mountBox(app);
  box.input.value = "disable the policy gate";
  await box.ask();
  assert.equal(box.outcome.dataset.status, "declined");
  const rows = [...box.outcome.querySelectorAll("#settings-can-change li")];
  assert.deepEqual(rows.map((li) => li.textContent), ["Use a light, dark or the system theme.", HOSTILE]);
  assert.equal(box.outcome.querySelector("code"), null);
  assert.ok(!box.outcome.textContent.includes("settings.set_theme"));
  assert.equal(document.querySelectorAll("img").length, 0);
  assert.equal(box.calls.hidden, true, "no proposal, no card");
  assert.equal(box.input.value, "disable the policy gate");
  assert.match(box.live.textContent, /What can be changed: 2 entries below\.$/);
});

test("a host's decline, question and settings read as its sentences, one line each", async () => {
  const replies = [
    { status: "declined", tool: null, arguments: null, message: "Laika's settings can't do that. I can change the maximum capture length, the default collection, or the theme.", change: null, can_change: [{ name: "settings.set_theme", description: "x" }], details: [], suggestions: ["Change the maximum capture length"], question: false },
    { status: "declined", tool: null, arguments: null, message: "Which theme: dark, light, or the same as your system?", change: null, can_change: [], details: [], suggestions: [], question: true },
    { status: "applied", tool: "settings.show", arguments: {}, message: "Your settings:", change: null, can_change: [], details: ["Captured pages keep at most 24,000 characters.", `Your preferences: note is ${HOSTILE}.`], suggestions: [], question: false },
  ];
  const app = fakeApp({ answers: { "settings.ask": () => Promise.resolve(replies.shift()) } });
  const box = mountBox(app);
  box.input.value = "set the font size to 18";
  await box.ask();
  assert.equal(box.outcome.textContent, "Laika's settings can't do that. I can change the maximum capture length, the default collection, or the theme.");
  assert.equal(box.outcome.querySelector("#settings-can-change"), null);
  await box.ask();
  assert.equal(box.outcome.dataset.question, "true");
  assert.equal(box.outcome.querySelector(".settings-outcome-line").textContent, "Which theme: dark, light, or the same as your system?");
  await box.ask();
  assert.equal(box.outcome.querySelector(".settings-outcome-line").textContent, "Your settings:");
  assert.deepEqual([...box.outcome.querySelectorAll("#settings-details li")].map((li) => li.textContent), ["Captured pages keep at most 24,000 characters.", `Your preferences: note is ${HOSTILE}.`]);
  assert.equal(document.querySelectorAll("img").length, 0, "lines are text, never HTML");
  assert.ok(!box.outcome.textContent.includes("{"), "no JSON");
});

test("a settings proposal's card leads with the host's words; the tool and arguments fold into Details", async () => {
  const app = fakeApp({
    answers: {
      "settings.ask": (payload, { onEvent }) => {
        onEvent({ id: "p-1", event: "tool_call", seq: 0, data: { ...pendingTheme, summary: "Switch the theme to dark" } });
        return new Promise(() => {});
      },
    },
  });
  const box = mountBox(app);
  box.input.value = "use dark theme";
  box.ask();
  await settle();
  const card = box.calls.querySelector("li.tool-call");
  assert.equal(card.querySelector(".tool-head .tool-summary").textContent, "Switch the theme to dark");
  assert.equal(card.querySelector(".tool-head code"), null, "no tool id up front");
  assert.equal(card.querySelector("details.tool-more code.tool-name").textContent, "settings.set_theme");
  assert.equal(box.live.textContent, "Laika proposes: Switch the theme to dark. Approve or Deny it below.");
});

test("a failed request names the host's error; an older host is told to update and nothing is sent", async () => {
  const error = Object.assign(new Error("the registry is damaged: config/registry.json line 3"), { code: "bad_request" });
  const app = fakeApp({ answers: { "settings.ask": () => Promise.reject(error) } });
  const box = mountBox(app);
  box.input.value = "use dark theme";
  await box.ask();
  assert.equal(box.outcome.dataset.status, "failed");
  assert.equal(box.outcome.textContent, "Failed: the registry is damaged: config/registry.json line 3");
  assert.equal(box.input.disabled, false);

  const old = fakeApp({ capabilities: [] });
  const oldBox = mountBox(old);
  oldBox.input.value = "use dark theme";
  await oldBox.ask();
  assert.deepEqual(old.sent, []);
  assert.match(oldBox.outcome.textContent, /update it \(pip install -U laika-host\)/);
  const empty = mountBox(fakeApp());
  await empty.ask();
  assert.equal(empty.outcome.hidden, true, "an empty sentence sends nothing");
});

test("a policy change reloads the remembered tool rules in Settings", async () => {
  const app = fakeApp({ answers: { "settings.ask": () => Promise.resolve({ status: "applied", tool: "policy.forget_decision", arguments: { rule_id: "r1" }, message: "forgot r1", change: null }) } });
  const box = mountBox(app);
  box.input.value = "forget decision r1";
  await box.ask();
  assert.deepEqual(app.emitted, ["tool-rules"]);
});

// --- ui_live.js --------------------------------------------------------------------------------

test("ui.* applies on connect and on a config.changed touching ui; the newest version wins", async () => {
  const reads = [];
  const app = fakeApp({ answers: { "config.get": () => new Promise((resolve) => reads.push(resolve)) } });
  const root = document.createElement("html");
  mountUi(app, root);
  assert.equal(root.dataset.theme, "light", "system, and jsdom's system is light");
  assert.equal(root.dataset.citations, "shown");
  app.emit("connected");
  assert.deepEqual(app.sent, [["config.get", { path: "ui" }]]);
  reads[0]({ path: "ui", value: { theme: "dark", show_citations: false }, version: 3 });
  await settle();
  assert.equal(root.dataset.theme, "dark");
  assert.equal(root.dataset.citations, "hidden");
  app.emit("config.changed", { version: 4, paths: ["providers.default"] });
  assert.equal(app.sent.length, 1, "a change elsewhere reads nothing");
  app.emit("config.changed", { version: 5, paths: ["ui.theme"] });
  app.emit("config.changed", { version: 6, paths: ["ui"] });
  assert.equal(app.sent.length, 3);
  reads[2]({ path: "ui", value: { theme: "light", show_citations: true }, version: 6 });
  await settle();
  reads[1]({ path: "ui", value: { theme: "dark", show_citations: true }, version: 5 });
  await settle();
  assert.equal(root.dataset.theme, "light", "an older read answering last is ignored");
  app.emit("config.changed", { version: 7, paths: [] });
  reads[3]({ path: "ui", value: { theme: "dark", show_citations: true }, version: 7 });
  await settle();
  const reopened = document.createElement("html");
  mountUi(fakeApp({ capabilities: [] }), reopened);
  assert.equal(reopened.dataset.theme, "dark", "the next panel opens in the last theme seen");
});
