// extension/sidepanel/transform_form.js: config schema -> form fields -> config, over random
// schemas of every shape the host's pydantic models emit; summaries, progress, previews, exports.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";

import {
  EXPORT_FORMATS,
  artifactSummary,
  configFrom,
  copyable,
  exportChoices,
  exportFile,
  fieldsOf,
  initialValues,
  itemPreview,
  progressText,
  shortTime,
} from "../../extension/sidepanel/transform_form.js";

// --- random schemas ------------------------------------------------------------------------
// Each arbitrary gives {kind, schema, value}: a property schema as pydantic writes it and a
// value it accepts (used as the default, or as what a user enters).

const word = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }).filter((s) => s.trim() === s && s);
const enumProp = fc
  .uniqueArray(fc.oneof(word, fc.integer({ min: -5, max: 99 })), { minLength: 1, maxLength: 5 })
  .chain((options) =>
    fc.record({
      kind: fc.constant("select"),
      schema: fc.constant({ enum: options, type: typeof options[0] === "string" ? "string" : "integer" }),
      value: fc.constantFrom(...options),
    }),
  );
const intProp = fc
  .tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: 0, max: 100 }))
  .chain(([min, span]) =>
    fc.record({
      kind: fc.constant("number"),
      schema: fc.constant({ type: "integer", minimum: min, maximum: min + span }),
      value: fc.integer({ min, max: min + span }),
    }),
  );
const numberProp = fc.record({
  kind: fc.constant("number"),
  schema: fc.constant({ type: "number", exclusiveMinimum: 0, maximum: 10 }),
  value: fc.double({ min: 0.001, max: 10, noNaN: true }),
});
const boolProp = fc.record({ kind: fc.constant("checkbox"), schema: fc.constant({ type: "boolean" }), value: fc.boolean() });
const textProp = fc
  .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 5, max: 300 }))
  .chain(([minLength, maxLength]) =>
    fc.record({
      kind: fc.constant(maxLength >= 200 ? "textarea" : "text"),
      schema: fc.constant({ type: "string", minLength, maxLength }),
      value: fc
        .string({ unit: "grapheme", minLength, maxLength: Math.min(maxLength, 40) })
        .map((s) => s.replace(/\s+/g, "x"))
        .filter((s) => [...s].length >= minLength && [...s].length <= maxLength),
    }),
  );
const listProp = fc.integer({ min: 1, max: 8 }).chain((maxItems) =>
  fc.record({
    kind: fc.constant("list"),
    schema: fc.constant({ type: "array", items: { type: "string", minLength: 1, maxLength: 30 }, maxItems }),
    value: fc.array(word, { minLength: 1, maxLength: maxItems }),
  }),
);
const leaf = fc.oneof(enumProp, intProp, numberProp, boolProp, textProp, listProp);
/** The same leaf behind a $ref into $defs, or as pydantic's Optional (anyOf with null). */
const wrapped = leaf.chain((prop) =>
  fc.constantFrom("plain", "ref", "optional").map((how) => ({ ...prop, how })),
);
const unsupported = fc.record({
  kind: fc.constant("unsupported"),
  schema: fc.constant({ type: "object", properties: { a: { type: "string" } } }),
  value: fc.constant({ a: "x" }),
  how: fc.constant("plain"),
});

const schemas = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z_]{0,11}$/), fc.oneof({ weight: 9, arbitrary: wrapped }, { weight: 1, arbitrary: unsupported }), fc.boolean(), fc.boolean()), {
    minLength: 0,
    maxLength: 8,
    selector: ([name]) => name,
  })
  .map((entries) => {
    const schema = { type: "object", additionalProperties: false, properties: {}, $defs: {} };
    const required = [];
    const props = {};
    for (const [name, prop, withDefault, isRequired] of entries) {
      let node = { ...prop.schema, title: name.toUpperCase() };
      if (prop.how === "ref") {
        schema.$defs[`Def_${name}`] = node;
        node = { $ref: `#/$defs/Def_${name}` };
      } else if (prop.how === "optional") {
        node = { anyOf: [node, { type: "null" }] };
      }
      if (withDefault) node.default = prop.value;
      else if (isRequired) required.push(name);
      schema.properties[name] = node;
      props[name] = { ...prop, withDefault, required: !withDefault && isRequired };
    }
    if (required.length) schema.required = required;
    return { schema, props };
  });

/** Whether `value` is accepted by a leaf property schema (the subset generated above). */
function accepts(leafSchema, value) {
  if (leafSchema.enum) return leafSchema.enum.includes(value);
  switch (leafSchema.type) {
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isInteger(value) && value >= leafSchema.minimum && value <= leafSchema.maximum;
    case "number":
      return Number.isFinite(value) && value > leafSchema.exclusiveMinimum && value <= leafSchema.maximum;
    case "string": {
      const n = [...value].length;
      return typeof value === "string" && n >= leafSchema.minLength && n <= leafSchema.maxLength;
    }
    case "array":
      return (
        Array.isArray(value) &&
        value.length <= leafSchema.maxItems &&
        value.every((entry) => typeof entry === "string" && entry.length >= 1 && [...entry].length <= leafSchema.items.maxLength)
      );
    default:
      return false;
  }
}

/** What a user would type or pick in the form to mean `value`. */
function asFormValue(field, value) {
  if (field.control === "checkbox") return value;
  if (field.control === "select") return String(field.options.indexOf(value));
  if (field.control === "list") return value.join("\n");
  return String(value);
}

test("property: one field per property, in order, with the control its schema calls for", () => {
  fc.assert(
    fc.property(schemas, ({ schema, props }) => {
      const fields = fieldsOf(schema);
      assert.deepEqual(fields.map((f) => f.name), Object.keys(schema.properties));
      for (const field of fields) {
        const prop = props[field.name];
        assert.equal(field.control, prop.kind, field.name);
        assert.equal(field.nullable, prop.how === "optional");
        assert.equal(field.label, field.name.toUpperCase());
        assert.equal(field.required, Boolean(schema.required?.includes(field.name)));
      }
      assert.equal(new Set(fields.map((f) => f.id)).size, fields.length, "ids are unique");
    }),
    { numRuns: 300 },
  );
});

test("property: the defaults, untouched, give back the defaults (only required empties fail)", () => {
  fc.assert(
    fc.property(schemas, ({ schema, props }) => {
      const fields = fieldsOf(schema);
      const { config, errors } = configFrom(fields, initialValues(fields));
      const failing = errors.map((e) => e.name).sort();
      const expected = fields
        .filter((f) => props[f.name].required && !["checkbox", "unsupported"].includes(f.control))
        .map((f) => f.name)
        .sort();
      assert.deepEqual(failing, expected);
      for (const field of fields) {
        const prop = props[field.name];
        if (prop.kind === "unsupported") assert.ok(!(field.name in config), "unsupported: never sent");
        else if (prop.withDefault) assert.deepEqual(config[field.name], prop.value, field.name);
        else if (prop.kind === "checkbox") assert.equal(config[field.name], false);
        else assert.ok(!(field.name in config), `${field.name}: empty is left to the host`);
      }
    }),
    { numRuns: 300 },
  );
});

test("property: any accepted value entered in the form comes back as exactly that value", () => {
  const withValues = schemas.chain(({ schema, props }) =>
    fc.record({
      schema: fc.constant(schema),
      props: fc.constant(props),
      chosen: fc.record(Object.fromEntries(Object.entries(props).map(([name, p]) => [name, valueFor(p)]))),
    }),
  );
  fc.assert(
    fc.property(withValues, ({ schema, props, chosen }) => {
      const fields = fieldsOf(schema);
      const values = Object.fromEntries(fields.map((f) => [f.name, asFormValue(f, chosen[f.name])]));
      const { config, errors } = configFrom(fields, values);
      assert.deepEqual(errors, []);
      for (const field of fields) {
        if (props[field.name].kind === "unsupported") continue;
        assert.deepEqual(config[field.name], chosen[field.name], field.name);
      }
    }),
    { numRuns: 300 },
  );
});

function valueFor(prop) {
  if (prop.kind === "select") return fc.constantFrom(...prop.schema.enum);
  if (prop.kind === "number" && prop.schema.type === "integer") {
    return fc.integer({ min: prop.schema.minimum, max: prop.schema.maximum });
  }
  if (prop.kind === "number") return fc.double({ min: 0.001, max: 10, noNaN: true });
  if (prop.kind === "checkbox") return fc.boolean();
  return fc.constant(prop.value);
}

test("property: whatever is typed, the config holds only values the schema accepts", () => {
  const typed = fc.oneof(fc.string({ maxLength: 60 }), fc.integer().map(String), fc.double().map(String), fc.boolean());
  const withTyping = schemas.chain(({ schema, props }) =>
    fc.record({
      schema: fc.constant(schema),
      props: fc.constant(props),
      typed: fc.record(Object.fromEntries(Object.keys(props).map((name) => [name, typed]))),
    }),
  );
  fc.assert(
    fc.property(withTyping, ({ schema, props, typed }) => {
      const fields = fieldsOf(schema);
      const { config, errors } = configFrom(fields, typed);
      for (const [name, value] of Object.entries(config)) {
        const prop = props[name];
        assert.ok(accepts(prop.schema, value), `${name}=${JSON.stringify(value)} breaks ${JSON.stringify(prop.schema)}`);
      }
      for (const error of errors) {
        assert.ok(!(error.name in config));
        assert.ok(error.message.startsWith(`${error.name.toUpperCase()}: `), error.message); // names the field
      }
    }),
    { numRuns: 400 },
  );
});

test("out-of-range, fractional and malformed numbers are refused with the bound to use", () => {
  const [count] = fieldsOf({ properties: { count: { type: "integer", minimum: 1, maximum: 50, default: 10, title: "Count" } } });
  const check = (text) => configFrom([count], { count: text }).errors[0]?.message ?? null;
  assert.equal(check("0"), "Count: at least 1.");
  assert.equal(check("51"), "Count: at most 50.");
  assert.equal(check("2.5"), "Count: use a whole number.");
  assert.equal(check("1e1"), null);
  assert.match(check("ten"), /is not a number/);
  assert.match(check("9".repeat(100_000)), /is not a number/); // bounded: no long scan
  assert.deepEqual(configFrom([count], { count: " 7 " }).config, { count: 7 });
  const [ratio] = fieldsOf({ properties: { r: { type: "number", exclusiveMinimum: 0, lt: 1, title: "R" } } });
  assert.equal(configFrom([ratio], { r: "0" }).errors[0].message, "R: more than 0.");
  const [gt] = fieldsOf({ properties: { n: { type: "integer", exclusiveMinimum: 2.5, exclusiveMaximum: 5 } } });
  assert.deepEqual([gt.min, gt.max], [3, 4]);
});

test("the host's real shapes: enum, Optional via anyOf, $ref enums, instructions as a textarea", () => {
  const schema = {
    properties: {
      length: { default: "medium", enum: ["short", "medium", "long"], title: "Length", type: "string" },
      style: { $ref: "#/$defs/Style", default: "apa" },
      limit: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], default: null, title: "Limit" },
      instructions: { maxLength: 2000, minLength: 1, title: "Instructions", type: "string" },
      hosts: { items: { maxLength: 40, minLength: 1, type: "string" }, maxItems: 4, minItems: 1, type: "array" },
      loop: { $ref: "#/$defs/Loop" },
    },
    required: ["instructions"],
    $defs: { Style: { enum: ["apa", "mla", "chicago"], type: "string" }, Loop: { $ref: "#/$defs/Loop" } },
  };
  const fields = fieldsOf(schema);
  assert.deepEqual(
    fields.map((f) => [f.name, f.control]),
    [["length", "select"], ["style", "select"], ["limit", "number"], ["instructions", "textarea"], ["hosts", "list"], ["loop", "unsupported"]],
  );
  assert.equal(fields[4].label, "Hosts"); // no title: the name, humanized
  const values = initialValues(fields);
  assert.deepEqual(configFrom(fields, values).errors, [{ name: "instructions", message: "Instructions: required: fill it in." }]);
  values.instructions = "  Compare the prices.  ";
  values.hosts = "Ada\n\n  Grace \n";
  values.length = "2";
  assert.deepEqual(configFrom(fields, values), {
    config: { length: "long", style: "apa", instructions: "Compare the prices.", hosts: ["Ada", "Grace"] },
    errors: [],
  });
  values.hosts = "a\nb\nc\nd\ne";
  assert.deepEqual(configFrom(fields, values).errors.map((e) => e.message), ["Hosts: at most 4 entries (one per line)."]);
});

// --- summaries, progress, previews, exports -------------------------------------------------

test("an artifact summary names the type, the counts, the time and the provider", () => {
  const summary = {
    id: "art_1", title: "Timeline: Demo", type: "timeline", status: "completed", stale: true,
    items: 8, verified: 7, created_at: "2026-11-23T03:29:50.839Z", updated_at: "2026-11-23T03:31:02.000Z", provider: "offline",
  };
  assert.deepEqual(artifactSummary(summary, { timeline: "Timeline" }), {
    title: "Timeline: Demo", meta: "Timeline · 8 items, 7 verified · 2026-11-23 03:31 · offline", status: "completed", stale: true,
  });
  assert.deepEqual(artifactSummary({ items: 1 }), {
    title: "(untitled)", meta: "Artifact · 1 item, 0 verified", status: "unknown", stale: false,
  });
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (value, titles) => {
      const out = artifactSummary(value, typeof titles === "object" && titles ? titles : {});
      assert.equal(typeof out.title, "string");
      assert.equal(typeof out.meta, "string");
    }),
  );
  assert.equal(shortTime("yesterday"), "");
});

test("property: progress text always reads as a sentence and the bar never overflows", () => {
  assert.deepEqual(progressText({ phase: "items", done: 3, total: 10, message: "Writing items" }), {
    text: "Writing items (3 of 10)…", value: 3, max: 10,
  });
  assert.deepEqual(progressText({ phase: "reading_sources", done: 0, total: null, message: "" }), {
    text: "Reading sources…", value: null, max: null,
  });
  fc.assert(
    fc.property(
      fc.record({ phase: fc.string(), done: fc.oneof(fc.integer(), fc.double(), fc.constant(null)), total: fc.oneof(fc.nat(), fc.integer(), fc.constant(null)), message: fc.string() }, { requiredKeys: [] }),
      (progress) => {
        const out = progressText(progress);
        assert.ok(out.text.length > 1 && out.text.endsWith("…"));
        if (out.max === null) assert.equal(out.value, null);
        else assert.ok(out.value >= 0 && out.value <= out.max);
      },
    ),
  );
});

test("property: an item preview is bounded plain text from the item's strings, citations left out", () => {
  const item = {
    kind: "event",
    data: { date: "1969", event: "Apollo 11 lands.", citations: [{ quote: "not shown" }] },
    citations: [{ quote: "also not" }],
    verified: false,
    flag: "unverified_citation",
  };
  assert.deepEqual(itemPreview(item), { text: "1969 — Apollo 11 lands.", verified: false, flag: "unverified citation" });
  fc.assert(
    fc.property(fc.record({ kind: fc.string(), data: fc.jsonValue(), verified: fc.anything(), flag: fc.anything() }), (random) => {
      const out = itemPreview(random);
      assert.ok(out.text.length >= 1 && out.text.length <= 280, out.text);
      assert.equal(typeof out.verified, "boolean");
    }),
  );
});

test("property: an export's file name is a plain name with the format's extension", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constant("../../etc/passwd"), fc.constant("..\\x.csv")), fc.constantFrom(...EXPORT_FORMATS.map((f) => f.id)), (filename, format) => {
      const { filename: name, mime } = exportFile({ filename, mime: "text/csv" }, format);
      assert.ok(name.endsWith(`.${format}`), name);
      assert.ok(!/[/\\\u0000-\u001f\u007f<>:"|?*]/.test(name), name);
      assert.ok(!name.startsWith("."), name);
      assert.ok([...name].length <= 121 + format.length, name);
      assert.equal(mime, "text/csv;charset=utf-8");
    }),
    { numRuns: 500 },
  );
  assert.deepEqual(exportFile({ filename: "Timeline_ Demo.csv", mime: "text/csv" }, "csv"), {
    filename: "Timeline_ Demo.csv", mime: "text/csv;charset=utf-8",
  });
  assert.deepEqual(exportFile({ filename: "../secret/Notes.md", mime: "<script>" }, "md"), {
    filename: "Notes.md", mime: "text/markdown;charset=utf-8",
  });
  assert.equal(exportFile({}, "json").filename, "artifact.json");
  assert.deepEqual(EXPORT_FORMATS.filter((f) => copyable(f.id)).map((f) => f.id), ["md", "txt"]);
});

test("the Export menu offers what the host says this artifact gives, one CSV choice per table", () => {
  const values = (artifact) => exportChoices(artifact).map((choice) => choice.value);
  // a brief: no CSV (the host's field), whatever order or junk it holds
  assert.deepEqual(values({ export_formats: ["md", "txt", "json", "html"], export_tables: [] }), ["md", "txt", "json", "html"]);
  assert.deepEqual(values({ export_formats: ["html", "md", "exe", 7, "md"] }), ["html", "md"]);
  assert.deepEqual(values({ export_formats: [] }), []);
  // a table with one table: plain CSV; pros and cons: one choice each, numbered as the host's
  assert.deepEqual(values({ export_formats: ["md", "csv"], export_tables: ["timeline"] }), ["md", "csv"]);
  const two = exportChoices({ export_formats: ["csv"], export_tables: ["pros", "cons"] });
  assert.deepEqual(two.map((c) => [c.value, c.format, c.table, c.label]), [
    ["csv:1", "csv", 1, "CSV table: pros (.csv)"],
    ["csv:2", "csv", 2, "CSV table: cons (.csv)"],
  ]);
  // a host that predates the field: every format, as before
  assert.deepEqual(values({}), EXPORT_FORMATS.map((f) => f.id));
  fc.assert(
    fc.property(fc.record({ export_formats: fc.anything(), export_tables: fc.anything() }, { requiredKeys: [] }), (artifact) => {
      for (const choice of exportChoices(artifact)) {
        assert.ok(EXPORT_FORMATS.some((f) => f.id === choice.format), choice.format);
        assert.ok(choice.table === null || (choice.format === "csv" && Number.isInteger(choice.table) && choice.table >= 1));
        assert.ok(typeof choice.label === "string" && choice.label.length > 0);
      }
    }),
  );
});

test("progress text: phases and messages made only of underscores, dots or spaces still read as text", () => {
  for (const phase of ["_", "__ _", " ", "", undefined]) {
    assert.equal(progressText({ phase }).text, "Working…");
  }
  for (const message of ["...", "… . …", "   "]) {
    assert.ok(progressText({ phase: "items", message }).text.length > 1);
  }
  // a message full of dots is trimmed in linear time (the old /[.…\s]*$/ was quadratic)
  const started = process.hrtime.bigint();
  const out = progressText({ message: `${".".repeat(200_000)}x...` });
  assert.ok(out.text.endsWith("x…"));
  assert.ok(Number(process.hrtime.bigint() - started) / 1e9 < 5);
});
