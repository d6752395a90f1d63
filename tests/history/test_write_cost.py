"""What history costs a write, and how its records are found without an index entry of their own
(issue 44: the record and four index entries cost 2.46x the write units of a write without
history; the bound is 1.5x).

- On DynamoDB Local, the units a memo's and a task's writes consume with their change records,
  against the same writes with history switched off, counted per write call with
  `ReturnConsumedCapacity: INDEXES` (the table's and every index's units).
- A change record carries no index key, and each question history answers still finds it: a
  record's history (its chain), a run, a session, an actor; records written before, with their
  index keys, are merged in; a forged link ends a chain and never loops.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest

from mesq.history.records import LINKS, change_item, change_key, change_put, new_change_id, record_partition
from mesq.kernel.ports.storage import ItemStore, Update
from mesq.kernel.timestamps import format_timestamp, parse_timestamp

from ..history_off import history_off
from .test_atomicity import USER, caller, changes

_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}
_INDEX_KEYS = {"gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "gsi4pk", "gsi4sk"}


@contextmanager
def metered(store: Any) -> Iterator[list[float]]:
    """The write units each write call of `store`'s client consumes, as DynamoDB Local reports them."""
    client, units = store._client, []
    real = client._make_api_call

    def counted(operation: str, params: Any) -> Any:
        if operation not in _WRITES:
            return real(operation, params)
        answer = real(operation, {**params, "ReturnConsumedCapacity": "INDEXES"})
        consumed = answer.get("ConsumedCapacity")
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            units.append(float(entry.get("WriteCapacityUnits", entry.get("CapacityUnits", 0))))
        return answer

    client._make_api_call = counted
    try:
        yield units
    finally:
        del client._make_api_call


def _mixed_writes(store: ItemStore) -> float:
    """Write units of a memo create and edit and a task create, edit and completion."""
    call = caller(store)
    with metered(store) as units:
        memo = call("create_memo", content="周报 #work")["memo"]
        call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content="周报，改过 #work")
        task = call("create_todo_task", title="交报告")["task"]
        task = call("update_todo_task", id=task["id"], expectedRevision=task["revision"], title="交周报")["task"]
        call("complete_todo_task", id=task["id"], expectedRevision=task["revision"])
    return sum(units)


@pytest.mark.dynamodb_local
def test_history_costs_a_write_less_than_half_again_its_units(dynamodb_local: ItemStore) -> None:
    call = caller(dynamodb_local)
    call("create_todo_task", title="the board made once, outside the count")
    call("create_memo", content="the account's first memo, outside the count")
    with history_off():
        without = _mixed_writes(dynamodb_local)
    recorded = _mixed_writes(dynamodb_local)
    assert recorded <= 1.5 * without, (recorded, without)
    stored = changes(dynamodb_local)
    assert stored and not any(_INDEX_KEYS & set(item) for item in stored), "a change record with an index key"


def test_each_question_finds_records_with_no_index_entry(store: ItemStore) -> None:
    call = caller(store)
    memo = call("create_memo", content="第一版")["memo"]
    for number in range(2, 5):
        memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"第{number}版")["memo"]
    other = call("create_memo", content="别的笔记")["memo"]
    history = call("list_changes", recordId=memo["id"])["changes"]
    assert [c["action"] for c in history] == ["update"] * 3 + ["create"]
    assert [c["after"]["content"] for c in history[:3]] == ["第4版", "第3版", "第2版"]
    page = call("list_changes", recordId=memo["id"], limit=2)
    rest = call("list_changes", recordId=memo["id"], cursor=page["nextCursor"])["changes"]
    assert [c["id"] for c in page["changes"] + rest] == [c["id"] for c in history]
    newest = call("list_changes", limit=1)["changes"][0]
    assert newest["record"]["id"] == other["id"]
    assert [c["record"]["id"] for c in call("list_changes", runId=newest["runId"])["changes"]] == [other["id"]]
    session = call("list_changes", sessionId=newest["sessionId"])["changes"]
    assert len(session) == 5 and {c["sessionId"] for c in session} == {newest["sessionId"]}
    assert len(call("list_changes", actor="me")["changes"]) == 5
    assert not any(_INDEX_KEYS & set(item) for item in changes(store))


def test_records_written_before_are_merged_into_a_records_history(store: ItemStore) -> None:
    """A memo whose older changes carry their index keys (written before records had none) and
    whose newer ones form its chain: its history is both, newest first, each once."""
    call = caller(store)
    memo = call("create_memo", content="新的开始")["memo"]
    [created] = changes(store)
    at = parse_timestamp(created["at"], "at")
    older = []
    for seconds in (30, 20, 10):  # three edits before the create's record, as an older version kept them
        moment = at.replace(microsecond=0) - timedelta(seconds=seconds)
        item = change_item(
            user_id=USER, change_id=new_change_id(moment), at=format_timestamp(moment),
            actor={"kind": "pat", "id": "pat:t", "name": "tester"}, run_id="old-run", session_id="old-session",
            operation="update_memo", kind="memo", record_id=memo["id"], before={"content": "旧"},
            after={"content": f"旧{seconds}"}, expires=int(moment.timestamp()) + 86400 * 90,
        )  # fmt: skip
        item.update(gsi2pk=record_partition(USER, memo["id"]), gsi2sk=item["id"])
        store.transact([change_put(item)])
        older.append(item["id"])
    call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content="又改了")
    listed = [c["id"] for c in call("list_changes", recordId=memo["id"])["changes"]]
    assert listed[2:] == sorted(older, reverse=True) and len(listed) == 5 == len(set(listed))


def test_a_forged_or_looping_link_ends_the_chain(store: ItemStore) -> None:
    """A memo of 10 versions is read 8 at a time (its item names the newest 8, the 8th names the
    2 before it). A link that names another record's change ends the chain there; one that names
    a change already read (a loop onto itself, a newer one) is passed over: each change once,
    newest first, and the walk ends."""
    call = caller(store)
    memo = call("create_memo", content="v0")["memo"]
    for number in range(1, 10):
        memo = call("update_memo", id=memo["id"], expectedRevision=memo["revision"], content=f"v{number}")["memo"]
    other = call("create_memo", content="别人的")["memo"]
    mine = sorted((c["id"] for c in changes(store) if c["record"]["id"] == memo["id"]), reverse=True)
    assert [c["id"] for c in call("list_changes", recordId=memo["id"])["changes"]] == mine
    [elsewhere] = [c["id"] for c in changes(store) if c["record"]["id"] == other["id"]]
    eighth = mine[LINKS - 1]
    for forged, expected in ((elsewhere, mine[:LINKS]), (eighth, mine), (mine[0], mine)):
        store.update(Update(key=change_key(USER, eighth), set={"priors": [forged, *mine[LINKS:]]}))
        listed = call("list_changes", recordId=memo["id"])["changes"]
        assert [c["id"] for c in listed] == expected, forged
    store.update(Update(key=change_key(USER, mine[-1]), set={"priors": [eighth, mine[0]]}))  # the oldest loops back
    assert [c["id"] for c in call("list_changes", recordId=memo["id"])["changes"]] == mine
