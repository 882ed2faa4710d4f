// Small functions the background injects into a page with scripting.executeScript({func}).
// Each is self-contained (no imports or outer variables used inside): only its source is sent.

/** True when the page's visible text holds the quote's words (case, spacing and punctuation
 * ignored), the same loose match a text fragment makes. Linear in the page's text. */
export function findQuoteInPage(quote) {
  const words = (text) =>
    String(text ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  const wanted = words(quote);
  if (!wanted) return false;
  return ` ${words(document.body?.innerText)} `.includes(` ${wanted} `);
}

/** The http(s) links inside the current selection, each once: [{url, text}]. */
export function selectionLinks() {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed) return [];
  const seen = new Set();
  const links = [];
  for (let i = 0; i < selection.rangeCount; i++) {
    const range = selection.getRangeAt(i);
    const root = range.commonAncestorContainer;
    const scope = root.nodeType === 1 ? root : root.parentElement;
    const anchors = scope?.closest?.("a[href]") ? [scope.closest("a[href]")] : [];
    anchors.push(...(scope?.querySelectorAll?.("a[href]") ?? []));
    for (const anchor of anchors) {
      if (!range.intersectsNode(anchor)) continue;
      const url = anchor.href;
      if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
      seen.add(url);
      links.push({ url, text: (anchor.textContent ?? "").trim().slice(0, 300) || url });
    }
  }
  return links;
}
