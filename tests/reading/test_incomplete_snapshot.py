"""A book snapshot with notes the sync could not read (`complete=False`): no note of the book is
marked deleted and the book loses its upstream mark (so the next sync fetches it again), on the
SQLite store and on DynamoDB Local; the next complete snapshot gives the mark back."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.reading import store as reading_store
from mesq.reading.merge import apply_snapshot
from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote, book_id
from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

USER = "u-incomplete"
NOTES = tuple(UpstreamNote("highlight", f"h{n}", f"text {n}", f"2026-10-01T00:00:0{n}.000000Z") for n in range(3))


def _book(mark: str) -> UpstreamBook:
    return UpstreamBook("b1", "书", "作者", mark=mark)


def _merge_incomplete_then_whole(items: Any) -> None:
    apply_snapshot(items, USER, BookSnapshot(_book("1:3:0:0"), NOTES), "2026-10-02T00:00:00.000000Z", "sync")
    # Upstream: one more note; one of the old ones is unreadable now, so it is missing from the snapshot.
    extra = UpstreamNote("highlight", "h3", "text 3", "2026-10-01T00:00:03.000000Z")
    partial = BookSnapshot(_book("2:4:0:0"), (NOTES[0], NOTES[1], extra), complete=False)
    report = apply_snapshot(items, USER, partial, "2026-10-03T00:00:00.000000Z", "sync")
    assert (report.added, report.marked_deleted) == (1, 0)
    book = reading_store.read_book(items, USER, book_id("b1"))
    assert book is not None and "upstreamMark" not in book
    assert (int(book["highlightCount"]), int(book.get("deletedUpstreamCount", 0))) == (4, 0)
    whole = BookSnapshot(_book("2:4:0:0"), (*NOTES, extra))
    assert apply_snapshot(items, USER, whole, "2026-10-04T00:00:00.000000Z", "sync").marked_deleted == 0
    book = reading_store.read_book(items, USER, book_id("b1"))
    assert book is not None and book["upstreamMark"] == "2:4:0:0"


def test_an_incomplete_snapshot_marks_nothing_deleted_and_drops_the_mark(services: Any) -> None:
    _merge_incomplete_then_whole(services.items)


@pytest.mark.dynamodb_local
def test_an_incomplete_snapshot_on_dynamodb_local(request: pytest.FixtureRequest) -> None:
    _merge_incomplete_then_whole(request.getfixturevalue("dynamodb_local"))
