// extension/lib/citations.js: chip models, which URL a chip opens, tab reuse, Markdown export.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import MarkdownIt from "markdown-it";

import {
  answerAsMarkdown,
  chipModel,
  chipModels,
  escapeMarkdown,
  openableUrl,
  pickTab,
  sameDocument,
  shortTitle,
} from "../../extension/lib/citations.js";

/** A text directive part, encoded as the host's agent/verify.py `_encode` does. */
const encode = (text) =>
  encodeURIComponent(text).replace(/[!'()*-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const verified = (locator, extra = {}) => ({
  source_id: "s1", url: "https://example.org/a", quote: "the quote", locator,
  verified: true, method: "exact", reason: null, marker: 1, title: "A page", state: "verified", ...extra,
});

test("a verified chip opens its text-fragment URL, encoded commas, dashes and ampersands intact", () => {
  const locator = "https://example.org/a?x=1&y=2#:~:text=rock%2D%2Droll%2C%20a%26b-,start,end,-after%2C";
  const chip = chipModel(verified(locator));
  assert.deepEqual(chip, {
    marker: 1, label: "[1] A page", title: "A page", quote: "the quote",
    state: "verified", reason: null, href: locator,
  });
});

test("property: the opened URL's directive decodes back to the quoted words", () => {
  const words = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 });
  fc.assert(
    fc.property(fc.webUrl({ withQueryParameters: true }), words, words, (page, start, end) => {
      const base = page.split("#")[0];
      const locator = `${base}#:~:text=${encode(start)},${encode(end)}`;
      const { href } = chipModel(verified(locator));
      assert.ok(href, locator);
      const directive = new URL(href).hash.split(":~:text=")[1];
      assert.deepEqual(directive.split(",").map(decodeURIComponent), [start, end]);
    }),
    { numRuns: 300 },
  );
});

test("javascript:, data: and relative locators never become links", () => {
  for (const locator of ["javascript:alert(1)", " JavaScript:alert(1)//https://x", "data:text/html,x",
    "/a#:~:text=x", "#:~:text=x", "vbscript:x", "file:///etc/passwd", "", null, 42]) {
    assert.equal(chipModel(verified(locator)).href, null, String(locator));
  }
  fc.assert(
    fc.property(fc.string(), (locator) => {
      const { href } = chipModel(verified(locator));
      assert.ok(href === null || /^https?:\/\//.test(href), href);
    }),
  );
});

test("unverified and rejected chips show the reason and open nothing", () => {
  const unverified = chipModel(verified("https://e.example/#:~:text=x",
    { verified: false, state: "unverified", reason: "quote not found in the source" }));
  assert.equal(unverified.state, "unverified");
  assert.equal(unverified.reason, "quote not found in the source");
  assert.equal(unverified.href, null);
  const rejected = chipModel(verified(null, { verified: false, state: "rejected", reason: "no source" }));
  assert.equal(rejected.state, "rejected");
  // a host without `state`: derived from `verified`
  assert.equal(chipModel(verified(null, { state: undefined, verified: false })).state, "unverified");
  assert.equal(chipModel(verified("https://e.example/", { state: "bogus" })).state, "verified");
});

test("a chip always has a name and a marker", () => {
  const untitled = chipModel({ url: "https://docs.example.org/x", quote: "q", marker: null, verified: true }, 2);
  assert.equal(untitled.title, "docs.example.org");
  assert.equal(untitled.label, "[3] docs.example.org");
  assert.equal(chipModel({ quote: "q" }).label, "Source");
});

test("sameDocument ignores the fragment and its text directive, nothing else", () => {
  assert.ok(sameDocument("https://E.example:443/a?q=1#intro", "https://e.example/a?q=1#:~:text=x%2Cy"));
  assert.ok(!sameDocument("https://e.example/a?q=1", "https://e.example/a?q=2"));
  assert.ok(!sameDocument("https://e.example/a", "http://e.example/a"));
  assert.ok(!sameDocument("not a url", "not a url"));
  assert.ok(!sameDocument(undefined, "https://e.example/"));
  fc.assert(
    fc.property(fc.webUrl({ withQueryParameters: true }), fc.string(), fc.string(), (page, a, b) => {
      const base = page.split("#")[0];
      assert.ok(sameDocument(`${base}#${a}`, `${base}#:~:text=${encode(b)}`));
    }),
  );
});

test("pickTab reuses the tab showing the document: the active one, else the one used last", () => {
  const url = "https://e.example/a#:~:text=words";
  const tabs = [
    { id: 1, url: "https://e.example/b" },
    { id: 2, url: "https://e.example/a#old", lastAccessed: 10 },
    { id: 3, url: "https://e.example/a", lastAccessed: 30 },
    { id: 4 }, // a tab whose URL the extension may not see
  ];
  assert.equal(pickTab(tabs, url).id, 3);
  assert.equal(pickTab([...tabs, { id: 5, url: "https://e.example/a", active: true }], url).id, 5);
  assert.equal(pickTab(tabs, "https://e.example/c"), null);
  assert.equal(pickTab([], url), null);
});

test("answerAsMarkdown turns markers into footnotes", () => {
  const answer = {
    answer_markdown: "Water boils at 100 °C [1], not [7]; see also [2].\n",
    citations: [
      verified("https://e.example/a#:~:text=boils", { quote: "boils at *100* [C]", title: "Physics_101" }),
      verified(null, { marker: 2, verified: false, state: "unverified", title: "Notes",
        url: "https://e.example/n", quote: "line one\nline two", reason: "not in the source" }),
    ],
  };
  assert.equal(
    answerAsMarkdown(answer),
    "Water boils at 100 °C [^1], not [7]; see also [^2].\n\n" +
      '[^1]: "boils at \\*100\\* \\[C\\]" — Physics\\_101, <https://e.example/a#:~:text=boils>\n' +
      '[^2]: "line one line two" — Notes, <https://e.example/n> (unverified: not in the source)\n',
  );
  assert.equal(answerAsMarkdown({ answer_markdown: "no sources [1]" }), "no sources [1]");
});

const md = new MarkdownIt();
const unescapeHtml = (html) =>
  html.replace(/&(lt|gt|quot|amp);/g, (_, name) => ({ lt: "<", gt: ">", quot: '"', amp: "&" })[name]);

test("property: an escaped quote renders as exactly its text, on one line, with no markup", () => {
  const text = fc.string({ unit: "grapheme", maxLength: 80 }).map((s) => s.replaceAll("\0", ""));
  const markdownish = fc.array(
    fc.oneof(text, fc.constantFrom("*", "_", "[", "]", "(", ")", "`", "<a>", "#", "\n- ", "\n1. ", "\\",
      "&amp;", "![x](y)", "[^1]:", "|", "~~", "> ", "<https://x>", "\n\n", "  \n")),
    { maxLength: 12 },
  ).map((parts) => parts.join(""));
  fc.assert(
    fc.property(markdownish, (value) => {
      const escaped = escapeMarkdown(value);
      assert.ok(!escaped.includes("\n"));
      const html = md.renderInline(escaped);
      assert.ok(!/<[a-z]/i.test(html), `markup from ${JSON.stringify(value)}: ${html}`);
      assert.equal(unescapeHtml(html).trim(), value.replace(/\s+/g, " ").trim());
    }),
    { numRuns: 1000 },
  );
});

test("openableUrl keeps only absolute http(s)", () => {
  assert.equal(openableUrl("HTTPS://E.example"), "https://e.example/");
  assert.equal(openableUrl("mailto:a@b.example"), null);
});

test("a long title is cut at a word boundary with an ellipsis; a short one is kept whole", () => {
  assert.equal(shortTitle("Harbour tides"), "Harbour tides");
  assert.equal(
    shortTitle("BMJV | Transparenz bei Preisanpassungen im Verbraucherportal"),
    "BMJV | Transparenz bei…",
  );
  // separators before the cut go, a word longer than the room is cut inside
  assert.equal(shortTitle("Das Ministerium für Club-Kultur informiert… | Die PARTEI Lübeck", 30), "Das Ministerium für…");
  assert.equal(shortTitle("Donaudampfschifffahrtsgesellschaftskapitänsmütze", 10), "Donaudamp…");
  assert.equal(shortTitle("  spaced\n\ttitle  "), "spaced title");
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 120 }), fc.integer({ min: 4, max: 60 }), (title, max) => {
      const short = shortTitle(title, max);
      const whole = title.replace(/\s+/g, " ").trim();
      assert.ok([...short].length <= max, short);
      if ([...whole].length <= max) assert.equal(short, whole);
      else {
        assert.ok(short.endsWith("…"), short);
        assert.ok(whole.startsWith(short.slice(0, -1)), `${short} is not the start of ${whole}`);
      }
    }),
    { numRuns: 500 },
  );
});

test("each chip of an answer shows its own source's title, the full one in its model", () => {
  const site = "Stadt Lübeck – Pressemitteilungen der Hansestadt Lübeck: ";
  const citations = [
    verified("https://e.example/a#:~:text=x", { marker: 1, source_id: "s1", title: `${site}Neue Radwege am Hafen` }),
    verified("https://e.example/b#:~:text=x", { marker: 2, source_id: "s2", title: `${site}Baustelle an der Obertrave` }),
    verified("https://e.example/a#:~:text=y", { marker: 3, source_id: "s1", title: `${site}Neue Radwege am Hafen` }),
    verified("https://e.example/c#:~:text=x", { marker: 4, source_id: "s3", title: "Harbour tides" }),
  ];
  const models = chipModels(citations);
  assert.deepEqual(models.map((m) => m.title), citations.map((c) => c.title)); // tooltips: whole
  const labels = models.map((m) => m.label);
  assert.deepEqual(labels, [
    "[1] …Neue Radwege am Hafen",
    "[2] …Baustelle an der Obertrave",
    "[3] …Neue Radwege am Hafen",
    "[4] Harbour tides",
  ]);
  // the titles' own start alone would have made two sources look the same
  assert.equal(shortTitle(citations[0].title), shortTitle(citations[1].title));
  fc.assert(
    fc.property(fc.array(fc.record({ title: fc.string({ maxLength: 90 }), source_id: fc.string() }), { maxLength: 8 }), (random) => {
      const made = chipModels(random);
      assert.equal(made.length, random.length);
      for (const model of made) assert.ok([...model.label].length <= 40, model.label);
    }),
  );
});
