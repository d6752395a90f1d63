"""Text cut where a reader sees a character end: at a grapheme-cluster boundary (UAX #29, the
`regex` module's `\\X`), so a cap never leaves half a joined emoji (👩‍👩‍👧 cut after a ZWJ), a
flag's one regional indicator or a letter without its combining accent."""

from __future__ import annotations

import regex

_GRAPHEME = regex.compile(r"\X")


def cut(text: str, limit: int) -> str:
    """The longest start of `text` made of whole graphemes within `limit` code points (the caps
    count code points, as JSON Schema's maxLength does)."""
    if len(text) <= limit:
        return text
    end = 0
    for found in _GRAPHEME.finditer(text, 0, limit + 1):
        if found.end() > limit:
            break
        end = found.end()
    return text[:end]
