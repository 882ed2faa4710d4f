// lib/page_probes.js in a jsdom page: showQuoteInPage finds a citation's quote as the chip's
// check does (case, spacing and punctuation ignored), selects exactly those words (a word split
// over inline elements too) and scrolls to them. jsdom has no layout: every box is at 0, and
// `innerText` is given as the text content, so this checks the finding and the selection; the
// scrolling is checked in real browsers by tests/test_realpages_e2e.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { JSDOM } from "jsdom";

import { findQuoteInPage, showQuoteInPage } from "../../extension/lib/page_probes.js";

function page(body) {
  const dom = new JSDOM(`<!doctype html><html><body>${body}</body></html>`, { runScripts: "outside-only" });
  const { window } = dom;
  Object.defineProperty(window.HTMLElement.prototype, "innerText", {
    get() {
      return this.textContent;
    },
  });
  const scrolled = [];
  window.HTMLElement.prototype.scrollIntoView = function () {
    scrolled.push(this.id || this.localName);
  };
  window.Range.prototype.getBoundingClientRect = () => ({ top: 0, bottom: 0 });
  window.scrollBy = () => scrolled.push("window");
  window.innerHeight = -1; // nothing is "in view": every found quote is scrolled to
  return {
    window,
    scrolled,
    run: (fn, quote) => window.eval(`(${fn})(${JSON.stringify(quote)})`),
    selected: () => window.getSelection().toString(),
  };
}

const ARTICLE = `<nav>Home · News</nav><article><h1>Harbour tides</h1>
  <p id="one">High water comes <b>twice</b> a day.</p>
  <p id="two">The moon pulls the oceans toward it; the <a href="#">sun</a> helps at new moon.</p>
  <script>var theMoonPullsTheOceans = 1;</script></article>`;

test("the quote's words are selected and scrolled to, whatever their case and punctuation", () => {
  const probe = page(ARTICLE);
  assert.equal(probe.run(showQuoteInPage, "the Moon pulls the oceans toward it, the sun"), true);
  assert.equal(probe.selected(), "The moon pulls the oceans toward it; the sun");
  assert.deepEqual(probe.scrolled, ["two", "window"]); // centred, then (still out of view) scrolled
});

test("a word split over inline elements, and a quote across two blocks, are found", () => {
  const split = page(`<p id="drop"><span>H</span>igh water comes twice a day.</p>`);
  assert.equal(split.run(showQuoteInPage, "High water comes"), true);
  assert.equal(split.selected(), "High water comes");
  const across = page(ARTICLE);
  assert.equal(across.run(showQuoteInPage, "a day. The moon pulls"), true);
  assert.match(across.selected().replace(/\s+/g, " "), /^a day\. The moon pulls$/);
});

test("words the page lacks are not shown, nor words only a script holds", () => {
  const probe = page(ARTICLE);
  assert.equal(probe.run(showQuoteInPage, "the moon pushes the oceans"), false);
  assert.equal(probe.run(findQuoteInPage, "the moon pushes the oceans"), false);
  assert.equal(probe.selected(), "");
  assert.deepEqual(probe.scrolled, []);
  assert.equal(probe.run(showQuoteInPage, ""), false);
});
