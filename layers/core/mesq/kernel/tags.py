"""Tags live in memo content: `#tag` and hierarchical `#a/b`.

Where a tag starts (the one rule: memos, the Markdown renderer's tag links, quick add and the
composer's `#` suggestions all read it from here). A `#`, or the fullwidth `＃` of a Chinese input
method, starts a tag
- at the start of the text, or after whitespace;
- after CJK text or punctuation (`今天去买菜#生活`, `《三体》#读书`, `周报，#工作`): Chinese writers put
  no space there;
- after a symbol or an emoji, with its variation selector, skin tone or keycap (`开心😊#日常`,
  `打卡✅#健身`, `★#重要`), or after an invisible character (a zero-width space): they read as a
  separator, as CJK punctuation does;
- after ASCII punctuation that ends or opens a phrase: `! " ' ( ) * , . : ; < > ? ] } | ~`
  (`(#tag)`, `**bold**#tag`, `>#quote`);
and nowhere else: not after a Latin letter or digit (`a#b`, `C#`, `x.html#frag`), nor after the
ASCII characters that join a word or write an address, an entity or markup: `# $ % & + - / = @
[ \\ ^ _ { `` ` `` (`##`, `$#`, `&#123;`, `?a=#b`, `\\#`, `[[#heading]]`, `{#id}`), nor in a
Markdown link target `](#anchor)` or an HTML attribute `="#anchor"`; never inside a URL: a bare
one (a scheme and `://`, or `www.`) runs up to whitespace, `<`, `>`, a CJK character or CJK
punctuation (kernel/cjk_text.py, where the linkified URL ends too) or a `)` it did not open
(`https://x.test/a#frag`; but `看https://x.test/页面很好#读书` tags 读书), an autolink or a Markdown
link's target is read whole (`<https://x.test/中文#frag>`, `[文字](https://x.test/页面#锚)`); nor in
an HTML comment `<!-- #x -->`. `#️⃣` is the keycap emoji, no tag.

A tag runs until whitespace, punctuation or an invisible character (zero-width space, direction
marks, word joiner, soft hyphen: pasted text carries them, and a tag with one would look like the
tag without it but be another). The zero-width non-joiner and joiner are parts of words (Persian
`#می‌خواهم`, Indic conjuncts) and of emoji (`#家👨‍👩‍👧`): one between two of a tag's characters is in
it, one first or last is not (`#می‌ x` is the tag `می`). A tag has at most MAX_TAG_LENGTH
characters: a longer run is no tag, and a write that adds one is refused (memos/writes.py);
imports and the re-tag pass keep it as text and report it (`overlong_tags`). `a/b` implies `a`.
A part that starts with a title mark `《` or `〈` runs to its closing mark, the title's own
punctuation in it (`#读书/《三体》`, `#《你好，旧时光》`); right after a part's word a title mark ends
the tag as any punctuation does (`#读书《三体》` is `读书`; see `_TITLE`).

In memo content only Markdown prose counts: a `#` that Markdown renders as code (spans, fenced
and indented blocks, any fence length), in a link's text or target, in an autolink or in a
footnote's label (`[^读书#1]`) is no tag; a footnote's text is prose.
`parse_tags` reads that from the renderer's own parse (kernel/memo_markdown.py): `mark_tags` puts a
private-use marker carrying its index in place of each candidate's sign, and the markers that
reach prose text (`prose_text`) are the tags. The renderer draws tag links at those same markers,
so what is stored and what is drawn agree by construction.

The text rule is written as regular expressions that mean the same in Python's `re` and in
ECMA-262 with the `u` flag (the composer's script and JS schema validators): only `\\s`, `\\uXXXX`
escapes, literal characters (the supplementary planes are written as characters: the two engines
spell `\\U` escapes differently) and fixed-width lookbehinds. tests/kernel/test_tags_ecma.py runs
the same cases through both engines; the Markdown step is Python's alone.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from .cjk_text import BARE_URL_STOPS, CJK_CHARS
from .memo_markdown import MAX_LABEL as MAX_FOOTNOTE_LABEL
from .memo_markdown import markdown_parser

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# Whitespace in both engines: Python's `\s` and ECMA-262's disagree (Python adds U+001C..U+001F and
# U+0085, ECMA adds U+FEFF), and the TagName schema must mean the same to JS hosts (Ajv) as here.
# `\s` plus the characters only the other engine counts is the union of both in either engine
# (tests/kernel/test_tags.py checks every code point), and far shorter in every tools/list than the
# set written out.
WHITESPACE_CHARS = r"\s\x1c-\x1f\x85\ufeff"
# Invisible format characters: the soft hyphen, zero-width space, direction marks and embeddings,
# the word joiner and invisible operators (U+FEFF is whitespace above). They end a tag and are
# never in one. The joiners are left out (_JOINERS).
_INVISIBLE = r"\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u206f"
# The zero-width non-joiner and joiner: parts of words and emoji, not separators. Persian and the
# Indic scripts write the non-joiner inside a word (`می‌خواهم`, Hindi `क्‌ष`), the joiner makes Indic
# conjuncts and joins emoji (`👨‍👩‍👧`, `❤️‍🔥`). A tag holds them between two of its characters only:
# one first is no tag, one last is left out of the name (`#می‌ x` is `می`).
_JOINERS = r"\u200c\u200d"
# Characters a tag can never contain besides the hierarchy separator '/': whitespace, '#',
# punctuation (ASCII and CJK) that ends a tag in running text (`#读书……`, `#读书——好书` end at the
# ellipsis and the dash; the middle dot of `#乔治·奥威尔` stays in) and invisible characters.
_NOT_IN_TAG = (
    rf"{WHITESPACE_CHARS}#,.;:!?()\[\]{{}}<>"
    '"'  # bare: `\"` is not a valid escape in ECMA-262 unicode mode
    r"'`|\\*~=^$%"
    r"，。；：！？（）【】「」『』、《》“”‘’…—～〈〉〔〕〖〗＃"
    rf"{_INVISIBLE}"
)
# One character of a tag, not a joiner: not in _NOT_IN_TAG, not the hierarchy separator '/'.
_TAG_CHAR = rf"[^{_NOT_IN_TAG}/{_JOINERS}]"
# A segment of a tag's name: its characters, with single joiners between two of them.
_SEGMENT = rf"{_TAG_CHAR}+(?:[{_JOINERS}]{_TAG_CHAR}+)*"
# A title in title marks as a whole part (`#读书/《三体》`, `#文章/〈师说〉`): how Chinese writers
# tag a book or an article. Inside the marks a title's own punctuation stays (`《三体：黑暗森林》`,
# `《你好，旧时光》`); not whitespace, an invisible character or joiner, '/', a sign, another title
# mark, nor ASCII that writes markup (`` ` * \ [ ] ( ) < > | ~ ``). A part that starts with `《`
# runs to its `》` and ends there (`#读书/《三体》读后感` is `读书/《三体》`); an unclosed one is no
# part (`#读书/《三体` is `读书`). After a part's word a title mark still ends the tag (`#读书《三体》`
# is `读书`: a title right after a tag is the sentence's, as in `读了《三体》#读书`).
_IN_TITLE = r"[^\s\x1c-\x1f\x85\ufeff\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f/#＃《》〈〉`*\\\[\]()<>|~]"
_TITLE = rf"《{_IN_TITLE}+》|〈{_IN_TITLE}+〉"
# One part of a tag's name: a segment or a title.
_PART = rf"(?:{_TITLE}|{_SEGMENT})"
# A tag's name: parts joined by single '/'s, not starting with a mark of its sign (variation
# selectors, combining marks for symbols: `#️⃣` is the keycap emoji).
_NAME = rf"(?![\ufe00-\ufe0f\u20d0-\u20ff]){_PART}(?:/{_PART})*"
# The TagName schema in openapi.yaml (a unit test keeps them equal): segments joined by single
# '/'s, written with the class once (it is long, and every tools/list carries it many times), and
# titles, each a whole part (at the start or after '/', and last or before '/').
# `$(?!\n)`: Python's `$` also matches before a final newline, ECMA's only at the end.
TAG_NAME_PATTERN = rf"^(?!/|.*//|.*/$)(?:[^{_NOT_IN_TAG}]|(?<![^/])(?:{_TITLE})(?![^/]))+$(?!\n)"

_CJK = CJK_CHARS  # kernel/cjk_text.py
# Symbols and the punctuation Chinese text uses from outside the CJK blocks: Latin-1 symbols and
# guillemets (`©` `°` `«»` `×`), the middle dot; General Punctuation (curly quotes, dashes, the
# ellipsis, with the zero-width characters and direction marks: `“三体”#读书`, `……#随笔`); combining
# marks for symbols (the keycap); letterlike symbols to arrows (U+2100-2BFF: `★` `✅` `☀` `⭐`); the
# emoji planes (U+1F000-1FBFF, skin tones included) and the tag characters of flag sequences.
_SYMBOLS = (
    r"\u00a1\u00a7\u00a9\u00ab\u00ae\u00b0\u00b1\u00b6\u00b7\u00bb\u00bf\u00d7\u00f7\u2000-\u206f\u20d0-\u2bff"
    + "\U0001f000-\U0001fbff\U000e0020-\U000e007f"
)
# ASCII punctuation after which a `#` starts a tag (the rest join words or write addresses).
_ASCII_BEFORE_TAG = r"""!"'()*,.:;<>?\]}|~"""
_BEFORE_TAG = f"{WHITESPACE_CHARS}{_CJK}{_SYMBOLS}{_ASCII_BEFORE_TAG}"
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
# Where a bare URL ends: whitespace, `<` `>` (an autolink's brackets, never in a URL unescaped) and
# a CJK character or the punctuation Chinese text puts right after a link (kernel/cjk_text.py:
# `看 https://x.test/a，#读书`, `看https://x.test/页面很好#读书`): the linkified URL's own end.
_URL_END = rf"{WHITESPACE_CHARS}<>{BARE_URL_STOPS}"
# A URL's scheme and `://`, or `www.`. It starts with its letter and looks back over it, as
# TAG_START does (50,000 Han characters: 2 ms, not 30).
_URL_START = r"[A-Za-z](?<![A-Za-z0-9+.\-][A-Za-z])(?:[A-Za-z0-9+.\-]{0,31}://|(?<=w)ww\.)"
# A bare URL: up to _URL_END or a `)` it did not open: pairs stay (`wiki/Foo_(bar)#x`), a Markdown
# link's `)` ends it (`[链接](https://x.test/a)#标签`).
_URL = rf"{_URL_START}(?:[^{_URL_END}()]|\([^{_URL_END}()]*\))*"
# A Markdown link's target, whole: CJK goes on to the `)` (`[文字](https://x.test/页面#锚)`), as
# the link's own parse reads it.
_LINK_URL = rf"\]\({_URL_START}(?:[^{WHITESPACE_CHARS}()]|\([^{WHITESPACE_CHARS}()]*\))*"
# An autolink, whole (CommonMark's: a scheme of 2-32 characters, `:`, no space, control or angle
# bracket, then `>`): `<https://x.test/中文#frag>` keeps its Chinese path and its fragment.
_AUTOLINK_OPEN = r"<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^<>\x00-\x20]*"
_AUTOLINK = rf"{_AUTOLINK_OPEN}>"
# An HTML comment: raw HTML is off, so the page shows it as text, but it is written not to count.
_COMMENT = r"<!--[\s\S]*?-->"
#: The tags in a text (group 1: a name, without '#'; a match without group 1 is a URL, a link's
#: target, an autolink or a comment, read over so that no `#` inside it starts a tag), the same in
#: Python and ECMA-262 (`u`).
TAG_IN_TEXT_PATTERN = rf"{_COMMENT}|{_AUTOLINK}|{_LINK_URL}|{_URL}|{TAG_START}({_NAME})"
#: The tag being typed at the end of the text (group 1: what follows its '#', possibly nothing,
#: joiners included: the word goes on; none inside a URL or an autolink being typed): the
#: composer's `#` suggestions (`static/memos.js`, ECMA-262 `u`) open where a tag would start.
#: A title being typed is in the word from its opening mark (`#读书/《三`), to its closing one.
TAG_TYPED_PATTERN = (
    rf"(?:{_AUTOLINK_OPEN}|{_LINK_URL}|{_URL}|{TAG_START}("
    rf"(?:{_TAG_CHAR}|[/{_JOINERS}]|(?<=[#＃/])(?:《{_IN_TITLE}*(?:》(?![^/]))?|〈{_IN_TITLE}*(?:〉(?![^/]))?))*"
    r"))$(?!\n)"
)

_TAG = re.compile(TAG_IN_TEXT_PATTERN)
#: A tag's name where it stands in text (after its sign).
TAG_NAME_IN_TEXT = re.compile(_NAME)
_TAG_NAME = re.compile(TAG_NAME_PATTERN)

MAX_TAG_LENGTH = 100
#: The tag rule's version: memos stored under an older one are re-tagged once (memos/retag.py).
#: 8: footnotes: a note's text is prose, its label (`[^读书#1]`, anything in `[^…]`) is no tag;
#: 7: a part in title marks is a tag's part, to its closing mark (`#读书/《三体》`, `#《三体》`);
#: 6: a footnote's definition (`[^1]: 注释#读书`) is text, no link reference: its tags count;
#: 5: a non-joiner or joiner between two of a tag's characters is in it (`#می‌خواهم`); a CJK
#: character ends a bare URL (`看https://x.test/页面很好#读书` tags 读书); 4: no tag in a URL, an HTML
#: comment or anything Markdown renders as code or a link; a `#` after a symbol or emoji starts
#: one; invisible characters end one; 3: the fullwidth `＃` is a tag's sign
#: too; 2: a `#` after CJK text or punctuation starts a tag (issue 41); 1: only after whitespace.
TAG_RULE_VERSION = 8

# The markers of mark_tags: Supplementary Private Use Areas A and B (no meaning of their own, and
# to Markdown an ordinary character). Marker 2i stands for candidate i written with `#`, 2i+1 for
# one written with `＃`: room for 65,535 candidates, more than a memo's 50,000 characters can hold.
_MARKER_BASE = 0xF0000
_MARKER_ROOM = (0x10FFFE - _MARKER_BASE) // 2
MARKER = re.compile("[\U000f0000-\U0010ffff]")


def _candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of every `#` the text rule reads as a tag, of any length."""
    for match in _TAG.finditer(text):
        if match.group(1) is not None:
            yield match.start(), match.end(), match.group(1)


def find_tags(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of every tag in plain `text` (quick add's line), not Markdown."""
    for start, end, name in _candidates(text):
        if len(name) <= MAX_TAG_LENGTH:
            yield start, end, name


# A footnote's label as a reference or a definition writes it (kernel/memo_markdown.py): no tag in it,
# and it must read the same in both places (a marker is a candidate's own, so two would differ).
# At most MAX_LABEL characters, as the parser reads one: unbounded, each `[^` of `[^[^[^…` was read
# to the memo's end (4 s for 50,000 characters).
_FOOTNOTE_LABEL = re.compile(rf"\[\^[^\] \n]{{1,{MAX_FOOTNOTE_LABEL}}}\]")


def mark_tags(content: str) -> tuple[str, list[tuple[int, int, str]]]:
    """`content` with the sign of each tag candidate (`find_tags`' rule, any length) replaced by a
    marker carrying its index, and the candidates. Characters of the marker planes already in the
    content become U+FFFD so that none passes for a marker; every offset stays."""
    labels = [found.span() for found in _FOOTNOTE_LABEL.finditer(content)] if "[^" in content else []
    starts = [start for start, _end in labels]  # in order, never overlapping

    def in_label(at: int) -> bool:
        before = bisect_right(starts, at) - 1
        return before >= 0 and at < labels[before][1]

    candidates = [candidate for candidate in _candidates(content) if not in_label(candidate[0])][:_MARKER_ROOM]
    pieces: list[str] = []
    last = 0
    for index, (start, _end, _name) in enumerate(candidates):
        sign = content[start]
        pieces += [content[last:start], chr(_MARKER_BASE + 2 * index + (sign == "＃"))]
        last = start + 1
    pieces.append(content[last:])
    # Even pieces are the content's text, odd ones markers.
    marked = "".join(piece if index % 2 else MARKER.sub("\ufffd", piece) for index, piece in enumerate(pieces))
    return marked, candidates


def marker_index(marker: str) -> int:
    """The candidate index a marker of mark_tags carries."""
    return (ord(marker) - _MARKER_BASE) // 2


def unmark(text: str) -> str:
    """`text` with each marker of mark_tags back to the sign it stands for."""
    return MARKER.sub(lambda found: "＃" if (ord(found.group()) - _MARKER_BASE) % 2 else "#", text)


def prose_text(children: Sequence[Token]) -> Iterator[int]:
    """The indexes of the `text` children of an inline token that Markdown renders as prose:
    outside links (code, autolinks and link targets are no text children at all)."""
    depth = 0
    for index, child in enumerate(children):
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
        elif child.type == "text" and depth == 0:
            yield index


@cache
def _parser() -> MarkdownIt:
    return markdown_parser()


@lru_cache(maxsize=16)  # a write reads both its tags and its over-long ones: one parse
def _prose_tags(content: str) -> tuple[tuple[int, int, str], ...]:
    """The candidates of `content` (any length) that its Markdown renders as prose, in order."""
    if "#" not in content and "＃" not in content:
        return ()  # no parse for a memo without a sign
    marked, candidates = mark_tags(content)
    if not candidates:
        return ()
    kept: set[int] = set()
    for token in _parser().parse(marked):
        if token.type == "inline" and token.children:
            for index in prose_text(token.children):
                kept.update(map(marker_index, MARKER.findall(token.children[index].content)))
    return tuple(candidate for index, candidate in enumerate(candidates) if index in kept)


def parse_tags(content: str) -> list[str]:
    """Distinct tags of memo content in order of first appearance."""
    return list(dict.fromkeys(name for _s, _e, name in _prose_tags(content) if len(name) <= MAX_TAG_LENGTH))


def overlong_tags(content: str) -> list[str]:
    """Distinct runs of memo content that would be tags but for their length, in order."""
    return list(dict.fromkeys(name for _s, _e, name in _prose_tags(content) if len(name) > MAX_TAG_LENGTH))


def is_overlong_tag(tag: str) -> bool:
    """A name the text rule reads back whole from `#name`, but longer than MAX_TAG_LENGTH: no tag,
    text where it stands (an import keeps it so and reports it)."""
    return len(tag) > MAX_TAG_LENGTH and [name for _s, _e, name in _candidates("#" + tag)] == [tag]


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
    """A name the TagName schema takes and the text rule reads back whole from `#name` (a
    zero-width joiner outside an emoji, or a keycap's mark first, would not be)."""
    if len(tag) > MAX_TAG_LENGTH or _TAG_NAME.fullmatch(tag) is None:
        return False
    return [name for _s, _e, name in find_tags("#" + tag)] == [tag]


def rename_tag(content: str, old: str, new: str) -> str:
    """Rewrite `#old` and `#old/...` to `#new` / `#new/...` where they are tags (prose), each with
    the sign it was written with (`＃old` -> `＃new`)."""
    pieces: list[str] = []
    last = 0
    for start, end, tag in _prose_tags(content):
        if len(tag) <= MAX_TAG_LENGTH and (tag == old or tag.startswith(old + "/")):
            pieces += [content[last:start], f"{content[start]}{new}{tag[len(old) :]}"]
            last = end
    pieces.append(content[last:])
    return "".join(pieces)
