// serializePage (extension/lib/capture.js) marks the layer over the middle of the page: the
// outermost fixed-position (or top-layer) box holding what the browser hit-tests at the
// viewport's centre gets `data-laika-overlay`, which the host reads as `overlay_blocking`.
// jsdom has no layout, so each test says what the centre's hit is (document.elementFromPoint)
// and computed styles come from the elements' own `style` attributes; real layout is checked
// in tests/test_capture_e2e.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { JSDOM, VirtualConsole } from "jsdom";

import { serializePage } from "../../extension/lib/capture.js";

/** Computed styles: a visible block, overridden by the element's own `style` attribute. */
const STYLES = `(() => {
  const PLAIN = {
    display: "block", position: "static", opacity: "1", visibility: "visible", "font-size": "16px",
    color: "rgb(0, 0, 0)", "background-image": "none", "background-color": "rgba(0, 0, 0, 0)",
    transform: "none", scale: "none", "content-visibility": "visible", "overflow-x": "visible",
    "overflow-y": "visible", "animation-name": "none", "transition-property": "all",
    "transition-duration": "0s",
  };
  const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  window.getComputedStyle = (element) => {
    const values = { ...PLAIN };
    for (const declaration of (element.getAttribute("style") ?? "").split(";")) {
      const colon = declaration.indexOf(":");
      if (colon > 0) values[declaration.slice(0, colon).trim()] = declaration.slice(colon + 1).trim();
    }
    const style = { getPropertyValue: (name) => values[name] ?? "" };
    for (const [name, value] of Object.entries(values)) style[camel(name)] = value;
    return style;
  };
})();`;

const ARTICLE = "<main><article><h1>Harbour news</h1><p id='lead'>The harbour had a busy season.</p></article></main>";

/** The serialized <body>, with the centre's hit set by `hit` (a script run in the page). */
function serialize(body, hit = "null") {
  const html = `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
  const dom = new JSDOM(html, { url: "https://news.test/a", runScripts: "outside-only", virtualConsole: new VirtualConsole() });
  try {
    dom.window.eval(STYLES);
    dom.window.eval(`document.elementFromPoint = () => (${hit});`);
    const page = dom.window.eval(`(${serializePage})({})`);
    return page.html.slice(page.html.indexOf("<body>"));
  } finally {
    dom.window.close();
  }
}

const marks = (html) => html.match(/data-laika-overlay/g)?.length ?? 0;

test("the outermost fixed box over the centre is marked, once", () => {
  const html = serialize(
    `${ARTICLE}<div id="wall" style="position: fixed"><div class="box" style="position: fixed">`
      + "<p id='ask'>We value your privacy. Accept all?</p></div></div>",
    "document.getElementById('ask')",
  );
  assert.match(html, /<div id="wall" data-laika-overlay>/);
  assert.equal(marks(html), 1);
});

test("the article at the centre, a fixed header elsewhere: nothing is marked", () => {
  const html = serialize(
    `<header style="position: fixed"><a href="/">Home</a></header>${ARTICLE}`,
    "document.getElementById('lead')",
  );
  assert.equal(marks(html), 0);
});

test("nothing at the centre: nothing is marked, the page is written", () => {
  assert.equal(marks(serialize(`${ARTICLE}<div style="position: fixed">Popup</div>`)), 0);
  const html = serialize(ARTICLE, "undefined");
  assert.match(html, /The harbour had a busy season/);
});

test("a fixed box that the walk leaves out (hidden) is not marked", () => {
  const html = serialize(
    `${ARTICLE}<div id="wall" hidden style="position: fixed"><p id="ask">Accept all?</p></div>`,
    "document.getElementById('ask')",
  );
  assert.equal(marks(html), 0);
  assert.doesNotMatch(html, /Accept all/);
});

test("the page's own data-laika-* attributes are not copied", () => {
  const html = serialize(
    `<div data-laika-overlay data-laika-frame="https://evil.test/" data-laika-x="1" data-layout="wide">${ARTICLE}</div>`,
    "document.getElementById('lead')",
  );
  assert.equal(marks(html), 0);
  assert.doesNotMatch(html, /data-laika-frame|data-laika-x/);
  assert.match(html, /data-layout="wide"/);
});

test("a fixed box inside a shadow root is found through its host and marked in place", () => {
  const html = serialize(
    `${ARTICLE}<div id="consent-root"></div>`,
    `(() => {
      const host = document.getElementById('consent-root');
      const root = host.attachShadow({ mode: 'open' });
      root.innerHTML = '<div class="wall" style="position: fixed"><p>Accept all cookies?</p></div>';
      const ask = root.querySelector('p');
      root.elementFromPoint = () => ask;
      return host;
    })()`,
  );
  assert.match(html, /<div class="wall" data-laika-overlay><p>Accept all cookies\?<\/p><\/div>/);
  assert.equal(marks(html), 1);
});

// Any tree of boxes, some fixed, some hidden, some carrying the page's own data-laika-*
// attributes, and any hit: exactly the outermost fixed ancestor-or-self of the hit is marked,
// when the walk writes it (neither it nor an ancestor hidden); nothing else ever is.
const box = (depth) => fc.record({
  fixed: fc.boolean(),
  hidden: fc.boolean(),
  own: fc.boolean(),
  children: depth === 0 ? fc.constant([]) : fc.array(box(depth - 1), { maxLength: 3 }),
});
const boxes = box(3);

function build(box, list, parents) {
  const id = `n${list.length}`;
  list.push({ id, box, parents });
  const attributes = [
    `id="${id}"`,
    box.fixed ? 'style="position: fixed"' : "",
    box.hidden ? "hidden" : "",
    box.own ? 'data-laika-overlay data-laika-frame="https://evil.test/"' : "",
  ].filter(Boolean).join(" ");
  const inner = box.children.map((child) => build(child, list, [...parents, id])).join("");
  return `<div ${attributes}>Box ${id} ${inner}</div>`;
}

test("property: only the outermost fixed box over the hit is marked, when it is written", () => {
  fc.assert(
    fc.property(fc.array(boxes, { minLength: 1, maxLength: 3 }), fc.nat(), fc.boolean(), (roots, pick, none) => {
      const list = [];
      const body = roots.map((root) => build(root, list, [])).join("");
      const hit = none ? null : list[pick % list.length];
      const html = serialize(body, hit ? `document.getElementById('${hit.id}')` : "null");
      const byId = new Map(list.map((entry) => [entry.id, entry]));
      const chain = hit ? [...hit.parents.map((id) => byId.get(id)), hit] : [];
      const layer = chain.find((entry) => entry.box.fixed) ?? null;
      const written = layer && chain.slice(0, chain.indexOf(layer) + 1).every((entry) => !entry.box.hidden);
      const marked = [...html.matchAll(/<div id="(n\d+)"[^>]*data-laika-overlay/g)].map((m) => m[1]);
      assert.deepEqual(marked, written ? [layer.id] : []);
      assert.doesNotMatch(html, /data-laika-frame/);
    }),
    { numRuns: 60 },
  );
});
