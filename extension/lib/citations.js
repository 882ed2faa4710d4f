// Citations as the panel shows and opens them; pure (no DOM, no chrome.*), so node tests it.
//
// A citation comes from the host (`chat.ask` / `page.summarize` results, docs/PROTOCOL.md):
// {source_id, doc_id, url, quote, locator, heading, verified, method, reason, marker, title, state}.
// `locator` is the host-built text-fragment URL (`url#:~:text=...`, with `,`, `-` and `&`
// percent-encoded by the host). Nothing here trusts it: only an absolute http(s) URL is opened.

const STATES = new Set(["verified", "unverified", "rejected"]);
const LABEL_CHARS = 32; // a chip's title, at most (with its "[n] " it fits the chip at 360 px)
const OPENABLE = new Set(["http:", "https:"]);
const MARKER = /\[(\d{1,3})\]/g; // the host's marker syntax (agent/verify.py); linear

/**
 * What a chip shows and does for one citation: its own source's title, shortened at a word
 * boundary (`label`), the whole title for the tooltip (`title`).
 * @param {object} citation as the host sent it
 * @param {number} [index] its 0-based place in the result's list (the marker when none is set)
 * @param {string} [short] the shortened title to show (chipModels picks one per answer)
 * @returns {{marker: number|null, label: string, title: string, quote: string,
 *   state: "verified"|"unverified"|"rejected", reason: string|null, href: string|null}}
 */
export function chipModel(citation, index, short = undefined) {
  const marker = Number.isInteger(citation.marker)
    ? citation.marker
    : Number.isInteger(index) ? index + 1 : null;
  const state = stateOf(citation);
  const title = titleOf(citation);
  const shown = short ?? shortTitle(title);
  return {
    marker,
    label: marker === null ? shown : `[${marker}] ${shown}`,
    title,
    quote: typeof citation.quote === "string" ? citation.quote : "",
    state,
    reason: state === "verified" ? null : (citation.reason || null),
    href: state === "verified" ? openableUrl(citation.locator) : null,
  };
}

/**
 * The chips of one answer: each shows its own source's title, shortened; when sources with
 * different titles would show the same shortened one (titles that start with the same site
 * name), the words their titles share at the start are left out ("… the part that differs").
 * @param {object[]} citations
 */
export function chipModels(citations) {
  const items = Array.isArray(citations) ? citations : [];
  const titles = items.map((citation) => titleOf(citation));
  const shorts = titles.map((title) => shortTitle(title));
  const clashes = new Map(); // a short title -> the different full titles showing it
  shorts.forEach((short, i) => clashes.set(short, new Set([...(clashes.get(short) ?? []), titles[i]])));
  return items.map((citation, i) => {
    const rivals = [...clashes.get(shorts[i])];
    return chipModel(citation, i, rivals.length > 1 ? distinctPart(titles[i], rivals) : shorts[i]);
  });
}

/**
 * `title` cut to at most `max` characters at a word boundary, with an ellipsis when cut
 * (trailing separators such as "|", "-" or ":" dropped before it); a first word longer than
 * `max` is cut inside. Linear in the title's length.
 */
export function shortTitle(title, max = LABEL_CHARS) {
  const text = String(title ?? "").replace(/\s+/g, " ").trim();
  const chars = [...text];
  if (chars.length <= max) return text;
  let cut = chars.slice(0, max).join("");
  const space = cut.lastIndexOf(" ");
  if (space > 0) cut = cut.slice(0, space);
  else cut = chars.slice(0, max - 1).join("");
  let end = cut.length;
  while (end > 0 && SEPARATORS.has(cut[end - 1])) end -= 1;
  return `${cut.slice(0, end) || cut}…`;
}

const SEPARATORS = new Set([" ", "|", "-", "–", "—", ":", ",", ";", "/", "·", "•", "."]);

/** The part of `title` its rivals do not share at the start (whole words), shortened. */
function distinctPart(title, rivals) {
  const words = (text) => text.split(" ");
  const own = words(title);
  let shared = own.length;
  for (const rival of rivals) {
    if (rival === title) continue;
    const other = words(rival);
    let same = 0;
    while (same < Math.min(shared, other.length) && own[same] === other[same]) same += 1;
    shared = same;
  }
  const rest = own.slice(shared).join(" ");
  let start = 0;
  while (start < rest.length && SEPARATORS.has(rest[start])) start += 1;
  const tail = rest.slice(start);
  return tail ? `…${shortTitle(tail, LABEL_CHARS - 1)}` : shortTitle(title);
}

/** The host's `state`, or one derived from `verified` for a host that predates it. */
function stateOf(citation) {
  if (STATES.has(citation.state)) return citation.state;
  return citation.verified === true ? "verified" : "unverified";
}

/** The source's title, else its host name, else a generic word: a chip always has a name. */
function titleOf(citation) {
  const title = typeof citation.title === "string" ? citation.title.trim() : "";
  if (title) return title;
  const url = parseUrl(citation.url);
  return url && url.hostname ? url.hostname : "Source";
}

/**
 * `value` as an absolute http(s) URL (the URL parser's serialization), or null.
 * @param {unknown} value
 */
export function openableUrl(value) {
  const url = parseUrl(value);
  return url && OPENABLE.has(url.protocol) ? url.href : null;
}

function parseUrl(value) {
  if (typeof value !== "string" || !value) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * Whether two URLs name the same document: equal once parsed, ignoring the #fragment
 * (and so the `:~:text=` directive inside it).
 */
export function sameDocument(a, b) {
  const left = parseUrl(a);
  const right = parseUrl(b);
  if (!left || !right) return false;
  left.hash = "";
  right.hash = "";
  return left.href === right.href;
}

/**
 * The open tab already showing `url`'s document, or null: the active one first, then the
 * one used last. `tabs` are browser tab objects ({id, url, active?, lastAccessed?}).
 */
export function pickTab(tabs, url) {
  const showing = tabs.filter((tab) => tab && sameDocument(tab.url, url));
  if (!showing.length) return null;
  const rank = (tab) => [tab.active ? 1 : 0, Number(tab.lastAccessed) || 0];
  return showing.reduce((best, tab) => {
    const [activeA, usedA] = rank(best);
    const [activeB, usedB] = rank(tab);
    return activeB > activeA || (activeB === activeA && usedB > usedA) ? tab : best;
  });
}

/**
 * The answer as Markdown to copy: each `[n]` marker of a known citation becomes the footnote
 * reference `[^n]`, and one footnote per cited citation follows:
 * `[^n]: "quote" — Title, <URL>` (+ ` (unverified: reason)`). Quote and title are escaped so
 * page text cannot turn into markup; the URL is the text-fragment one when verified.
 * @param {{answer_markdown: string, citations?: object[]}} answer
 */
export function answerAsMarkdown(answer) {
  const citations = Array.isArray(answer.citations) ? answer.citations : [];
  const body = String(answer.answer_markdown ?? "").replace(MARKER, (whole, digits) => {
    const number = Number(digits);
    return number >= 1 && number <= citations.length ? `[^${number}]` : whole;
  });
  const notes = citations.map((citation, index) => footnote(citation, index + 1));
  return notes.length ? `${body.trimEnd()}\n\n${notes.join("\n")}\n` : body;
}

function footnote(citation, number) {
  const chip = chipModel(citation, number - 1);
  const url = chip.href ?? openableUrl(citation.url);
  let line = `[^${number}]: "${escapeMarkdown(chip.quote)}" — ${escapeMarkdown(chip.title)}`;
  if (url) line += `, <${url}>`;
  if (chip.state !== "verified") {
    line += ` (${chip.state}${chip.reason ? `: ${escapeMarkdown(chip.reason)}` : ""})`;
  }
  return line;
}

/**
 * `text` as Markdown inline content that renders to exactly that text on one line: every
 * ASCII punctuation character is backslash-escaped (CommonMark allows it for all of them) and
 * line breaks become spaces, so a quote cannot open a list, a heading, a link or a footnote.
 */
export function escapeMarkdown(text) {
  return String(text)
    .replace(/\s+/g, " ")
    .replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`);
}
