"""A book's notes are written in transactions DynamoDB takes: at most 100 writes and its 4 MB
payload, on DynamoDB Local as on AWS."""

from __future__ import annotations

import random

import pytest

from mesq.reading import store as reading_store
from mesq.reading.merge import apply_snapshot
from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote, book_id
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401


@pytest.mark.dynamodb_local
def test_a_book_of_long_notes_is_merged_in_transactions_under_the_payload_limit(request: pytest.FixtureRequest) -> None:
    """40 thoughts of 49,000 random Chinese characters (150 KB each, 6 MB together) in one file
    import: the merge wrote them in one transaction of 41 writes, which DynamoDB refused (4 MB;
    a ValueError, the import failed); now every note is stored and counted."""
    items = request.getfixturevalue("dynamodb_local")
    rng = random.Random(7)
    notes = tuple(
        UpstreamNote(
            "note",
            str(n),
            "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(49_000)),
            "2026-10-01T00:00:00.000000Z",
            None,
            None,
            n,
            n,
        )
        for n in range(40)
    )
    apply_snapshot(items, "u1", BookSnapshot(UpstreamBook("book-1", "书"), notes),
                   "2026-10-02T00:00:00.000000Z", "import")  # fmt: skip
    stored = list(reading_store.book_notes(items, "u1", book_id("book-1")))
    assert len(stored) == 40
    book = reading_store.read_book(items, "u1", book_id("book-1"))
    assert book is not None and book["thoughtCount"] == 40
