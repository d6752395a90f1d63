"""Crash-safe reading writes (issue 24, item 4): a writer killed between the transactions of one
book leaves a book that the next sync (or re-import) takes for out of date and repairs whole.

The writer is a real subprocess (crash_writer.py) that SIGKILLs itself right after a chosen
transaction commits, on SQLite and on DynamoDB Local.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.sealing.local_key import LocalKeySealer
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore
from mesq.reading import store as shelf_store
from mesq.reading.credentials import save_credential
from mesq.reading.importer import import_snapshots
from mesq.reading.model import BookSnapshot, book_id
from mesq.reading.sync import LEASE_SK, sync_user

from ..conftest import REPO
from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint, dynamodb_local_env  # noqa: F401
from .crash_writer import NOW, ShelfProvider, as_file, shelf

USER = "u_crash_test"
API_KEY = "wrk-crash-test-key-0001"


@pytest.fixture(params=["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[ItemStore, dict[str, Any]]]:
    """The store the test reads, and the spec the killed writer opens the same store with."""
    if request.param == "sqlite":
        items = SQLiteItemStore(tmp_path / "items.db")
        yield items, {"backend": "sqlite", "path": str(tmp_path / "items.db")}
        items.close()
        return
    endpoint = request.getfixturevalue("dynamodb_local_env")
    items = request.getfixturevalue("dynamodb_local")
    yield items, {"backend": "dynamodb", "endpoint": endpoint, "table": items.table_name, "region": "us-east-1"}


def _kill_writer(spec: dict[str, Any], **run: Any) -> None:
    """Run crash_writer.py with `spec` + `run` and check the OS killed it (it did not finish)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.reading.crash_writer", json.dumps({**spec, **run})],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def _notes(items: ItemStore, external_id: str) -> list[dict[str, Any]]:
    return list(shelf_store.book_notes(items, USER, book_id(external_id)))


def _assert_mixed(items: ItemStore) -> None:
    """The kill landed inside the large book: its live notes come from both versions."""
    contents = [n["content"] for n in _notes(items, "big") if not n.get("deletedUpstream")]
    assert any(c.endswith("version 1") for c in contents) and any(c.endswith("version 2") for c in contents)


def _assert_whole(items: ItemStore, version: int, *, marked: bool) -> None:
    """Every book is exactly `shelf(version)`: its notes, its deletion marks, counters and mark."""
    for snapshot in shelf(version):
        external_id = snapshot.book.external_id
        book = shelf_store.read_book(items, USER, book_id(external_id))
        assert book is not None and book["title"] == snapshot.book.title
        notes = _notes(items, external_id)
        live = {n["externalId"]: n for n in notes if not n.get("deletedUpstream")}
        assert {key: n["content"] for key, n in live.items()} == {n.external_id: n.content for n in snapshot.notes}
        earlier = {n.external_id for old in range(1, version) for n in _by_id(shelf(old))[external_id].notes}
        gone = earlier - set(live)
        assert {n["externalId"] for n in notes if n.get("deletedUpstream")} == gone
        assert book["highlightCount"] == sum(n["noteType"] == "highlight" for n in live.values())
        assert book["thoughtCount"] == sum(n["noteType"] == "note" for n in live.values())
        assert book["deletedUpstreamCount"] == len(gone)
        assert book["lastNoteAt"] == max(n.created_at for n in snapshot.notes)
        if marked:
            assert book["upstreamMark"] == snapshot.book.mark


def _by_id(snapshots: list[BookSnapshot]) -> dict[str, BookSnapshot]:
    return {snapshot.book.external_id: snapshot for snapshot in snapshots}


def test_a_sync_killed_between_chunks_is_repaired_by_the_next_sync(target, tmp_path):
    items, spec = target
    key_file = tmp_path / "keys" / "secrets.key"
    sealer = LocalKeySealer(key_file)
    save_credential(items, sealer, USER, "api_key", API_KEY, NOW)
    status = sync_user(items, sealer, USER, lambda _c, _deadline: ShelfProvider(1), lambda: NOW)
    assert "lastError" not in status, status
    _assert_whole(items, 1, marked=True)

    # Version 2 rewrites the large book in 4 transactions (300 writes); the writer dies after the 2nd.
    _kill_writer(spec, mode="sync", version=2, killAfter=2, userId=USER, keyFile=str(key_file))
    _assert_mixed(items)
    big = shelf_store.read_book(items, USER, book_id("big"))
    assert big is not None and big.get("upstreamMark") != "mark-2"  # not taken for up to date
    lease = items.get((user_partition(USER), LEASE_SK))
    assert lease is not None  # the killed run never released it; the next run waits for it to expire
    items.put({**lease, "ttl": int(time.time()) - 1})  # as if LEASE_SECONDS had passed

    status = sync_user(items, sealer, USER, lambda _c, _deadline: ShelfProvider(2), lambda: NOW)
    assert "lastError" not in status, status
    _assert_whole(items, 2, marked=True)


def test_an_import_killed_between_chunks_is_repaired_by_the_reimport(target):
    items, spec = target
    import_snapshots(items, USER, as_file(shelf(1)), NOW)
    _assert_whole(items, 1, marked=False)

    _kill_writer(spec, mode="import", version=2, killAfter=3, userId=USER)
    _assert_mixed(items)

    report = import_snapshots(items, USER, as_file(shelf(2)), NOW)
    assert report.books_changed == 2
    _assert_whole(items, 2, marked=False)


def test_a_sync_after_a_killed_import_fetches_the_book_again(target, tmp_path):
    """A synced book (with a mark) half rewritten by an import: the sync does not skip it."""
    items, spec = target
    key_file = tmp_path / "keys" / "secrets.key"
    sealer = LocalKeySealer(key_file)
    save_credential(items, sealer, USER, "api_key", API_KEY, NOW)
    sync_user(items, sealer, USER, lambda _c, _deadline: ShelfProvider(1), lambda: NOW)

    _kill_writer(spec, mode="import", version=2, killAfter=1, userId=USER)
    _assert_mixed(items)

    # Upstream is still at version 1 (same marks): only the interrupted book is fetched and merged.
    status = sync_user(items, sealer, USER, lambda _c, _deadline: ShelfProvider(1), lambda: NOW)
    assert "lastError" not in status, status
    big = {n["externalId"]: n["content"] for n in _notes(items, "big") if not n.get("deletedUpstream")}
    assert big == {n.external_id: n.content for n in _by_id(shelf(1))["big"].notes}
    assert shelf_store.read_book(items, USER, book_id("big"))["upstreamMark"] == "mark-1"
