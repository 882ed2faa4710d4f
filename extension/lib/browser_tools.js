// Browser tools, page side (issue #16): the one function the background injects with
// scripting.executeScript({func: pageTool, args: [request]}). Only its source reaches the page,
// so everything it uses is defined inside it. It runs in the extension's isolated world, where
// the page's own scripts cannot see or change the handle map kept in globalThis.__laikaTools.
//
// Handles: observe numbers the interactive elements (h1, h2, ...; numbering continues from
// request.firstHandle so an id never names two elements in one tab) and keeps WeakRefs to them
// for the LATEST observation only; click/type/select resolve a handle there or fail with
// "stale or unknown handle". Every action re-reads the live element and refuses credential,
// payment and identity fields itself (the host's gate refuses them first: defense in depth).

/** Run one page-side tool request {op, ...}; returns {ok: true, result} or {ok: false, error}.
 * op "field_kind" is pure (no DOM): the classifier, the same rules as tools/fields.py. */
export function pageTool(request) {
  const CAPS = {
    chars: 20000, // observed text
    charsDefault: 2000, // the defaults fit the ~8000 characters of a result the host shows the model
    elements: 150, // handles
    elementsDefault: 40,
    handleText: 80,
    label: 120,
    name: 80,
    autocomplete: 60,
    typed: 10000,
    bytes: 60000, // the whole observation as UTF-8 JSON (the host caps results at 64 KiB)
  };
  const STALE = "stale or unknown handle: observe the page again";
  const SELECTOR = [
    "a[href]",
    "button",
    "input:not([type=hidden])",
    "select",
    "textarea",
    "[role=button]",
    "[role=link]",
    "[role=checkbox]",
    "[role=tab]",
    "[role=menuitem]",
    "[contenteditable]:not([contenteditable=false])",
  ].join(",");
  const TYPABLE = new Set(["", "text", "search", "email", "url", "tel", "number"]);

  // --- field kinds: host/laika_host/tools/fields.py, rule for rule (test_field_kinds_agree) ---
  const MAX_ATTRIBUTE = 200;
  const PY_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000";
  const isSpace = (ch) => PY_SPACE.includes(ch) || (ch >= "\u2000" && ch <= "\u200a");
  const CREDENTIAL_AUTOCOMPLETE = new Set(["current-password", "new-password", "one-time-code"]);
  const PAYMENT_PREFIXES = ["cc-", "transaction-"];
  const IDENTITY_AUTOCOMPLETE = new Set(["bday", "bday-day", "bday-month", "bday-year", "sex", "honorific-prefix"]);
  const WORDS = {
    credential: new Set(["password", "passwd", "pwd", "passcode", "pin", "otp", "totp", "2fa", "mfa", "secret"]),
    payment: new Set(
      ["card", "cardnumber", "ccnumber", "ccnum", "cvv", "cvc", "csc", "cvv2", "iban", "bic"].concat(
        ["swift", "routing", "expiry", "expiration", "creditcard", "debitcard", "billing"],
      ),
    ),
    identity: new Set(
      ["ssn", "sin", "passport", "nationalid", "taxid", "tin", "dob", "birthdate"].concat(
        ["birthday", "license", "licence", "driverslicense", "socialsecurity", "nin"],
      ),
    ),
  };
  const JOINED = {
    credential: ["password", "passcode"],
    payment: ["cardnumber", "creditcard", "securitycode", "cardholder"],
    identity: ["socialsecurity", "nationalid", "passport", "dateofbirth", "birthdate"],
  };
  const ORDER = ["credential", "payment", "identity"];

  /** The first MAX_ATTRIBUTE code points, as Python's text[:200]. */
  const cut = (value) => Array.from(String(value ?? "").slice(0, 2 * MAX_ATTRIBUTE)).slice(0, MAX_ATTRIBUTE).join("");
  const pySplit = (text) => {
    const parts = [];
    let word = "";
    for (const ch of text) {
      if (isSpace(ch)) {
        if (word) parts.push(word);
        word = "";
      } else word += ch;
    }
    if (word) parts.push(word);
    return parts;
  };
  const byAutocomplete = (value) => {
    for (const token of pySplit(cut(value).toLowerCase())) {
      if (CREDENTIAL_AUTOCOMPLETE.has(token)) return "credential";
      if (PAYMENT_PREFIXES.some((prefix) => token.startsWith(prefix))) return "payment";
      if (IDENTITY_AUTOCOMPLETE.has(token)) return "identity";
    }
    return null;
  };
  const byWords = (text) => {
    const short = cut(text);
    const camel = short.replace(/(?<=[a-z0-9])(?=[A-Z])/g, " ");
    const words = new Set(camel.split(/[^0-9A-Za-z]+/).filter(Boolean).map((w) => w.toLowerCase()));
    const joined = short.split(/[^0-9A-Za-z]+/).join("").toLowerCase();
    for (const kind of ORDER) {
      if ([...words].some((w) => WORDS[kind].has(w)) || JOINED[kind].some((part) => joined.includes(part))) return kind;
    }
    return null;
  };
  function fieldKind({ type = null, autocomplete = null, name = null, label = null } = {}) {
    if (pySplit(cut(type ?? "")).join(" ").toLowerCase() === "password") return "credential";
    return byAutocomplete(autocomplete ?? "") ?? byWords(name ?? "") ?? byWords(label ?? "") ?? "other";
  }

  // --- describing elements (bounded: every string is cut before it is kept) ---------------
  const squash = (text, max) =>
    String(text ?? "")
      .slice(0, 8 * max)
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, max);
  const editable = (element) =>
    typeof element.isContentEditable === "boolean"
      ? element.isContentEditable
      : element.hasAttribute("contenteditable") && element.getAttribute("contenteditable") !== "false";
  const visibleText = (node) => (typeof node.innerText === "string" ? node.innerText : node.textContent) ?? "";

  function labelOf(element) {
    const named = element.getAttribute("aria-label");
    if (named) return named;
    const by = element.getAttribute("aria-labelledby");
    if (by) {
      const text = by
        .split(/\s+/)
        .slice(0, 5)
        .map((id) => element.ownerDocument.getElementById(id)?.textContent ?? "")
        .join(" ");
      if (text.trim()) return text;
    }
    const labels = element.labels ? [...element.labels].slice(0, 3).map((label) => label.textContent).join(" ") : "";
    if (labels.trim()) return labels;
    return element.getAttribute("placeholder") || element.getAttribute("title") || element.getAttribute("alt") || "";
  }

  function roleOf(element, tag, type) {
    const role = element.getAttribute("role");
    if (role) return role.split(/\s+/)[0];
    if (tag === "a") return "link";
    if (tag === "select") return "combobox";
    if (tag === "textarea" || editable(element)) return "textbox";
    if (tag === "button") return "button";
    if (tag !== "input") return "generic";
    if (["checkbox", "radio"].includes(type)) return type;
    if (["submit", "button", "reset", "image"].includes(type)) return "button";
    return type === "search" ? "searchbox" : "textbox";
  }

  function ownText(element, tag, type) {
    if (tag === "input") return ["submit", "button", "reset"].includes(type) ? element.value : ""; // never a typed value
    if (tag === "textarea") return "";
    if (tag === "select") return element.selectedOptions?.[0]?.textContent ?? "";
    return visibleText(element);
  }

  function describe(element, id) {
    const tag = element.tagName.toLowerCase();
    const type = ["input", "button", "select", "textarea"].includes(tag) ? String(element.type ?? "").toLowerCase() : "";
    return {
      id,
      role: squash(roleOf(element, tag, type), 40),
      tag,
      type,
      name: squash(element.getAttribute("name") || element.id || "", CAPS.name),
      label: squash(labelOf(element), CAPS.label),
      autocomplete: squash(element.getAttribute("autocomplete") ?? "", CAPS.autocomplete),
      text: squash(ownText(element, tag, type), CAPS.handleText),
    };
  }

  // --- the handle map: latest observation only -----------------------------------------
  const state = () => (globalThis.__laikaTools ??= { next: 1, latest: null });
  const limit = (value, fallback, cap) => Math.min(Number.isInteger(value) && value > 0 ? value : fallback, cap);
  const where = () => ({ url: String(globalThis.location?.href ?? ""), title: squash(globalThis.document?.title, 300) });

  function resolve(handleId, observationId) {
    const latest = state().latest;
    if (!latest || (observationId && observationId !== latest.id)) throw new Error(STALE);
    const element = latest.handles.get(String(handleId))?.deref();
    if (!element || !element.isConnected) throw new Error(STALE);
    return element;
  }

  function observe(options) {
    const doc = globalThis.document;
    const root = options.rootHandleId ? resolve(options.rootHandleId, options.observationId) : doc.body ?? doc.documentElement;
    const maxChars = limit(options.maxChars, CAPS.charsDefault, CAPS.chars);
    const maxElements = limit(options.maxElements, CAPS.elementsDefault, CAPS.elements);
    const memory = state();
    memory.next = Math.max(memory.next, Number.isInteger(options.firstHandle) ? options.firstHandle : 1);
    const handles = [];
    const refs = new Map();
    for (const element of root.querySelectorAll(SELECTOR)) {
      if (handles.length >= maxElements) break;
      if (element.checkVisibility && !element.checkVisibility()) continue;
      const id = `h${memory.next++}`;
      refs.set(id, new WeakRef(element));
      handles.push(describe(element, id));
    }
    const observationId = `o${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    memory.latest = { id: observationId, handles: refs };
    const raw = visibleText(root);
    const text = raw
      .slice(0, 4 * maxChars)
      .replace(/[ \t\f\v\r]+/g, " ")
      .replace(/\n[\n ]+/g, "\n\n")
      .trim()
      .slice(0, maxChars);
    // handles before the text: a model shown only the start of a long result still gets them
    const observation = { ...where(), observation_id: observationId, handles, text, truncated: raw.length > maxChars };
    return fit(observation);
  }

  /** Halve the text, then the handles, until the JSON fits CAPS.bytes (few passes). */
  function fit(observation) {
    const size = () => new TextEncoder().encode(JSON.stringify(observation)).length;
    while (size() > CAPS.bytes) {
      observation.truncated = true;
      if (observation.text.length > 1000) observation.text = observation.text.slice(0, observation.text.length >> 1);
      else if (observation.handles.length) observation.handles.length >>= 1;
      else observation.title = observation.title.slice(0, 100);
    }
    return observation;
  }

  // --- actions ----------------------------------------------------------------------------
  function guard(element, tool) {
    const kind = fieldKind(describe(element, ""));
    if (kind !== "other") {
      throw new Error(`refused: ${tool} on a ${kind} field (password, payment and identity fields are never touched by tools)`);
    }
    if (element.disabled || element.getAttribute("aria-disabled") === "true") throw new Error(`${tool}: the element is disabled`);
  }

  function setValue(element, value) {
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), "value")?.set;
    if (setter) setter.call(element, value);
    else element.value = value;
    element.dispatchEvent(new Event("input", { bubbles: true }));
    element.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function click(element) {
    guard(element, "browser.click");
    element.focus?.();
    element.click();
  }

  function type(element, text) {
    guard(element, "browser.type");
    const tag = element.tagName.toLowerCase();
    const typable = tag === "textarea" || (tag === "input" && TYPABLE.has(String(element.type).toLowerCase()));
    if (!typable && !editable(element)) throw new Error(`browser.type: a ${tag} is not a text field`);
    if (element.readOnly) throw new Error("browser.type: the field is read-only");
    if (String(text).length > CAPS.typed) throw new Error(`browser.type: the text has ${String(text).length} characters; at most ${CAPS.typed}`);
    element.focus?.();
    if (typable) setValue(element, String(text));
    else {
      element.textContent = String(text);
      element.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }

  function choose(element, value) {
    guard(element, "browser.select");
    if (element.tagName.toLowerCase() !== "select") throw new Error("browser.select: the element is not a select");
    const options = [...element.options];
    const option = options.find((o) => o.value === value) ?? options.find((o) => o.textContent.trim() === value);
    if (!option) {
      const known = options.slice(0, 20).map((o) => JSON.stringify(o.value)).join(", ");
      throw new Error(`browser.select: no option ${JSON.stringify(String(value).slice(0, 100))}; the options are ${known}`);
    }
    setValue(element, option.value);
  }

  function act(op, request) {
    if (op === "scroll") {
      globalThis.scrollBy?.({ top: request.deltaY, behavior: "instant" });
      return { ok: true, ...where(), scrollY: Math.round(globalThis.scrollY ?? 0) };
    }
    const element = resolve(request.handleId, request.observationId);
    if (op === "click") click(element);
    else if (op === "type") type(element, request.text);
    else if (op === "select") choose(element, request.value);
    else throw new Error(`unknown page tool ${String(op).slice(0, 40)}`);
    return { ok: true, ...where() };
  }

  try {
    const op = request?.op;
    if (op === "field_kind") return { ok: true, result: fieldKind(request.field ?? {}) };
    if (op === "observe") return { ok: true, result: observe(request) };
    return { ok: true, result: act(op, request) };
  } catch (error) {
    return { ok: false, error: String(error?.message ?? error) };
  }
}

/** The kind of a field described as the observation reports it: credential, payment, identity
 * or other. Pure: the classifier inside pageTool, so the page and the tests run one copy. */
export function fieldKind(field) {
  return pageTool({ op: "field_kind", field }).result;
}
