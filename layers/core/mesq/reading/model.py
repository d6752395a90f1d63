"""The reading shelf's records (docs/contract.md §6): what a book and a note are, their keys and
their public shape.

Keys (docs/data-model.md "Reading"): every item lives in the owner's partition `U#<user>`.
- book: sk `READ#BOOK#<bookId>`
- note: sk `READ#NOTE#<bookId>#<chapter 6 digits>#<position 9 digits>#<noteId>`: a range Query of
  one book's notes returns them in reading order, so a page reads only offset + limit items.

Ids are derived from the upstream ids (`rb_` / `rn_` + 24 hex of a SHA-256), so a re-sync or a
re-import of the same bookmarkId / reviewId finds the same record instead of adding a copy.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, Key
from .keys import BOOK_PREFIX, NOTE_PREFIX

PROVIDER = "wechat-reading"
NoteType = Literal["highlight", "note"]
CONTENT_ORIGIN: dict[str, str] = {"highlight": "book_excerpt", "note": "reader_thought"}
#: Sort keys of unknown chapters / positions go after the known ones.
UNKNOWN_CHAPTER = 999_999
UNKNOWN_POSITION = 999_999_999
#: Counters kept on the book item, updated in the same transaction as the notes they count.
COUNTERS = ("highlightCount", "thoughtCount", "deletedUpstreamCount")


@dataclass(frozen=True)
class UpstreamNote:
    """A highlight (`bookmarkId`) or a thought (`reviewId`) as the source reports it."""

    note_type: NoteType
    external_id: str
    content: str
    created_at: str  # stored UTC form
    quoted_text: str | None = None
    chapter_title: str | None = None
    chapter_index: int | None = None
    position: int | None = None


@dataclass(frozen=True)
class UpstreamBook:
    external_id: str
    title: str
    author: str = ""
    cover: str | None = None
    #: What the source says about the book's notes (its sort/update mark and counts); an
    #: unchanged mark lets an incremental sync skip fetching the book's notes.
    mark: str | None = None


@dataclass(frozen=True)
class BookSnapshot:
    """A book with ALL of its notes at the source: notes missing from it are marked deletedUpstream.
    Not `complete` when the source sent notes of it the sync could not read: then nothing of the
    book is marked deleted (an unread note is not a deleted one) and its mark is not kept, so
    the next sync fetches the book again."""

    book: UpstreamBook
    notes: tuple[UpstreamNote, ...]
    complete: bool = True


@dataclass(frozen=True)
class Skipped:
    """An item the source sent that the sync could not read, left out while the rest is synced:
    a notebook entry (`book`) or a note of a book (`highlight`, `thought`); the book's upstream
    id and title where they could be read."""

    kind: Literal["book", "highlight", "thought"]
    book_id: str | None = None
    title: str | None = None


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:24]


def book_id(external_id: str) -> str:
    return "rb_" + _digest(PROVIDER, external_id)


def note_id(book_external_id: str, note: UpstreamNote) -> str:
    return "rn_" + _digest(PROVIDER, book_external_id, note.note_type, note.external_id)


def book_key(user_id: str, id_: str) -> Key:
    return (user_partition(user_id), f"{BOOK_PREFIX}{id_}")


def notes_range(book: str | None = None) -> tuple[str, str]:
    """(start, end) of the sort keys of one book's notes, or of every note (`#` + 1 is `$`)."""
    prefix = f"{NOTE_PREFIX}{book}#" if book else NOTE_PREFIX
    return prefix, prefix[:-1] + "$"


def books_range() -> tuple[str, str]:
    return BOOK_PREFIX, BOOK_PREFIX[:-1] + "$"


def note_sort_key(record: Item) -> str:
    chapter = record.get("chapterIndex")
    position = record.get("position")
    chapter_part = UNKNOWN_CHAPTER if chapter is None else min(int(chapter), UNKNOWN_CHAPTER)
    position_part = UNKNOWN_POSITION if position is None else min(int(position), UNKNOWN_POSITION)
    return f"{NOTE_PREFIX}{record['bookId']}#{chapter_part:06d}#{position_part:09d}#{record['id']}"


def note_record(book: str, book_external_id: str, note: UpstreamNote) -> Item:
    """The stored fields a note's upstream form determines (no keys, version or deletion mark)."""
    record: Item = {
        "id": note_id(book_external_id, note),
        "bookId": book,
        "noteType": note.note_type,
        "content": note.content,
        "createdAt": note.created_at,
        "externalId": note.external_id,
    }
    optional = {
        "quotedText": note.quoted_text,
        "chapterTitle": note.chapter_title,
        "chapterIndex": note.chapter_index,
        "position": note.position,
    }
    record.update({name: value for name, value in optional.items() if value is not None})
    return record


def fingerprint(record: Item) -> str:
    """What decides whether a stored note differs from its upstream form."""
    fields = {name: record.get(name) for name in sorted(record) if name not in _BOOKKEEPING}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


_BOOKKEEPING = frozenset({"pk", "sk", "version", "deletedUpstream", "deletedUpstreamAt", "updatedAt", "fingerprint"})
_PUBLIC_NOTE = ("quotedText", "chapterTitle", "chapterIndex", "position")


def public_note(item: Item, book_title: str | None = None) -> dict[str, Any]:
    note: dict[str, Any] = {
        "id": item["id"],
        "bookId": item["bookId"],
        "noteType": item["noteType"],
        "contentOrigin": CONTENT_ORIGIN[item["noteType"]],
        "content": item["content"],
    }
    note.update({name: item[name] for name in _PUBLIC_NOTE if item.get(name) is not None})
    note["createdAt"] = item["createdAt"]
    note["externalId"] = item["externalId"]
    note["deletedUpstream"] = bool(item.get("deletedUpstream"))
    if book_title is not None:
        note["bookTitle"] = book_title
    return note


def public_book(item: Item) -> dict[str, Any]:
    book: dict[str, Any] = {
        "id": item["id"],
        "title": item["title"],
        "author": item.get("author", ""),
        "contentSource": "external",
        "provider": PROVIDER,
        "externalId": item["externalId"],
        **{name: int(item.get(name, 0)) for name in COUNTERS},
        "syncedAt": item["syncedAt"],
    }
    if item.get("cover"):
        book["cover"] = item["cover"]
    if item.get("lastNoteAt"):
        book["lastNoteAt"] = item["lastNoteAt"]
    return book


def note_total(book: Item) -> int:
    return sum(int(book.get(name, 0)) for name in COUNTERS)
