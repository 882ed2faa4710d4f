// The Transforms view's pure logic (no DOM, no chrome.*), so node tests it over random input:
// a type's config JSON schema -> form field descriptions, form values -> the config object the
// host validates again (pydantic), artifact summaries, progress text, item previews, and the
// name and type of an exported file.
//
// The schemas come from the host (`transform.list_types`, pydantic's JSON schema). Only the
// shapes a form can hold are turned into fields; anything else is reported as `unsupported` so
// the panel can say the host's default applies, instead of sending a value it cannot build.

import { isStopOrSpace, withoutLeading, withoutTrailing } from "../lib/text_ends.js";

const MAX_REF_HOPS = 8; // "$ref" chains are followed at most this far (a cycle cannot hang us)
const PREVIEW_CHARS = 280;
const TEXTAREA_NAMES = new Set(["instructions"]);
const TEXTAREA_MIN_LENGTH = 200; // a string allowed this long gets a textarea, not one line
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/; // unambiguous: linear

/** The export formats of `artifacts.export`, with the file type used when the host sends none. */
export const EXPORT_FORMATS = Object.freeze([
  Object.freeze({ id: "md", label: "Markdown (.md)", mime: "text/markdown" }),
  Object.freeze({ id: "txt", label: "Plain text (.txt)", mime: "text/plain" }),
  Object.freeze({ id: "json", label: "JSON (.json)", mime: "application/json" }),
  Object.freeze({ id: "csv", label: "CSV table (.csv)", mime: "text/csv" }),
  Object.freeze({ id: "html", label: "HTML page (.html)", mime: "text/html" }),
]);

/**
 * One form field per property of `schema` (a JSON schema of type object), in its order.
 * Field: {name, id, label, help, control: "select"|"number"|"checkbox"|"text"|"textarea"|
 * "list"|"unsupported", required, nullable, options (select: the enum's values), integer,
 * min, max, minLength, maxLength, minItems, maxItems, itemMaxLength, defaultValue (a form
 * value: string, or boolean for a checkbox), hasDefault, default (the schema's own value)}.
 * @param {object} schema
 * @returns {object[]}
 */
export function fieldsOf(schema) {
  const properties = isObject(schema?.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]) =>
    fieldOf(name, property, required.has(name), schema),
  );
}

function fieldOf(name, property, required, root) {
  const raw = isObject(property) ? property : {};
  const { node, nullable } = unwrap(raw, root);
  const field = {
    name,
    id: `cfg-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`,
    label: stringOr(raw.title ?? node.title, humanize(name)),
    help: stringOr(raw.description ?? node.description, ""),
    required,
    nullable,
    hasDefault: "default" in raw,
    default: raw.default,
    ...controlOf(name, node),
  };
  field.defaultValue = formValueOf(field, field.hasDefault ? raw.default : undefined);
  return field;
}

/** The schema node behind `$ref`s and an `anyOf: [X, {type: null}]` (pydantic's Optional). */
function unwrap(node, root) {
  let current = node;
  let nullable = false;
  for (let hop = 0; hop < MAX_REF_HOPS; hop++) {
    if (typeof current.$ref === "string") {
      current = lookupRef(current.$ref, root) ?? {};
      continue;
    }
    const choices = Array.isArray(current.anyOf) ? current.anyOf : null;
    if (!choices) break;
    const rest = choices.filter((choice) => !(isObject(choice) && choice.type === "null"));
    nullable = nullable || rest.length < choices.length;
    if (rest.length !== 1 || !isObject(rest[0])) return { node: {}, nullable };
    current = rest[0];
  }
  return { node: isObject(current) ? current : {}, nullable };
}

/** "#/$defs/Name" (or "#/definitions/Name") inside the same schema; anything else: null. */
function lookupRef(ref, root) {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return null;
  const found = root?.[match[1]]?.[match[2]];
  return isObject(found) ? found : null;
}

function controlOf(name, node) {
  if (Array.isArray(node.enum) && node.enum.length > 0 && node.enum.every(isScalar)) {
    return { control: "select", options: [...node.enum] };
  }
  const type = node.type;
  if (type === "boolean") return { control: "checkbox" };
  if (type === "integer" || type === "number") {
    const integer = type === "integer";
    const min = bound(node.minimum, node.exclusiveMinimum, integer ? "min" : null, Math.max);
    const max = bound(node.maximum, node.exclusiveMaximum, integer ? "max" : null, Math.min);
    return {
      control: "number",
      integer,
      min,
      max,
      // a fractional bound that excludes its value (pydantic's gt / lt on a float)
      openMin: !integer && min !== null && min === finiteOr(node.exclusiveMinimum, null),
      openMax: !integer && max !== null && max === finiteOr(node.exclusiveMaximum, null),
    };
  }
  if (type === "string") {
    const maxLength = finiteOr(node.maxLength, null);
    const long = TEXTAREA_NAMES.has(name) || (maxLength !== null && maxLength >= TEXTAREA_MIN_LENGTH);
    return {
      control: long ? "textarea" : "text",
      minLength: finiteOr(node.minLength, null),
      maxLength,
    };
  }
  if (type === "array" && isObject(node.items) && node.items.type === "string" && !node.items.enum) {
    return {
      control: "list",
      minItems: finiteOr(node.minItems, null),
      maxItems: finiteOr(node.maxItems, null),
      itemMaxLength: finiteOr(node.items.maxLength, null),
      itemMinLength: finiteOr(node.items.minLength, null),
    };
  }
  return { control: "unsupported" };
}

/** The tighter of an inclusive bound and an exclusive one; for integers (`side` set) both
 * become the nearest whole number inside. */
function bound(inclusive, exclusive, side, pick) {
  const a = finiteOr(inclusive, null);
  const b = finiteOr(exclusive, null);
  const whole = (value, open) => {
    if (side === "min") return open ? Math.floor(value) + 1 : Math.ceil(value);
    return open ? Math.ceil(value) - 1 : Math.floor(value);
  };
  const left = a === null || side === null ? a : whole(a, false);
  const right = b === null || side === null ? b : whole(b, true);
  if (left === null) return right;
  return right === null ? left : pick(left, right);
}

/** A config value as the form holds it: select -> the option's index as a string, checkbox ->
 * boolean, list -> one entry per line, number/text -> string; no value -> "" (or false). */
function formValueOf(field, value) {
  if (field.control === "checkbox") return value === true;
  if (value === undefined || value === null) return "";
  if (field.control === "select") {
    const index = field.options.findIndex((option) => option === value);
    return index >= 0 ? String(index) : "";
  }
  if (field.control === "list") return Array.isArray(value) ? value.map(String).join("\n") : "";
  if (field.control === "unsupported") return "";
  return String(value);
}

/** The form's starting values: each field's default. */
export function initialValues(fields) {
  return Object.fromEntries(fields.map((field) => [field.name, field.defaultValue]));
}

/**
 * The config object for form `values`, and the problems found before asking the host:
 * {config, errors: [{name, message}]}. A field left empty is omitted (the host's default
 * applies) unless it is required; unsupported fields are never sent.
 * @param {object[]} fields from fieldsOf
 * @param {Record<string, string|boolean>} values
 */
export function configFrom(fields, values) {
  const config = {};
  const errors = [];
  for (const field of fields) {
    if (field.control === "unsupported") continue;
    const outcome = parseField(field, values?.[field.name]);
    if (outcome.error) errors.push({ name: field.name, message: `${field.label}: ${outcome.error}` });
    else if (outcome.value !== undefined) config[field.name] = outcome.value;
  }
  return { config, errors };
}

function parseField(field, raw) {
  if (field.control === "checkbox") return { value: raw === true };
  const text = typeof raw === "string" ? raw : raw === undefined || raw === null ? "" : String(raw);
  if (field.control === "list") return parseList(field, text);
  const trimmed = text.trim();
  if (!trimmed) {
    return field.required && !field.hasDefault ? { error: "required: fill it in." } : { value: undefined };
  }
  if (field.control === "select") return parseOption(field, trimmed);
  if (field.control === "number") return parseNumber(field, trimmed);
  return parseText(field, trimmed);
}

function parseOption(field, text) {
  const index = /^\d{1,4}$/.test(text) ? Number(text) : -1;
  if (index < 0 || index >= field.options.length) return { error: "pick one of the choices." };
  return { value: field.options[index] };
}

function parseNumber(field, text) {
  const number = Number(text);
  if (text.length > 40 || !NUMBER.test(text) || !Number.isFinite(number)) {
    return { error: `“${text.slice(0, 40)}” is not a number.` };
  }
  if (field.integer && !Number.isInteger(number)) return { error: "use a whole number." };
  if (field.min !== null && (number < field.min || (field.openMin && number === field.min))) {
    return { error: `${field.openMin ? "more than" : "at least"} ${field.min}.` };
  }
  if (field.max !== null && (number > field.max || (field.openMax && number === field.max))) {
    return { error: `${field.openMax ? "less than" : "at most"} ${field.max}.` };
  }
  return { value: number };
}

function parseText(field, text) {
  const length = [...text].length; // code points, as pydantic counts them
  if (field.minLength !== null && length < field.minLength) {
    return { error: `at least ${field.minLength} characters.` };
  }
  if (field.maxLength !== null && length > field.maxLength) {
    return { error: `at most ${field.maxLength} characters (it has ${length}).` };
  }
  return { value: text };
}

function parseList(field, text) {
  const entries = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  if (!entries.length) {
    if (field.required && !field.hasDefault) return { error: "required: one entry per line." };
    return { value: undefined };
  }
  if (field.maxItems !== null && entries.length > field.maxItems) {
    return { error: `at most ${field.maxItems} entries (one per line).` };
  }
  if (field.minItems !== null && entries.length < field.minItems) {
    return { error: `at least ${field.minItems} entries (one per line).` };
  }
  const long = entries.find((entry) => field.itemMaxLength !== null && [...entry].length > field.itemMaxLength);
  if (long !== undefined) return { error: `each entry at most ${field.itemMaxLength} characters.` };
  return { value: entries };
}

/**
 * What the artifact list shows for one `artifacts.list` SUMMARY: {title, meta, status, stale}.
 * meta reads like "Timeline · 8 items, 8 verified · 2026-11-23 03:29 · offline".
 */
export function artifactSummary(summary, typeTitles = {}) {
  const s = isObject(summary) ? summary : {};
  const type = stringOr(typeTitles[s.type], stringOr(s.type, "Artifact"));
  const items = countOf(s.items);
  const verified = countOf(s.verified);
  const parts = [type, `${plural(items, "item")}, ${verified} verified`];
  const when = shortTime(s.updated_at ?? s.created_at);
  if (when) parts.push(when);
  if (typeof s.provider === "string" && s.provider) parts.push(s.provider);
  return {
    title: stringOr(s.title, "(untitled)"),
    meta: parts.join(" · "),
    status: stringOr(s.status, "unknown"),
    stale: s.stale === true,
  };
}

/** "2026-11-23T03:29:50.839Z" -> "2026-11-23 03:29"; anything else -> "". */
export function shortTime(value) {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(typeof value === "string" ? value : "");
  return match ? `${match[1]} ${match[2]}` : "";
}

/**
 * A `progress` event as one sentence and a bar: {text, value, max} (max null: indeterminate).
 * @param {{phase?: string, done?: number, total?: number|null, message?: string}} progress
 */
export function progressText(progress) {
  const p = isObject(progress) ? progress : {};
  const done = countOf(p.done);
  const total = Number.isInteger(p.total) && p.total >= 0 ? p.total : null;
  const phase = stringOr(typeof p.phase === "string" ? p.phase.replaceAll("_", " ") : "", "working");
  const head = withoutTrailingStops(stringOr(p.message, phase.charAt(0).toUpperCase() + phase.slice(1))) || "Working";
  const count = total === null ? (done ? ` (${done} so far)` : "") : ` (${Math.min(done, total)} of ${total})`;
  return { text: `${head}${count}…`, value: total === null ? null : Math.min(done, total), max: total };
}

/** The text without its closing dots, ellipses and spaces (the caller adds one "…"). */
function withoutTrailingStops(text) {
  return withoutTrailing(text, (character) => character === "…" || isStopOrSpace(character));
}

/**
 * One streamed item as a line of plain text: {text, verified, flag}. The item's data is any
 * JSON the type defines; its strings are joined in order (nested ones too, bounded).
 */
export function itemPreview(item) {
  const it = isObject(item) ? item : {};
  const words = [];
  collectText(it.data, words, 0);
  const joined = words.join(" — ").replace(/\s+/g, " ").trim();
  const text = joined.length > PREVIEW_CHARS ? `${joined.slice(0, PREVIEW_CHARS - 1)}…` : joined;
  return {
    text: text || stringOr(it.kind, "item"),
    verified: it.verified === true,
    flag: typeof it.flag === "string" && it.flag ? it.flag.replaceAll("_", " ") : null,
  };
}

function collectText(value, words, depth) {
  if (words.length >= 12 || depth > 4) return;
  if (typeof value === "string") {
    if (value.trim()) words.push(value.slice(0, PREVIEW_CHARS));
  } else if (typeof value === "number" && Number.isFinite(value)) {
    words.push(String(value));
  } else if (Array.isArray(value)) {
    for (const entry of value.slice(0, 12)) collectText(entry, words, depth + 1);
  } else if (isObject(value)) {
    for (const [key, entry] of Object.entries(value)) {
      if (key !== "citations") collectText(entry, words, depth + 1);
    }
  }
}

/**
 * The download for an `artifacts.export` result: {filename, mime}. The name is the host's,
 * reduced to a plain file name (no folders, no control or reserved characters, no leading
 * dot) that ends in the format's extension; the type is the host's when it is a well-formed
 * media type, else the format's own, always with charset=utf-8 for text.
 * @param {{filename?: string, mime?: string}} result
 * @param {string} format one of EXPORT_FORMATS' ids
 */
export function exportFile(result, format) {
  const known = EXPORT_FORMATS.find((entry) => entry.id === format) ?? EXPORT_FORMATS[0];
  const ext = `.${known.id}`;
  const raw = typeof result?.filename === "string" ? result.filename : "";
  let name = raw.split(/[/\\]/).pop() ?? "";
  name = name.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, "").replace(/\s+/g, " ").trim();
  name = withoutTrailing(withoutLeading(name, isStopOrSpace), isStopOrSpace);
  if (name.toLowerCase().endsWith(ext)) name = withoutTrailing(name.slice(0, -ext.length), isStopOrSpace);
  name = [...name].slice(0, 120).join("").trim() || "artifact";
  const given = typeof result?.mime === "string" ? result.mime.trim().toLowerCase() : "";
  const base = /^[a-z]+\/[a-z0-9.+-]+/.exec(given)?.[0] ?? known.mime;
  return { filename: `${name}${ext}`, mime: `${base};charset=utf-8` };
}

/**
 * The Export menu's choices for one artifact: only the formats the host says give its content
 * (`artifacts.get`'s `export_formats`, in its order; a host that predates the field: every
 * format), and for CSV one choice per table when there are several (`export_tables`, table n
 * the n-th). Each: {value (the <option>'s), label, format, table (1-based, or null)}.
 * @param {{export_formats?: unknown, export_tables?: unknown}} artifact
 */
export function exportChoices(artifact) {
  const known = new Map(EXPORT_FORMATS.map((entry) => [entry.id, entry]));
  const given = Array.isArray(artifact?.export_formats) ? artifact.export_formats : null;
  const ids = given === null ? [...known.keys()] : [...new Set(given.filter((id) => known.has(id)))];
  const names = Array.isArray(artifact?.export_tables)
    ? artifact.export_tables.map((name, i) => stringOr(typeof name === "string" ? name : "", `table ${i + 1}`))
    : [];
  const choices = [];
  for (const id of ids) {
    const entry = known.get(id);
    if (id === "csv" && names.length > 1) {
      names.forEach((name, i) =>
        choices.push({ value: `csv:${i + 1}`, label: `CSV table: ${humanize(name).toLowerCase()} (.csv)`, format: "csv", table: i + 1 }),
      );
    } else {
      choices.push({ value: id, label: entry.label, format: id, table: null });
    }
  }
  return choices;
}

/** Whether `format` can be copied as text to the clipboard (Markdown or plain text). */
export function copyable(format) {
  return format === "md" || format === "txt";
}

function countOf(value) {
  return Number.isInteger(value) && value > 0 ? value : 0;
}

function plural(count, noun) {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}

function humanize(name) {
  const words = String(name).replace(/[_-]+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "Value";
}

function stringOr(value, fallback) {
  return typeof value === "string" && value.trim() ? value.trim() : fallback;
}

function finiteOr(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isScalar(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
