"""linkify-it for memo text (kernel/memo_markdown.py): bare URLs in prose become links, with the
schemes the sanitizer keeps (no `ftp:`, no `//x`), bare hosts only after `www.` (`README.md` and
`setup.py` are file names), and a URL that ends before non-ASCII punctuation or symbols and
before a CJK character (kernel/cjk_text.py), so `见https://example.com/a，很好` links
`https://example.com/a` and `看https://example.com/页面很好` links `https://example.com/`: Chinese
puts no space after a link. A Chinese path is kept whole by an autolink `<https://…/页面>` or a
Markdown link `[文字](https://…/页面)`, which are CommonMark's own and never reach linkify
(docs/decisions.md "bare URLs").
"""

from __future__ import annotations

import re

from linkify_it import LinkifyIt
from linkify_it.main import Match
from markdown_it.common.utils import isPunctChar

from .cjk_text import BARE_URL_STOPS

_STOP = re.compile(f"[{BARE_URL_STOPS}]")
# What linkify-it drops at a URL's end, dropped again after a cut.
_TRAILING = ".,:;!?'\""


def _bare_url_end(text: str) -> int | None:
    """The index of the first character that ends a bare URL in `text` (non-ASCII punctuation or
    a symbol, a CJK character), if any."""
    if text.isascii():  # most URLs are: no character to look at one by one
        return None
    stop = _STOP.search(text)
    end = stop.start() if stop else len(text)
    punctuation = (index for index, char in enumerate(text[:end]) if char > "\x7f" and isPunctChar(char))
    return next(punctuation, end if stop else None)


def _kept(raw: str) -> str:
    """`raw` up to where a bare URL ends."""
    end = _bare_url_end(raw)
    return raw if end is None else raw[:end].rstrip(_TRAILING)


def _has_host(match: Match) -> bool:
    """A cut leaves a link only when a host is left after the scheme, `www.` or an address's `@`:
    `https://例子.com` cut at 例 is `https://`, no link (`<https://例子.com>` links it)."""
    rest = match.raw
    if match.schema and rest.lower().startswith(match.schema.lower()):
        rest = rest[len(match.schema) :]
    rest = rest.lstrip("/")
    if rest[:4].lower() == "www.":
        rest = rest[4:]
    return bool(rest.split("/", 1)[0].rsplit("@", 1)[-1].strip("."))


class MemoLinkify(LinkifyIt):  # type: ignore[misc]  # linkify-it-py has no type hints
    """linkify-it for memo text: the schemes the sanitizer keeps (no `ftp:`, no `//x`), bare
    hosts only after `www.`, and a URL ends before non-ASCII punctuation and CJK characters."""

    def __init__(self) -> None:
        super().__init__(schemas={"ftp:": None, "//": None})

    def match(self, text: str) -> list[Match] | None:
        # A schema-less host is a link only after `www.`: `README.md` or `setup.py` is a file.
        found = [
            link
            for link in super().match(text) or []
            if (link.schema or link.raw[:4].lower() == "www.") and _has_host(link)
        ]
        return found or None

    def match_at_start(self, text: str) -> Match | None:
        # markdown-it's inline linkify rule (a URL glued to the text before it) asks here.
        link = super().match_at_start(text)
        return link if link is not None and _has_host(link) else None

    def normalize(self, match: Match) -> None:
        # linkify-it's path takes any character but whitespace and some ASCII punctuation: in
        # `见https://example.com/a，很好。` the comma and the rest would be part of the URL, in
        # `看https://example.com/页面很好` the rest of the sentence.
        kept = _kept(match.raw)
        if kept != match.raw:
            match.last_index = match.index + len(kept)
            match.raw = match.text = match.url = kept
        super().normalize(match)
