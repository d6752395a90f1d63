"""Undo by actor reads an index by actor and time, never the whole history (issue 38 finding 16:
1.7 s at 100k changes), on SQLite and on DynamoDB Local: in a history of 400 changes of another
agent, undoing one agent's 3 changes reads a few dozen items, and changes written before the
index are still found (the lazy backfill), and an index entry planted in another partition is
never read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.application.invocation import invoke_sync
from mesq.history.actor_index import is_indexed, marker_key
from mesq.history.records import (
    actor_index_keys,
    change_item,
    change_put,
    new_change_id,
    record_partition,
    run_partition,
    session_partition,
)
from mesq.kernel.context import Principal
from mesq.kernel.ports.storage import Item, ItemStore, Key, QueryPage
from mesq.kernel.spec import load_spec
from mesq.kernel.timestamps import format_timestamp
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

USER = "undoer"
SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
OTHERS = 400
SINCE = format_timestamp(datetime.now(UTC) - timedelta(days=2))


class CountingStore:
    """The store, counting every item its reads hand back (index entries included)."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner, self.read = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, key: Key) -> Item | None:
        self.read += 1
        return self.inner.get(key)

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        found = self.inner.batch_get(keys)
        self.read += len(found)
        return found

    def query(self, partition: str, **options: Any) -> QueryPage:
        page = self.inner.query(partition, **options)
        self.read += len(page.items)
        return page


@pytest.fixture(params=["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def items(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ItemStore]:
    if request.param == "dynamodb_local":
        yield request.getfixturevalue("dynamodb_local")
        return
    store = SQLiteItemStore(tmp_path / "items.db")
    yield store
    store.close()


def _caller(items: CountingStore, credential: str) -> Any:
    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=USER, scopes=SCOPES, credential_id=credential, kind="pat", name=credential)

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        spec = load_spec().operations[operation_id]
        return invoke_sync(spec, arguments, principal=principal, services=services, trace_id="t", channel="api")

    return call


def legacy_index_keys(user_id: str, change: Item) -> dict[str, str]:
    """The index keys a change record carried before records had none (history/records.py)."""
    return {
        "gsi1pk": run_partition(user_id, change["runId"]), "gsi1sk": change["id"],
        "gsi2pk": record_partition(user_id, change["record"]["id"]), "gsi2sk": change["id"],
        "gsi4pk": session_partition(user_id, change["sessionId"]), "gsi4sk": change["id"],
        **actor_index_keys(user_id, change),
    }  # fmt: skip


def _old_changes(items: ItemStore, actor: str, count: int, *, indexed: bool = True, user: str = USER) -> None:
    """`count` change records of memo edits by `actor` over the last day, written as the writes
    before index-free change records wrote them, with their index keys (`indexed=False`: as a
    version before the by-actor index wrote them)."""
    start = datetime.now(UTC) - timedelta(days=1)
    puts = []
    for number in range(count):
        moment = start + timedelta(seconds=number)
        item = change_item(
            user_id=user, change_id=new_change_id(moment), at=format_timestamp(moment),
            actor={"kind": "pat", "id": actor, "name": actor}, run_id=f"run-{number}", session_id=f"session-{number}",
            operation="update_memo",
            kind="memo", record_id=f"m{number}", before={"content": "a", "revision": 1},
            after={"content": "b", "revision": 2}, expires=int((moment + timedelta(days=90)).timestamp()),
        )  # fmt: skip
        item.update(legacy_index_keys(user, item))
        if not indexed:
            item = {name: value for name, value in item.items() if name not in ("gsi3pk", "gsi3sk")}
        puts.append(change_put(item))
    for begin in range(0, len(puts), 100):
        items.transact(puts[begin : begin + 100])


def test_undo_by_actor_reads_the_actors_changes_only(items: ItemStore) -> None:
    counting = CountingStore(items)
    agent, busy = _caller(counting, "pat:agent-a"), _caller(counting, "pat:busy-b")
    for number in range(3):
        agent("create_memo", content=f"agent memo {number}")
    _old_changes(items, "pat:busy-b", OTHERS)
    busy("list_changes", actor="busy-b", limit=1)  # the user's first read by actor: the marker is put
    assert is_indexed(items, USER)

    counting.read = 0
    undone = agent("undo_changes", actor="pat:agent-a", since=SINCE)
    assert len(undone["undone"]) == 3 and undone["notUndone"] == []
    assert counting.read < 60, f"undo by actor read {counting.read} items of a {OTHERS + 3}-change history"

    counting.read = 0
    listed = agent("list_changes", actor="agent-a", limit=100)  # the bare credential id finds them too
    assert [c["actor"]["id"] for c in listed["changes"]] == ["pat:agent-a"] * 6  # 3 creates, 3 undos
    assert "nextCursor" not in listed and counting.read < 20


def test_changes_written_before_the_index_are_still_undone(items: ItemStore) -> None:
    """A history from before the index (no GSI3 keys, no marker): the first read by actor gives the
    records their keys and finds them; a dropped marker makes the next read check again."""
    counting = CountingStore(items)
    _old_changes(items, "pat:old-agent", 5, indexed=False)
    _old_changes(items, "pat:busy-b", 30, indexed=False)
    old = _caller(counting, "pat:old-agent")
    assert len(old("list_changes", actor="pat:old-agent", limit=100)["changes"]) == 5
    assert is_indexed(items, USER)
    items.delete(marker_key(USER))  # as a table restored from before the index would be
    _old_changes(items, "pat:old-agent", 2, indexed=False)
    assert len(old("list_changes", actor="pat:old-agent", limit=100)["changes"]) == 7


def test_an_index_entry_in_another_partition_is_never_read(items: ItemStore) -> None:
    """A record of another user carrying this user's GSI3 keys (what a forged import would plant)
    never reaches this user's list or undo."""
    _old_changes(items, "pat:agent-a", 1)
    moment = datetime.now(UTC) - timedelta(hours=1)
    forged = change_item(
        user_id="attacker", change_id=new_change_id(moment), at=format_timestamp(moment),
        actor={"kind": "pat", "id": "pat:agent-a", "name": "a"}, run_id="r", session_id="s", operation="update_memo",
        kind="memo",
        record_id="victim-memo", before={"content": "mine"}, after={"content": "attacker's"},
        expires=int((moment + timedelta(days=9)).timestamp()),
    )  # fmt: skip
    forged.update(gsi3pk=f"U#{USER}#ACTOR#agent-a", gsi3sk=forged["id"])
    items.put(forged)
    listed = _caller(CountingStore(items), "pat:agent-a")("list_changes", actor="pat:agent-a", limit=100)
    assert [c["record"]["id"] for c in listed["changes"]] == ["m0"]


def _before_the_index(definition: dict[str, Any]) -> dict[str, Any]:
    """`table_definition` as it was before GSI3."""
    return {
        **definition,
        "AttributeDefinitions": [
            a for a in definition["AttributeDefinitions"] if not a["AttributeName"].startswith("gsi3")
        ],
        "GlobalSecondaryIndexes": [i for i in definition["GlobalSecondaryIndexes"] if i["IndexName"] != "gsi3"],
    }


def test_a_store_made_before_the_index_gets_it(items: ItemStore, tmp_path: Path) -> None:
    """Upgrading: an SQLite file without the GSI3 columns, a DynamoDB Local table without GSI3
    (`mesq serve --storage dynamodb` on a local endpoint): opened, each answers GSI3 queries."""
    if isinstance(items, SQLiteItemStore):
        import sqlite3

        path = tmp_path / "old.db"
        with sqlite3.connect(path) as old:
            old.execute(
                "CREATE TABLE items (pk TEXT NOT NULL, sk TEXT NOT NULL, gsi1pk TEXT, gsi1sk TEXT, gsi2pk TEXT,"
                " gsi2sk TEXT, ttl INTEGER, data TEXT NOT NULL, PRIMARY KEY (pk, sk)) WITHOUT ROWID"
            )
        upgraded: ItemStore = SQLiteItemStore(path)
    else:
        from mesq.adapters.store.dynamodb import DynamoDBItemStore
        from mesq.store.table import table_definition

        client = items._client  # type: ignore[attr-defined]
        name = items.table_name + "-old"  # type: ignore[attr-defined]
        client.create_table(**_before_the_index(table_definition(name)))
        upgraded = DynamoDBItemStore(name, client=client)
        upgraded.create_table_if_missing()
    try:
        _old_changes(upgraded, "pat:agent-a", 2)
        assert len(upgraded.query(f"U#{USER}#ACTOR#agent-a", index="gsi3").items) == 2
    finally:
        upgraded.close()
        if not isinstance(items, SQLiteItemStore):
            client.delete_table(TableName=name)
