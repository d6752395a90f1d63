"""`FollowingStore` (mesq/search/follow.py) overrides every method of the ItemStore port
explicitly, and each write reports the keys it touched: a write method added to the port and not
overridden would store data that the in-process index never hears of."""

from __future__ import annotations

import inspect
from typing import Any, Protocol

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.kernel.ports.storage import Delete, ItemStore, Put, Update
from mesq.search.follow import FollowingStore

READS = {"get", "batch_get", "query", "close"}


def port_methods(port: type) -> set[str]:
    return {name for name, member in vars(port).items() if inspect.isfunction(member) and not name.startswith("_")}


def not_overridden(port: type, store: type) -> set[str]:
    return {name for name in port_methods(port) if name not in vars(store)}


def test_every_port_method_is_overridden_explicitly():
    assert port_methods(ItemStore) >= READS | {"put", "update", "delete", "transact"}
    assert not_overridden(ItemStore, FollowingStore) == set()


def test_a_write_added_to_the_port_and_not_overridden_is_named():
    class GrownPort(ItemStore, Protocol):
        def put_many(self, items: list[dict[str, Any]]) -> None: ...

    assert not_overridden(GrownPort, FollowingStore) == {"put_many"}


def test_nothing_else_passes_through_to_the_wrapped_store(tmp_path):
    store = FollowingStore(SQLiteItemStore(tmp_path / "items.db"))
    try:
        with pytest.raises(AttributeError, match="override it explicitly"):
            store.put_many  # noqa: B018  (an adapter method outside the port)
    finally:
        store.close()


@pytest.mark.parametrize("write", sorted({"put", "update", "delete", "transact"}))
def test_each_write_reports_the_keys_it_touched(tmp_path, monkeypatch, write):
    store = FollowingStore(SQLiteItemStore(tmp_path / "items.db"))
    reported: list[tuple[str, str]] = []
    monkeypatch.setattr(store, "_changed", lambda keys: reported.extend(keys))
    key = ("U#alice", "MEMO#m1")
    calls = {
        "put": lambda: store.put({"pk": key[0], "sk": key[1], "content": "x"}),
        "update": lambda: store.update(Update(key=key, set={"content": "y"})),
        "delete": lambda: store.delete(key),
        "transact": lambda: store.transact([Put(item={"pk": key[0], "sk": key[1]}), Delete(key=(key[0], "MEMO#m2"))]),
    }
    try:
        calls[write]()
        assert key in reported
    finally:
        store.close()
