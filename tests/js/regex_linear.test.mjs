// Every regex of extension/ runs in linear time on adversarial input (regex_audit.mjs builds
// the inputs from each pattern and times each regex the way the code uses it). The audit runs
// in a child process: a regex that backtracks exponentially never returns, and the child's
// last line then names it instead of the whole run hanging.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { growth } from "./complexity.mjs";
import { MAX_GROWTH, audit, findRegexes, label, preparer } from "./regex_audit.mjs";

const AUDIT = fileURLToPath(new URL("./regex_audit.mjs", import.meta.url));
const HANG_MS = 300_000;

const { regexes, dynamic } = findRegexes();

test("the audit finds the extension's regexes, and each use of them, with a JavaScript parser", (t) => {
  for (const entry of regexes) t.diagnostic(label(entry));
  t.diagnostic(`${regexes.length} regexes`);
  assert.ok(regexes.length > 0, "no regex found in extension/");
  const files = new Set(regexes.map((entry) => entry.file));
  for (const file of ["extension/lib/capture.js", "extension/lib/host.js", "extension/sidepanel/transform_form.js"]) {
    assert.ok(files.has(file), `no regex found in ${file}`);
  }
  assert.deepEqual(dynamic, [], "RegExp(...) of a run-time value escapes this audit: write the pattern as a literal");
});

test("the finder reads code, not text: literals and RegExp calls, never strings or comments", () => {
  const folder = mkdtempSync(join(tmpdir(), "laika-regex-"));
  try {
    const path = join(folder, "sample.js");
    writeFileSync(
      path,
      [
        "// a comment with /a+b/ is no regex",
        'const TEXT = "/c+d/ in a string"; const half = 1 / 2 / 3;',
        "const WORDS = /\\w+/g;",
        "export const count = (s) => (s.match(WORDS) ?? []).length + `${/x/.test(s)}`.length;",
        'const built = new RegExp("e+f", "i"); const call = RegExp(`g*h`);',
        "const unknown = new RegExp(TEXT);",
        's.split(/[,;]/); s.replace(/[.\\s]*$/, ""); [/y/].some((p) => p.test(s)); built.exec(s); call;',
      ].join("\n"),
    );
    const { regexes: found, dynamic: runtime } = findRegexes([path]);
    const seen = found.map(({ line, pattern, flags, uses }) => [line, pattern, flags, uses.join(",")]);
    assert.deepEqual(seen, [
      [3, "\\w+", "g", "match"],
      [4, "x", "", "test"],
      [5, "e+f", "i", "exec"],
      [5, "g*h", "", "test"],
      [7, "[,;]", "", "split"],
      [7, "[.\\s]*$", "", "replace"],
      [7, "y", "", "test"],
    ]);
    assert.deepEqual(runtime.map(({ line }) => line), [6]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

// The quadratic regex the panel had (main db3e639): the audit must catch it, by its absolute
// time and by its growth alone, and must pass its linear twin.
const OLD_STOPS = { pattern: "[.…\\s]*$", flags: "", uses: ["replace"] };

test("control: the old /[.…\\s]*$/ with .replace is caught", (t) => {
  const verdict = audit(OLD_STOPS);
  t.diagnostic(JSON.stringify(verdict));
  assert.notEqual(verdict.why, null, "the audit passed a known quadratic regex");
  const grew = growth(preparer(OLD_STOPS, ["run", "", ".", "x"]), 1_000, 8_000, MAX_GROWTH);
  assert.ok(grew > MAX_GROWTH, `dots then "x" grew only ${grew.toFixed(1)}x for 8x the input`);
});

test("control: a linear twin (/[.…\\s]+/g with .replace) passes", () => {
  const verdict = audit({ pattern: "[.…\\s]+", flags: "g", uses: ["replace"] });
  assert.equal(verdict.why, null, JSON.stringify(verdict));
});

// --- every regex of the extension, audited in a child process ------------------------------

const child = spawnSync(process.execPath, [AUDIT], { encoding: "utf-8", timeout: HANG_MS, maxBuffer: 64 << 20 });
const verdicts = child.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
const started = child.stderr.split("\n").filter(Boolean);

regexes.forEach((entry, index) => {
  const name = label(entry);
  test(`linear time: ${name}`, (t) => {
    const verdict = verdicts[index];
    if (!verdict) {
      const hung = started.length === index + 1 && child.error ? ` (no answer in ${HANG_MS / 1000} s)` : "";
      assert.fail(`the audit gave no verdict${hung}: ${child.error ?? ""}\n${child.stderr.slice(-2000)}`);
    }
    assert.equal(verdict.label, name);
    t.diagnostic(`${verdict.inputs} inputs; slowest ${verdict.ms.toFixed(1)} ms, growth ${verdict.growth?.toFixed(1)}x`);
    assert.equal(verdict.why, null, `${name}: ${verdict.why} on input starting ${verdict.start}`);
  });
});
