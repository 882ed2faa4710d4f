// serializePage (extension/lib/capture.js) in jsdom, on what Firefox's content scripts see:
// there `element.openOrClosedShadowRoot` (an extension's privilege) returns the browser's own
// widget roots too. A <details>' UA root is a summary slot and a content slot, and Firefox 140's
// UA sheet (res/details.css) gives that slot `display:block; content-visibility:hidden` while
// the details is closed: a walk that entered it lost the closed details' text, which the
// serializer keeps on purpose (tests/test_capture_e2e.py checks it in the real browsers).
// jsdom has neither layout nor UA roots, so this file stands them in: each element's computed
// style is a visible block overridden by its own `style` attribute, and the UA roots are
// fragments shaped as Firefox's, returned by the same property as a closed author root.

import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM, VirtualConsole } from "jsdom";

import { serializePage } from "../../extension/lib/capture.js";

/** Runs in the jsdom window before serializePage: Firefox's shadow roots and computed styles. */
const FIREFOX = `(() => {
  const PLAIN = {
    display: "block", opacity: "1", visibility: "visible", "font-size": "16px", color: "rgb(0, 0, 0)",
    "background-image": "none", "background-color": "rgba(0, 0, 0, 0)", transform: "none", scale: "none",
    "content-visibility": "visible", "overflow-x": "visible", "overflow-y": "visible",
    "animation-name": "none", "transition-property": "all", "transition-duration": "0s",
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
  // The UA widget roots, as Firefox builds them (only their shape matters here).
  const UA = {
    details: '<slot name="internal-main-summary"><summary>Details</summary></slot>'
      + '<slot style="display:block;content-visibility:hidden"></slot>',
    video: '<div class="controlsContainer"><span>Video format or MIME type is not supported.</span>'
      + '<button>Play</button></div>',
    marquee: '<div class="outerDiv"><div class="innerDiv"><slot></slot></div></div>',
  };
  const roots = new WeakMap();
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    roots.set(this, root);
    return root;
  };
  Object.defineProperty(Element.prototype, "openOrClosedShadowRoot", {
    get() {
      if (!roots.has(this) && UA[this.localName]) {
        const root = this.ownerDocument.createDocumentFragment();
        const template = this.ownerDocument.createElement("template");
        template.innerHTML = UA[this.localName];
        root.append(template.content);
        roots.set(this, root);
      }
      return roots.get(this) ?? null;
    },
  });
})();`;

function serialize(body, setup = "") {
  const html = `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
  const dom = new JSDOM(html, { url: "https://news.test/a", runScripts: "outside-only", virtualConsole: new VirtualConsole() });
  try {
    dom.window.eval(FIREFOX);
    if (setup) dom.window.eval(setup);
    const page = dom.window.eval(`(${serializePage})({})`);
    return page.html.slice(page.html.indexOf("<body>"));
  } finally {
    dom.window.close();
  }
}

test("Firefox: a closed <details> keeps its text, and the UA's slots are not written", () => {
  const html = serialize(
    "<details><summary>Eclipse timings</summary><p>Folded eclipse timings, every contact.</p></details>",
  );
  assert.equal(html, "<body><details open><summary>Eclipse timings</summary><p>Folded eclipse timings, every contact.</p></details></body></html>");
});

test("Firefox: what is really hidden inside or beside a closed <details> stays out", () => {
  const html = serialize(
    "<details><summary>S</summary><p>Kept fold.</p><p hidden>Hidden in the fold.</p>" +
      '<div style="display:none">Undisplayed in the fold.</div>' +
      '<p style="content-visibility:hidden">Skipped in the fold.</p>' +
      '<p style="opacity:0">Transparent in the fold.</p></details>' +
      '<p style="content-visibility:hidden">Skipped beside it.</p>',
  );
  assert.match(html, /Kept fold\./);
  for (const phrase of ["Hidden in the fold", "Undisplayed in the fold", "Skipped in the fold", "Transparent in the fold", "Skipped beside it"]) {
    assert.doesNotMatch(html, new RegExp(phrase), phrase);
  }
});

test("Firefox: the page's own closed shadow roots are still read, slots filled", () => {
  const html = serialize(
    "<x-card><b>Slotted words</b></x-card><div id=host><i>Unslotted light words</i></div>",
    `document.querySelector("x-card").attachShadow({ mode: "closed" }).innerHTML = "<p>Closed card words <slot></slot></p>";
     document.querySelector("#host").attachShadow({ mode: "closed" }).innerHTML = "<p>Closed div words</p>";`,
  );
  assert.match(html, /<x-card><p>Closed card words <slot><b>Slotted words<\/b><\/slot><\/p><\/x-card>/);
  assert.match(html, /<div id="host"><p>Closed div words<\/p><\/div>/);
  assert.doesNotMatch(html, /Unslotted light words/);
});

test("Firefox: media and marquee widget roots are the browser's, not the page's text", () => {
  const html = serialize('<video controls src="/v.webm">Fallback words</video><marquee>Marquee words</marquee>');
  assert.doesNotMatch(html, /MIME type|Play|controlsContainer|outerDiv/);
  assert.match(html, /<marquee>Marquee words<\/marquee>/);
});
