// extension/lib/browser_tools.js: the page-side tool function, run the way executeScript runs
// it (its source evaluated in a page: here a jsdom window), over random pages; the field
// classifier (tests/test_field_kinds_agree.py checks it against the host's on random fields).

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JSDOM } from "jsdom";

import { fieldKind, pageTool } from "../../extension/lib/browser_tools.js";

/** A page with pageTool injected from its source only, as scripting.executeScript does. */
function page(html) {
  const dom = new JSDOM(`<!doctype html><html><head><title>Test page</title></head><body>${html}</body></html>`, {
    runScripts: "outside-only",
    url: "https://page.example/form",
  });
  const injected = dom.window.eval(`(${pageTool.toString()})`);
  // the reply crosses into the extension as a copy, as executeScript's results do
  const run = (request) => JSON.parse(JSON.stringify(injected(request)));
  return { window: dom.window, document: dom.window.document, run };
}

const ok = (reply) => {
  assert.equal(reply.ok, true, reply.error);
  return reply.result;
};

test("the classifier: the strongest signal wins, words are compared whole", () => {
  const cases = [
    [{ type: "password", name: "q" }, "credential"],
    [{ type: " PASSWORD " }, "credential"],
    [{ autocomplete: "section-a current-password" }, "credential"],
    [{ autocomplete: "one-time-code" }, "credential"],
    [{ autocomplete: "cc-number", name: "x" }, "payment"],
    [{ autocomplete: "transaction-amount" }, "payment"],
    [{ autocomplete: "bday" }, "identity"],
    [{ name: "userPassword" }, "credential"],
    [{ name: "cc_cardNumber_1" }, "payment"],
    [{ label: "CVV" }, "payment"],
    [{ label: "Social security number" }, "identity"],
    [{ name: "passportNo" }, "identity"],
    [{ label: "Date of birth" }, "other"], // words: date, of, birth; joined "dateofbirth" -> identity below
    [{ name: "spinner" }, "other"],
    [{ name: "q", label: "Search" }, "other"],
    [{}, "other"],
  ];
  cases[12][1] = "identity"; // "dateofbirth" is found inside the joined label
  for (const [field, kind] of cases) assert.equal(fieldKind(field), kind, JSON.stringify(field));
});

test("the classifier is bounded and total: any strings, any length, one of four kinds", () => {
  fc.assert(
    fc.property(fc.record({ type: fc.string(), autocomplete: fc.string(), name: fc.string(), label: fc.string() }, { requiredKeys: [] }), (field) => {
      assert.ok(["credential", "payment", "identity", "other"].includes(fieldKind(field)));
    }),
  );
  const huge = "a".repeat(2_000_000) + " password";
  const started = performance.now();
  assert.equal(fieldKind({ name: huge, label: huge, autocomplete: huge, type: huge }), "other", "only the first 200 characters count");
  assert.ok(performance.now() - started < 2000);
});

test("observe numbers the interactive elements only, with bounded fields and no typed values", () => {
  const { run, document } = page(`
    <p>Intro text</p><a href="/next">Next page</a><a>no href</a>
    <label for="who">Your name</label><input id="who" name="who" value="typed secret">
    <button id="inc">Add one</button><input type="hidden" name="token" value="x">
    <select name="size"><option value="s">Small</option><option value="l" selected>Large</option></select>
    <div role="button" aria-label="Menu">☰</div><div contenteditable="true">Notes</div><span>plain</span>`);
  const seen = ok(run({ op: "observe" }));
  assert.equal(seen.url, "https://page.example/form");
  assert.equal(seen.title, "Test page");
  assert.match(seen.text, /Intro text/);
  assert.deepEqual(
    seen.handles.map((handle) => [handle.id, handle.tag, handle.role]),
    [
      ["h1", "a", "link"],
      ["h2", "input", "textbox"],
      ["h3", "button", "button"],
      ["h4", "select", "combobox"],
      ["h5", "div", "button"],
      ["h6", "div", "textbox"],
    ],
  );
  const input = seen.handles[1];
  assert.equal(input.label, "Your name");
  assert.equal(input.name, "who");
  assert.equal(input.text, "", "a field's value never leaves the page");
  assert.equal(seen.handles[3].text, "Large");
  assert.ok(!JSON.stringify(seen).includes("typed secret"));
  assert.match(seen.observation_id, /^o/);
  assert.equal(document.querySelectorAll("input")[0].value, "typed secret", "observing changes nothing");
});

test("click, type and select act on the latest observation's handles only", () => {
  const { run, document, window } = page(`
    <button id="inc" onclick="">Add one</button><input id="q" name="q">
    <select id="s" name="size"><option value="s">Small</option><option value="l">Large</option></select>`);
  let clicks = 0;
  document.getElementById("inc").addEventListener("click", () => clicks++);
  let inputs = 0;
  document.getElementById("q").addEventListener("input", () => inputs++);
  const first = ok(run({ op: "observe" }));
  assert.deepEqual(ok(run({ op: "click", handleId: "h1", observationId: first.observation_id })), {
    ok: true,
    url: "https://page.example/form",
    title: "Test page",
  });
  assert.equal(clicks, 1);
  ok(run({ op: "type", handleId: "h2", text: "hello" }));
  assert.equal(document.getElementById("q").value, "hello");
  assert.equal(inputs, 1, "the page hears an input event");
  ok(run({ op: "select", handleId: "h3", value: "Large" }));
  assert.equal(document.getElementById("s").value, "l");
  const missing = run({ op: "select", handleId: "h3", value: "Huge" });
  assert.match(missing.error, /no option "Huge"; the options are "s", "l"/);

  const second = ok(run({ op: "observe", firstHandle: 4 }));
  assert.deepEqual(second.handles.map((handle) => handle.id), ["h4", "h5", "h6"], "ids never repeat in a tab");
  for (const stale of [{ handleId: "h1" }, { handleId: "h4", observationId: first.observation_id }, { handleId: "h99" }]) {
    assert.equal(run({ op: "click", ...stale }).error, "stale or unknown handle: observe the page again");
  }
  document.getElementById("inc").remove();
  assert.match(run({ op: "click", handleId: "h4" }).error, /stale or unknown handle/, "an element gone from the page");
  assert.equal(clicks, 1);
  assert.equal(window.__laikaTools.latest.id, second.observation_id);
});

test("sensitive fields are refused on the page, also when they change after the observation", () => {
  const { run, document } = page(`
    <input id="pw" type="password" name="pw"><label>Card number <input id="card" name="n1"></label>
    <input id="ok" name="city"><input id="later" name="city2">`);
  ok(run({ op: "observe" }));
  for (const [handleId, kind] of [["h1", "credential"], ["h2", "payment"]]) {
    for (const op of ["click", "type"]) {
      const reply = run({ op, handleId, text: "4111 1111" });
      assert.equal(reply.ok, false);
      assert.match(reply.error, new RegExp(`refused: browser\\.${op} on a ${kind} field`));
    }
  }
  document.getElementById("later").setAttribute("autocomplete", "cc-csc"); // the page changed it
  assert.match(run({ op: "type", handleId: "h4", text: "123" }).error, /on a payment field/);
  assert.equal(document.getElementById("pw").value, "");
  assert.equal(document.getElementById("card").value, "");
  assert.equal(document.getElementById("later").value, "");
  ok(run({ op: "type", handleId: "h3", text: "Oslo" }));
  assert.equal(document.getElementById("ok").value, "Oslo");
});

// --- random pages: whatever the page holds, the observation is bounded -----------------------

const text = fc.string({ maxLength: 40 }).map((s) => s.replace(/[<>&"]/g, " "));
const element = fc.oneof(
  text.map((t) => `<p>${t}</p>`),
  text.map((t) => `<a href="/x">${t}</a>`),
  text.map((t) => `<button>${t}</button>`),
  fc.tuple(fc.constantFrom("text", "password", "email", "checkbox", "hidden"), text).map(([type, t]) => `<input type="${type}" name="${t}" aria-label="${t}">`),
  text.map((t) => `<textarea name="n">${t}</textarea>`),
  text.map((t) => `<div role="tab">${t.repeat(50)}</div>`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `<p>${"long words ".repeat(n)}</p>`),
  fc.integer({ min: 1, max: 800 }).map((n) => `<p>${"語".repeat(n * 30)}</p>`),
);

test("any page: handles are interactive, within maxElements and the caps, the JSON within 60 KB", () => {
  fc.assert(
    fc.property(
      fc.array(element, { maxLength: 60 }),
      fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
      fc.option(fc.integer({ min: 1, max: 50000 }), { nil: undefined }),
      (parts, maxElements, maxChars) => {
        const { run, document } = page(parts.join(""));
        const seen = ok(run({ op: "observe", maxElements, maxChars }));
        const interactive = document.querySelectorAll("a[href], button, input:not([type=hidden]), textarea, [role=tab]").length;
        assert.ok(seen.handles.length <= Math.min(maxElements ?? 40, 150, interactive));
        if (!seen.truncated) assert.equal(seen.handles.length, Math.min(maxElements ?? 40, 150, interactive));
        assert.ok(seen.text.length <= Math.min(maxChars ?? 2000, 20000));
        assert.ok(new TextEncoder().encode(JSON.stringify(seen)).length <= 60000);
        for (const handle of seen.handles) {
          assert.ok(handle.text.length <= 80 && handle.label.length <= 120 && handle.name.length <= 80);
          assert.notEqual(handle.type, "hidden");
        }
        assert.equal(new Set(seen.handles.map((h) => h.id)).size, seen.handles.length);
      },
    ),
    { numRuns: 60 },
  );
});
