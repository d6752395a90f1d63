from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesq.kernel.spec import load_spec
from mesq.kernel.tags import (
    TAG_NAME_PATTERN,
    TAG_TYPED_PATTERN,
    WHITESPACE_CHARS,
    expand_tag_paths,
    find_tags,
    is_valid_tag,
    parse_tags,
    rename_tag,
)

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


#: Issue 41: how Chinese writers type tags (no space before `#`), and the `#`s that are no tag.
TAGGED = {
    "刚读完《三体》#读书": ["读书"],
    "周报，#工作 已交": ["工作"],
    "今天去买菜#生活": ["生活"],
    "今天读了《三体》#读书 #科幻": ["读书", "科幻"],
    "“三体”#读书……#随笔": ["读书", "随笔"],
    "#工作#生活": ["工作", "生活"],
    "(#tag) **bold**#b >#q |#cell|": ["tag", "b", "q", "cell"],
    "note:#x, end.#y!#z": ["x", "y", "z"],
    "한국어#태그 日本語#タグ 𠀀#ext": ["태그", "タグ", "ext"],
    # The fullwidth `＃` a Chinese input method types in its default mode is a tag's sign too.
    "＃周末 去爬山，顺路买菜＃家务，很开心": ["周末", "家务"],
    "＃生活 周末去爬山": ["生活"],
    "开会＃工作/周报 ！紧急": ["工作/周报"],
    "#工作＃生活": ["工作", "生活"],
}
UNTAGGED = [
    "a#b", "C#", "https://x.test/#frag", "&#123;", "x.html#frag", "?a=#b", "\\#not", "$#array",
    "[[#heading]]", "[link](#anchor)", '<a href="#top">', "{#id}", "##double", "2026#1", "é#x", "a_#b",
    "a＃b", "C＃", "＃＃double", "#＃mixed", "＃#mixed", "[link](＃anchor)",
]  # fmt: skip


@pytest.mark.parametrize("text", TAGGED)
def test_a_hash_after_cjk_text_or_punctuation_starts_a_tag(text):
    assert parse_tags(text) == TAGGED[text]


@pytest.mark.parametrize("text", UNTAGGED)
def test_a_hash_inside_a_word_an_address_or_markup_is_no_tag(text):
    assert parse_tags(text) == []


def test_code_is_skipped_and_the_character_before_code_counts():
    assert parse_tags("`#code`#after\n```\n#fenced\n```\n中文#yes") == ["yes"]
    assert rename_tag("中文#p `中文#p` 《书》#p/x C#p", "p", "q") == "中文#q `中文#p` 《书》#q/x C#p"


def test_rename_keeps_the_sign_it_was_written_with():
    assert rename_tag("＃周末 去爬山 #周末/远足", "周末", "假日") == "＃假日 去爬山 #假日/远足"


def test_find_tags_reads_plain_text_for_quick_add():
    line = "买菜 https://x.test/中#a #家 ★#急"
    assert [(line[start:end], name) for start, end, name in find_tags(line)] == [("#家", "家"), ("#急", "急")]


def test_the_typed_pattern_opens_where_a_tag_starts():
    typed = re.compile(TAG_TYPED_PATTERN)
    assert typed.search("今天去买菜#生").group(1) == "生"
    assert typed.search("周报，#").group(1) == ""
    assert typed.search("see #a/b").group(1) == "a/b"
    assert typed.search("C#") is None
    assert typed.search("买菜＃生").group(1) == "生"
    assert typed.search("#x\n") is None  # the end is the end, in both engines
