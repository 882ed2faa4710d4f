// Tiny DOM builders for the panel: elements are made with createElement and text nodes only.
// HTML strings never enter the DOM here; the one way in is lib/safe_html.js's setSafeHtml.

/** h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child...) */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children (text or nodes). */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Text with the host's `**term**` search markers shown as <mark>: split, never parsed as HTML. */
export function markedText(snippet) {
  const parts = String(snippet ?? "").split("**");
  return parts.map((part, i) => (i % 2 === 1 && i < parts.length - 1 ? h("mark", {}, part) : part));
}

/** A short "host/path" for a URL, or the text itself when it is not one. */
export function shortUrl(url) {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === "/" ? "" : parsed.pathname;
    return `${parsed.host}${path}`.slice(0, 80);
  } catch {
    return String(url ?? "");
  }
}

/** "1 source", "3 sources": a count with its noun in the right number. */
export function counted(count, singular, plural = `${singular}s`) {
  return `${count} ${count === 1 ? singular : plural}`;
}
