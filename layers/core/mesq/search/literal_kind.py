"""What a literal index holds, as each domain describes it (`literal.py` in memos/, todos/,
reading/; gathered in application/registries.py): which records become rows, each row's text and
filter fields, the answer's order, and the rows a set of changed sort keys implies. literal_store.py
stores and follows every kind alike, handed the kind; literal.py is the index itself.

No numpy here: the domains describe their kinds at import, the index loads with the first search.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore

#: The fold's version, the default `format` of every kind: an index stored under another is rebuilt
#: (literal_store.py). 6: the dotted capital İ (U+0130) reads as i, not casefold's i + U+0307, so
#: "istanbul" finds "İstanbul" and back; 5: text is read in NFC first, so a text typed precomposed (é, 한) and the
#: same text decomposed (e + U+0301 or jamo, pasted from a macOS file name or a PDF) find each
#: other; 4: every fullwidth ASCII form and the ideographic space read as ASCII;
#: 3: traditional Chinese characters read as simplified; 2: U+FF03 reads as `#`; 1: `str.casefold`
#: alone.
FOLD_FORMAT = 6
#: The fullwidth forms of ASCII's printable characters (U+FF01-FF5E), exclamation mark to tilde.
_FULLWIDTH_ASCII = range(0xFF01, 0xFF5F)
_FULLWIDTH_OFFSET = 0xFF01 - 0x21


@functools.cache
def _same() -> dict[int, str]:
    """Characters literal search reads as another, one for one: the fullwidth forms a Chinese input
    method types read as ASCII (fullwidth letters find the word, U+FF03 `#周末` the tag of
    kernel/tags.py, U+FF0C a comma) and the ideographic space a space, as NFKC reads them for the AI
    index's terms; a traditional Chinese character reads as its simplified form (traditional.py:
    醫院複診 finds 医院复诊 and back; simplified text never changes). Built on the first fold:
    3,559 + 95 characters."""
    from .traditional import table

    widths = {code: chr(code - _FULLWIDTH_OFFSET) for code in _FULLWIDTH_ASCII}
    return {**table(), **widths, 0x3000: " "}


def casefold(text: str) -> str:
    """`str.casefold`, but the dotted capital İ (U+0130, Turkish and Azerbaijani; I + U+0307 once
    NFC has composed it) is i: casefold's i + U+0307 left a combining dot that plain `istanbul`
    lacks. The dotless i (U+0131) stays a letter of its own. (The AI index's terms fold alike: tokenizer.py.)"""
    return text.replace("\u0130", "i").casefold()


def fold(text: str) -> str:
    """Literal search's one fold, of the indexed text, the scan's text and the query alike: NFC,
    `casefold` (İ is i), then `_same()`. Unit by unit (`units`: a character with the combining marks
    or conjoining jamo after it folds the same wherever it stands), so a highlight maps each
    folded character back to the unit it came from (web/reading/marks.py)."""
    return casefold(unicodedata.normalize("NFC", text)).translate(_same())


def _joins_the_one_before(character: str) -> bool:
    """A combining mark, or a Hangul vowel or final jamo: NFC may compose it with what precedes."""
    return (
        unicodedata.combining(character) != 0
        or unicodedata.category(character) in ("Mn", "Mc", "Me")
        or (0x1160 <= ord(character) <= 0x11FF or 0xD7B0 <= ord(character) <= 0xD7FF)
    )


def units(text: str) -> list[tuple[int, int]]:
    """(start, end) of each unit `fold` reads alone: a character and the marks or jamo joining it
    (NFC composes only within one), so folding the units one by one is folding the text."""
    spans: list[tuple[int, int]] = []
    for index, character in enumerate(text):
        if spans and _joins_the_one_before(character):
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def needle(query: str) -> str:
    """A literal search's query as it is looked for: folded, without the spaces around it (a
    Shortcut or a paste leaves one; "咖啡 " found only the notes with a space after 咖啡).
    Spaces inside stay: they are part of the text looked for."""
    found = fold(query).strip()
    if not found:
        raise ValidationError("query: give the text to look for; it has only spaces")
    return found


@dataclass(frozen=True)
class Row:
    """One indexed record: its id, the fields its filter reads, and its folded text (`fold`)."""

    id: str
    fields: dict[str, Any]
    text: str


#: A row's place in the answer (sorted descending unless the kind says otherwise).
Order = Callable[[Row], Any]
#: (upserted rows, removed row ids) for some changed sort keys of the kind.
Changes = tuple[list[Row], list[str]]


@dataclass(frozen=True)
class LiteralKind:
    name: str
    #: The pointer item's sort key (the memo index keeps the name it was first stored under).
    pointer_sk: str
    #: Blob names: `search/<user hash>/<stem>-<id>.snap|.ovl`.
    blob_stem: str
    #: The sort-key prefixes of the records its rows come from (its domain's `keys`).
    prefixes: tuple[str, ...]
    order: Order
    descending: bool
    #: Every row of a user (the rebuild).
    all_rows: Callable[[ItemStore, str], Iterable[Row]]
    #: The rows some changed sort keys (already this kind's) imply.
    changed: Callable[[ItemStore, str, Sequence[str]], Changes]
    #: The sort key of the record a row stands for (the fallback reads its hits by key: fallback.py).
    sort_key: Callable[[str], str]
    #: Bump when a row's shape or the fold changes: an index of another format is rebuilt.
    format: int = FOLD_FORMAT

    def owns(self, sort_key_: str) -> bool:
        return sort_key_.startswith(self.prefixes)


def by_key(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> dict[str, Item]:
    """The user's items at these sort keys (missing ones absent), read in one batch."""
    partition = user_partition(user_id)
    return {item["sk"]: item for item in items.batch_get([(partition, key) for key in sort_keys])} if sort_keys else {}


def one_per_key(prefix: str, row_of: Callable[[Item], Row]) -> Callable[[ItemStore, str, Sequence[str]], Changes]:
    """`changed` of a kind whose row is one stored item: a key found is upserted, a key gone is removed."""

    def changed(items: ItemStore, user_id: str, sort_keys: Sequence[str]) -> Changes:
        found = by_key(items, user_id, sort_keys)
        upserts = [row_of(found[key]) for key in sort_keys if key in found]
        return upserts, [key.removeprefix(prefix) for key in sort_keys if key not in found]

    return changed
