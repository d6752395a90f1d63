"""The tag rule means the same in ECMA-262 as in Python: the composer's `#` suggestions
(static/memos.js compiles kernel/tags.py's patterns with the `u` flag) and JS hosts validating
`TagName` (Ajv, through tests/mcp/ajv_check.cjs) must agree with what `parse_tags` stores.

Issue 41's and the outside sweep's cases, then a few thousand random texts over the characters
the rule singles out, through both engines (Node runs tests/kernel/tag_rule.cjs). What only the
Markdown parse decides (code, links) is Python's alone: tests/kernel/test_tags.py."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

from mesq.kernel.spec import load_spec
from mesq.kernel.tags import TAG_IN_TEXT_PATTERN, TAG_NAME_PATTERN, TAG_TYPED_PATTERN, find_tags, is_valid_tag
from tests.kernel.test_tags import AFTER_A_BARE_URL, JOINED, SWEEP_TAGGED, SWEEP_UNTAGGED, TAGGED, TITLED, UNTAGGED
from tests.mcp.test_js_schemas import _node_tools, run_ajv

TAG_RULE = Path(__file__).with_name("tag_rule.cjs")
#: Characters the rule treats differently: whitespace of either engine, CJK of each plane, the
#: punctuation before and inside tags, symbols and emoji with their joiners and selectors, invisible
#: characters, letters, digits, markup, and the starts of URLs and comments.
ALPHABET = [
    "#", "#", "#", "＃", " ", "\n", "\u3000", "\ufeff", "\x85", "\x1c", "\xa0", "a", "Z", "1", "é", "ｚ", "读", "书",
    "《", "》", "〈", "〉", "，", "。", "“", "”", "…", "—", "·", "😀", "\U00020000", "가", "タ", "/", "/", "&", ";",
    "(", ")", "]", "[", "=", '"', "'", ":", "_", "-", "*", "~", "`", "{", "}", "<", ">", "!", "?", "$", "\\",
    "✅", "★", "👨", "\u200d", "\u200c", "می", "页", "\ufe0f", "\u20e3", "\u200b", "\u2060", "\u00ad", "https://",
    "www.", "<!--", "-->", "<https:", "](https://",
]  # fmt: skip


def run_node(texts: list[str]) -> dict[str, Any]:
    tools = _node_tools()
    done = subprocess.run(
        [tools.node_executable(), str(TAG_RULE)],
        input=json.dumps({"inText": TAG_IN_TEXT_PATTERN, "typed": TAG_TYPED_PATTERN, "texts": texts}),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def random_texts(count: int) -> list[str]:
    chooser = random.Random(41)
    return ["".join(chooser.choices(ALPHABET, k=chooser.randint(1, 14))) for _ in range(count)]


def test_the_same_tags_and_typed_words_in_both_engines():
    texts = [*TAGGED, *UNTAGGED, *SWEEP_TAGGED, *SWEEP_UNTAGGED, *JOINED, *AFTER_A_BARE_URL, *TITLED]
    texts += random_texts(4000)
    ecma = run_node(texts)
    typed = re.compile(TAG_TYPED_PATTERN)
    for text, tags, word in zip(texts, ecma["tags"], ecma["typed"], strict=True):
        assert [name for _s, _e, name in find_tags(text)] == tags, text
        found = typed.search(text)
        assert (found.group(1) if found else None) == word, text
    for text in TAGGED:
        assert ecma["tags"][texts.index(text)] == TAGGED[text]
    for text in SWEEP_TAGGED:
        assert ecma["tags"][texts.index(text)] == SWEEP_TAGGED[text]
    for cases in (JOINED, AFTER_A_BARE_URL, TITLED):
        for text in cases:
            assert ecma["tags"][texts.index(text)] == cases[text]
    for text in [*UNTAGGED, *SWEEP_UNTAGGED]:
        assert ecma["tags"][texts.index(text)] == []


def test_every_tag_found_is_a_tag_name_to_the_schema_in_ecma():
    schema = load_spec().document["components"]["schemas"]["TagName"]
    assert schema["pattern"] == TAG_NAME_PATTERN
    texts = [*TAGGED, *SWEEP_TAGGED, *JOINED, *TITLED, *random_texts(2000)]
    found = sorted({name for text in texts for _s, _e, name in find_tags(text)})
    refused = ["C#", "a#b", "读书……", "读书——", "#读书", "a//b", "/a", "x\n", "工作\u200b后面", "a\u2060"]
    refused += ["读书《三体》", "《三体》x", "《三体", "a/《b〉", "《a b》"]
    accepts = run_ajv({"schemas": [], "patterns": {TAG_NAME_PATTERN: found + refused}})["patterns"][TAG_NAME_PATTERN]
    assert accepts == {"accepts": [True] * len(found) + [False] * len(refused)}
    assert all(is_valid_tag(name) for name in found) and not any(is_valid_tag(name) for name in refused)
