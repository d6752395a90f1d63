"""Text as a reader sees it: cut where a reader sees a character end, at a grapheme-cluster
boundary (UAX #29, the `regex` module's `\\X`), so a cap never leaves half a joined emoji (👩‍👩‍👧
cut after a ZWJ), a flag's one regional indicator or a letter without its combining accent; and
whether a text holds a word at all (`has_words`: search and the search page ask it)."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _grapheme() -> Any:
    """`\\X`, compiled on the first cut: `regex` is imported only by what cuts text (a page that
    only asks `has_words` never loads it)."""
    import regex

    return regex.compile(r"\X")


def cut(text: str, limit: int) -> str:
    """The longest start of `text` made of whole graphemes within `limit` code points (the caps
    count code points, as JSON Schema's maxLength does)."""
    if len(text) <= limit:
        return text
    end = 0
    for found in _grapheme().finditer(text, 0, limit + 1):
        if found.end() > limit:
            break
        end = found.end()
    return text[:end]


def has_words(text: str) -> bool:
    """A letter or a digit of any script. A query of spaces, punctuation or symbols alone ("   ",
    "\u3000", "%_%", "*") has no term for BM25, and its embedding is noise: the vector branch
    placed such a query nearest some note every time (0.37-0.98 before the probes). It answers
    nothing, as the literal search answers a query of spaces."""
    return any(character.isalnum() for character in text)
