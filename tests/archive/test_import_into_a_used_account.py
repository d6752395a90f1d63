"""An archive imported into an account that already holds data of its own: refused before
anything is written (its counters and board settings would no longer match the records), except
for the empty board a first visit to Todos makes, which makes way for the archive's; a memo-only
archive goes into an account that has a board; a task written into the empty board meanwhile
makes the import refuse rather than lose it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.archive.format import ArchiveError
from mesq.archive.importer import import_account
from mesq.auth.users import create_user
from mesq.kernel.ports.storage import BlobStore, ItemStore
from mesq.todos.writes import ensure_default_space
from tests.racing import Racing

from .test_round_trip import caller, populate, records


def _archive(tmp_path: Path, scopes: list[str] | None = None) -> tuple[Path, ItemStore, str]:
    items, blobs = SQLiteItemStore(tmp_path / "source.db"), LocalBlobStore(tmp_path / "source-blobs")
    user_id = populate(items, blobs, "alice")
    archive = tmp_path / "alice.zip"
    export_account(items, blobs, user_id, archive, "2026-12-03T00:00:00Z", scopes=scopes)
    return archive, items, user_id


def _target(tmp_path: Path) -> tuple[ItemStore, BlobStore, str]:
    items, blobs = SQLiteItemStore(tmp_path / "target.db"), LocalBlobStore(tmp_path / "target-blobs")
    return items, blobs, create_user(items, "bob", "correct horse battery")["id"]


def test_an_account_with_a_memo_of_its_own_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    archive, source, _ = _archive(tmp_path)
    items, blobs, bob = _target(tmp_path)
    caller(items, blobs, bob)("create_memo", content="mine #own")
    before = records(items, bob)
    with pytest.raises(ArchiveError, match="already holds 1 memo that the archive does not have") as refused:
        import_account(items, blobs, bob, archive)
    assert "import into a new, empty account" in refused.value.message
    assert "#" not in refused.value.message  # in words, never a storage key (issue 41)
    assert records(items, bob) == before
    assert not list((tmp_path / "target-blobs").rglob("*.png"))  # no attachment written either
    source.close(), items.close()


def test_an_account_with_a_task_of_its_own_is_refused(tmp_path: Path) -> None:
    archive, source, _ = _archive(tmp_path)
    items, blobs, bob = _target(tmp_path)
    caller(items, blobs, bob)("create_todo_task", title="mine")
    before = records(items, bob)
    with pytest.raises(ArchiveError, match="already holds 1 task"):
        import_account(items, blobs, bob, archive)
    assert records(items, bob) == before
    source.close(), items.close()


def test_the_empty_board_of_a_first_visit_makes_way_for_the_archives(tmp_path: Path) -> None:
    archive, source, alice = _archive(tmp_path)
    items, blobs, bob = _target(tmp_path)
    ensure_default_space(items, bob, partial=True)  # what opening Todos once writes
    report = import_account(items, blobs, bob, archive)
    assert report.existing == 0
    imported, exported = records(items, bob), records(source, alice)
    assert imported == exported  # the archive's board, settings and sizes, nothing of the empty one
    call = caller(items, blobs, bob)
    board = call("list_todos")
    assert board["totalCount"] == call("list_todos", projection="graph")["collections"]["tasks"]["totalCount"] + 1
    assert {task["title"] for task in call("query_todos", status="all")["items"]} >= {"Write the report"}
    source.close(), items.close()


def test_a_memo_only_archive_goes_into_an_account_with_a_board(tmp_path: Path) -> None:
    archive, source, alice = _archive(tmp_path, scopes=["memo:read"])
    items, blobs, bob = _target(tmp_path)
    caller(items, blobs, bob)("create_todo_task", title="mine")
    report = import_account(items, blobs, bob, archive)
    assert report.created > 0 and report.existing == 0
    memos = {sk: item for sk, item in records(items, bob).items() if sk.startswith("MEMO#")}
    assert memos == {sk: item for sk, item in records(source, alice).items() if sk.startswith("MEMO#")}
    source.close(), items.close()


def test_a_task_written_into_the_empty_board_meanwhile_makes_the_import_refuse(tmp_path: Path) -> None:
    archive, source, _ = _archive(tmp_path)
    inner, blobs, bob = _target(tmp_path)
    ensure_default_space(inner, bob, partial=True)
    racing = Racing(inner)
    landed: dict[str, Any] = {}
    racing.race = lambda: landed.update(caller(inner, blobs, bob)("create_todo_task", title="written meanwhile"))
    with pytest.raises(ArchiveError, match="already holds"):
        import_account(racing, blobs, bob, archive)  # type: ignore[arg-type]
    titles = [task["title"] for task in caller(inner, blobs, bob)("query_todos", status="all")["items"]]
    assert landed and titles == ["written meanwhile"]
    source.close(), inner.close()
