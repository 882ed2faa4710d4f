// What to show while an answer streams. A model's raw output is an LLMCP JSON reply
// ({"assistant": {"markdown": "..."}, "citations": [...]}), so the deltas are JSON text; the
// reader wants the answer's words. One forward pass over the text (linear, no regex
// backtracking): find the first "markdown" key's string value and decode it as far as it has
// arrived. Anything that is not such JSON is shown as it came.

const KEY = '"markdown"';
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** The answer text so far: the decoded markdown string of an LLMCP reply, or the raw text. */
export function streamingPreview(raw) {
  const text = String(raw ?? "");
  if (!text.trimStart().startsWith("{")) return text;
  const key = text.indexOf(KEY);
  if (key < 0) return "";
  let i = key + KEY.length;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== ":") return "";
  i++;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== '"') return "";
  return decodeString(text, i + 1);
}

const RUN = /[^"\\]+/y; // a stretch with no quote and no backslash (one character class: linear)

/** Decode a JSON string body from `start` up to its closing quote or the end of the text. */
function decodeString(text, start) {
  const out = [];
  let i = start;
  while (i < text.length) {
    RUN.lastIndex = i;
    const run = RUN.exec(text);
    if (run) {
      out.push(run[0]);
      i += run[0].length;
      continue;
    }
    if (text[i] === '"') break;
    const next = text[i + 1]; // text[i] is a backslash
    if (next === undefined) break; // the escape has not fully arrived
    if (next === "u") {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break; // not fully arrived (or broken): stop here
      out.push(String.fromCharCode(Number.parseInt(hex, 16)));
      i += 6;
      continue;
    }
    out.push(ESCAPES[next] ?? next);
    i += 2;
  }
  return out.join("");
}
