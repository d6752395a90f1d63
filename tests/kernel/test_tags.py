from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesq.kernel.spec import load_spec
from mesq.kernel.tags import (
    MAX_TAG_LENGTH,
    TAG_NAME_PATTERN,
    TAG_TYPED_PATTERN,
    WHITESPACE_CHARS,
    expand_tag_paths,
    find_tags,
    is_valid_tag,
    overlong_tags,
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


#: The outside sweep (F2, F3, F10): a symbol or emoji before `#` opens a tag, a URL ends where
#: whitespace, CJK punctuation or a Markdown link's `)` does, an invisible character ends a tag.
SWEEP_TAGGED = {
    "今天好开心😊#日常": ["日常"],
    "打卡✅#健身": ["健身"],
    "★#重要 事项": ["重要"],
    "❤️#爱 👍🏽#赞 1️⃣#第一 🇨🇳#国庆 👨‍👩‍👧#家 ©#版权": ["爱", "赞", "第一", "国庆", "家", "版权"],
    "#读书📚#好书": ["读书📚", "好书"],
    "https://x.test/a#b [链接](https://x.test/a)#标签 <https://x.test>#tag": ["标签", "tag"],
    "看 https://x.test/a#b，#读书 https://x.test/b #c": ["读书", "c"],
    "#工作\u200b后面": ["工作"],
    "工作\u200b#标签": ["标签"],
    "#a\u200bb #c\u2060d #e\u00adf #g\u200eh #i\u202ej": ["a", "c", "e", "g", "i"],
    "#家👨‍👩‍👧 好 #爱❤️‍🔥": ["家👨‍👩‍👧", "爱❤️‍🔥"],
}
#: No tag, by the text rule in both engines: a URL's `#` wherever it stands, an HTML comment, the
#: keycap emoji.
SWEEP_UNTAGGED = [
    "看这里 https://zh.wikipedia.org/wiki/%E4%B8%89%E4%BD%93#剧情 很好", "https://x.test/a#frag",
    "<https://example.com/中文#frag>", "[链接](https://例子.com/页#锚)", "<https://zh.wikipedia.org/wiki/三体#剧情>",
    "https://en.wikipedia.org/wiki/Foo_(bar)#x", "(见 https://x.test/a#b)", "<!-- #comment -->",
    "<!--\n#多行\n-->", "#️⃣ #⃣",
]  # fmt: skip
#: No tag because Markdown does not render it as prose (F2, F9): code of every kind, a link's text
#: or target, an image, a reference definition. Python's alone (the Markdown parse).
MARKDOWN_UNTAGGED = [
    "段落\n\n    #indented_code\n", "    #first_line", "\t#tab_code", "````\n```\n#inner\n```\n````",
    "~~~~\n#four\n~~~~\n\n    #code", "`` a 中#b `` 文字", "> ````\n> ```\n> #quoted\n> ````",
    "- 列表\n\n      #list_code", "[链接](页#锚)", "[看 #tag](https://x.test)", "![图 #a](x.png)",
    "[ref]: 页#锚",
]  # fmt: skip


@pytest.mark.parametrize("text", SWEEP_TAGGED)
def test_a_hash_after_a_symbol_emoji_or_url_end_starts_a_tag_and_invisibles_end_it(text):
    assert parse_tags(text) == SWEEP_TAGGED[text]
    assert [name for _s, _e, name in find_tags(text)] == SWEEP_TAGGED[text]


@pytest.mark.parametrize("text", SWEEP_UNTAGGED)
def test_a_url_a_comment_or_a_keycap_is_no_tag(text):
    assert parse_tags(text) == []
    assert list(find_tags(text)) == []


@pytest.mark.parametrize("text", MARKDOWN_UNTAGGED)
def test_what_markdown_renders_as_code_or_link_is_no_tag(text):
    candidates = [name for _s, _e, name in find_tags(text)]
    assert candidates  # the text rule alone would read a tag there
    assert parse_tags(text) == []
    assert rename_tag(text, candidates[0], "new") == text


def test_prose_around_code_still_counts():
    content = "````\n```\n#p\n```\n````\n\n#p 段落\n\n    #p\n\n<!-- #p -->\n中文#p/x [#p](https://x.test/#p)"
    assert parse_tags(content) == ["p", "p/x"]
    assert rename_tag(content, "p", "q") == content.replace("#p 段落", "#q 段落").replace("中文#p/x", "中文#q/x")


def test_an_invisible_character_is_never_in_a_tag_name():
    for char in "\u00ad\u200b\u200e\u200f\u202a\u202e\u2060\u2063\u2066\ufeff":
        assert not is_valid_tag(f"工作{char}后面") and not re.search(TAG_NAME_PATTERN, f"工作{char}后面")
    assert is_valid_tag("家👨\u200d👩\u200d👧") and is_valid_tag("❤️")
    assert not is_valid_tag("\ufe0f\u20e3")


#: Persian and the Indic scripts write the zero-width non-joiner (U+200C) inside a word, and the
#: joiner (U+200D) makes Indic conjuncts and emoji: between two of a tag's characters they are in
#: it; first, last, doubled or beside `/` they are not (a last one is left out of the name).
JOINED = {
    "#می\u200cخواهم بروم": ["می\u200cخواهم"],
    "کتاب، #می\u200cخوانم": ["می\u200cخوانم"],
    "#कि\u200dसान #क्\u200cष": ["कि\u200dसान", "क्\u200cष"],
    "#نامه\u200cها/خانه\u200cها": ["نامه\u200cها/خانه\u200cها"],
    "#می\u200c بروم #ab\u200d": ["می", "ab"],
    "#a\u200c\u200cb #c\u200c/d #e/\u200df": ["a", "c", "e"],
    "#家👨‍👩‍👧 好": ["家👨‍👩‍👧"],
}


@pytest.mark.parametrize("text", JOINED)
def test_a_joiner_between_two_of_a_tags_characters_is_in_the_tag(text):
    assert parse_tags(text) == JOINED[text]
    assert [name for _s, _e, name in find_tags(text)] == JOINED[text]


def test_a_joiner_never_starts_or_ends_a_tag_name():
    assert parse_tags("#\u200cمی #\u200dx") == []
    assert is_valid_tag("می\u200cخواهم") and is_valid_tag("कि\u200dसान") and is_valid_tag("a\u200db")
    for name in ("\u200cمی", "می\u200c", "a\u200d", "a\u200c\u200cb", "a\u200c/b", "a/\u200db"):
        assert not is_valid_tag(name), name
    assert rename_tag("#می\u200cخواهم #می", "می\u200cخواهم", "خواستن") == "#خواستن #می"


#: A bare URL ends at a CJK character (Han, kana, Hangul, CJK punctuation, fullwidth forms), as
#: the linkified URL does: what follows is text, and a `#` there starts a tag as after any CJK text.
#: An autolink `<…>` and a Markdown link's target keep a Chinese path and its fragment whole.
AFTER_A_BARE_URL = {
    "看https://example.com/页面很好#读书": ["读书"],
    "看这里 https://zh.wikipedia.org/wiki/三体#剧情 很好": ["剧情"],
    "https://x.test/中#a，见 www.例子.com/页#锚": ["a", "锚"],
    "链接https://x.test/a（说明）#备注 https://x.test/b？#问 https://x.test/カ#タグ": ["备注", "问", "タグ"],
    "<https://x.test/页面#frag> 和 [文字](https://x.test/页面#x)#读书": ["读书"],
}


@pytest.mark.parametrize("text", AFTER_A_BARE_URL)
def test_a_cjk_character_ends_a_bare_url_and_a_hash_after_it_starts_a_tag(text):
    assert parse_tags(text) == AFTER_A_BARE_URL[text]
    assert [name for _s, _e, name in find_tags(text)] == AFTER_A_BARE_URL[text]


def test_a_run_over_the_length_limit_is_no_tag_and_is_reported():
    long = "长" * (MAX_TAG_LENGTH + 1)
    assert parse_tags(f"想法 #{long} #短") == ["短"] and overlong_tags(f"想法 #{long} #短") == [long]
    assert overlong_tags(f"#{'长' * MAX_TAG_LENGTH}") == []
    assert overlong_tags(f"`#{long}` https://x.test/a#{long}") == []  # code and URLs are no tags at all


@pytest.mark.parametrize("text", TAGGED)
def test_a_hash_after_cjk_text_or_punctuation_starts_a_tag(text):
    assert parse_tags(text) == TAGGED[text]


@pytest.mark.parametrize("text", UNTAGGED)
def test_a_hash_inside_a_word_an_address_or_markup_is_no_tag(text):
    assert parse_tags(text) == []


def test_code_is_skipped_and_the_character_before_code_counts():
    assert parse_tags("`#code`#after\n```\n#fenced\n```\n中文#yes") == ["yes"]
    assert rename_tag("中文#p `中文#p` 《书》#p/x C#p", "p", "q") == "中文#q `中文#p` 《书》#q/x C#p"


#: A book or article title in title marks as a tag's part (`#读书/《三体》`): a part that starts with
#: `《` (or `〈`) runs to its closing mark, its own punctuation in it; right after a tag's word (no
#: slash) a title is text, as in running prose (`#读书《三体》很好看`). Python and ECMA-262 alike.
TITLED = {
    "#读书/《三体》 很好看": ["读书/《三体》"],
    "#《三体》": ["《三体》"],
    "＃读书/《三体》，推荐": ["读书/《三体》"],
    "#读书/《三体：黑暗森林》#科幻": ["读书/《三体：黑暗森林》", "科幻"],
    "#读书/《你好，旧时光》。": ["读书/《你好，旧时光》"],
    "#读书/《哈利·波特与魔法石》": ["读书/《哈利·波特与魔法石》"],
    "#文章/〈师说〉": ["文章/〈师说〉"],
    "#读书/《三体》/第一部": ["读书/《三体》/第一部"],
    "#读书/《三体》读后感": ["读书/《三体》"],
    "读了《三体》#读书": ["读书"],
    "#读书《三体》很好看": ["读书"],
    "#读书/《三体": ["读书"],
    "#读书/《三 体》": ["读书"],
    "#读书/《》": ["读书"],
    "#读书/《三体〉": ["读书"],
    "#读书/《三体/死神永生》": ["读书"],
    "**#读书/《三体》**": ["读书/《三体》"],
}


@pytest.mark.parametrize("text", TITLED)
def test_a_part_in_title_marks_runs_to_its_closing_mark(text):
    assert parse_tags(text) == TITLED[text]
    for tag in TITLED[text]:
        assert is_valid_tag(tag) and re.fullmatch(TAG_NAME_PATTERN, tag)


def test_a_title_part_is_typed_and_renamed_whole():
    typed = re.compile(TAG_TYPED_PATTERN)
    assert typed.search("#读书/《三").group(1) == "读书/《三"
    assert typed.search("#读书/《三体》").group(1) == "读书/《三体》"
    assert typed.search("#《三体：").group(1) == "《三体："
    assert typed.search("#读书《三") is None  # a title after the word, no slash: text
    assert rename_tag("#读书/《三体》 #读书", "读书", "书") == "#书/《三体》 #书"
    assert not any(map(is_valid_tag, ["读书《三体》", "《三体》x", "《三体", "《》", "a/《b〉", "《a b》"]))


def test_rename_keeps_the_sign_it_was_written_with():
    assert rename_tag("＃周末 去爬山 #周末/远足", "周末", "假日") == "＃假日 去爬山 #假日/远足"


def test_find_tags_reads_plain_text_for_quick_add():
    line = "买菜 https://x.test/a#b #家 ★#急"
    assert [(line[start:end], name) for start, end, name in find_tags(line)] == [("#家", "家"), ("#急", "急")]


def test_the_typed_pattern_opens_where_a_tag_starts():
    typed = re.compile(TAG_TYPED_PATTERN)
    assert typed.search("今天去买菜#生").group(1) == "生"
    assert typed.search("周报，#").group(1) == ""
    assert typed.search("see #a/b").group(1) == "a/b"
    assert typed.search("C#") is None
    assert typed.search("买菜＃生").group(1) == "生"
    assert typed.search("#x\n") is None  # the end is the end, in both engines
    assert typed.search("看 https://en.wikipedia.org/wiki/Foo#pl").group(1) is None  # a URL: none
    assert typed.search("https://x.test/a 中#剧").group(1) == "剧"
    assert typed.search("开心😊#日").group(1) == "日"
    assert typed.search("#می\u200cخوا").group(1) == "می\u200cخوا"
    assert typed.search("看https://x.test/页面很好#读").group(1) == "读"  # the URL ended at 页
    assert typed.search("看 <https://x.test/页面#读").group(1) is None  # an autolink being typed
    assert typed.search("看 [文字](https://x.test/页面#读").group(1) is None  # a link's target


def test_footnote_labels_are_told_from_tags_in_linear_time() -> None:
    """A `#` inside a footnote's label (`[^读#1]`) is no tag: each candidate was checked against
    every label, 2.8 s here for a memo's 50,000 characters of `[^a]中#b`. The bound is loose (this
    machine is shared); the quadratic check took 2.8 s, the bisection takes ~0.03 s."""
    import time

    from mesq.kernel.tags import mark_tags

    text = ("[^a]中#b" * 7200)[:50_000]
    started = time.perf_counter()
    _marked, candidates = mark_tags(text)
    took = time.perf_counter() - started
    assert len(candidates) == 7142 and took < 1.0, took
    assert [name for _s, _e, name in mark_tags("[^读#a]#b 和[^读#a]")[1]] == ["b"]
