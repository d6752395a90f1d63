"""The three reading tools of docs/contract.md §6 (toolset `reading`, scope `reading:read`), one
function per operationId. Everything is read from the caller's own partition."""

from __future__ import annotations

from typing import Any

from ..kernel.context import Call
from ..kernel.errors import NotFound
from ..kernel.pages import behind, full_and_behind, page
from . import store
from .model import note_total, public_book, public_note

DEFAULT_LIMIT = 100


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
        raise NotFound(f"reading book {args['bookId']!r} not found")
    window = list(store.book_notes(call.services.items, user_id, book["id"], limit=offset + limit))[offset:]
    notes = [public_note(item) for item in window]
    # The total comes from the book's counters: only a full page may have a successor.
    total = note_total(book)
    return {"notes": notes, "page": page(offset, limit, len(notes), total, has_more=full_and_behind)}


def _matches(item: dict[str, Any], needle: str) -> bool:
    return any(needle in str(item.get(name) or "").casefold() for name in ("content", "quotedText", "chapterTitle"))


def search_reading_notes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    offset, limit = _window(args)
    user_id = call.principal.user_id
    needle = args["query"].casefold()
    hits = [item for item in store.every_note(call.services.items, user_id) if _matches(item, needle)]
    titles = {book["id"]: book["title"] for book in store.all_books(call.services.items, user_id)}
    notes = [public_note(item, titles.get(item["bookId"], "")) for item in hits[offset : offset + limit]]
    return {"notes": notes, "page": page(offset, limit, len(notes), len(hits), has_more=behind)}


OPERATIONS = {fn.__name__: fn for fn in (list_reading_books, list_reading_notes, search_reading_notes)}

__all__ = ["OPERATIONS"]
