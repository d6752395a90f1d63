// Validate documents against published JSON Schemas with Ajv, as their publishers do
// (the Server Card extension's scripts/validate-examples.ts: Ajv2020 + ajv-formats, strict: false).
//
// stdin:  [{"name", "draft": "07" | "2020-12", "schema", "ref" (a JSON pointer into schema, or ""), "document"}]
// stdout: [{"name", "valid", "errors"}]
"use strict";

const Ajv07 = require("ajv").default;
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const output = [];
for (const { name, draft, schema, ref, document } of input) {
  const ajv = draft === "2020-12" ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv07({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(schema, "schema.json");
  const validate = ajv.getSchema("schema.json" + (ref ? "#" + ref : ""));
  const valid = validate(document) === true;
  output.push({ name, valid, errors: valid ? [] : validate.errors });
}
process.stdout.write(JSON.stringify(output));
