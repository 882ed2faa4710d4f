// Shared by the *.test.mjs files: a jsdom window, the repo's paths, the XSS corpus and the
// allowlist check every sanitizer output must pass.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";

import { ALLOWED } from "../../extension/lib/safe_html.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A fresh jsdom document: its window supplies DOMParser, NodeFilter and the prototypes. */
export function freshDocument() {
  return new JSDOM("<!doctype html><html><head></head><body></body></html>").window.document;
}

/** [name, vector] for every string of every *.json list in the corpus folder
 * ($LAIKA_XSS_CORPUS or shared/corpora/xss beside the repo), or null when there is none. */
export function xssCorpus() {
  const folder = process.env.LAIKA_XSS_CORPUS || join(REPO, "..", "shared", "corpora", "xss");
  if (!existsSync(folder)) return null;
  const files = readdirSync(folder).filter((name) => name.endsWith(".json")).sort();
  const vectors = [];
  for (const file of files) {
    const data = JSON.parse(readFileSync(join(folder, file), "utf-8"));
    if (!Array.isArray(data) || !data.every((item) => typeof item === "string")) {
      throw new Error(`${file} is not a JSON list of strings`);
    }
    data.forEach((vector, index) => vectors.push([`${file.slice(0, -5)}-${index}`, vector]));
  }
  return vectors.length ? vectors : null;
}

/** Skip a test that needs the corpus when it is missing, with the reason, as the Python corpus
 * tests do: a clone without ../shared beside it (a temporary directory) still runs the rest. */
export function needCorpus(t) {
  const vectors = xssCorpus();
  if (vectors) return vectors;
  t.skip("no XSS corpus: put shared/corpora/xss beside the repo or set LAIKA_XSS_CORPUS");
  return null;
}

const ADDED = { a: ["rel", "target"] }; // written by safe_html.js itself, never copied

/** Every problem in `root`'s subtree: a tag, attribute, class or URL outside the allowlist. */
export function violations(root) {
  const problems = [];
  const elements = root.querySelectorAll("*");
  for (const element of elements) {
    const tag = element.localName;
    if (!ALLOWED.tags.includes(tag)) problems.push(`tag <${tag}>`);
    if (element.namespaceURI !== "http://www.w3.org/1999/xhtml") problems.push(`ns ${tag}`);
    const allowed = [...(ALLOWED.attributes[tag] ?? []), ...(ADDED[tag] ?? [])];
    for (const { name, value } of element.attributes) {
      if (!allowed.includes(name)) problems.push(`${tag}[${name}]`);
      if (name === "href" && !hrefIsSafe(value)) problems.push(`${tag}[href=${value}]`);
      if (name === "class" && !value.split(" ").every((c) => ALLOWED.classes.includes(c))) {
        problems.push(`${tag}[class=${value}]`);
      }
      if (name === "start" && !/^-?[0-9]{1,9}$/.test(value)) problems.push(`ol[start=${value}]`);
      if (name === "rel" && value !== "noopener noreferrer") problems.push(`rel=${value}`);
      if (name === "target" && value !== "_blank") problems.push(`target=${value}`);
    }
    if (tag === "a" && element.hasAttribute("href") && !element.hasAttribute("rel")) {
      problems.push("a[href] without rel");
    }
  }
  return problems;
}

function hrefIsSafe(value) {
  try {
    const url = new URL(value);
    return ["http:", "https:", "mailto:"].includes(url.protocol) && url.href === value;
  } catch {
    return false;
  }
}

/** The maximum element nesting below `root`. */
export function depthOf(root) {
  let deepest = 0;
  const stack = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop();
    deepest = Math.max(deepest, depth);
    for (const child of node.children) stack.push([child, depth + 1]);
  }
  return deepest;
}
