// The extension's regexes, found with a JavaScript parser and timed on adversarial input built
// from each pattern: the twin of tests/test_regex_linear.py. The extension applies regexes to
// page text, model text and host messages, all hostile; one that backtracks can freeze the
// panel or the page (/[.…\s]*$/ took 1 s on 20,000 dots). Run as a script, it audits every
// regex and prints one JSON line each, so that the test can run it in a child process and
// name the culprit when a regex backtracks exponentially and never returns.

import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseJs } from "acorn";
import { parseRegExpLiteral } from "@eslint-community/regexpp";

import { bestMs, growth } from "./complexity.mjs";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
export const EXTENSION = join(REPO, "extension");

export const SMALL = 5_000;
export const LARGE = 40_000;
/** 8x the input: linear time grows about 8x, quadratic 64x. */
export const MAX_GROWTH = 24;
/** For 40,000 characters a linear regex takes a few milliseconds at most. */
export const MAX_MS = 250;
/** A regex done with the large input within this many milliseconds needs no closer look. */
const QUICK_MS = 2;
const SUSPECTS = 3;
const MAX_INPUTS = 160;
const POOL = [
  ..."0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  ..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\v\f",
  ..."\u00a0\u00e9\u00df\u2014\u201c\u200b\u2026\u4e2d\u{1f600}",
];

// --- finding the regexes ---------------------------------------------------------------------

/** Every *.js file under `root`, sorted. */
export function sourceFiles(root = EXTENSION) {
  const found = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".js")) found.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return found.sort();
}

/** Each node of an acorn tree with its parent, depth first. */
function* walk(node, parent = null) {
  yield [node, parent];
  for (const [key, value] of Object.entries(node)) {
    if (key === "regex" || !value || typeof value !== "object") continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child && typeof child.type === "string") yield* walk(child, node);
    }
  }
}

const STRING_METHODS = new Set(["replace", "replaceAll", "split", "match", "matchAll", "search"]);
const REGEX_METHODS = new Set(["test", "exec"]);

/** What the code does with the expression `node` (a regex or a name bound to one): "test",
 * "exec", "replace", ...; null when it is passed on somewhere this audit cannot follow. */
function useOf(node, parent, grand) {
  if (parent?.type === "MemberExpression" && parent.object === node && !parent.computed) {
    const name = parent.property.name;
    if (REGEX_METHODS.has(name) && grand?.type === "CallExpression" && grand.callee === parent) return name;
  }
  if (parent?.type === "CallExpression" && parent.arguments[0] === node) {
    const callee = parent.callee;
    if (callee.type === "MemberExpression" && !callee.computed && STRING_METHODS.has(callee.property.name)) {
      return callee.property.name;
    }
  }
  return null;
}

/** A string known from the source alone (a literal or a template without substitutions). */
function literalString(node) {
  if (node?.type === "Literal" && typeof node.value === "string") return node.value;
  if (node?.type === "TemplateLiteral" && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return undefined;
}

function isRegExpCall(node) {
  return (
    (node.type === "NewExpression" || node.type === "CallExpression") &&
    node.callee.type === "Identifier" &&
    node.callee.name === "RegExp"
  );
}

/** {regexes, dynamic}: every regex literal and RegExp(...) of literal arguments in `files`
 * ({file, line, pattern, flags, uses}), and the RegExp(...) calls built from run-time values
 * (which this audit cannot time: {file, line}). */
export function findRegexes(files = sourceFiles()) {
  const regexes = [];
  const dynamic = [];
  for (const path of files) {
    const source = readFileSync(path, "utf-8");
    const file = relative(REPO, path);
    const tree = parseJs(source, { ecmaVersion: "latest", sourceType: "module", locations: true });
    const nodes = [...walk(tree)];
    const parents = new Map(nodes);
    for (const [node, parent] of nodes) {
      let pattern;
      let flags;
      if (node.type === "Literal" && node.regex) {
        ({ pattern, flags } = node.regex);
      } else if (isRegExpCall(node)) {
        pattern = literalString(node.arguments[0]);
        flags = node.arguments.length > 1 ? literalString(node.arguments[1]) : "";
        if (pattern === undefined || flags === undefined) {
          dynamic.push({ file, line: node.loc.start.line });
          continue;
        }
      } else {
        continue;
      }
      const uses = usesOf(node, parent, parents, nodes);
      regexes.push({ file, line: node.loc.start.line, pattern, flags, uses });
    }
  }
  return { regexes, dynamic };
}

/** The uses of the regex at `node`: direct (`/x/.test(s)`, `s.replace(/x/, ...)`), or through
 * the const it is bound to. An unknown use (an array of patterns, an argument) counts as
 * searching: `test`, and `replace` for a global regex. */
function usesOf(node, parent, parents, nodes) {
  const direct = useOf(node, parent, parents.get(parent));
  if (direct) return [direct];
  const uses = new Set();
  if (parent?.type === "VariableDeclarator" && parent.init === node && parent.id.type === "Identifier") {
    const name = parent.id.name;
    for (const [other, up] of nodes) {
      if (other.type !== "Identifier" || other.name !== name || other === parent.id) continue;
      if (up?.type === "MemberExpression" && up.property === other && !up.computed) continue;
      uses.add(useOf(other, up, parents.get(up)) ?? "test");
    }
  }
  if (uses.size === 0) uses.add("test");
  return [...uses].sort();
}

// --- inputs built from a pattern -------------------------------------------------------------

const isLetter = (c) => /\p{L}/u.test(c);
const isDigit = (c) => /\p{Nd}/u.test(c);
const isSpace = (c) => /\s/.test(c);

/** The pieces of a pattern that adversarial inputs are made of: the characters its classes
 * accept (and one each refuses), its literal runs, and sample matches of its parts. */
export class Inputs {
  constructor(pattern, flags) {
    this.flags = flags.replace(/[gy]/g, "");
    this.chars = [];
    this.refused = [];
    this.fragments = [];
    this.groups = new Map();
    const ast = parseRegExpLiteral(new RegExp(pattern, flags)).pattern;
    this.samples = [1, 2].map((repeat) => this.alternatives(ast.alternatives, repeat));
  }

  alternatives(options, repeat) {
    const texts = options.map((option) => this.sequence(option.elements, repeat));
    if (texts.length > 1) this.fragments.push(...texts);
    return texts[0] ?? "";
  }

  /** A string matching `elements` (repeats taken `repeat` times where allowed). */
  sequence(elements, repeat) {
    const out = [];
    let literal = "";
    for (const element of elements) {
      const piece = this.piece(element, repeat);
      if (element.type === "Character") {
        literal += piece;
        continue;
      }
      if ([...literal].length > 1) this.fragments.push(literal);
      out.push(literal, piece);
      literal = "";
    }
    if ([...literal].length > 1) this.fragments.push(literal);
    out.push(literal);
    return out.join("");
  }

  piece(node, repeat) {
    switch (node.type) {
      case "Character":
        return String.fromCodePoint(node.value);
      case "CharacterSet":
      case "CharacterClass":
      case "ExpressionCharacterClass":
        return this.charClass(node);
      case "Group":
      case "CapturingGroup": {
        const text = this.alternatives(node.alternatives, repeat);
        if (node.type === "CapturingGroup") this.groups.set(node, text);
        this.fragments.push(text);
        return text;
      }
      case "Quantifier": {
        const text = this.piece(node.element, repeat);
        this.fragments.push(text);
        return text.repeat(Math.max(node.min, Math.min(repeat, node.max)));
      }
      case "Assertion":
        if (node.alternatives) this.alternatives(node.alternatives, repeat); // its pieces, no text
        return "";
      case "Backreference": {
        const target = Array.isArray(node.resolved) ? node.resolved[0] : node.resolved;
        return this.groups.get(target) ?? "";
      }
      default:
        return "";
    }
  }

  /** A character the class accepts; records a few it accepts (a letter, a digit, a space,
   * two others, and its own literal characters) and one it refuses. */
  charClass(node) {
    const test = new RegExp(`^(?:${node.raw})$`, this.flags);
    const own = [...node.raw.matchAll(/[^\\\-\[\]^]/gu)].map((m) => m[0]);
    const pool = [...new Set([...POOL, ...own])];
    const accepted = pool.filter((c) => test.test(c));
    const refused = pool.find((c) => !test.test(c));
    if (refused !== undefined) {
      this.chars.push(refused);
      this.refused.push(refused);
    }
    const chosen = [isLetter, isDigit, isSpace].map((kind) => accepted.find(kind));
    chosen.push(...accepted.filter((c) => !isLetter(c) && !isDigit(c) && !isSpace(c)).slice(0, 2));
    chosen.push(...own.filter((c) => accepted.includes(c)).slice(0, 2));
    const picked = [...new Set(chosen.filter((c) => c !== undefined))];
    this.chars.push(...picked);
    return picked[0] ?? "";
  }

  /** The adversarial inputs as recipes for any size, most telling first. */
  recipes() {
    const samples = [...new Set(this.samples)].filter(Boolean);
    const chars = [...new Set(this.chars.filter(Boolean))].slice(0, 8);
    const ends = [...new Set(["", " ", "\u0000", ...this.refused.slice(-2)])];
    const made = [];
    for (const sample of samples) { // many unclosed constructs: prefixes of a match, repeated
      for (const cut of spread(range(1, sample.length + 1), 12)) made.push(["repeat", sample.slice(0, cut), "", ""]);
    }
    for (const fragment of spread([...new Set(this.fragments.filter(Boolean))], 16)) {
      made.push(["repeat", fragment, "", ""]);
    }
    for (const c of chars) made.push(["run", "", c, ""]); // long runs the classes accept (or refuse)
    for (const c of chars) for (const end of ends) made.push(["run", "", c, end]); // and what ends them
    for (const sample of samples.slice(0, 1)) { // one unclosed construct, a long run, its end
      for (const cut of spread(range(1, sample.length + 1), 4)) {
        for (const c of chars) for (const end of ends) made.push(["run", sample.slice(0, cut), c, end]);
      }
    }
    const unique = [...new Map(made.map((recipe) => [JSON.stringify(recipe), recipe])).values()];
    return spread(unique, MAX_INPUTS);
  }
}

function range(start, stop) {
  return Array.from({ length: Math.max(0, stop - start) }, (_, i) => start + i);
}

/** At most `count` of `items`, evenly spread (first and last included). */
function spread(items, count) {
  if (items.length <= count) return items;
  const step = (items.length - 1) / (count - 1);
  return [...new Set(range(0, count).map((i) => items[Math.round(i * step)]))];
}

/** The text of `recipe` at about `size` characters. */
export function make([kind, piece, run, end], size) {
  if (kind === "repeat") return piece.repeat(Math.max(1, Math.floor(size / piece.length)));
  return piece + run.repeat(Math.max(1, Math.floor((size - piece.length - end.length) / run.length))) + end;
}

// --- timing --------------------------------------------------------------------------------

/** What each use does with the regex, as the extension's code does it. */
const RUN = {
  test: (re, text) => {
    re.lastIndex = 0;
    re.test(text);
  },
  exec: (re, text) => {
    re.lastIndex = 0;
    if (!re.global && !re.sticky) return void re.exec(text);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) if (m[0] === "") re.lastIndex += 1;
  },
  replace: (re, text) => void text.replace(re, ""),
  replaceAll: (re, text) => void text.replaceAll(re, ""),
  split: (re, text) => void text.split(re),
  match: (re, text) => void text.match(re),
  matchAll: (re, text) => {
    for (const _ of text.matchAll(re));
  },
  search: (re, text) => void text.search(re),
};

/** `prepare(size)` for `growth`: the text built first, then an action that uses the regex. */
export function preparer({ pattern, flags, uses }, recipe) {
  const re = new RegExp(pattern, flags);
  return (size) => {
    const text = make(recipe, size);
    return () => {
      for (const use of uses) RUN[use](re, text);
    };
  };
}

/** {ms, growth, start, why}: the worst adversarial input of `entry` ({pattern, flags, uses}).
 * Each input runs once at LARGE (over MAX_MS fails at once); the slowest few are then timed
 * at SMALL and LARGE by `growth`. */
export function audit(entry) {
  const timed = [];
  const recipes = new Inputs(entry.pattern, entry.flags).recipes();
  for (const recipe of recipes) {
    const ms = bestMs(preparer(entry, recipe), LARGE, 1);
    const start = JSON.stringify(make(recipe, 40));
    if (ms > MAX_MS) return { ms, growth: Infinity, start, inputs: recipes.length, why: `${ms.toFixed(0)} ms` };
    timed.push({ ms, recipe, start });
  }
  timed.sort((a, b) => b.ms - a.ms);
  let worst = { ms: timed[0]?.ms ?? 0, growth: 1, start: timed[0]?.start ?? "", inputs: recipes.length, why: null };
  for (const { ms, recipe, start } of timed.slice(0, SUSPECTS)) {
    if (ms < QUICK_MS) break;
    const grew = growth(preparer(entry, recipe), SMALL, LARGE, MAX_GROWTH);
    if (grew > worst.growth) worst = { ms, growth: grew, start, inputs: recipes.length, why: null };
    if (grew > MAX_GROWTH) return { ...worst, why: `${grew.toFixed(1)}x the time of ${SMALL} characters` };
  }
  return worst;
}

export function label({ file, line, pattern, flags, uses }) {
  return `${file}:${line} /${pattern}/${flags} (${uses.join(", ")})`;
}

// Run as a script: audit every regex, one JSON line each (started on stderr, done on stdout).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const entry of findRegexes().regexes) {
    process.stderr.write(`${label(entry)}\n`);
    process.stdout.write(`${JSON.stringify({ label: label(entry), ...audit(entry) })}\n`);
  }
}
