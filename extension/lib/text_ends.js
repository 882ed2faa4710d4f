// Trimming characters off a text's ends with a loop. A regex such as /[.\s]*$/ or /[.\s]+$/
// does the same in one line but in quadratic time: the engine tries a match at every dot or
// space of a run, scans to the run's end each time, and fails there when something else
// follows (20,000 dots then "x" took 1 s). Error messages and file names come from the host,
// the model and pages, so their length is not ours to choose.

/** Whether `character` is a full stop or white space (what a regex's \s accepts). */
export function isStopOrSpace(character) {
  return character === "." || /\s/.test(character);
}

/** `text` without the characters at its end for which `drop(character)` holds. */
export function withoutTrailing(text, drop) {
  let end = text.length;
  while (end > 0 && drop(text[end - 1])) end -= 1;
  return text.slice(0, end);
}

/** `text` without the characters at its start for which `drop(character)` holds. */
export function withoutLeading(text, drop) {
  let start = 0;
  while (start < text.length && drop(text[start])) start += 1;
  return text.slice(start);
}
