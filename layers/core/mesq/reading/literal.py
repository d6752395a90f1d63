"""What search holds of a reading note (the engines in mesq/search, handed these through
application/registries.py):

- `LITERAL` (search_reading_notes' literal index, search/literal_store.py): every reading note,
  deleted upstream too; the folded content, quoted text and chapter title one after the other
  (`fields["cut"]` holds where each ends, so `reading_match` checks each field on its own, as the
  scan does); ascending by sort key (the scan's walk order);
- `DOCUMENTS` (the AI index, search/indexer.py): a note not deleted upstream, its content, quoted
  text and chapter title, with its book and note type (search_everything names the book).
"""

from __future__ import annotations

import itertools
from typing import Any

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item
from ..search import pointers
from ..search.documents import Doc, DocumentSource, joined
from ..search.literal_kind import LiteralKind, Row, fold, one_per_key
from ..store.paging import walk
from .keys import NOTE_PREFIX

#: The fields search_reading_notes matches, each on its own (operations.py).
READING_FIELDS = ("content", "quotedText", "chapterTitle")


def reading_row(item: Item) -> Row:
    """A stored note: id = its sort key after the prefix (so the id order is the scan's order)."""
    parts = [fold(str(item.get(name) or "")) for name in READING_FIELDS]
    cut, end = [], 0
    for part in parts[:-1]:
        end += len(part)
        cut.append(end)
    return Row(str(item["sk"]).removeprefix(NOTE_PREFIX), {"cut": cut}, "".join(parts))


def reading_parts(fields: dict[str, Any], text: str) -> list[str]:
    """A row's folded fields again (the inverse of `reading_row`'s concatenation)."""
    bounds = [0, *fields["cut"], len(text)]
    return [text[start:end] for start, end in itertools.pairwise(bounds)]


def reading_match(needle: str, fields: dict[str, Any], text: str) -> bool:
    """The scan's predicate on a row: the folded needle inside one of the folded fields."""
    return any(needle in part for part in reading_parts(fields, text))


LITERAL = LiteralKind(
    name="reading", pointer_sk=pointers.LITERAL["reading"], blob_stem="literal-reading", prefixes=(NOTE_PREFIX,),
    order=lambda row: row.id, descending=False,
    all_rows=lambda items, user_id: map(
        reading_row, walk(items, user_partition(user_id), start=NOTE_PREFIX, end=NOTE_PREFIX[:-1] + "$")
    ),
    changed=one_per_key(NOTE_PREFIX, reading_row), sort_key=lambda row_id: NOTE_PREFIX + row_id,
)  # fmt: skip


def note_doc(item: Item) -> Doc | None:
    if item.get("deletedUpstream"):
        return None
    text = joined(item.get("content"), item.get("quotedText"), item.get("chapterTitle"))
    meta = {"createdAt": item.get("createdAt"), "bookId": item["bookId"], "noteType": item.get("noteType")}
    return Doc("reading_note", item["id"], text, meta)


DOCUMENTS = (DocumentSource(NOTE_PREFIX, "reading_note", note_doc),)
