// The tag rule of kernel/tags.py in ECMA-262 (the engine the composer's script and JS schema
// validators run): every text's tags by TAG_IN_TEXT_PATTERN (a match without group 1 is a URL or a
// comment read over), and what TAG_TYPED_PATTERN finds being typed at its end, both compiled with
// the `u` flag as memos.js compiles them.
//
// stdin:  {"inText": "<pattern>", "typed": "<pattern>", "texts": ["...", ...]}
// stdout: {"tags": [["name", ...], ...], "typed": ["word" | null, ...]}
"use strict";

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const inText = new RegExp(input.inText, "gu");
const typed = new RegExp(input.typed, "u");
const output = {
  tags: input.texts.map((text) =>
    Array.from(text.matchAll(inText), (found) => found[1]).filter((name) => name !== undefined),
  ),
  typed: input.texts.map((text) => {
    const found = typed.exec(text);
    return found && found[1] !== undefined ? found[1] : null;
  }),
};
process.stdout.write(JSON.stringify(output));
