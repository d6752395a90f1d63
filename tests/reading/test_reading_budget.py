"""The reading note lists keep the read tools' 25,000-character budget (reading/operations.py):
a page holds the whole notes that fit and `nextOffset` follows the last one shown, so walking the
pages gives every note once; a note longer than the budget comes alone. An outside sweep had 100
notes of 50,000 characters in one tool result of 5 million characters."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from mesq.kernel.response_budget import RESPONSE_BUDGET_CHARACTERS, json_size
from mesq.reading import operations as reading_ops
from mesq.reading import store as reading_store
from mesq.reading.merge import apply_snapshot
from mesq.reading.model import BookSnapshot, UpstreamBook, UpstreamNote
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings
from tests.support.operations import call_of

SCOPES = frozenset({"reading:read"})


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    settings = inprocess_settings(
        data_dir=tmp_path_factory.mktemp("budget"), search_provider="none", search_index_updates="inprocess"
    )
    built = build_services(settings)
    yield built
    built.items.close()


def _shelf(services: Services, lengths: list[int]) -> Any:
    """A user with one book whose notes are `lengths` characters long (each holds 读书 to search)."""
    user = f"b{uuid.uuid4().hex[:10]}"
    notes = tuple(
        UpstreamNote("note", str(n), f"读书 {n:03d} " + "长" * length, "2026-10-01T00:00:00.000000Z", None, None, n, n)
        for n, length in enumerate(lengths)
    )
    apply_snapshot(services.items, user, BookSnapshot(UpstreamBook("book-1", "书"), notes),
                   "2026-10-02T00:00:00.000000Z", "import")  # fmt: skip
    services.search.settle_literal(user)
    return call_of(services, user, SCOPES)


def _no_scan(*_args: Any) -> Any:
    raise AssertionError("the literal index did not answer: the scan ran")


def _book(call: Any) -> str:
    [book] = reading_ops.list_reading_books(call, {})["books"]
    return str(book["id"])


def _walk(operation: Any, call: Any, arguments: dict[str, Any]) -> tuple[list[str], list[int]]:
    """Every page from offset 0: the notes' ids in order, and each page's `data` size."""
    ids: list[str] = []
    sizes: list[int] = []
    offset: int | None = 0
    while offset is not None:
        data = operation(call, {**arguments, "offset": offset, "limit": 100})
        sizes.append(json_size(data))
        ids += [note["id"] for note in data["notes"]]
        assert data["page"]["returned"] == len(data["notes"])
        offset = data["page"].get("nextOffset")
    return ids, sizes


@pytest.mark.parametrize(
    ("operation", "indexed"),
    [("list_reading_notes", True), ("search_reading_notes", True), ("search_reading_notes", False)],
)
def test_pages_of_long_notes_keep_the_budget_and_give_every_note_once(
    services: Services, operation: str, indexed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the literal index and through the scan alike."""
    call = _shelf(services, [5_000] * 12 + [30_000] + [100] * 5)
    if not indexed:
        monkeypatch.setattr(reading_ops, "_indexed_hits", lambda *_args: None)
    elif operation == "search_reading_notes":
        monkeypatch.setattr(reading_store, "every_note", _no_scan)
    arguments = {"bookId": _book(call)} if operation == "list_reading_notes" else {"query": "读书"}
    ids, sizes = _walk(getattr(reading_ops, operation), call, arguments)
    assert len(ids) == 18 and len(set(ids)) == 18
    over = [size for size in sizes if size > RESPONSE_BUDGET_CHARACTERS]
    assert len(over) == 1 and over[0] < 31_000, sizes  # the 30,000-character note, alone on its page
    assert len(sizes) >= 5, sizes


def test_a_page_that_fits_is_unchanged(services: Services) -> None:
    call = _shelf(services, [100] * 30)
    data = reading_ops.list_reading_notes(call, {"bookId": _book(call), "limit": 10})
    assert data["page"] == {"offset": 0, "limit": 10, "returned": 10, "totalCount": 30, "hasMore": True,
                            "nextOffset": 10}  # fmt: skip
    last = reading_ops.list_reading_notes(call, {"bookId": _book(call), "offset": 20, "limit": 10})
    assert last["page"]["hasMore"] is False and len(last["notes"]) == 10
