"""A stranger's rich text (HTML) as Markdown, never as HTML: what a memo keeps is text the
timeline renders through its own sanitizer, so nothing of the page (script, style, event
handlers, frames, forms) survives the conversion.

The HTML is parsed by BeautifulSoup with the standard library's parser (no DTD is read, so an
entity declared in the page is never expanded; a page that declares one is refused by the
caller) and converted by markdownify, with three changes of ours:
- elements that carry code or embed other documents are removed with their text (`script`,
  `style`, `iframe`, `object`, `embed`, `template`, `noscript`, `form`, `svg`, `math`);
- a link keeps its target only for `http:`, `https:` and `mailto:` (else its text stays);
- `<` in text is written `&lt;`, so text that looks like a tag stays text in Markdown too;
- underscores are not escaped (`#my_tag` stays a tag); asterisks are;
- words that Markdown would read as a heading, a list or a character reference (`# 总结`,
  `1. 不是列表`, `&lt;` typed as such) are escaped, so they show as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

_REMOVED = ("script", "style", "iframe", "frame", "frameset", "object", "embed", "template", "noscript", "form",
            "svg", "math", "link", "meta", "base")  # fmt: skip
_SCHEMES = ("http://", "https://", "mailto:")
#: Elements nested deeper than this are not converted (markdownify recurses once per level, so a
#: page of 600 nested <b> would exhaust Python's stack); no note's rich text comes near it.
MAX_DEPTH = 100
#: The slice of a page the tokenizer is fed at a time (`blocks`).
FEED_CHARACTERS = 1 << 20


#: Text that Markdown would read as structure or as a character reference, though the rich text
#: held it as words: "# " (a heading: a tag has no space after its sign), "1. " and "- " (a list),
#: "&lt;" typed as such (shown as "<"). markdownify's `escape_misc` escapes these and far more
#: (every `[`, `=`, `+`, `|`); these alone are escaped, with a backslash.
#: Only at a text's start or after a line break (where a line may start): "A - B" keeps its words.
_HEADING = re.compile(r"^(?=#{1,6}(?:\s|$))", re.MULTILINE)
_LIST_ITEM = re.compile(r"^([0-9]{1,9})(?=[.)](?:\s|$))", re.MULTILINE)
_BULLET = re.compile(r"^(?=[-+](?:\s|$))", re.MULTILINE)
_REFERENCE = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")


class _Converter(MarkdownConverter):
    def escape(self, text: str, parent_tags: Any) -> str:
        escaped = str(super().escape(text, parent_tags))  # type: ignore[misc]  # not in markdownify's hints
        if "_noformat" not in parent_tags:  # code keeps its text as it is
            escaped = _REFERENCE.sub(r"\\&", escaped)
            escaped = _HEADING.sub(r"\\", escaped)
            escaped = _LIST_ITEM.sub(r"\1\\", escaped)
            escaped = _BULLET.sub(r"\\", escaped)
        return escaped.replace("<", "&lt;")

    def convert_a(self, el: Any, text: str, parent_tags: Any) -> str:
        href = str(el.get("href") or "").strip()
        if not href.lower().startswith(_SCHEMES):
            return text
        target = f"<{href}>" if any(ch in href for ch in " ()<>") else href
        if "<" in href[1:-1] or ">" in href[1:-1]:
            return text
        return f"[{text}]({target})" if text.strip() else f"<{href}>"

    def convert_img(self, el: Any, text: str, parent_tags: Any) -> str:
        return ""  # images are attachments (the caller collects them), never inline HTML or links


def depth(element: Tag) -> int:
    """How deeply elements nest under `element`, counted without recursion."""
    deepest = 0
    stack: list[tuple[Tag, int]] = [(element, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in node.children if isinstance(child, Tag))
    return deepest


def parse(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


class _Blocks(HTMLParser):
    """The source text of each `<div class="NAME">` (with what it holds) in a page, found by the
    standard library's tokenizer: nothing of the page is kept but the blocks' offsets."""

    def __init__(self, html: str, name: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html, self.name = html, name
        self.line, self.line_start = 1, 0  # getpos gives line and column: where that line starts
        self.spans: list[tuple[int, int]] = []
        self.start: int | None = None
        self.depth = 0

    def _offset(self) -> int:
        line, column = self.getpos()  # only ever forward: the tags come in the page's order
        while self.line < line:
            self.line_start = self.html.index("\n", self.line_start) + 1
            self.line += 1
        return self.line_start + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "div":
            return
        if self.start is not None:
            self.depth += 1
        elif any(key == "class" and self.name in (value or "").split() for key, value in attrs):
            self.start, self.depth = self._offset(), 1

    def handle_endtag(self, tag: str) -> None:
        if tag != "div" or self.start is None:
            return
        self.depth -= 1
        if not self.depth:
            close = self.html.find(">", self._offset())
            end = len(self.html) if close < 0 else close + 1
            self.spans.append((self.start, end))
            self.start = None


def blocks(html: str, name: str) -> Iterator[str]:
    """The source of every outermost `<div class="NAME">…</div>` of a page, in order, without
    building the page's tree: BeautifulSoup holds some 75 bytes for each byte of a page (a 25 MiB
    page took 1.9 GB), so a page of cards is read one card at a time. The tokenizer is fed
    FEED_CHARACTERS at a time and each block is given as soon as it closes, so a caller that stops
    (a cap on cards) stops the reading too. A block left open runs to the page's end."""
    found = _Blocks(html, name)
    for offset in range(0, len(html), FEED_CHARACTERS):
        found.feed(html[offset : offset + FEED_CHARACTERS])
        yield from _taken(found, html)
    found.close()
    yield from _taken(found, html)
    if found.start is not None:
        yield html[found.start :]


def _taken(found: _Blocks, html: str) -> Iterator[str]:
    spans, found.spans = found.spans, []
    for start, end in spans:
        yield html[start:end]


def to_markdown(element: Tag | None) -> str:
    """The element's content as Markdown (empty for None)."""
    if element is None:
        return ""
    for name in _REMOVED:
        for found in element.find_all(name):
            found.decompose()
    converter = _Converter(heading_style="ATX", bullets="-", escape_underscores=False, escape_asterisks=True)
    text = converter.convert_soup(element)
    lines = [line.rstrip() for line in str(text).replace("\r\n", "\n").split("\n")]
    collapsed: list[str] = []
    for line in lines:
        if line or (collapsed and collapsed[-1]):
            collapsed.append(line)
    return "\n".join(collapsed).strip()
