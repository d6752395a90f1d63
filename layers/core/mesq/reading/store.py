"""Reading the shelf from the item store: books, one book's notes, every note, notes by key (key
layout in model.py)."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore
from ..store.paging import walk
from .model import book_key, books_range, notes_range


def read_book(items: ItemStore, user_id: str, id_: str) -> Item | None:
    return items.get(book_key(user_id, id_))


def all_books(items: ItemStore, user_id: str) -> list[Item]:
    start, end = books_range()
    return list(walk(items, user_partition(user_id), start=start, end=end))


def book_notes(items: ItemStore, user_id: str, id_: str, limit: int | None = None) -> Iterator[Item]:
    """One book's notes in reading order, reading no further than `limit` items."""
    start, end = notes_range(id_)
    return walk(items, user_partition(user_id), start=start, end=end, limit=limit)


def every_note(items: ItemStore, user_id: str) -> Iterator[Item]:
    start, end = notes_range()
    return walk(items, user_partition(user_id), start=start, end=end)


def notes_by_key(items: ItemStore, user_id: str, sort_keys: list[str]) -> list[Item]:
    """The notes of these sort keys that exist (one BatchGetItem; the adapter chunks it)."""
    partition = user_partition(user_id)
    return items.batch_get([(partition, key) for key in sort_keys]) if sort_keys else []


def shelf_order(books: list[Item]) -> list[Item]:
    """Newest note first; books without a live note last; ties by id (a stable walk)."""
    dated = sorted((b for b in books if b.get("lastNoteAt")), key=lambda b: (b["lastNoteAt"], b["id"]), reverse=True)
    undated = sorted((b for b in books if not b.get("lastNoteAt")), key=lambda b: b["id"])
    return dated + undated
