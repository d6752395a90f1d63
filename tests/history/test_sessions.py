"""Sessions on both stores (SQLite and DynamoDB Local), through the operation registry with the
clock driven: an actor's writes with no pause longer than the gap share a session, a longer pause
starts the next; writes racing past the gap land in one new session; a batch and an undo are each
a session of their own; list_changes and undo_changes by session, `actor: "me"`, `changeId`, the
dry run that writes nothing, and the errors that name the fix for unknown ids."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mesq.history import change_op, sessions
from mesq.kernel import timestamps
from mesq.kernel.errors import MesqError
from mesq.kernel.ports.storage import ItemStore, Key

from .test_atomicity import USER, caller, changes

#: Far ahead: a change record keeps a 90-day `ttl`, which the store judges by the real clock (a
#: start in 2026-10 had every record expired, and every test here failing, from 2027-01-03).
START = datetime(2037, 10, 5, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    driven = Clock()
    monkeypatch.setattr(change_op, "utc_now", driven)
    monkeypatch.setattr(sessions, "utc_now", driven)
    monkeypatch.setattr(timestamps, "utc_now", driven)  # the clock run ids start with (kernel/context.py)
    sessions._SEEN.clear()  # the process's memory of pointers: per store in a test run
    yield driven
    sessions._SEEN.clear()


def session_of(result: dict[str, Any], store: ItemStore, kind: str = "memo") -> str:
    record_id = result[kind]["id"]
    [found] = {c["sessionId"] for c in changes(store) if c["record"]["id"] == record_id and c["action"] == "create"}
    return str(found)


def test_a_pause_longer_than_the_gap_starts_the_next_session(store, clock):
    call = caller(store)
    first = session_of(call("create_memo", content="09:00"), store)
    clock.advance(minutes=5)
    assert session_of(call("create_memo", content="09:05"), store) == first
    clock.advance(minutes=14)  # 14 minutes after the last write: still the same session
    assert session_of(call("create_memo", content="09:19"), store) == first
    clock.advance(minutes=16)  # over the gap
    second = session_of(call("create_memo", content="09:35"), store)
    assert second != first
    clock.advance(seconds=30)
    assert session_of(call("create_memo", content="09:35:30"), store) == second
    assert call("get_context")["sessionId"] == second
    clock.advance(minutes=40)
    upcoming = call("get_context")["sessionId"]  # the session a write now would start
    assert upcoming not in (first, second)
    assert session_of(call("create_memo", content="10:15"), store) == upcoming


class _Barrier:
    """A store whose reads of the session pointer wait until both writers have read it: two
    writes of one agent racing past the gap, each seeing the old pointer."""

    def __init__(self, items: ItemStore) -> None:
        self._items = items
        self._barrier = threading.Barrier(2, timeout=30)

    def get(self, key: Key) -> Any:
        found = self._items.get(key)
        if key[1].startswith(sessions.POINTER_PREFIX):
            self._barrier.wait()
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._items, name)


def test_writes_racing_past_the_gap_land_in_one_new_session(store, clock):
    direct = caller(store)
    old = session_of(direct("create_memo", content="before"), store)
    clock.advance(minutes=30)
    sessions._SEEN.clear()
    racing = caller(_Barrier(store))  # type: ignore[arg-type]
    made: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda n=n: made.append(racing("create_memo", content=f"r{n}"))) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(made) == 2
    ids = {session_of(result, store) for result in made}
    assert len(ids) == 1 and old not in ids
    [new] = ids
    pointer = store.get(sessions.pointer_key(USER, "pat:t"))
    assert pointer is not None and pointer["sessionId"] == new


def test_a_batch_and_an_undo_are_sessions_of_their_own(store, clock):
    call = caller(store)
    tasks = [call("create_todo_task", title=f"t{n}")["task"] for n in range(3)]
    direct = session_of({"task": tasks[0]}, store, "task")
    call("batch_complete_todo_tasks", items=[{"id": t["id"], "expectedRevision": 1} for t in tasks])
    batch = [c for c in changes(store) if c["operation"] == "batch_complete_todo_tasks"]
    [session] = {c["sessionId"] for c in batch}
    assert len(batch) == 3 and {c["runId"] for c in batch} == {session} and session != direct
    undone = call("undo_changes", sessionId=session)
    assert sorted(e["changeId"] for e in undone["undone"]) == sorted(c["id"] for c in batch)
    reverts = [c for c in changes(store) if c.get("undoes") in {b["id"] for b in batch}]
    [undo_session] = {c["sessionId"] for c in reverts}
    assert {c["runId"] for c in reverts} == {undo_session} and undo_session not in (direct, session)


def test_list_and_undo_by_session_with_a_dry_run_that_writes_nothing(store, clock):
    call = caller(store)
    earlier = call("create_memo", content="earlier")["memo"]
    clock.advance(minutes=20)
    a = call("create_memo", content="a")["memo"]
    b = call("create_memo", content="b")["memo"]
    call("update_memo", id=a["id"], expectedRevision=1, content="a2")
    call("delete_memo", id=b["id"], expectedRevision=1)
    session = session_of({"memo": a}, store)
    mine = call("list_changes", actor="me", sessionId=session)
    ids = [c["changeId"] for c in mine["changes"]]
    assert len(ids) == 4 and [c["id"] for c in mine["changes"]] == ids
    assert {c["sessionId"] for c in mine["changes"]} == {session}
    grouped = call("list_changes", sessionId=session, groupBy="session")["sessions"]
    assert [(g["sessionId"], g["count"], g["changeIds"]) for g in grouped] == [(session, 4, ids)]
    everything = call("list_changes", groupBy="session", limit=100)["sessions"]
    assert [g["count"] for g in everything] == [4, 1]

    before = len(changes(store))
    preview = call("undo_changes", sessionId=session, dryRun=True)
    assert preview["dryRun"] is True and preview["notUndone"] == []
    assert sorted(e["changeId"] for e in preview["undone"]) == sorted(ids)
    assert len(changes(store)) == before
    assert call("get_memo", id=a["id"])["memo"]["revision"] == 2

    call("update_memo", id=a["id"], expectedRevision=2, content="a3 by hand")  # `a` changed since
    preview = call("undo_changes", changeIds=ids, dryRun=True)
    conflicts = [e for e in preview["notUndone"] if e["code"] == "REVISION_CONFLICT"]
    assert [e["record"]["id"] for e in conflicts] == [a["id"], a["id"]]  # the edit and, behind it, the create
    assert len(changes(store)) == before + 1

    undone = call("undo_changes", sessionId=session)
    assert {e["changeId"] for e in undone["undone"]} | {e["changeId"] for e in undone["notUndone"]} >= set(ids)
    assert memo_status(call, memo_id=earlier["id"]) == "NORMAL"  # an earlier session stays
    trashed = {m["id"] for m in call("list_memos", status="DELETED")["timelineItems"]}
    assert trashed == {a["id"], b["id"]}
    assert memo_status(call, memo_id=earlier["id"]) == "NORMAL"


def memo_status(call: Any, memo_id: str) -> str:
    return str(call("get_memo", id=memo_id)["memo"]["status"])


def test_unknown_ids_are_errors_that_name_the_fix(store, clock):
    call = caller(store)
    call("create_memo", content="x")
    [change] = changes(store)
    for arguments in ({"runId": "unknown"}, {"sessionId": "unknown"}):
        with pytest.raises(MesqError) as unknown:
            call("undo_changes", **arguments)
        assert unknown.value.code == "NOT_FOUND"
        assert "get_context" in unknown.value.message and 'list_changes {actor: "me"}' in unknown.value.message
        with pytest.raises(MesqError) as listed:
            call("list_changes", **arguments)
        assert listed.value.code == "NOT_FOUND"
    with pytest.raises(MesqError) as missing:
        call("undo_changes", changeIds=["01796392913821979-d45c0b9f"])
    assert missing.value.code == "NOT_FOUND" and "list_changes" in missing.value.message
    assert [c["changeId"] for c in call("list_changes", actor="me")["changes"]] == [change["id"]]
    assert call("list_changes", actor="pat:someone-else")["changes"] == []
    one = call("undo_changes", changeId=change["id"])  # the name list_changes gives it, one id
    assert [e["changeId"] for e in one["undone"]] == [change["id"]] and one["undone"][0]["action"] == "create"
    with pytest.raises(MesqError) as both:
        call("undo_changes", changeId=change["id"], changeIds=[change["id"]])
    assert both.value.code == "VALIDATION_ERROR"


def test_get_context_names_the_caller(store, clock):
    context = caller(store)("get_context")
    assert context["actor"] == {"kind": "pat", "id": "pat:t", "name": "tester"}
    assert isinstance(context["sessionId"], str) and context["sessionId"]


def test_a_change_whose_memo_was_deleted_for_good_is_not_found_saying_why(store, clock):
    """An agent holds the changeIds and runId of a write; the person then deletes the memo for good
    (its history goes with it), or the changes expire. undo_changes answered only "copy changeId
    values from list_changes", as if the agent had mistyped them. NOT_FOUND says how long changes
    are kept and that a memo deleted for good takes its history with it, for ids, runs and sessions."""
    from mesq.memos.purge import purge_memo

    call = caller(store)
    memo = call("create_memo", content="要彻底删除")["memo"]
    trashed = call("delete_memo", id=memo["id"], expectedRevision=memo["revision"])
    [change] = [c for c in changes(store) if c["action"] == "trash"]
    purge_memo(store, USER, memo["id"], trashed["memo"]["revision"])
    for arguments in ({"changeIds": [change["id"]]}, {"runId": change["runId"]}, {"sessionId": change["sessionId"]}):
        with pytest.raises(MesqError) as gone:
            call("undo_changes", **arguments)
        said = gone.value.message
        assert gone.value.code == "NOT_FOUND" and "kept 90 days" in said and "deleted for good" in said, said
        assert "list_changes" in said, said  # the fix for a mistyped id is still named


def test_a_session_of_one_store_never_continues_in_another(tmp_path, clock):
    """A process remembers the session pointers it last read or moved, for a minute: it was one
    memory for every store, so a process holding two (a test run, the bench, an import into
    another deployment) wrote a second store's changes under the first store's session, which
    that store has no pointer for: `get_context` there named another session, and
    `undo_changes {sessionId}` with it found nothing (NOT_FOUND)."""
    from mesq.adapters.store.sqlite import SQLiteItemStore

    first, second = SQLiteItemStore(tmp_path / "first.db"), SQLiteItemStore(tmp_path / "second.db")
    try:
        mine = caller(first)
        session_of(mine("create_memo", content="one"), first)
        clock.advance(minutes=20)  # past the gap: the first store's second session, remembered
        session_of(mine("create_memo", content="two"), first)
        clock.advance(seconds=10)  # within the minute the process trusts what it remembers
        other = caller(second)
        made = session_of(other("create_memo", content="three"), second)
        clock.advance(seconds=10)
        assert session_of(other("create_memo", content="four"), second) == made
        assert other("get_context")["sessionId"] == made
        undone = other("undo_changes", sessionId=made)
        assert len(undone["undone"]) == 2
    finally:
        first.close()
        second.close()


def test_a_credential_is_named_from_its_own_store(tmp_path):
    """The process reads a credential's name once (a principal issued before names travelled on
    it has none) and keeps it: it was one memory for every store, so a process holding two named
    the second store's token with the first store's name in every change it recorded."""
    from mesq.adapters.store.sqlite import SQLiteItemStore
    from mesq.auth.tokens import record_key
    from mesq.history.actor import _stored_name

    first, second = SQLiteItemStore(tmp_path / "first.db"), SQLiteItemStore(tmp_path / "second.db")
    try:
        for items, name in ((first, "iPhone 快捷指令"), (second, "Work laptop")):
            pk, sk = record_key(USER, "same-id")
            items.put({"pk": pk, "sk": sk, "name": name})
        assert _stored_name(first, USER, "pat:same-id") == "iPhone 快捷指令"
        assert _stored_name(second, USER, "pat:same-id") == "Work laptop"
    finally:
        first.close()
        second.close()
