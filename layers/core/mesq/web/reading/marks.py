"""Search hits marked in note text, safely: the text is cut into (segment, is_hit) pairs and the
template autoescapes each segment inside or outside a `<mark>`, so no note text is ever HTML.

Matching is the search's own rule (search/literal_kind.py `fold`: NFC, `str.casefold` and U+FF03 as
`#`, as `search_reading_notes` compares), mapped back to the original characters: folding may
lengthen a character (`ß` -> `ss`) or compose several (e + U+0301 -> é), so each folded character
remembers which original unit it came from.
A match is then widened to the whole characters a reader sees (`_cluster_start`, `_cluster_end`):
a match may end before a combining accent, a skin tone or a keycap, inside a ZWJ emoji sequence,
or between the two halves of a flag, and a mark there splits what is drawn as one character.
"""

from __future__ import annotations

import unicodedata

from ...search.literal_kind import fold, units

Segment = tuple[str, bool]


def _folded_with_origin(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The folded text and, for each of its characters, the unit of `text` it came from (a
    character with its combining marks: NFC may have composed them into one)."""
    folded: list[str] = []
    origin: list[tuple[int, int]] = []
    for start, end in units(text):
        for part in fold(text[start:end]):
            folded.append(part)
            origin.append((start, end))
    return "".join(folded), origin


_ZWJ = "\u200d"


def _extends(character: str) -> bool:
    """Part of the character before it: a combining mark (accents, variation selectors, the keycap),
    a skin tone, an emoji tag character, or the zero-width joiner."""
    code = ord(character)
    return (
        character == _ZWJ or unicodedata.category(character) in ("Mn", "Mc", "Me")
        or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F
    )  # fmt: skip


def _regional(character: str) -> bool:
    """A regional indicator: two of them are one flag."""
    return 0x1F1E6 <= ord(character) <= 0x1F1FF


def _flag_run_start(text: str, at: int) -> int:
    while at > 0 and _regional(text[at - 1]):
        at -= 1
    return at


def _cluster_start(text: str, at: int) -> int:
    """`at`, moved back to the start of the character (as a reader sees it) it falls in."""
    while at > 0 and (_extends(text[at]) or text[at - 1] == _ZWJ):
        at -= 1
    if _regional(text[at]) and (at - _flag_run_start(text, at)) % 2:
        at -= 1
    return at


def _cluster_end(text: str, at: int) -> int:
    """`at` (an end, exclusive), moved on to the end of the character it falls in."""
    inside_a_flag = 0 < at < len(text) and _regional(text[at - 1]) and _regional(text[at])
    if inside_a_flag and (at - _flag_run_start(text, at)) % 2:
        at += 1
    while at < len(text) and (_extends(text[at]) or text[at - 1] == _ZWJ):
        at += 1
    return at


def _hit_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) in `text` of each non-overlapping match of `query`, left to right."""
    needle = fold(query)
    if not needle:
        return []
    folded, origin = _folded_with_origin(text)
    spans: list[tuple[int, int]] = []
    at = folded.find(needle)
    while at != -1:
        start = _cluster_start(text, origin[at][0])
        end = _cluster_end(text, origin[at + len(needle) - 1][1])
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
