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
