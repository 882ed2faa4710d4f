// The ONLY place an HTML string enters the extension's DOM (a test greps extension/ for
// innerHTML, outerHTML, insertAdjacentHTML, document.write, eval and new Function elsewhere).
//
// The host already sanitizes what it renders (nh3); this is the second, independent layer, so a
// host bug alone cannot reach the panel. The string is parsed by DOMParser into an inert document
// (no scripts run, no resources load, no handlers fire), then walked, and only allowlisted nodes
// are rebuilt, fresh, in the target document: nothing of the parsed tree is ever adopted, so no
// attribute we did not write ourselves can survive.

/** The host's allowlist (render/html.py plus the issue-13 citation markup), as data. */
export const ALLOWED = deepFreeze({
  tags: [
    "p", "br", "strong", "em", "code", "pre", "blockquote", "hr", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "a", "span", "mark",
  ],
  attributes: { a: ["href", "class"], ol: ["start"], span: ["class"] },
  classes: ["citation", "citation-unverified"],
  schemes: ["http:", "https:", "mailto:"],
  /** Removed with everything inside: their content is code, styling or another document. */
  dropped: [
    "script", "style", "template", "iframe", "frame", "frameset", "object", "embed", "applet",
    "noscript", "noembed", "noframes", "svg", "math", "head", "title", "textarea", "select",
  ],
  linkRel: "noopener noreferrer",
  linkTarget: "_blank",
});

/** Bounds on the work one call does, whatever the input (host HTML is trusted to be sane,
 * not to be small): the reader view of a 200,000-char Markdown source renders to well under
 * 2 MB. Past a bound the rest is cut and a visible note says so; nothing is thrown. */
export const LIMITS = deepFreeze({
  maxChars: 2_000_000, // input length; the rest of the string is not parsed
  maxNodes: 200_000, // nodes visited in the parsed tree
  maxDepth: 64, // element nesting; deeper subtrees are kept as their plain text
});

export const TRUNCATED_NOTE = "[Truncated: this content is too long to show in full.]";

const XHTML = "http://www.w3.org/1999/xhtml";
const TAGS = new Set(ALLOWED.tags);
const DROPPED = new Set(ALLOWED.dropped);
const CLASSES = new Set(ALLOWED.classes);
const SCHEMES = new Set(ALLOWED.schemes);

/**
 * Parse `html` inertly and return a DocumentFragment of `doc` holding only allowed nodes.
 * `limits` (default LIMITS) exists so tests can reach the bounds with small inputs.
 * @param {string} html
 * @param {Document} [doc]
 * @param {{maxChars: number, maxNodes: number, maxDepth: number}} [limits]
 * @returns {DocumentFragment}
 */
export function sanitizeToFragment(html, doc = globalThis.document, limits = LIMITS) {
  if (typeof html !== "string") {
    throw new TypeError(`sanitizeToFragment needs an HTML string, got ${typeof html}`);
  }
  const view = doc.defaultView;
  if (!view) throw new TypeError("sanitizeToFragment needs a document that has a window");
  const dom = domAccess(view);
  const cut = html.length > limits.maxChars;
  const parsed = new view.DOMParser().parseFromString(
    cut ? html.slice(0, limits.maxChars) : html,
    "text/html",
  );
  const fragment = doc.createDocumentFragment();
  const complete = parsed.body ? rebuild(parsed, fragment, dom, limits) : true;
  if (cut || !complete) fragment.append(truncatedNote(doc));
  return fragment;
}

/**
 * Replace `element`'s children with the sanitized form of `html`.
 * @param {Element} element
 * @param {string} html
 */
export function setSafeHtml(element, html) {
  element.replaceChildren(sanitizeToFragment(html, element.ownerDocument));
}

/** The contract's other name for setSafeHtml. */
export const insertSafeHtml = setSafeHtml;

/**
 * Walk `root` of the parsed document in order and append kept nodes under `out`.
 * A TreeWalker moves by the tree itself, so a clobbering `<form><input name="childNodes">`
 * cannot mislead the walk; properties are read through prototype getters for the same reason.
 * @returns {boolean} false when the node budget ran out before the end
 */
function rebuild(parsed, out, dom, limits) {
  const root = parsed.body;
  const filter = dom.NodeFilter.SHOW_ELEMENT | dom.NodeFilter.SHOW_TEXT;
  const walker = parsed.createTreeWalker(root, filter);
  const parents = [out]; // parents[d - 1]: where nodes at depth d below root go
  let visited = 0;
  let node = walker.firstChild();
  while (node) {
    visited += 1;
    if (visited > limits.maxNodes) return false;
    const into = visit(node, parents, dom, limits.maxDepth);
    if (into && walker.firstChild()) {
      parents.push(into);
      node = walker.currentNode;
      continue;
    }
    node = advance(walker, root, parents);
  }
  return true;
}

/** The next node in document order after the current one's subtree, or null at the end. */
function advance(walker, root, parents) {
  while (!walker.nextSibling()) {
    const up = walker.parentNode();
    if (!up || up === root) return null;
    parents.pop();
  }
  return walker.currentNode;
}

/**
 * Copy one node's allowed part under the current parent.
 * @returns the output node its children go into, or null to skip its subtree
 */
function visit(node, parents, dom, maxDepth) {
  const parent = parents[parents.length - 1];
  const doc = parent.ownerDocument;
  if (dom.nodeType(node) === 3) {
    parent.append(doc.createTextNode(dom.data(node)));
    return null;
  }
  const name = dom.localName(node);
  if (DROPPED.has(name)) return null;
  if (parents.length > maxDepth) {
    parent.append(doc.createTextNode(dom.textContent(node)));
    return null;
  }
  if (!TAGS.has(name) || dom.namespace(node) !== XHTML) return parent; // unwrap
  const copy = doc.createElement(name);
  copyAttributes(node, copy, dom);
  parent.append(copy);
  return copy;
}

function copyAttributes(source, copy, dom) {
  const allowed = ALLOWED.attributes[dom.localName(source)] ?? [];
  for (const name of allowed) {
    const value = dom.getAttribute(source, name);
    if (value === null) continue;
    const safe = SAFE_VALUE[name](value);
    if (safe !== null) copy.setAttribute(name, safe);
  }
  if (dom.localName(source) === "a" && copy.hasAttribute("href")) {
    copy.setAttribute("rel", ALLOWED.linkRel);
    copy.setAttribute("target", ALLOWED.linkTarget);
  }
}

/** Each allowed attribute's check: the value to write, or null to drop the attribute. */
const SAFE_VALUE = {
  href: safeHref,
  class: (value) => {
    const kept = value.split(/\s+/).filter((token) => CLASSES.has(token));
    return kept.length ? [...new Set(kept)].join(" ") : null;
  },
  start: (value) => {
    const number = Number(value.trim());
    return value.trim() && Number.isInteger(number) && Math.abs(number) < 1e9
      ? String(number)
      : null;
  },
};

/** An absolute http/https/mailto URL, as the URL parser serializes it; anything else null.
 * No base URL: a relative link would resolve against the extension's own origin. */
export function safeHref(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return SCHEMES.has(url.protocol) ? url.href : null;
}

function truncatedNote(doc) {
  const note = doc.createElement("p");
  const text = doc.createElement("em");
  text.append(doc.createTextNode(TRUNCATED_NOTE));
  note.append(text);
  return note;
}

/** Getters and methods taken from the window's prototypes, so the parsed nodes' own
 * (possibly clobbered) properties are never consulted. */
function domAccess(view) {
  const getter = (type, name) => Object.getOwnPropertyDescriptor(type.prototype, name).get;
  const nodeType = getter(view.Node, "nodeType");
  const textContent = getter(view.Node, "textContent");
  const data = getter(view.CharacterData, "data");
  const localName = getter(view.Element, "localName");
  const namespace = getter(view.Element, "namespaceURI");
  const getAttribute = view.Element.prototype.getAttribute;
  return {
    NodeFilter: view.NodeFilter,
    nodeType: (node) => nodeType.call(node),
    textContent: (node) => textContent.call(node) ?? "",
    data: (node) => data.call(node),
    localName: (node) => localName.call(node),
    namespace: (node) => namespace.call(node),
    getAttribute: (node, name) => getAttribute.call(node, name),
  };
}

function deepFreeze(value) {
  for (const inner of Object.values(value)) {
    if (inner && typeof inner === "object") deepFreeze(inner);
  }
  return Object.freeze(value);
}
