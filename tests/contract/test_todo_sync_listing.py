"""What a CalDAV listing reads, on every backend (SQLite, moto, the official DynamoDB Local):
`todos/sync/reads.listing` passes over the user's tasks page by page and keeps of each member
only what a listing needs, `reads.whole` reads the whole records by key (more than one
BatchGetItem's 100 keys here) and leaves out a member changed since it was listed (a subtask
whose task was trashed too); `reads.answer` lists what changes touched the same way."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.ports.storage import ItemStore
from mesq.store import paging
from mesq.todos import keys
from mesq.todos.sync import reads

USER = "listing-user"
NOW = "2026-12-06T10:00:00Z"


def _task(number: int, space: str = "s1", parent: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"t{number:03d}", "spaceId": space, "columnId": None if parent else "c1", "parentId": parent,
        "position": f"a{number:03d}", "title": f"task {number}", "notes": "n" * 500, "priority": "none",
        "done": False, "deletedAt": None, "revision": 1, "createdAt": NOW, "updatedAt": NOW, **fields,
    }  # fmt: skip


def _put(store: ItemStore, record: dict[str, Any]) -> None:
    store.put(keys.stored(USER, "task", record))


def test_a_listing_keeps_names_and_the_whole_records_are_read_by_key(
    store: ItemStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paging, "QUERY_PAGE", 40)  # several pages
    zero = _task(0, sync={"name": "zero.ics", "uid": "UID-ZERO", "props": {"raw": "x" * 200}})
    records = [zero, *(_task(n) for n in range(1, 150))]
    records += [_task(n, parent="t000") for n in (150, 151)]  # subtasks of the task named zero.ics
    records += [_task(152, parent="t001", deletedAt=NOW), _task(153, space="s2"), _task(154, deletedAt=NOW)]
    records += [_task(155, parent="t154")]  # the subtask of a trashed task is no member
    for record in records:
        _put(store, record)

    listing = reads.listing(store, USER, "s1")
    names = [str(record.get("sync", {}).get("name") or f"{record['id']}.ics") for _, record in listing.members]
    assert names == ["zero.ics", *(f"t{n:03d}.ics" for n in range(1, 152))]  # the store's order
    assert {key for _, record in listing.members for key in record} <= {*reads.LISTED_FIELDS, "sync"}
    assert listing.members[0][1]["sync"] == {"name": "zero.ics", "uid": "UID-ZERO"}  # not the app's raw data
    assert listing.parent_uids == {"t000": "UID-ZERO"}

    after = reads.listing(store, USER, "s1", after="t149.ics")
    assert [record["id"] for _, record in after.members] == ["t000", "t150", "t151"]  # by name: zero.ics is after
    after = reads.listing(store, USER, "s1", after="t150.ics")
    assert [record["id"] for _, record in after.members] == ["t000", "t151"]
    assert after.parent_uids == {"t000": "UID-ZERO"}

    whole = reads.whole(store, USER, "s1", listing.members)
    by_id = {str(record["id"]): record for record in records}
    assert [record and record["id"] for record in whole] == [record["id"] for _, record in listing.members]
    assert all(record == by_id[str(record["id"])] for record in whole if record)

    _put(store, {**by_id["t005"], "deletedAt": NOW, "revision": 2})  # trashed
    _put(store, {**by_id["t006"], "spaceId": "s2", "revision": 2})  # moved to another space
    _put(store, {**by_id["t007"], "sync": {"name": "renamed.ics"}, "revision": 2})  # renamed by an app
    _put(store, {**by_id["t008"], "title": "edited", "revision": 2})  # edited: still the member
    store.delete(keys.task_key(USER, "t009"))  # gone
    again = reads.whole(store, USER, "s1", listing.members)
    left_out = [listing.members[i][1]["id"] for i, record in enumerate(again) if record is None]
    assert left_out == ["t005", "t006", "t007", "t009"]
    assert next(r for r in again if r and r["id"] == "t008")["title"] == "edited"


def test_an_incremental_answer_lists_what_changed_a_batch_at_a_time(store: ItemStore) -> None:
    """`reads.answer` on more touched records than one BatchGetItem reads: the members now as a
    listing (listed fields only, the UIDs of their tasks), the names that left as gone; a subtask
    whose task is trashed (read in another batch) left, one whose task is live with its UID."""
    records = [_task(n) for n in range(0, 230)]
    records[0] = {**records[0], "sync": {"name": "zero.ics", "uid": "UID-ZERO", "props": {"raw": "x" * 200}}}
    records += [_task(230, parent="t000"), _task(231, parent="t229", deletedAt=None)]
    records[229] = {**records[229], "deletedAt": NOW}  # trashed: its subtask t231 leaves with it
    records[5] = {**records[5], "spaceId": "s2"}  # moved away
    for record in records:
        _put(store, record)
    moved = {**_task(232), "sync": {"name": "from-inbox.ics", "uid": "U-INBOX"}}  # an inbox item now on the board
    _put(store, moved)
    touched: dict[tuple[Any, str], set[str]] = {("task", "t231"): {"s1"}, ("task", "t230"): {"s1"}}
    touched.update((("task", str(record["id"])), {"s1"}) for record in records[:230])
    touched[("inbox", "t232")] = {"inbox"}
    changes = reads.Changes(reads.SyncPoint(reads.ZERO_POINT), touched)

    listing, gone = reads.answer(store, USER, "s1", changes)
    ids = [str(record["id"]) for _, record in listing.members]
    assert ids == ["t230"] + [f"t{n:03d}" for n in range(0, 230) if n not in (5, 229)]
    assert {key for _, record in listing.members for key in record} <= {*reads.LISTED_FIELDS, "sync"}
    assert listing.parent_uids == {"t000": "UID-ZERO"}
    assert gone == {"t005.ics", "t229.ics", "t231.ics"}
    inbox_listing, inbox_gone = reads.answer(store, USER, "inbox", changes)
    assert inbox_listing.members == [] and inbox_gone == {"from-inbox.ics"}


def test_a_subtask_read_after_its_task_was_trashed_is_no_member(store: ItemStore) -> None:
    for record in (_task(0), _task(1, parent="t000"), _task(2)):
        _put(store, record)
    listing = reads.listing(store, USER, "s1")
    _put(store, {**_task(0), "deletedAt": NOW, "revision": 2})  # hides t001 without writing it
    again = reads.whole(store, USER, "s1", listing.members)
    assert [record and record["id"] for record in again] == [None, None, "t002"]
