// The config form's controls, drawn from transform_form.js's field descriptions: each with its
// label, help text and an error line tied to it (aria-describedby), so a screen reader hears why.

import { h } from "../dom.js";

/** One field's block; its input is put into `inputs` under the field's name. */
export function renderField(field, value, inputs) {
  const helpId = `${field.id}-help`;
  const errorId = `${field.id}-error`;
  const help = field.control === "list" ? `${field.help} One per line.`.trim() : field.help;
  const described = [help ? helpId : null, errorId].filter(Boolean).join(" ");
  const error = h("span", { class: "field-error", id: errorId });
  const helpLine = help ? h("small", { class: "field-help", id: helpId }, help) : null;
  if (field.control === "unsupported") {
    return h("p", { class: "muted field" }, `${field.label}: the host's default is used (this form cannot edit it).`);
  }
  const input = controlFor(field, value, described);
  inputs.set(field.name, input);
  if (field.control === "checkbox") {
    return h("div", { class: "field" }, h("label", { class: "check" }, input, h("span", {}, field.label)), helpLine, error);
  }
  const label = h("label", { for: field.id }, field.label, field.required ? " (required)" : "");
  return h("div", { class: "field", dataset: { field: field.name } }, label, input, helpLine, error);
}

function controlFor(field, value, described) {
  const common = { id: field.id, name: field.name, "aria-describedby": described };
  if (field.control === "select") {
    return h(
      "select",
      common,
      field.options.map((option, index) =>
        h("option", { value: String(index), selected: String(index) === value }, String(option)),
      ),
    );
  }
  if (field.control === "checkbox") return h("input", { ...common, type: "checkbox", checked: value === true });
  if (field.control === "number") {
    return h("input", {
      ...common,
      type: "number",
      inputmode: field.integer ? "numeric" : "decimal",
      step: field.integer ? "1" : "any",
      min: field.min ?? undefined,
      max: field.max ?? undefined,
      value,
    });
  }
  if (field.control === "textarea" || field.control === "list") {
    const limit = field.control === "textarea" ? field.maxLength : null;
    const area = h("textarea", { ...common, rows: field.control === "list" ? "3" : "4", maxlength: limit ?? undefined });
    area.value = value;
    return area;
  }
  return h("input", { ...common, type: "text", maxlength: field.maxLength ?? undefined, value });
}

/** The form's current values, as transform_form.js's configFrom reads them. */
export function readValues(fields, inputs) {
  const values = {};
  for (const field of fields) {
    const input = inputs.get(field.name);
    if (input) values[field.name] = field.control === "checkbox" ? input.checked : input.value;
  }
  return values;
}

/** Mark the fields with a problem (and clear the others). */
export function showFieldErrors(fields, inputs, errors) {
  const byName = new Map(errors.map((error) => [error.name, error.message]));
  for (const field of fields) {
    const input = inputs.get(field.name);
    if (!input) continue;
    const message = byName.get(field.name) ?? "";
    input.setAttribute("aria-invalid", String(Boolean(message)));
    const line = input.ownerDocument.getElementById(`${field.id}-error`);
    if (line) line.textContent = message;
  }
}
