"""What a CalDAV listing reads, on every backend (SQLite, moto, the official DynamoDB Local):
`todos/sync/reads.listing` passes over the user's tasks page by page and keeps of each member
only what a listing needs, `reads.whole` reads the whole records by key (more than one
BatchGetItem's 100 keys here) and leaves out a member changed since it was listed."""

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
