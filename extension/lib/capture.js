// What the user sees, serialized for the host's capture.
//
// Each exported page function is injected with
//   chrome.scripting.executeScript({target, func: serializePage, args: [options]})
// which sends only the function's source text into the page: everything it uses must be
// defined INSIDE it (no imports, no module-level helpers, no closures).
//
// Why walk the live DOM instead of cloning it: a clone has no computed style (so hidden
// blocks cannot be told apart), no shadow roots and no frame documents. The walk follows the
// flat tree (open shadow roots in place of their host's light children, slots filled with
// what is assigned to them), inlines same-origin frames, resolves lazy images and keeps the
// text of closed <details>. It is one linear pass with an explicit stack (no recursion to
// overflow), bounded by a node budget and a character budget.

/**
 * Serialize the page the user sees. Runs in the page.
 *
 * options: {mode?: "auto"|"article"|"selection"|"full", maxNodes?: number, maxChars?: number}
 *   maxNodes (default 100,000): DOM nodes (elements and text) visited; the host keeps at most
 *     10,000 elements after its own pruning, so this is generous for real pages.
 *   maxChars (default 8,000,000): characters of HTML written (the closing tags of the elements
 *     still open are added after it); far below the host's 48 MiB page bound and the
 *     browsers' 64 MiB message bound.
 * Returns {url, title, html, selection_html, canonical_url, lang, mode, truncated}:
 * selection_html is the selection (all ranges) in mode "selection", else null; truncated says a
 * budget cut the page (or the selection) short.
 */
export function serializePage(options = {}) {
  const MODES = ["auto", "article", "selection", "full"];
  const mode = MODES.includes(options?.mode) ? options.mode : "auto";
  const limit = (value, fallback) => (Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback);
  const maxNodes = limit(options?.maxNodes, 100_000);
  const maxChars = limit(options?.maxChars, 8_000_000);
  const MAX_ATTRIBUTE_CHARS = 8_192; // longer values (inline data: images) are dropped
  const MAX_ATTRIBUTES = 256; // per element, as the host keeps
  const MAX_JSON_LD_CHARS = 500_000; // the host skips larger JSON-LD blocks anyway
  const DROPPED = new Set(["script", "style", "template", "noscript", "head", "title", "base"]);
  const VOID = new Set([
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
  ]);
  const URL_ATTRIBUTES = new Set(["href", "src", "poster", "cite"]);
  const IMAGE_SOURCE_ATTRIBUTES = new Set(["src", "srcset", "data-src", "data-lazy-src", "data-srcset"]);
  const ATTRIBUTE_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*$/;
  const budget = { nodes: 0, chars: 0, truncated: false };

  const escapeText = (text) => text.replace(/[&<>\u00a0]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\u00a0": "&nbsp;" })[c]);
  const escapeAttribute = (text) => text.replace(/[&"\u00a0]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "\u00a0": "&nbsp;" })[c]);
  const isSpace = (c) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";

  function absolute(value, base) {
    try {
      const url = new URL(value.trim(), base);
      return url.protocol === "javascript:" ? null : url.href;
    } catch {
      return null;
    }
  }

  // The largest candidate of a srcset (by width, else by density), parsed as the HTML spec
  // does in one left-to-right pass: URLs end at whitespace, descriptors at a comma outside
  // parentheses. No regex, so no backtracking on hostile values.
  function largestCandidate(srcset) {
    if (!srcset || srcset.length > MAX_ATTRIBUTE_CHARS) return null;
    let best = null;
    let bestScore = -1;
    let i = 0;
    const n = srcset.length;
    while (i < n) {
      while (i < n && (isSpace(srcset[i]) || srcset[i] === ",")) i++;
      if (i >= n) break;
      const start = i;
      while (i < n && !isSpace(srcset[i])) i++;
      let end = i;
      let descriptor = "";
      if (srcset[end - 1] === ",") {
        while (end > start && srcset[end - 1] === ",") end--;
      } else {
        const from = i;
        let depth = 0;
        while (i < n && !(srcset[i] === "," && depth === 0)) {
          if (srcset[i] === "(") depth++;
          else if (srcset[i] === ")" && depth > 0) depth--;
          i++;
        }
        descriptor = srcset.slice(from, i).trim();
      }
      const url = srcset.slice(start, end);
      if (!url) continue;
      let score = 1; // no descriptor: 1x
      for (const token of descriptor.split(/\s+/)) {
        const value = parseFloat(token);
        if (!(value > 0)) continue;
        if (token.endsWith("w")) score = 1e6 + value; // any width outranks any density
        else if (token.endsWith("x")) score = value;
      }
      if (score > bestScore) {
        best = url;
        bestScore = score;
      }
    }
    return best;
  }

  // The image's real URL: a lazy loader's data-src first, then the largest srcset candidate
  // (its own, or its <picture>'s sources), then src.
  function imageSource(image) {
    const base = image.baseURI;
    const lazy = image.getAttribute("data-src") || image.getAttribute("data-lazy-src");
    if (lazy && lazy.trim()) return absolute(lazy, base);
    let best = largestCandidate(image.getAttribute("data-srcset")) ?? largestCandidate(image.getAttribute("srcset"));
    if (!best && image.parentElement?.localName === "picture") {
      for (const source of image.parentElement.children) {
        if (source.localName !== "source") continue;
        best = largestCandidate(source.getAttribute("data-srcset")) ?? largestCandidate(source.getAttribute("srcset"));
        if (best) break;
      }
    }
    if (best) return absolute(best, base);
    const src = image.getAttribute("src");
    return src ? absolute(src, base) : null;
  }

  function attributes(element, name) {
    let out = "";
    let kept = 0;
    for (const attribute of element.attributes) {
      if (kept >= MAX_ATTRIBUTES) break;
      const key = attribute.name;
      let value = attribute.value;
      if (key.startsWith("on") || key === "style" || key === "hidden") continue;
      if (value.length > MAX_ATTRIBUTE_CHARS || !ATTRIBUTE_NAME.test(key)) continue;
      if (name === "img" && IMAGE_SOURCE_ATTRIBUTES.has(key)) continue;
      if (name === "details" && key === "open") continue;
      if (URL_ATTRIBUTES.has(key)) {
        value = absolute(value, element.baseURI);
        if (value === null) continue;
      }
      out += ` ${key}="${escapeAttribute(value)}"`;
      kept++;
    }
    if (name === "img") {
      const src = imageSource(element);
      if (src && src.length <= MAX_ATTRIBUTE_CHARS) out += ` src="${escapeAttribute(src)}"`;
    }
    if (name === "details") out += " open"; // closed details: its text is kept, so show it open
    return out;
  }

  // The element's computed style when it renders, else null: the `hidden` attribute (but
  // not hidden="until-found", which find-in-page reveals), aria-hidden="true", display:none.
  // Children of a closed <details> keep their own display (only the details' content slot
  // is hidden), so they pass and their text is kept.
  function renderedStyle(element, name) {
    const hidden = element.getAttribute("hidden");
    if (hidden !== null && hidden.toLowerCase() !== "until-found") return null;
    if (element.getAttribute("aria-hidden")?.trim().toLowerCase() === "true") return null;
    if (name === "link" && element.relList.contains("stylesheet")) return null;
    const style = element.ownerDocument.defaultView?.getComputedStyle(element);
    if (!style) return { visibility: "visible" };
    return style.display === "none" ? null : style;
  }

  function shadowRootOf(element) {
    if (element.shadowRoot) return element.shadowRoot;
    // extensions may read closed roots (Chromium: chrome.dom, Firefox: openOrClosedShadowRoot)
    try {
      return globalThis.chrome?.dom?.openOrClosedShadowRoot?.(element) ?? element.openOrClosedShadowRoot ?? null;
    } catch {
      return null;
    }
  }

  function frameBody(frame) {
    try {
      return frame.contentDocument?.body ?? null; // null when cross-origin
    } catch {
      return null;
    }
  }

  // Whether the whole node lies inside the range (then its subtree needs no more checks).
  function contains(range, node) {
    const probe = node.ownerDocument.createRange();
    probe.selectNode(node);
    return range.compareBoundaryPoints(Range.START_TO_START, probe) <= 0 &&
      range.compareBoundaryPoints(Range.END_TO_END, probe) >= 0;
  }

  function write(parts, text) {
    parts.push(text);
    budget.chars += text.length;
  }

  function pushChildren(stack, nodes, visible, range) {
    for (let i = nodes.length - 1; i >= 0; i--) stack.push({ node: nodes[i], visible, range });
  }

  function emitText(parts, node, visible, range) {
    if (!visible) return;
    let text = node.data;
    if (range) {
      const end = node === range.endContainer ? range.endOffset : text.length;
      const start = node === range.startContainer ? range.startOffset : 0;
      text = text.slice(start, end);
    }
    const room = maxChars - budget.chars;
    if (text.length > room) {
      text = text.slice(0, Math.max(0, room));
      budget.truncated = true;
    }
    if (text) write(parts, escapeText(text));
  }

  function emitJsonLd(parts, script) {
    const json = script.textContent ?? "";
    if (json.length > MAX_JSON_LD_CHARS) return;
    write(parts, `<script type="application/ld+json">${json.replace(/<\//g, "<\\/")}</script>`);
  }

  // Open one element: write its start tag and schedule its end tag and flat-tree children.
  function emitElement(parts, stack, element, range) {
    const name = element.localName;
    if (name === "script" && element.type?.trim().toLowerCase() === "application/ld+json") {
      emitJsonLd(parts, element);
      return;
    }
    if (DROPPED.has(name)) return;
    if (name === "source" && element.parentElement?.localName === "picture") return; // in img's src
    const style = renderedStyle(element, name);
    if (!style) return;
    // visibility:hidden is inherited but a child may set visible again: keep the element,
    // drop its own text, and let each child decide
    const visible = style.visibility === "visible";
    const inner = range && !contains(range, element) ? range : null;
    if (name === "iframe" || name === "frame") {
      const body = frameBody(element);
      if (!body) return; // cross-origin (or not loaded): the host cannot see it either
      const source = element.src ? ` data-laika-frame="${escapeAttribute(element.src)}"` : " data-laika-frame";
      write(parts, `<div${source}>`);
      stack.push("</div>");
      pushChildren(stack, body.childNodes, visible, null);
      return;
    }
    if (!visible && VOID.has(name)) return; // an invisible image shows nothing
    write(parts, `<${name}${attributes(element, name)}>`);
    if (VOID.has(name)) return;
    if (name === "pre" || name === "textarea" || name === "listing") write(parts, "\n"); // the parser eats one
    stack.push(`</${name}>`);
    const shadow = shadowRootOf(element);
    if (shadow) {
      pushChildren(stack, shadow.childNodes, visible, null);
      return;
    }
    if (name === "slot") {
      const assigned = element.assignedNodes();
      pushChildren(stack, assigned.length ? assigned : element.childNodes, visible, null);
      return;
    }
    pushChildren(stack, element.childNodes, visible, inner);
  }

  // Serialize `roots` (in order) and all they render; `range` limits it to a selection.
  function serialize(roots, visible, range) {
    const parts = [];
    const stack = [];
    pushChildren(stack, roots, visible, range);
    while (stack.length) {
      const item = stack.pop();
      if (typeof item === "string") {
        write(parts, item);
        continue;
      }
      if (budget.truncated) continue;
      if (budget.nodes >= maxNodes || budget.chars >= maxChars) {
        budget.truncated = true;
        continue;
      }
      const { node } = item;
      if (item.range && !item.range.intersectsNode(node)) continue;
      budget.nodes++;
      if (node.nodeType === Node.TEXT_NODE) emitText(parts, node, item.visible, item.range);
      else if (node.nodeType === Node.ELEMENT_NODE) emitElement(parts, stack, node, item.range);
    }
    return parts.join("");
  }

  // The head keeps what the host reads for metadata: title, meta tags, non-style links.
  function headHtml() {
    const parts = ["<head>"];
    parts.push(`<title>${escapeText(document.title)}</title>`);
    for (const element of document.head?.children ?? []) {
      const name = element.localName;
      if (name === "meta" && element.hasAttribute("content")) {
        write(parts, `<meta${attributes(element, name)}>`);
      } else if (name === "link" && !element.relList.contains("stylesheet")) {
        write(parts, `<link${attributes(element, name)}>`);
      } else if (name === "script" && element.type?.trim().toLowerCase() === "application/ld+json") {
        emitJsonLd(parts, element);
      }
    }
    parts.push("</head>");
    return parts.join("");
  }

  function pageHtml() {
    const root = document.documentElement;
    const lang = root.getAttribute("lang");
    const dir = root.getAttribute("dir");
    const open = `<html${lang ? ` lang="${escapeAttribute(lang)}"` : ""}${dir ? ` dir="${escapeAttribute(dir)}"` : ""}>`;
    const body = document.body;
    const content = body ? serialize(Array.from(body.childNodes), true, null) : "";
    return `<!DOCTYPE html>${open}${headHtml()}<body>${content}</body></html>`;
  }

  function selectionHtml() {
    const selection = globalThis.getSelection?.();
    if (!selection || selection.isCollapsed) return null;
    const pieces = [];
    for (let i = 0; i < selection.rangeCount; i++) {
      const range = selection.getRangeAt(i);
      if (range.collapsed) continue;
      const common = range.commonAncestorContainer;
      if (common.nodeType === Node.TEXT_NODE) {
        const style = common.parentElement && getComputedStyle(common.parentElement);
        pieces.push(serialize([common], !style || style.visibility === "visible", range));
      } else if (common === document.body || common === document.documentElement || common === document) {
        pieces.push(serialize(Array.from(document.body?.childNodes ?? []), true, range));
      } else {
        pieces.push(serialize([common], true, range)); // keep the container (a list, a table)
      }
    }
    const html = pieces.filter((piece) => piece.trim()).join("\n");
    return html || null;
  }

  function canonicalUrl() {
    const link = document.querySelector('link[rel~="canonical" i][href]');
    const url = link ? absolute(link.getAttribute("href"), document.baseURI) : null;
    return url && /^https?:/i.test(url) && url.length <= 8192 ? url : null;
  }

  function language() {
    const lang = document.documentElement.getAttribute("lang")?.trim();
    return lang && lang.length <= 35 ? lang : null;
  }

  const selection_html = mode === "selection" ? selectionHtml() : null;
  const html = pageHtml();
  return {
    url: location.href,
    title: document.title.slice(0, 2000),
    html,
    selection_html,
    canonical_url: canonicalUrl(),
    lang: language(),
    mode,
    truncated: budget.truncated,
  };
}

/**
 * The http(s) links inside the user's selection, deduplicated: [{url, text}]. Runs in the
 * page (self-contained, like serializePage). At most 1,000 links; URLs without the #fragment.
 */
export function selectionLinks() {
  const MAX_LINKS = 1_000;
  const MAX_TEXT = 300;
  const selection = globalThis.getSelection?.();
  if (!selection || selection.isCollapsed) return [];
  const seen = new Map();
  const add = (anchor) => {
    let url;
    try {
      url = new URL(anchor.href);
    } catch {
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return;
    url.hash = "";
    const key = url.href;
    if (seen.has(key) || seen.size >= MAX_LINKS) return;
    const text = (anchor.textContent ?? "").slice(0, 10 * MAX_TEXT).replace(/\s+/g, " ").trim().slice(0, MAX_TEXT);
    seen.set(key, { url: key, text });
  };
  for (let i = 0; i < selection.rangeCount; i++) {
    const range = selection.getRangeAt(i);
    if (range.collapsed) continue;
    const common = range.commonAncestorContainer;
    const element = common.nodeType === Node.ELEMENT_NODE ? common : common.parentElement;
    const enclosing = element?.closest("a[href]");
    if (enclosing) add(enclosing); // the whole selection lies inside one link
    for (const anchor of element?.querySelectorAll("a[href]") ?? []) {
      if (range.intersectsNode(anchor)) add(anchor);
    }
  }
  return Array.from(seen.values());
}

/**
 * The `sources.save_page` payload from serializePage's result: only the keys the host knows
 * (it rejects unknown ones), without nulls.
 */
export function savePagePayload(page, collection) {
  const payload = { url: page.url, html: page.html, collection };
  for (const key of ["title", "selection_html", "canonical_url", "lang", "mode"]) {
    if (page[key] !== null && page[key] !== undefined) payload[key] = page[key];
  }
  return payload;
}
