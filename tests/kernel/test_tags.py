from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mesq.kernel.spec import load_spec
from mesq.kernel.tags import TAG_NAME_PATTERN, WHITESPACE_CHARS, expand_tag_paths, is_valid_tag, parse_tags, rename_tag

#: Python's whitespace (`str.isspace`) and ECMA-262's WhiteSpace and LineTerminator, written out.
WHITESPACE_UNION = frozenset(
    "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(map(chr, range(0x2000, 0x200B)))
)


def test_parse_rules():
    content = (
        "# Heading\n#work/meetings notes #读书，then #a #a (dup) x#no `#code` #emoji😀.\n"
        "```\n#include <stdio.h>\n```\n##double #trailing/ #end"
    )
    assert parse_tags(content) == ["work/meetings", "读书", "a", "emoji😀", "trailing", "end"]


def test_whitespace_is_the_union_of_python_and_ecma():
    # U+FEFF is whitespace in ECMA-262 (not in Python), U+001C and U+0085 in Python (not in ECMA):
    # each starts and ends a tag, and none is part of a valid tag name.
    assert parse_tags("\ufeff#bom x\x1c#fs\x85#nel#\u3000 #end\ufeff") == ["bom", "fs", "nel", "end"]
    assert not any(is_valid_tag(f"a{char}") for char in "\ufeff\x1c\x85\u3000\n")
    assert not re.search(TAG_NAME_PATTERN, "work\n")  # Python's `$` alone would match


def test_whitespace_class_is_exactly_the_union_at_every_code_point():
    # The ECMA side of the same class is checked by tests/mcp/test_js_schemas.py (Ajv).
    whitespace = re.compile(f"[{WHITESPACE_CHARS}]")
    matched = {chr(point) for point in range(0x110000) if whitespace.match(chr(point))}
    assert matched == WHITESPACE_UNION
    assert {char for char in map(chr, range(0x110000)) if char.isspace()} <= WHITESPACE_UNION


def test_expand_paths():
    assert expand_tag_paths(["a/b/c", "x"]) == ["a", "a/b", "a/b/c", "x"]


def test_rename_keeps_code_and_other_tags():
    content = "#proj #proj/x #project `#proj` #proj."
    assert rename_tag(content, "proj", "p") == "#p #p/x #project `#proj` #p."


def test_schema_pattern_is_the_parser_pattern():
    schema = load_spec().document["components"]["schemas"]["TagName"]
    assert schema["pattern"] == TAG_NAME_PATTERN


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_every_parsed_tag_is_a_valid_tag_name(text):
    for tag in parse_tags(text):
        assert is_valid_tag(tag) and re.fullmatch(TAG_NAME_PATTERN, tag)
        assert f"#{tag}" in text


@given(st.lists(st.from_regex(r"[a-z]{1,5}(/[a-z]{1,5}){0,2}", fullmatch=True), min_size=1, max_size=5))
def test_rename_then_parse(tags):
    content = " ".join(f"#{t}" for t in tags)
    old = tags[0].split("/")[0]
    renamed = parse_tags(rename_tag(content, old, "zz"))
    expected = [("zz" + t[len(old) :]) if t == old or t.startswith(old + "/") else t for t in tags]
    assert renamed == list(dict.fromkeys(expected))
