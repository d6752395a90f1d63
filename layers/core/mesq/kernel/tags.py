"""Tags live in memo content: `#tag` and hierarchical `#a/b`.

Where a tag starts (the one rule: memos, the Markdown renderer's tag links, quick add and the
composer's `#` suggestions all read it from here). A `#`, or the fullwidth `＃` of a Chinese input
method, starts a tag
- at the start of the text, or after whitespace;
- after CJK text or punctuation (`今天去买菜#生活`, `《三体》#读书`, `周报，#工作`): Chinese writers put
  no space there;
- after ASCII punctuation that ends or opens a phrase: `! " ' ( ) * , . : ; < > ? ] } | ~`
  (`(#tag)`, `**bold**#tag`, `>#quote`);
and nowhere else: not after a Latin letter or digit (`a#b`, `C#`, `x.html#frag`), nor after the
ASCII characters that join a word or write an address, an entity or markup: `# $ % & + - / = @
[ \\ ^ _ { `` ` `` (`##`, `$#`, `&#123;`, `https://x.test/#frag`, `?a=#b`, `\\#`, `[[#heading]]`,
`{#id}`), nor in a Markdown link target `](#anchor)` or an HTML attribute `="#anchor"`.
A tag runs until whitespace or punctuation. Code spans and fenced code blocks are skipped:
`#include` in a snippet is not a tag. `a/b` implies `a`.

The rule is written as regular expressions that mean the same in Python's `re` and in ECMA-262
with the `u` flag (the composer's script and JS schema validators): only `\\s`, `\\uXXXX`
escapes, literal characters (the supplementary CJK planes are written as characters: the two
engines spell `\\U` escapes differently) and fixed-width lookbehinds. tests/kernel/test_tags.py
runs the same cases through both engines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Whitespace in both engines: Python's `\s` and ECMA-262's disagree (Python adds U+001C..U+001F and
# U+0085, ECMA adds U+FEFF), and the TagName schema must mean the same to JS hosts (Ajv) as here.
# `\s` plus the characters only the other engine counts is the union of both in either engine
# (tests/kernel/test_tags.py checks every code point), and far shorter in every tools/list than the
# set written out.
WHITESPACE_CHARS = r"\s\x1c-\x1f\x85\ufeff"
# Characters a tag can never contain besides the hierarchy separator '/': whitespace, '#' and
# punctuation (ASCII and CJK) that ends a tag in running text (`#读书……`, `#读书——好书` end at the
# ellipsis and the dash; the middle dot of `#乔治·奥威尔` stays in).
_NOT_IN_TAG = (
    rf"{WHITESPACE_CHARS}#,.;:!?()\[\]{{}}<>"
    '"'  # bare: `\"` is not a valid escape in ECMA-262 unicode mode
    r"'`|\\*~=^$%"
    r"，。；：！？（）【】「」『』、《》“”‘’…—～〈〉〔〕〖〗＃"
)
TAG_SEGMENT_CLASS = rf"[^{_NOT_IN_TAG}/]"
# The TagName schema in openapi.yaml (a unit test keeps them equal): segments joined by single
# '/'s, written with the class once (it is long, and every tools/list carries it many times).
# `$(?!\n)`: Python's `$` also matches before a final newline, ECMA's only at the end.
TAG_NAME_PATTERN = rf"^(?!/|.*//|.*/$)[^{_NOT_IN_TAG}]+$(?!\n)"

# CJK text and punctuation: Hangul Jamo; CJK radicals, Kangxi, description characters; CJK
# symbols and punctuation (U+3000-303F), kana, Bopomofo, Hangul compatibility Jamo, kanbun,
# strokes, enclosed and compatibility CJK, Extension A and the URO (to U+9FFF); Hangul Jamo
# extended-A and syllables; compatibility ideographs; vertical and compatibility forms; half- and
# fullwidth forms (`，` `：` `！`); the supplementary ideographic planes (Extension B onwards,
# U+20000-3FFFF, as characters: see the module docstring).
_CJK = (
    r"\u1100-\u11ff\u2e80-\u2fff\u3000-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe10-\ufe1f"
    r"\ufe30-\ufe4f\uff00-\uffef" + "\U00020000-\U0003ffff"
)
# Punctuation Chinese text uses from outside the CJK blocks: the middle dot, dashes, curly quotes,
# the ellipsis (`“三体”#读书`, `……#随笔`) and the rest of General Punctuation.
_GENERAL_PUNCTUATION = r"\u00b7\u2010-\u2027\u2030-\u205e"
# ASCII punctuation after which a `#` starts a tag (the rest join words or write addresses).
_ASCII_BEFORE_TAG = r"""!"'()*,.:;<>?\]}|~"""
_BEFORE_TAG = f"{WHITESPACE_CHARS}{_CJK}{_GENERAL_PUNCTUATION}{_ASCII_BEFORE_TAG}"
#: The sign of a tag: `#`, or the fullwidth `＃` a Chinese input method types in its default
#: (fullwidth punctuation) mode (`＃周末 去爬山`).
_SIGN = "[#＃]"
#: A `#` that starts a tag: at the start, or after a character of `_BEFORE_TAG`, but not in a
#: Markdown link target `](#x)` or an HTML attribute `="#x"` (fixed-width lookbehinds: both engines).
#: The `#` comes first and the lookbehinds look back over it: a pattern that starts with a literal
#: is searched for that character, one that starts with a lookbehind tries the (long) class at
#: every position (a 50,000-letter memo: 42 ms that way, 5 ms this way).
TAG_START = (
    rf"{_SIGN}(?<![^{_BEFORE_TAG}]{_SIGN})(?<!＃{_SIGN})(?<!\]\({_SIGN})(?<!=[" + f"\"']{_SIGN})"
)  # bare `"`: see _NOT_IN_TAG; `＃＃` is `##` (the fullwidth sign is in _CJK's range)
#: A tag in running text (group 1: its name, without '#'), the same in Python and ECMA-262 (`u`).
TAG_IN_TEXT_PATTERN = rf"{TAG_START}({TAG_SEGMENT_CLASS}+(?:/{TAG_SEGMENT_CLASS}+)*)"
#: The tag being typed at the end of the text (group 1: what follows its '#', possibly nothing):
#: the composer's `#` suggestions (`static/memos.js`, ECMA-262 `u`) open where a tag would start.
TAG_TYPED_PATTERN = rf"{TAG_START}((?:{TAG_SEGMENT_CLASS}|/)*)$(?!\n)"

_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
_TAG = re.compile(TAG_IN_TEXT_PATTERN)
_TAG_NAME = re.compile(TAG_NAME_PATTERN)

MAX_TAG_LENGTH = 100
#: The tag rule's version: memos stored under an older one are re-tagged once (memos/retag.py).
#: 3: the fullwidth `＃` is a tag's sign too; 2: a `#` after CJK text or punctuation starts a tag
#: (issue 41); 1: only after whitespace.
TAG_RULE_VERSION = 3


def find_tags(text: str, preceding: str = "") -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of every tag in `text`, code or not, as offsets into `text`. `preceding`
    is what stands before `text` (a renderer's previous token): it decides whether a `#` at the
    start of `text` starts a tag ("" = the start of the content)."""
    context = preceding[-2:]
    for match in _TAG.finditer(context + text, len(context)):
        if len(match.group(1)) <= MAX_TAG_LENGTH:
            yield match.start() - len(context), match.end() - len(context), match.group(1)


def _prose_tags(content: str) -> Iterator[tuple[int, int, str]]:
    """The tags of `content` outside code spans and fences, in order."""
    code = iter(_CODE.finditer(content))
    span = next(code, None)
    for start, end, name in find_tags(content):
        while span is not None and span.end() <= start:
            span = next(code, None)
        if span is None or start < span.start():
            yield start, end, name


def parse_tags(content: str) -> list[str]:
    """Distinct tags in order of first appearance."""
    return list(dict.fromkeys(name for _start, _end, name in _prose_tags(content)))


def expand_tag_paths(tags: list[str]) -> list[str]:
    """Every tag plus its ancestors (`a/b/c` -> `a`, `a/b`, `a/b/c`), sorted."""
    paths: set[str] = set()
    for tag in tags:
        parts = tag.split("/")
        paths.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return sorted(paths)


def within(tag: str, parent: str) -> bool:
    """`tag` is `parent` or below it (`家/装修` is within `家`): how a tag filter matches, for
    memos (their `tagPaths`) and todos (query_todos) alike."""
    return tag == parent or tag.startswith(parent + "/")


def is_valid_tag(tag: str) -> bool:
    return len(tag) <= MAX_TAG_LENGTH and _TAG_NAME.fullmatch(tag) is not None


def rename_tag(content: str, old: str, new: str) -> str:
    """Rewrite `#old` and `#old/...` to `#new` / `#new/...` outside code, each with the sign it
    was written with (`＃old` -> `＃new`)."""
    pieces: list[str] = []
    last = 0
    for start, end, tag in _prose_tags(content):
        if tag == old or tag.startswith(old + "/"):
            pieces += [content[last:start], f"{content[start]}{new}{tag[len(old) :]}"]
            last = end
    pieces.append(content[last:])
    return "".join(pieces)
