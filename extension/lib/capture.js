// What the user sees, serialized for the host's capture.
//
// Each exported page function is injected with
//   chrome.scripting.executeScript({target, func: serializePage, args: [options]})
// which sends only the function's source text into the page: everything it uses must be
// defined INSIDE it (no imports, no module-level helpers, no closures).
//
// Why walk the live DOM instead of cloning it: a clone has no computed style (so hidden
// blocks cannot be told apart), no shadow roots and no frame documents. The walk follows the
// flat tree (the page's shadow roots, open or closed, in place of their host's light
// children, never the browser's own widget roots; slots filled with what is assigned to
// them), inlines same-origin frames, resolves lazy images and keeps the text of closed
// <details>. It is one linear pass with an explicit stack (no recursion to overflow), bounded
// by a node budget and a character budget.
//
// What counts as unseen (pages hide text from the reader to smuggle it to the model):
// - a subtree, whatever its children say: display:none, the `hidden` attribute,
//   aria-hidden="true", content-visibility:hidden, opacity under 0.05, a transform or
//   `scale` that flattens the box to no area (scale(0), rotateX(90deg)), and a box of zero
//   width or height that clips its overflow. (Opacity skips display:contents; the other
//   box rules also skip inline and table-row boxes, where the browser ignores them.)
//   Except a box about to appear: one that runs a CSS animation, or transitions (for a
//   non-zero duration) the very property that hides it: opacity for a transparent box,
//   transform/scale/rotate for a flattened one, height/width (min-, max-, logical) for a
//   zero-area one, or `all`. Animate-on-scroll sections (opacity:0 and a translate until
//   they scroll in) and collapsed accordions (max-height:0, overflow hidden) look like
//   this, and the reader expects them saved. So is a transparent or flattened box that starts
//   below the viewport: reveal-on-scroll sections faded in by script have no transition to
//   see. A plain opacity:0 block in or above the viewport stays dropped; a page could use
//   either exception to smuggle text, the price of not losing real sections.
// - an element's own text, which its children may show again: visibility other than
//   visible, a font size under 1px, and a fill colour under 0.05 alpha (color or
//   -webkit-text-fill-color: transparent) unless the text is painted another way
//   (background-clip:text over a background, a text stroke).
// Kept on purpose: screen-reader-only text (clip, clip-path, 1px boxes, off-screen
// positioning) is real accessibility text the page means to be read; hidden="until-found"
// and closed <details>, which the reader can open; text the same colour as its background
// (judging that needs the painted pixels). Each element's computed style is read once; the
// walk writes nothing to the page, so layout is computed at most once.
// The layer over the middle of the page: the outermost fixed-position box (or top-layer
// element: a modal <dialog>, a fullscreen one) that holds what the browser hit-tests at the
// viewport's centre gets `data-laika-overlay` (only the capture writes `data-laika-*`
// attributes: the page's own are not copied). The host reads it as a layer the reader met
// over the text (`overlay_blocking`): a consent wall, a newsletter popup, an opened modal. A
// layer that lets clicks through (pointer-events:none) is not hit; a cookie bar at the edge,
// a sticky header or a closed off-canvas menu is not at the centre.
// Not element.checkVisibility(): it is false for display:contents wrappers, for the visible
// children of an opacity:0 display:contents wrapper and for the contents of closed <details>
// and hidden="until-found" (all kept here), and it is blind to transforms and clipping. The
// ancestors of a selection's container, which the walk does not visit, get the same rules.

/**
 * Serialize the page the user sees. Runs in the page.
 *
 * options: {mode?: "auto"|"article"|"selection"|"full", maxNodes?: number, maxChars?: number}
 *   maxNodes (default 100,000): DOM nodes (elements and text, head elements too) visited; the
 *     host keeps at most 10,000 elements after its own pruning, so this is generous.
 *   maxChars (default 8,000,000): characters of HTML written, head included (the closing tags
 *     of the elements still open are added after it); far below the host's 48 MiB page bound
 *     and the browsers' 64 MiB message bound. JSON-LD: at most 262,144 characters a block and
 *     min(1 MiB, maxChars / 4) in all; <meta>/<link> tags: min(256 KiB, maxChars / 8).
 * Returns {url, title, html, selection_html, canonical_url, lang, mode, truncated}:
 * selection_html is the selection (all ranges) in mode "selection", else null; truncated says a
 * budget or cap left part of the page (or the selection) out.
 */
export function serializePage(options = {}) {
  const MODES = ["auto", "article", "selection", "full"];
  const mode = MODES.includes(options?.mode) ? options.mode : "auto";
  const limit = (value, fallback) => (Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback);
  const maxNodes = limit(options?.maxNodes, 100_000);
  const maxChars = limit(options?.maxChars, 8_000_000);
  const MAX_ATTRIBUTE_CHARS = 8_192; // longer values (inline data: images) are dropped
  const MAX_ATTRIBUTES = 256; // per element, as the host keeps
  // The head is the page's own too: its metadata counts against maxChars and has caps of its
  // own (at most a quarter of the budget), so a page cannot make its capture too big to save.
  const MAX_TITLE_CHARS = 2_000; // as the host keeps
  const MAX_JSON_LD_CHARS = 262_144; // per block (the host skips blocks over 500,000 anyway)
  const MAX_JSON_LD_TOTAL = Math.min(1_048_576, Math.floor(maxChars / 4)); // all blocks, head and body
  const MAX_HEAD_TAGS_CHARS = Math.min(262_144, Math.floor(maxChars / 8)); // <meta> and <link> tags
  const DROPPED = new Set(["script", "style", "template", "noscript", "head", "title", "base"]);
  const VOID = new Set([
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
  ]);
  const URL_ATTRIBUTES = new Set(["href", "src", "poster", "cite"]);
  const IMAGE_SOURCE_ATTRIBUTES = new Set(["src", "srcset", "data-src", "data-lazy-src", "data-srcset"]);
  const REPLACED = new Set(["iframe", "frame", "video", "audio", "canvas", "object", "select", "textarea"]);
  const UNBOXED = new Set([
    "inline", "table-row", "table-row-group", "table-header-group", "table-footer-group",
    "table-column", "table-column-group", "ruby-base", "ruby-text",
  ]);
  const XHTML = "http://www.w3.org/1999/xhtml";
  // The elements a page may attach a shadow root to (besides custom elements): attachShadow's
  // list in the HTML standard (declarative shadow roots take the same).
  const SHADOW_HOSTS = new Set([
    "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "main", "nav", "p", "section", "span",
  ]);
  const FAINT = 0.05; // opacity or colour alpha below this: nothing a reader can make out
  // Transitioned properties that reveal a transparent, a flattened, a zero-area box.
  const FADES = new Set(["all", "opacity"]);
  const UNFOLDS = new Set(["all", "transform", "scale", "rotate"]);
  const GROWS = new Set([
    "all", "height", "max-height", "min-height", "width", "max-width", "min-width",
    "block-size", "max-block-size", "min-block-size", "inline-size", "max-inline-size", "min-inline-size",
  ]);
  const ATTRIBUTE_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*$/;
  const LANG_TAG = /^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/; // the host's pattern for `lang`
  // full: the walk stops (nodes or characters ran out); truncated: something was left out.
  const budget = { nodes: 0, chars: 0, jsonLd: 0, headTags: 0, full: false, truncated: false };
  const OWN_PREFIX = "data-laika-"; // attributes the capture writes; the page's are left out
  const OVERLAY_MARK = "data-laika-overlay";
  const MAX_SHADOW_HOPS = 32; // nested shadow roots followed down from the centre's hit
  let overlay = null; // the layer over the middle of the page (see the module comment)

  const escapeText = (text) => text.replace(/[&<>\u00a0]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\u00a0": "&nbsp;" })[c]);
  const escapeAttribute = (text) => text.replace(/[&"\u00a0]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "\u00a0": "&nbsp;" })[c]);
  // The first `n` UTF-16 units of `text`, never half a surrogate pair: a lone surrogate makes
  // the whole message invalid JSON for the host (`bad_json`).
  const cut = (text, n) => (text.length <= n ? text : text.slice(0, /[\uD800-\uDBFF]/.test(text[n - 1] ?? "") ? n - 1 : n));
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
      if (key.startsWith("on") || key === "style" || key === "hidden" || key.startsWith(OWN_PREFIX)) continue;
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
    if (element === overlay) out += ` ${OVERLAY_MARK}`;
    return out;
  }

  // The alpha of a computed colour ("rgba(0, 0, 0, 0)", "color(srgb 1 0 0 / 0.5)", ...).
  function alpha(color) {
    if (color === "transparent") return 0;
    const inner = color.slice(color.indexOf("(") + 1, color.lastIndexOf(")"));
    const slash = inner.lastIndexOf("/");
    const parts = slash >= 0 ? [inner.slice(slash + 1)] : inner.split(",");
    if (slash < 0 && parts.length !== 4) return 1;
    const last = parts[parts.length - 1].trim();
    const value = parseFloat(last);
    if (!Number.isFinite(value)) return 1;
    return last.endsWith("%") ? value / 100 : value;
  }

  // Whether the element's transform (or `scale`) leaves its box no area on screen: the
  // 2D part of the computed matrix has (nearly) zero determinant.
  function flattened(style) {
    const transform = style.transform;
    if (transform && transform !== "none") {
      const v = transform.slice(transform.indexOf("(") + 1, transform.lastIndexOf(")")).split(",").map(Number);
      const [a, b, c, d] = v.length === 16 ? [v[0], v[1], v[4], v[5]] : v;
      if (Math.abs(a * d - b * c) < 1e-4) return true;
    }
    const scale = style.scale;
    if (scale && scale !== "none") {
      const [x, y = x] = scale.trim().split(/\s+/).map(Number);
      if (Math.abs(x * y) < 1e-4) return true;
    }
    return false;
  }

  // Whether the element is about to appear from what hides it: it runs a CSS animation, or
  // it transitions one of `properties` (the ones that hide it) for a non-zero duration. The
  // computed lists pair by index, the durations repeating when shorter (CSS Transitions).
  function appearing(style, properties) {
    if ((style.animationName || "none").split(",").some((name) => name.trim() !== "none")) return true;
    const names = (style.transitionProperty || "").split(",");
    const durations = (style.transitionDuration || "0s").split(",");
    return names.some((name, i) => properties.has(name.trim()) && parseFloat(durations[i % durations.length]) > 0);
  }

  // Whether the box starts below the viewport: reveal-on-scroll sections wait there, often
  // faded or scaled in by script (framer-motion, GSAP) with no CSS transition to see. A box
  // in or above the viewport that is still transparent is one the reader does not see.
  function belowTheFold(element) {
    const view = element.ownerDocument.defaultView;
    return !!view && element.getBoundingClientRect().top >= view.innerHeight;
  }

  // Whether a box rule hides the element with all it contains (see the module comment).
  function unseenBox(element, name, style) {
    const display = style.display;
    if (display === "contents") return false; // no box of its own: none of these apply
    if (parseFloat(style.opacity) < FAINT) return !appearing(style, FADES) && !belowTheFold(element);
    if (UNBOXED.has(display)) return false; // transforms, containment, overflow skip these boxes
    if (flattened(style)) return !appearing(style, UNFOLDS) && !belowTheFold(element);
    if (style.contentVisibility === "hidden" && element.getAttribute("hidden")?.toLowerCase() !== "until-found") return true;
    if (VOID.has(name) || REPLACED.has(name) || element.namespaceURI !== XHTML) return false;
    const clipsX = style.overflowX !== "visible";
    const clipsY = style.overflowY !== "visible";
    const zeroArea = (clipsY && element.clientHeight === 0) || (clipsX && element.clientWidth === 0);
    return zeroArea && !appearing(style, GROWS);
  }

  // Whether the element's own text is painted (see the module comment).
  function inked(style) {
    if (style.visibility !== "visible" || parseFloat(style.fontSize) < 1) return false;
    if (alpha(style.getPropertyValue("-webkit-text-fill-color") || style.color) >= FAINT) return true;
    if (parseFloat(style.getPropertyValue("-webkit-text-stroke-width")) > 0) return true;
    const clip = style.getPropertyValue("background-clip") + style.getPropertyValue("-webkit-background-clip");
    return clip.includes("text") && (style.backgroundImage !== "none" || alpha(style.backgroundColor) >= FAINT);
  }

  // The element's computed style when it renders, else null: the `hidden` attribute (but
  // not hidden="until-found", which find-in-page reveals), aria-hidden="true", display:none,
  // the box rules. Children of a closed <details> keep their own display (only the details'
  // content slot, in its UA shadow root the walk does not enter, is hidden), so they pass and
  // their text is kept.
  function renderedStyle(element, name) {
    const hidden = element.getAttribute("hidden");
    if (hidden !== null && hidden.toLowerCase() !== "until-found") return null;
    if (element.getAttribute("aria-hidden")?.trim().toLowerCase() === "true") return null;
    if (name === "link" && element.relList.contains("stylesheet")) return null;
    const style = element.ownerDocument.defaultView?.getComputedStyle(element);
    if (!style) return { visibility: "visible", inked: true };
    if (style.display === "none" || unseenBox(element, name, style)) return null;
    return { visibility: style.visibility, inked: inked(style) };
  }

  // Whether the ancestors the walk does not visit (above a selection's container, up to the
  // body) let it show, by the same rules as the walk, along the flat tree.
  function ancestorsShow(element) {
    const doc = element.ownerDocument;
    let node = element;
    for (;;) {
      node = node.assignedSlot ?? node.parentElement ?? node.parentNode?.host ?? null;
      if (!node || node === doc.body || node === doc.documentElement) return true;
      if (!renderedStyle(node, node.localName)) return false;
    }
  }

  // The page's own shadow root (open or closed) of the element, else null. Only a custom
  // element or one of SHADOW_HOSTS can have one; any other shadow root is the browser's own
  // widget, which is not the page's content. Firefox's openOrClosedShadowRoot (an extension's
  // privilege) returns those too: a <details>' root holds a summary slot and a content slot,
  // and Firefox 140's UA sheet (res/details.css) makes that slot content-visibility:hidden
  // while the details is closed, so walking it dropped the closed details' text kept on
  // purpose here (and wrote the UA's <slot>s). <video>, <audio>, <input>, <marquee> have UA
  // roots too (controls and their labels). Chromium's chrome.dom returns no UA roots.
  function shadowRootOf(element) {
    const name = element.localName;
    if (element.namespaceURI !== XHTML || !(name.includes("-") || SHADOW_HOSTS.has(name))) return null;
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

  // Whether `length` more characters fit in maxChars; if not, the page is marked cut.
  function fits(length) {
    if (budget.chars + length <= maxChars) return true;
    budget.truncated = true;
    return false;
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
      text = cut(text, Math.max(0, room));
      budget.truncated = budget.full = true;
    }
    if (text) write(parts, escapeText(text));
  }

  // One JSON-LD block, within its caps; a block left out marks the page cut.
  function emitJsonLd(parts, script) {
    const json = script.textContent ?? "";
    if (json.length > MAX_JSON_LD_CHARS) {
      budget.truncated = true;
      return;
    }
    // every "<" as \u003c: the same JSON, and no "</script" or "<!--" for an HTML parser to
    // act on (a "<!--<script>" would hide all the page after it from the host)
    const tag = `<script type="application/ld+json">${json.replace(/</g, "\\u003c")}</script>`;
    if (budget.jsonLd + tag.length > MAX_JSON_LD_TOTAL || !fits(tag.length)) {
      budget.truncated = true;
      return;
    }
    budget.jsonLd += tag.length;
    write(parts, tag);
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
    // visibility:hidden (font-size, colour) is inherited but a child may set it back: keep
    // the element, drop its own text, and let each child decide
    const visible = style.visibility === "visible";
    const inked = style.inked;
    const inner = range && !contains(range, element) ? range : null;
    if (name === "iframe" || name === "frame") {
      const body = frameBody(element);
      if (!body) return; // cross-origin (or not loaded): the host cannot see it either
      const source = element.src ? ` data-laika-frame="${escapeAttribute(element.src)}"` : " data-laika-frame";
      const open = `<div${source}>`;
      if (!fits(open.length)) {
        budget.full = true;
        return;
      }
      write(parts, open);
      stack.push("</div>");
      pushChildren(stack, body.childNodes, inked, null);
      return;
    }
    if (!visible && VOID.has(name)) return; // an invisible image shows nothing
    const open = `<${name}${attributes(element, name)}>`;
    if (!fits(open.length + 1)) {
      budget.full = true;
      return;
    }
    write(parts, open);
    if (VOID.has(name)) return;
    if (name === "pre" || name === "textarea" || name === "listing") write(parts, "\n"); // the parser eats one
    stack.push(`</${name}>`);
    const shadow = shadowRootOf(element);
    if (shadow) {
      pushChildren(stack, shadow.childNodes, inked, null);
      return;
    }
    if (name === "slot") {
      const assigned = element.assignedNodes();
      pushChildren(stack, assigned.length ? assigned : element.childNodes, inked, null);
      return;
    }
    pushChildren(stack, element.childNodes, inked, inner);
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
      if (budget.full) continue;
      if (budget.nodes >= maxNodes || budget.chars >= maxChars) {
        budget.truncated = budget.full = true;
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

  // The head keeps what the host reads for metadata: title, meta tags, non-style links,
  // JSON-LD; each counted (elements against maxNodes, characters against maxChars and caps).
  function headHtml() {
    const parts = [];
    write(parts, `<head><title>${escapeText(cut(document.title, MAX_TITLE_CHARS))}</title>`);
    for (const element of document.head?.children ?? []) {
      if (budget.nodes >= maxNodes) {
        budget.truncated = true;
        break;
      }
      budget.nodes++;
      const name = element.localName;
      if (name === "script" && element.type?.trim().toLowerCase() === "application/ld+json") {
        emitJsonLd(parts, element);
      } else if ((name === "meta" && element.hasAttribute("content")) ||
        (name === "link" && !element.relList.contains("stylesheet"))) {
        emitHeadTag(parts, `<${name}${attributes(element, name)}>`);
      }
    }
    write(parts, "</head>");
    return parts.join("");
  }

  function emitHeadTag(parts, tag) {
    if (budget.headTags + tag.length > MAX_HEAD_TAGS_CHARS || !fits(tag.length)) {
      budget.truncated = true;
      return;
    }
    budget.headTags += tag.length;
    write(parts, tag);
  }

  // Whether the element sits in the top layer over the page: a <dialog> opened with
  // showModal(), a fullscreen element (`:modal`; a browser without it throws).
  function topLayer(element) {
    try {
      return element.matches(":modal");
    } catch {
      return false;
    }
  }

  // The layer over the middle of the viewport (see the module comment), else null: what the
  // browser hit-tests at the centre (through the page's shadow roots), then its outermost
  // fixed-position or top-layer ancestor along the flat tree.
  function centreLayer() {
    const view = document.defaultView;
    if (!view || typeof document.elementFromPoint !== "function") return null;
    const x = view.innerWidth / 2;
    const y = view.innerHeight / 2;
    let hit = document.elementFromPoint(x, y);
    for (let hops = 0; hit && hops < MAX_SHADOW_HOPS; hops++) {
      const inner = shadowRootOf(hit)?.elementFromPoint?.(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    let layer = null;
    for (let node = hit; node && node !== document.body && node !== document.documentElement;
      node = node.assignedSlot ?? node.parentElement ?? node.parentNode?.host ?? null) {
      if (view.getComputedStyle(node).position === "fixed" || topLayer(node)) layer = node;
    }
    return layer;
  }

  function pageHtml() {
    const root = document.documentElement;
    const lang = root.getAttribute("lang");
    const dir = root.getAttribute("dir");
    const open = `<html${lang ? ` lang="${escapeAttribute(lang)}"` : ""}${dir ? ` dir="${escapeAttribute(dir)}"` : ""}>`;
    const head = headHtml(); // first: its caps keep it to a quarter of the budget
    const body = document.body;
    const content = body ? serialize(Array.from(body.childNodes), true, null) : "";
    return `<!DOCTYPE html>${open}${head}<body>${content}</body></html>`;
  }

  function selectionHtml() {
    const selection = globalThis.getSelection?.();
    if (!selection || selection.isCollapsed) return null;
    const pieces = [];
    for (let i = 0; i < selection.rangeCount; i++) {
      const range = selection.getRangeAt(i);
      if (range.collapsed) continue;
      const common = range.commonAncestorContainer;
      const container = common.nodeType === Node.ELEMENT_NODE ? common : common.parentElement;
      if (container && !ancestorsShow(container)) continue;
      if (common.nodeType === Node.TEXT_NODE) {
        const style = container && renderedStyle(container, container.localName);
        pieces.push(serialize([common], Boolean(!container || style?.inked), range));
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

  // A language tag as the host takes it (schema/native: `lang`); a page's broken attribute
  // (`<html lang="lang="de-DE"">` parses to "lang=") is left out, not sent to be refused.
  function language() {
    const lang = document.documentElement.getAttribute("lang")?.trim();
    return lang && lang.length <= 35 && LANG_TAG.test(lang) ? lang : null;
  }

  const selection_html = mode === "selection" ? selectionHtml() : null;
  overlay = centreLayer(); // the page only: a selection is what the reader chose to read
  const html = pageHtml();
  return {
    url: location.href,
    title: cut(document.title, MAX_TITLE_CHARS),
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

const PAGE_KEYS = ["title", "selection_html", "canonical_url", "lang", "mode"];
const MAX_QUESTION = 4_000; // code points, as the host counts (page.summarize `question`)

/**
 * The `sources.save_page` payload from serializePage's result: only the keys the host knows
 * (it rejects unknown ones), without nulls. tests/js/payloads.test.mjs validates it against
 * schema/native with real captures of the capture-dev corpus.
 */
export function savePagePayload(page, collection) {
  const payload = { url: page.url, html: page.html };
  if (collection) payload.collection = collection;
  for (const key of PAGE_KEYS) {
    if (page[key] !== null && page[key] !== undefined) payload[key] = page[key];
  }
  return payload;
}

/**
 * The `page.summarize` payload ("Ask about this page"): the page as `savePagePayload` sends it
 * (the host stores it the same way; the default mode "auto" left out), the question typed in
 * the box (blank: the host summarizes the page) and the provider chosen, if any.
 */
export function askPagePayload(page, { collection = undefined, provider = undefined, question = undefined } = {}) {
  const payload = savePagePayload(page, collection);
  if (payload.mode === "auto") delete payload.mode;
  const asked = typeof question === "string" ? question.trim() : "";
  if (asked) payload.question = [...asked].slice(0, MAX_QUESTION).join("");
  if (provider) payload.provider = provider;
  return payload;
}
