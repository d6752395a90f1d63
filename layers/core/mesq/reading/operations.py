"""The three reading tools of docs/contract.md §6 (toolset `reading`, scope `reading:read`), one
function per operationId. Everything is read from the caller's own partition.

The note lists keep the read tools' 25,000-character budget (kernel/response_budget.py): a page
holds the whole notes that fit, and `nextOffset` follows the last one shown; a note longer than
the budget (notes may be 50,000 characters) comes alone on its page. An outside sweep had 100
notes of 50,000 characters answered in one 5-million-character tool result."""

from __future__ import annotations

import functools
import itertools
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import NotFound
from ..kernel.messages import quoted
from ..kernel.pages import always, behind, full_and_behind, page
from ..kernel.response_budget import whole_records_within
from ..search.literal_kind import fold
from ..search.literal_kind import needle as literal_needle
from . import store
from .keys import NOTE_PREFIX
from .literal import LITERAL, READING_FIELDS, reading_match
from .model import note_total, public_book, public_note

DEFAULT_LIMIT = 100
#: At most this many books whose title or author holds a search's query (`books`, first page).
TITLED_BOOKS = 10


def _window(args: dict[str, Any]) -> tuple[int, int]:
    return int(args.get("offset", 0)), int(args.get("limit", DEFAULT_LIMIT))


def list_reading_books(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    offset, limit = _window(args)
    books = store.shelf_order(store.all_books(call.services.items, call.principal.user_id))
    shown = [public_book(book) for book in books[offset : offset + limit]]
    return {"books": shown, "page": page(offset, limit, len(shown), len(books), has_more=behind)}


def list_reading_notes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    offset, limit = _window(args)
    user_id = call.principal.user_id
    book = store.read_book(call.services.items, user_id, args["bookId"])
    if book is None:
        raise NotFound("reading book %(bookId)s not found", bookId=quoted(args["bookId"]))
    window = list(store.book_notes(call.services.items, user_id, book["id"], limit=offset + limit))[offset:]
    notes = [public_note(item) for item in window]
    kept = whole_records_within(notes)
    # The total comes from the book's counters: only a full page may have a successor (or one
    # the budget cut short: the notes past it are there).
    more = always if kept < len(notes) else full_and_behind
    return {"notes": notes[:kept], "page": page(offset, limit, kept, note_total(book), has_more=more)}


def _matches(item: dict[str, Any], needle: str) -> bool:
    return any(needle in fold(str(item.get(name) or "")) for name in READING_FIELDS)


def _titled(books: list[dict[str, Any]], needle: str) -> list[dict[str, Any]]:
    """The books whose title or author holds the needle, in shelf order: a book's title is in none
    of its notes' text, so a search for 三体 found no note of 《三体》 and said nothing of the book."""
    found = (
        book
        for book in store.shelf_order(books)
        if any(needle in fold(str(book.get(name) or "")) for name in ("title", "author"))
    )
    return [public_book(book) for book in itertools.islice(found, TITLED_BOOKS)]


def _indexed_hits(call: Call, books: list[dict[str, Any]], needle: str) -> list[str] | None:
    """The matching notes' sort keys in the scan's order, through the literal index (literal.py
    `LITERAL`); None when it cannot answer exactly (none, out of step with the books'
    note counters, nothing keeps it in step): the caller scans."""
    services = call.services
    if not services.search.follows_writes:
        return None
    from ..search.literal_store import current  # numpy: with the first search

    index = current(services, call.principal.user_id, sum(note_total(book) for book in books), LITERAL)
    if index is None:
        return None
    return [NOTE_PREFIX + row.id for row in index.matching(needle, functools.partial(reading_match, needle))]


def search_reading_notes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    offset, limit = _window(args)
    items, user_id = call.services.items, call.principal.user_id
    needle = literal_needle(args["query"])
    books = store.all_books(items, user_id)
    titles = {book["id"]: book["title"] for book in books}
    indexed = _indexed_hits(call, books, needle)
    if indexed is None:
        hits = [item for item in store.every_note(items, user_id) if _matches(item, needle)]
        shown, total = hits[offset : offset + limit], len(hits)
        step = len(shown)
    else:
        # The page's notes as they are now, checked again (on DynamoDB the index follows the
        # stream: a note changed a moment ago is dropped rather than shown unmatched).
        window = indexed[offset : offset + limit]
        found = {item["sk"]: item for item in store.notes_by_key(items, user_id, window)}
        shown = [found[key] for key in window if key in found and _matches(found[key], needle)]
        total, step = len(indexed), len(window)
    notes = [public_note(item, titles.get(item["bookId"], "")) for item in shown]
    kept = whole_records_within(notes)
    if kept < len(notes):  # the next page starts after the last note shown
        step = (window.index(shown[kept - 1]["sk"]) if indexed is not None else kept - 1) + 1
    answer: dict[str, Any] = {
        "notes": notes[:kept],
        "page": page(offset, limit, kept, total, has_more=behind, step=step),
    }
    titled = _titled(books, needle) if offset == 0 else []
    return {"books": titled, **answer} if titled else answer


OPERATIONS = {fn.__name__: fn for fn in (list_reading_books, list_reading_notes, search_reading_notes)}

__all__ = ["OPERATIONS"]
