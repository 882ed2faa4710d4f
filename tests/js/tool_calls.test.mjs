// extension/sidepanel/tool_display.js and tool_calls.js: what a tool call card says, that it is
// built from text nodes only, that Approve/Deny send tool.decide, and that a forwarded call runs
// once and its outcome goes back as tool.result.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JSDOM } from "jsdom";

import { argumentRows, isNewer, outcomeText, ruleText, valueText } from "../../extension/sidepanel/tool_display.js";

const window = new JSDOM("<!doctype html><body></body>").window;
globalThis.document = window.document;
globalThis.Node = window.Node;
const { ToolCalls } = await import("../../extension/sidepanel/tool_calls.js");

const STATUSES = ["pending", "approved", "denied", "running", "forward", "executed", "failed"];

test("argument rows: every key once, sorted; long values keep a bounded preview and the full text", () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })), fc.integer({ min: 1, max: 200 }), (args, preview) => {
      const rows = argumentRows(args, preview);
      assert.deepEqual(rows.map((row) => row.key), Object.keys(args).sort());
      for (const row of rows) {
        assert.equal(row.full, valueText(args[row.key]));
        assert.equal(row.truncated, row.full.length > preview);
        assert.equal(row.short, row.truncated ? `${row.full.slice(0, preview)}…` : row.full);
      }
    }),
  );
  assert.deepEqual(argumentRows(null), []);
  assert.deepEqual(argumentRows(["x"]), []);
});

test("a card never moves backwards: a late event of an earlier status is ignored", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 8 }), (sequence) => {
      let shown = null;
      for (const status of sequence) if (isNewer(shown, { status })) shown = { status };
      const rank = (s) => ["pending", "approved", "running", "executed"].indexOf(s.replace("forward", "running").replace("denied", "executed").replace("failed", "executed"));
      assert.equal(rank(shown.status), Math.max(...sequence.map(rank)));
    }),
  );
});

test("outcomes and rules read as sentences", () => {
  assert.equal(outcomeText({ status: "failed", error: "stale or unknown handle: observe the page again" }), "failed: stale or unknown handle: observe the page again");
  assert.equal(outcomeText({ status: "executed", result: { ok: true, url: "https://a.example/", title: "A" } }), "done: A — https://a.example/");
  assert.equal(outcomeText({ status: "executed", result: { handles: [{}, {}], text: "abc" } }), "done: 2 elements, 3 characters of text");
  assert.equal(outcomeText({ status: "denied", error: "no answer" }), "denied: no answer");
  assert.ok(outcomeText({ status: "executed", result: "x".repeat(5000) }).length <= 200);
  assert.equal(ruleText({ rule_id: "default.browser_act", decision: "ask", forced_ask: true }), "rule default.browser_act · decision ask · asked because untrusted page content is in the conversation");
});

function fakeApp(answers = {}) {
  const sent = [];
  const events = [];
  return {
    sent,
    events,
    emit: (name) => events.push(name),
    fail: (error) => events.push(`fail: ${error.message}`),
    request: async (type, payload) => {
      sent.push([type, payload]);
      const answer = answers[type];
      return typeof answer === "function" ? answer(payload) : answer;
    },
  };
}

const pendingClick = {
  call_id: "c1",
  tool: "browser.click",
  arguments: { handleId: "h3", note: "<img src=x onerror=alert(1)>".repeat(10) },
  decision: "ask",
  rule_id: "default.browser_act",
  reason: "browser actions ask",
  forced_ask: false,
  status: "pending",
  approval_id: "a1",
  forward: false,
  result: null,
  error: null,
};

test("a pending call shows its arguments as text, Approve/Deny send tool.decide with the remember choice", async () => {
  const app = fakeApp({ "tool.decide": (p) => ({ call: { ...pendingClick, status: p.decision === "approve" ? "approved" : "denied", approval_id: null } }) });
  const list = document.createElement("ul");
  const spoken = [];
  const calls = new ToolCalls(app, list, (text) => spoken.push(text));
  calls.update(pendingClick);
  const card = list.querySelector("li.tool-call");
  assert.equal(card.dataset.status, "pending");
  assert.equal(list.querySelectorAll("img").length, 0, "argument text is never parsed as HTML");
  assert.deepEqual([...card.querySelectorAll("dt")].map((dt) => dt.textContent), ["handleId", "note"]);
  assert.ok(card.querySelector("dd details"), "the long value folds behind an expander");
  assert.equal(card.querySelector("dd details .full").textContent, pendingClick.arguments.note);
  assert.match(spoken[0], /asks to run browser.click: browser actions ask/);
  card.querySelector("select.tool-remember").value = "session";
  card.querySelector("button.tool-approve").click();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(app.sent, [["tool.decide", { approval_id: "a1", decision: "approve", remember: "session" }]]);
  assert.equal(card.dataset.status, "approved");
  assert.equal(card.querySelector("button"), null, "no buttons once decided");
  assert.deepEqual(app.events, ["tool-rules"], "Settings reloads the remembered rules");
  calls.update({ ...pendingClick }); // a late pending event does not bring the buttons back
  assert.equal(card.querySelector("button"), null);
  assert.equal(spoken.length, 1);
});

test("a forwarded call runs once in the page and its outcome goes back as tool.result", async () => {
  const app = fakeApp({
    "ext.run_tool": { ok: false, error: "refused: browser.type on a credential field", tabId: 7 },
    "tool.result": { recorded: true },
  });
  const calls = new ToolCalls(app, document.createElement("ul"), () => {});
  const forwarded = { ...pendingClick, call_id: "c2", tool: "browser.type", arguments: { handleId: "h2", text: "x" }, status: "forward", forward: true, approval_id: null };
  calls.update(forwarded);
  calls.update(forwarded);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(app.sent, [
    ["ext.run_tool", { call_id: "c2", tool: "browser.type", arguments: { handleId: "h2", text: "x" }, tabId: null }],
    ["tool.result", { call_id: "c2", ok: false, result: null, error: "refused: browser.type on a credential field" }],
  ]);
  assert.equal(calls.tabId, 7, "the chat's tab is pinned for the next call");
  calls.settle([{ ...forwarded, status: "failed", error: "refused", forward: false }]);
  assert.equal(app.sent.length, 2, "settling runs nothing");
});

test("an approval's reply that says forward runs nothing: only the chat's stream starts the run", async () => {
  const forwardedCall = { ...pendingClick, status: "forward", forward: true, approval_id: null };
  const app = fakeApp({ "tool.decide": { call: forwardedCall }, "ext.run_tool": { ok: true, result: { ok: true }, tabId: 1 }, "tool.result": { recorded: true } });
  const calls = new ToolCalls(app, document.createElement("ul"), () => {});
  calls.update(pendingClick);
  calls.list.querySelector("button.tool-approve").click();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(app.sent.map(([type]) => type), ["tool.decide"], "the host may not wait for the result yet");
  calls.update(forwardedCall); // the chat.ask stream: now the host waits
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(app.sent.map(([type]) => type), ["tool.decide", "ext.run_tool", "tool.result"]);
});
