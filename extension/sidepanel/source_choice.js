// Which sources answers read, per collection, as the user ticks them on the source list
// (NotebookLM's checkboxes): every source unless unticked, so a source saved later is read.
// `chat.ask` gets the unticked ones as `skip_sources` (chat.js); the chat shows how many.

/** The unticked sources of each collection, for this panel's life. */
export class SourceChoice {
  constructor() {
    this.skipped = new Map(); // collection -> Set of source ids
    this.listed = new Map(); // collection -> how many sources its list last showed
  }

  /** How many sources the collection's list last showed (null: not listed yet). */
  total(collection) {
    return this.listed.get(collection) ?? null;
  }

  uses(collection, sourceId) {
    return !this.skipped.get(collection)?.has(sourceId);
  }

  /** Tick (`used`) or untick one source; returns whether anything changed. */
  set(collection, sourceId, used) {
    if (typeof collection !== "string" || typeof sourceId !== "string") return false;
    const left = this.skipped.get(collection) ?? new Set();
    if (used === !left.has(sourceId)) return false;
    if (used) left.delete(sourceId);
    else left.add(sourceId);
    if (left.size) this.skipped.set(collection, left);
    else this.skipped.delete(collection);
    return true;
  }

  /** Forget ids the collection no longer holds (deleted, moved): `present` is its list. */
  keepOnly(collection, present) {
    const ids = new Set(present);
    this.listed.set(collection, ids.size);
    const left = this.skipped.get(collection);
    if (!left) return;
    for (const id of [...left]) if (!ids.has(id)) left.delete(id);
    if (!left.size) this.skipped.delete(collection);
  }

  leftOut(collection) {
    return [...(this.skipped.get(collection) ?? [])];
  }
}

/** The line under the question box: how many sources answers leave out, or null. */
export function choiceLine(leftOut, total) {
  if (!leftOut) return null;
  const read = Math.max(0, total - leftOut);
  if (!read) return "Every source is unticked: answers have nothing to read. Tick a source on the Sources tab.";
  const noun = (n) => (n === 1 ? "source" : "sources");
  return `Answers read ${read} of ${total} ${noun(total)}: ${leftOut} ${noun(leftOut)} unticked on the Sources tab.`;
}
