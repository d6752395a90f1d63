// Compile MeSQ's tool schemas with Ajv the way JS MCP hosts do, and run pattern samples.
//
// stdin:  {"schemas": [{"name", "kind", "schema"}], "patterns": {"<pattern>": ["sample", ...]}}
// stdout: {"compileErrors": [{"name", "kind", "config", "error"}],
//          "patterns": {"<pattern>": {"error": "..."} | {"accepts": [true, false, ...]}}}
//
// Two configurations of Ajv2020 (draft 2020-12, MCP's default dialect), both with ajv-formats:
// `sdk` is the MCP TypeScript SDK's default validator (strict: false, validateFormats: true,
// validateSchema: false, allErrors: true); `metaschema` is the same plus validateSchema: true, so a
// schema must also pass the 2020-12 metaschema. Ajv compiles `pattern` with the `u` flag.
"use strict";

const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

function makeAjv(validateSchema) {
  const ajv = new Ajv2020({ strict: false, validateFormats: true, validateSchema, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const configs = { sdk: makeAjv(false), metaschema: makeAjv(true) };
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const output = { compileErrors: [], patterns: {} };

for (const { name, kind, schema } of input.schemas) {
  for (const [config, ajv] of Object.entries(configs)) {
    try {
      ajv.compile(schema);
    } catch (error) {
      output.compileErrors.push({ name, kind, config, error: String(error.message || error) });
    }
  }
}

for (const [pattern, samples] of Object.entries(input.patterns)) {
  let validate;
  try {
    validate = configs.sdk.compile({ type: "string", pattern });
  } catch (error) {
    output.patterns[pattern] = { error: String(error.message || error) };
    continue;
  }
  output.patterns[pattern] = { accepts: samples.map((sample) => validate(sample) === true) };
}

process.stdout.write(JSON.stringify(output));
