"""Search hits marked in note text, safely: the text is cut into (segment, is_hit) pairs and the
template autoescapes each segment inside or outside a `<mark>`, so no note text is ever HTML.

Matching is the search's own rule (search/literal_kind.py `fold`: `str.casefold` and U+FF03 as `#`,
as `search_reading_notes` compares), mapped back to the original characters: folding may lengthen
a character (`ß` -> `ss`), so each folded character remembers which original one it came from.
"""

from __future__ import annotations

from ...search.literal_kind import fold

Segment = tuple[str, bool]


def _folded_with_origin(text: str) -> tuple[str, list[int]]:
    folded: list[str] = []
    origin: list[int] = []
    for index, character in enumerate(text):
        for part in fold(character):
            folded.append(part)
            origin.append(index)
    return "".join(folded), origin


def _hit_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) in `text` of each non-overlapping match of `query`, left to right."""
    needle = fold(query)
    if not needle:
        return []
    folded, origin = _folded_with_origin(text)
    spans: list[tuple[int, int]] = []
    at = folded.find(needle)
    while at != -1:
        start, end = origin[at], origin[at + len(needle) - 1] + 1
        if not spans or start >= spans[-1][1]:
            spans.append((start, end))
        at = folded.find(needle, at + len(needle))
    return spans


def marked(text: str, query: str) -> list[Segment]:
    """`text` as segments, the matches of `query` flagged (an empty text gives no segments)."""
    segments: list[Segment] = []
    cursor = 0
    for start, end in _hit_spans(text, query):
        if start > cursor:
            segments.append((text[cursor:start], False))
        segments.append((text[start:end], True))
        cursor = end
    if cursor < len(text):
        segments.append((text[cursor:], False))
    return segments
