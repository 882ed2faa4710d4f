// Every payload the extension sends to the host holds to the host's schema (schema/native,
// generated from the host's models): the host refuses a key it does not define, so a capture
// field the schema lacks (`lang`, `canonical_url` on page.summarize) failed "Ask about this
// page" on nearly every real page, and no test saw it.
//
// 1. Every `request("type", payload)` call in extension/ is found with a JavaScript parser; its
//    type must be one the host handles (or one of the background's own `ext.*` requests) and
//    its payload's keys must be ones the type's schema defines, with every required one there.
// 2. The payloads built from a capture (savePagePayload, askPagePayload) are validated whole
//    against the schema files, with serializePage run on real pages of the capture-dev corpus.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

import { parse } from "acorn";
import Ajv2020 from "ajv/dist/2020.js";
import { JSDOM, VirtualConsole } from "jsdom";

import { askPagePayload, savePagePayload, serializePage } from "../../extension/lib/capture.js";
import { REPO } from "./support.mjs";

const SCHEMAS = join(REPO, "schema", "native");
const EXTENSION = join(REPO, "extension");

// --- the schema files ------------------------------------------------------------------

function loadSchemas() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const payloads = new Map();
  const folder = join(SCHEMAS, "types");
  for (const name of readdirSync(folder).sort()) {
    const match = /^(.+)\.payload\.schema\.json$/.exec(name);
    if (!match) continue;
    const schema = JSON.parse(readFileSync(join(folder, name), "utf-8"));
    payloads.set(match[1], { schema, validate: ajv.compile(schema) });
  }
  return payloads;
}

const PAYLOADS = loadSchemas();

function problems(type, payload) {
  const entry = PAYLOADS.get(type);
  if (!entry) return [`the host has no message type ${type}`];
  if (entry.validate(payload)) return [];
  return entry.validate.errors.map((error) => {
    const where = `payload${error.instancePath.replaceAll("/", ".")}`;
    const extra = error.params?.additionalProperty ? ` '${error.params.additionalProperty}'` : "";
    return `${where}: ${error.message}${extra}`;
  });
}

test("the schema files load, and every type the host handles has a payload schema", () => {
  assert.ok(PAYLOADS.size > 40, `only ${PAYLOADS.size} payload schemas in ${SCHEMAS}`);
  for (const type of ["sources.save_page", "page.summarize", "chat.ask", "transform.run"]) {
    assert.ok(PAYLOADS.has(type), type);
  }
  // the check itself: an unknown key and a broken value are refused, as the host refuses them
  const page = { url: "https://news.test/a", html: "<p>x</p>" };
  assert.deepEqual(problems("page.summarize", page), []);
  assert.match(problems("page.summarize", { ...page, colour: "red" }).join(), /additional properties 'colour'/);
  assert.match(problems("sources.save_page", { ...page, lang: "lang=" }).join(), /payload\.lang/);
});

// --- 1. every request the extension's code makes ---------------------------------------

function jsFiles(folder) {
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...jsFiles(path));
    else if (entry.name.endsWith(".js")) found.push(path);
  }
  return found.sort();
}

/** Every node of the tree, each with `.parent` set. */
function nodesOf(tree) {
  const all = [];
  const stack = [[tree, null]];
  while (stack.length) {
    const [node, parent] = stack.pop();
    node.parent = parent;
    all.push(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === "parent") continue;
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child.type === "string") stack.push([child, node]);
      }
    }
  }
  return all.sort((a, b) => a.start - b.start || b.end - a.end); // in source order
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** The payload builders of lib/capture.js: their output is validated whole in part 2. */
const BUILDERS = { savePagePayload: "sources.save_page", askPagePayload: "page.summarize" };

/** Requests whose type is a variable: they pass on a request made elsewhere (and checked
 * there), or are the automation API's (tests call it with literal payloads). */
const FORWARDERS = new Set([
  "extension/background.js: host.request(type, payload, { ...options, onEvent })",
  "extension/background.js: request(frame.type, forwarded, onEvent, { id: prefix + frame.id })",
  "extension/background.js: request(type, payload, onEvent)",
  "extension/sidepanel/panel.js: host.request(type, payload, options)",
]);

class File {
  constructor(path) {
    this.path = path;
    this.name = relative(REPO, path);
    this.source = readFileSync(path, "utf-8");
    const tree = parse(this.source, { ecmaVersion: "latest", sourceType: "module", locations: true });
    this.nodes = nodesOf(tree);
  }

  text(node) {
    return this.source.slice(node.start, node.end);
  }

  where(node) {
    return `${this.name}:${node.loc.start.line}`;
  }

  /** The keys an expression's object can hold: {keys, complete, built}. `complete` is false
   * when some key cannot be known from the code; `built` names a payload builder. */
  keysOf(node, seen = new Set()) {
    if (!node) return { keys: new Set(), complete: true };
    switch (node.type) {
      case "ObjectExpression": {
        const keys = new Set();
        let complete = true;
        for (const property of node.properties) {
          if (property.type === "SpreadElement") {
            const spread = this.keysOf(property.argument, seen);
            for (const key of spread.keys) keys.add(key);
            complete &&= spread.complete && !spread.built;
          } else if (property.computed) complete = false;
          else keys.add(property.key.type === "Identifier" ? property.key.name : String(property.key.value));
        }
        return { keys, complete };
      }
      case "ConditionalExpression":
      case "LogicalExpression": {
        const sides = node.type === "ConditionalExpression" ? [node.consequent, node.alternate] : [node.left, node.right];
        const [a, b] = sides.map((side) => this.keysOf(side, seen));
        return { keys: new Set([...a.keys, ...b.keys]), complete: a.complete && b.complete && !a.built && !b.built };
      }
      case "Identifier":
        return this.variableKeys(node, seen);
      case "CallExpression":
        return this.returnedKeys(node, seen);
      default:
        return { keys: new Set(), complete: false };
    }
  }

  /** A local variable's object: its initializer plus every `name.key = ...` in its function. */
  variableKeys(identifier, seen) {
    const name = identifier.name;
    for (let scope = identifier.parent; scope; scope = scope.parent) {
      if (!FUNCTIONS.has(scope.type)) continue;
      const inside = this.nodes.filter((node) => node.start >= scope.start && node.end <= scope.end);
      const declared = inside.find((node) => node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.id.name === name);
      if (!declared) continue;
      if (seen.has(declared)) return { keys: new Set(), complete: false };
      seen.add(declared);
      const found = this.keysOf(declared.init, seen);
      const keys = new Set(found.keys);
      let complete = found.complete;
      for (const node of inside) {
        if (node.type !== "AssignmentExpression" || node.left.type !== "MemberExpression") continue;
        if (node.left.object.type !== "Identifier" || node.left.object.name !== name) continue;
        if (node.left.computed) complete = false;
        else keys.add(node.left.property.name);
      }
      return { ...found, keys, complete };
    }
    return { keys: new Set(), complete: false };
  }

  /** A call's object: a payload builder (checked whole elsewhere), or a function or method of
   * this file whose every `return` gives an object. */
  returnedKeys(call, seen) {
    const callee = call.callee;
    const name = callee.type === "Identifier" ? callee.name : callee.type === "MemberExpression" && !callee.computed ? callee.property.name : null;
    if (name in BUILDERS) return { keys: new Set(), complete: true, built: name };
    const definition = this.nodes.find(
      (node) =>
        (node.type === "MethodDefinition" && node.key.name === name) ||
        (node.type === "FunctionDeclaration" && node.id?.name === name),
    );
    if (!name || !definition || seen.has(definition)) return { keys: new Set(), complete: false };
    seen.add(definition);
    const body = definition.type === "MethodDefinition" ? definition.value : definition;
    const returns = this.nodes.filter(
      (node) => node.type === "ReturnStatement" && node.start >= body.start && node.end <= body.end && enclosingFunction(node) === body,
    );
    const keys = new Set();
    let complete = returns.length > 0;
    for (const statement of returns) {
      const found = this.keysOf(statement.argument, seen);
      for (const key of found.keys) keys.add(key);
      complete &&= found.complete && !found.built;
    }
    return { keys, complete };
  }

  /** Every `request(...)` / `x.request(...)` call: [{node, type (null: not a literal), payload}]. */
  requests() {
    return this.nodes
      .filter((node) => node.type === "CallExpression")
      .filter(({ callee }) =>
        (callee.type === "Identifier" && callee.name === "request") ||
        (callee.type === "MemberExpression" && !callee.computed && callee.property.name === "request"))
      .map((node) => {
        const [type, payload] = node.arguments;
        const literal = type?.type === "Literal" && typeof type.value === "string";
        return { node, type: literal ? type.value : null, payload };
      });
  }
}

function enclosingFunction(node) {
  for (let up = node.parent; up; up = up.parent) if (FUNCTIONS.has(up.type)) return up;
  return null;
}

/** The background's own requests (`ext.*`), the keys of its LOCAL table. */
function localTypes(background) {
  const table = background.nodes.find(
    (node) => node.type === "VariableDeclarator" && node.id.name === "LOCAL" && node.init?.type === "ObjectExpression",
  );
  assert.ok(table, "no LOCAL table of ext.* requests in background.js");
  return new Set(table.init.properties.map((property) => property.key.value ?? property.key.name));
}

const FILES = jsFiles(EXTENSION).map((path) => new File(path));

test("every request the extension makes names a type the host handles, with keys its schema defines", (t) => {
  const local = localTypes(FILES.find((file) => file.name === "extension/background.js"));
  const failures = [];
  let checked = 0;
  const built = new Map();
  for (const file of FILES) {
    for (const { node, type, payload } of file.requests()) {
      const site = `${file.where(node)}: ${file.text(node).split("\n")[0].slice(0, 120)}`;
      if (type === null) {
        if (!FORWARDERS.has(`${file.name}: ${file.text(node)}`)) {
          failures.push(`${site}: the type is not a literal, so its payload cannot be checked`);
        }
        continue;
      }
      if (type.startsWith("ext.")) {
        if (!local.has(type)) failures.push(`${site}: the background has no ${type}`);
        continue;
      }
      const entry = PAYLOADS.get(type);
      if (!entry) {
        failures.push(`${site}: the host has no message type ${type}`);
        continue;
      }
      checked += 1;
      const found = file.keysOf(payload);
      if (found.built) {
        built.set(found.built, type);
        if (BUILDERS[found.built] !== type) failures.push(`${site}: ${found.built} builds ${BUILDERS[found.built]}, not ${type}`);
        continue;
      }
      if (!found.complete) {
        failures.push(`${site}: its payload's keys cannot be read from the code: build it as an object literal`);
        continue;
      }
      const defined = Object.keys(entry.schema.properties ?? {});
      for (const key of found.keys) {
        if (!defined.includes(key)) failures.push(`${site}: ${type} has no key '${key}' (it takes ${defined.join(", ") || "none"})`);
      }
      for (const key of entry.schema.required ?? []) {
        if (!found.keys.has(key)) failures.push(`${site}: ${type} needs '${key}'`);
      }
      t.diagnostic(`${site.split(": ")[0]} ${type} {${[...found.keys].join(", ")}}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(checked >= 40, `only ${checked} requests found: is the finder still reading the code?`);
  assert.deepEqual(Object.fromEntries(built), BUILDERS, "each payload builder is used for its type");
});

test("the finder reads what a payload can hold: literals, spreads, later keys, helpers", () => {
  const path = join(REPO, "extension", "background.js");
  const file = Object.assign(Object.create(File.prototype), { path, name: "sample.js" });
  file.source = `
    function helper() { return flag ? { provider } : {}; }
    function one() { const payload = { a: 1, ...helper() }; if (x) payload.b = 2; request("t", payload); }
    function two(p) { request("t", p); request("t", { [k]: 1 }); request("t", savePagePayload(page)); }`;
  file.nodes = nodesOf(parse(file.source, { ecmaVersion: "latest", sourceType: "module", locations: true }));
  const [one, param, computed, builder] = file.requests().map(({ payload }) => file.keysOf(payload));
  assert.deepEqual([...one.keys].sort(), ["a", "b", "provider"]);
  assert.equal(one.complete, true);
  assert.equal(param.complete, false);
  assert.equal(computed.complete, false);
  assert.equal(builder.built, "savePagePayload");
});

// --- 2. the payloads built from real captures ------------------------------------------

function corpusFolder() {
  const folder = process.env.LAIKA_CAPTURE_DEV || join(REPO, "..", "shared", "corpora", "capture-dev");
  return existsSync(join(folder, "expectations.json")) ? folder : null;
}

/** The raw `lang` of a page's <html> tag (what a browser's parser starts from), or null. */
function rawLang(bytes) {
  const head = bytes.subarray(0, 8192).toString("latin1");
  const tag = /<html\b[^>]*>/i.exec(head)?.[0] ?? "";
  const match = /\slang\s*=\s*["']?([^"'\s>]*)/i.exec(tag);
  return match ? match[1] : null;
}

/** One page of each distinct raw `lang` value (and one without), the first by name: the
 * values a real capture sends vary most there. jsdom parses a page in ~0.5 s here, so not all
 * 602; tests/test_realpage_e2e.py sends real Chromium and Firefox captures of 40 more. */
function corpusSample(folder) {
  const expectations = JSON.parse(readFileSync(join(folder, "expectations.json"), "utf-8"));
  const chosen = new Map();
  for (const name of Object.keys(expectations).sort()) {
    const bytes = readFileSync(join(folder, "html", name));
    const lang = rawLang(bytes);
    if (!chosen.has(lang)) chosen.set(lang, { name, bytes, key: expectations[name].source_key });
  }
  return [...chosen.values()];
}

/** The computed style serializePage reads, as a visible block (jsdom computes styles about
 * 100x slower than a browser; the fields checked here do not depend on them). */
const PLAIN_STYLE = `window.getComputedStyle = () => ({
  display: "block", opacity: "1", visibility: "visible", fontSize: "16px", color: "rgb(0, 0, 0)",
  backgroundImage: "none", backgroundColor: "rgba(0, 0, 0, 0)", transform: "none", scale: "none",
  contentVisibility: "visible", overflowX: "visible", overflowY: "visible", animationName: "none",
  transitionProperty: "all", transitionDuration: "0s", getPropertyValue: () => "" });`;

function capture(bytes, url, mode) {
  const dom = new JSDOM(bytes, { url, runScripts: "outside-only", virtualConsole: new VirtualConsole() });
  try {
    dom.window.eval(PLAIN_STYLE);
    if (mode === "selection") {
      const paragraph = [...dom.window.document.querySelectorAll("p")].find((p) => p.textContent.trim().length > 40);
      if (paragraph) dom.window.getSelection().selectAllChildren(paragraph);
    }
    return dom.window.eval(`(${serializePage})(${JSON.stringify({ mode })})`);
  } finally {
    dom.window.close();
  }
}

test("the payloads built from real captures of corpus pages hold to the host's schema", (t) => {
  const folder = corpusFolder();
  if (!folder) return t.skip("no capture-dev corpus: put shared/corpora/capture-dev beside the repo or set LAIKA_CAPTURE_DEV");
  const failures = [];
  const seen = { lang: 0, canonical: 0, selection: 0 };
  const sample = corpusSample(folder);
  for (const { name, bytes, key } of sample) {
    const url = /^https?:\/\//.test(key) ? key : `http://capture-dev.test/${encodeURIComponent(name)}`;
    for (const mode of ["auto", "selection"]) {
      const page = capture(bytes, url, mode);
      seen.lang += mode === "auto" && page.lang ? 1 : 0;
      seen.canonical += mode === "auto" && page.canonical_url ? 1 : 0;
      seen.selection += page.selection_html ? 1 : 0;
      const sent = [
        ["sources.save_page", savePagePayload(page, "Inbox")],
        ["page.summarize", askPagePayload(page, { collection: "Inbox" })],
        ["page.summarize", askPagePayload(page, { collection: "Reading", provider: "offline", question: "  What does it say?  " })],
      ];
      for (const [type, payload] of sent) {
        for (const problem of problems(type, payload)) failures.push(`${name} (${mode}) ${type}: ${problem}`);
      }
    }
  }
  t.diagnostic(`${sample.length} pages: ${seen.lang} with lang, ${seen.canonical} with a canonical URL, ${seen.selection} selections`);
  assert.deepEqual(failures, []);
  assert.ok(sample.length >= 30, `only ${sample.length} pages sampled`);
  assert.ok(seen.lang >= 25 && seen.canonical >= 15 && seen.selection >= 20, JSON.stringify(seen));
});

test("askPagePayload: the typed question trimmed (blank: none), the default mode left out", () => {
  const page = { url: "https://news.test/a", html: "<p>x</p>", title: "A", lang: "en", canonical_url: null, selection_html: null, mode: "auto" };
  assert.deepEqual(askPagePayload(page, { collection: "Inbox", question: "  Why?  " }), {
    url: "https://news.test/a", html: "<p>x</p>", collection: "Inbox", title: "A", lang: "en", question: "Why?",
  });
  assert.equal("question" in askPagePayload(page, { question: "   " }), false);
  assert.equal(askPagePayload({ ...page, mode: "full" }, {}).mode, "full");
  const long = askPagePayload(page, { question: "😀".repeat(4_100) }).question;
  assert.equal([...long].length, 4_000); // code points, as the host counts; no half pair
  assert.deepEqual(problems("page.summarize", askPagePayload(page, { question: "Why?", provider: "offline" })), []);
});

test("serializePage sends no lang the host would refuse, and never half a surrogate pair", () => {
  const run = (html, url = "https://news.test/a") => {
    const dom = new JSDOM(html, { url, runScripts: "outside-only", virtualConsole: new VirtualConsole() });
    dom.window.eval(PLAIN_STYLE);
    return dom.window.eval(`(${serializePage})({})`);
  };
  // a real page (dobszay.ch in the corpus) writes <html lang="lang="de-DE"">
  assert.equal(run('<html lang="lang="de-DE""><title>t</title><p>x</p>').lang, null);
  assert.equal(run('<html lang=" de_CH "><p>x</p>').lang, "de_CH");
  assert.equal(run('<html lang="en, de"><p>x</p>').lang, null);
  const title = run(`<title>${"a".repeat(1_999)}😀</title><p>x</p>`).title;
  assert.equal(title.length, 1_999);
  assert.deepEqual(problems("sources.save_page", savePagePayload(run(`<title>${"a".repeat(1_999)}😀</title><p>x</p>`), "Inbox")), []);
});
