"""linkify-it for memo text (kernel/memo_markdown.py): bare URLs in prose become links, with the
schemes the sanitizer keeps (no `ftp:`, no `//x`), bare hosts only after `www.` (`README.md` and
`setup.py` are file names), and a URL that ends before non-ASCII punctuation or symbols, so
`见https://example.com/a，很好` links `https://example.com/a` (docs/decisions.md "bare URLs").
"""

from __future__ import annotations

from linkify_it import LinkifyIt
from linkify_it.main import Match
from markdown_it.common.utils import isPunctChar


def _first_non_ascii_punctuation(text: str) -> int | None:
    """The index of the first punctuation or symbol character outside ASCII in `text`, if any."""
    if text.isascii():  # most URLs are: no character to look at one by one
        return None
    return next((index for index, char in enumerate(text) if char > "\x7f" and isPunctChar(char)), None)


class MemoLinkify(LinkifyIt):  # type: ignore[misc]  # linkify-it-py has no type hints
    """linkify-it for memo text: the schemes the sanitizer keeps (no `ftp:`, no `//x`), bare
    hosts only after `www.`, and a URL ends before non-ASCII punctuation."""

    def __init__(self) -> None:
        super().__init__(schemas={"ftp:": None, "//": None})

    def match(self, text: str) -> list[Match] | None:
        # A schema-less host is a link only after `www.`: `README.md` or `setup.py` is a file.
        found = [link for link in super().match(text) or [] if link.schema or link.raw[:4].lower() == "www."]
        return found or None

    def normalize(self, match: Match) -> None:
        # linkify-it's path takes any character but whitespace and some ASCII punctuation: in
        # `见https://example.com/a，很好。` the comma and the rest would be part of the URL.
        end = _first_non_ascii_punctuation(match.raw)
        if end is not None:
            kept = match.raw[:end].rstrip(".,:;!?'\"")  # what linkify-it drops at a URL's end
            match.last_index = match.index + len(kept)
            match.raw = match.text = match.url = kept
        super().normalize(match)
