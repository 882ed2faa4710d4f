// Reads a JSON list of fields ({type, autocomplete, name, label}) on stdin and prints the
// extension's kind of each as a JSON list: tests/test_field_kinds_agree.py compares them with
// the host's tools/fields.field_kind. Not a *.test.mjs: it is a tool of that Python test.

import { fieldKind } from "../../extension/lib/browser_tools.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const fields = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
process.stdout.write(JSON.stringify(fields.map((field) => fieldKind(field))));
