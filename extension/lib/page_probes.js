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

/** Show the quote on the page the way a text fragment would, whatever the browser did with
 * the `#:~:text=` directive (Chromium ignores it when an extension navigates a tab, and when
 * the tab already shows the page): the quote's words found as findQuoteInPage finds them,
 * scrolled to the middle of the view unless already in it, and selected (the browser's own
 * highlight; the page's DOM is not changed). Returns true when the page holds the words. */
export function showQuoteInPage(quote) {
  const words = (text) =>
    String(text ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  const wanted = words(quote);
  if (!wanted || !` ${words(document.body?.innerText)} `.includes(` ${wanted} `)) return false;
  // The same words in the text nodes, mapped back to where they are: a pass over the text
  // with a space where one text node ends (a block ends), else one without (a word split
  // across inline elements, <b>W</b>ord).
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA"]);
  const locate = (boundaries) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (SKIP.has(node.parentElement?.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    let flat = " ";
    const from = []; // for each character of `flat` after the first: [node, offset]
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data.toLowerCase();
      for (let i = 0; i < text.length; i++) {
        if (/[\p{L}\p{N}]/u.test(text[i])) {
          flat += text[i];
          from.push([node, i]);
        } else if (!flat.endsWith(" ")) {
          flat += " ";
          from.push([node, i]);
        }
      }
      if (boundaries && !flat.endsWith(" ")) {
        flat += " ";
        from.push([node, text.length]);
      }
    }
    const at = flat.indexOf(` ${wanted} `); // at: the space before the quote's first word
    return at < 0 ? null : { from, at };
  };
  const found = locate(true) ?? locate(false);
  if (!found) return true; // the visible text holds it, laid out in a way the nodes do not show
  const { from, at } = found;
  const [startNode, startOffset] = from[at];
  const [endNode, endOffset] = from[at + wanted.length - 1];
  const range = document.createRange();
  range.setStart(startNode, startOffset);
  range.setEnd(endNode, Math.min(endOffset + 1, endNode.data.length));
  const inView = () => {
    const box = range.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight ? null : box;
  };
  if (inView()) {
    startNode.parentElement?.scrollIntoView({ block: "center" }); // inner scrollers too
    const box = inView(); // a tall element: centred, its quote may still be out of view
    if (box) window.scrollBy(0, box.top - window.innerHeight / 3);
  }
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  return true;
}
