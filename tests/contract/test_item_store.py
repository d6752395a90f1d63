"""The ItemStore contract: every adapter (SQLite, DynamoDB via moto, DynamoDB Local) must pass
exactly these tests. Items read from an index carry EXACTLY what DynamoDB projects into it (the
table definition's Projection of each GSI): an adapter returning more would let code that reads an
unprojected attribute pass locally and break on AWS."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.stub import Stubber

from mesq.kernel.ports.storage import (
    INDEXES,
    Check,
    Condition,
    ConditionFailed,
    Delete,
    Item,
    ItemStore,
    Put,
    QueryPage,
    StoreUnavailable,
    Update,
)
from mesq.store.table import GSI1_PROJECTED_ATTRIBUTES, table_definition

GSI1_VISIBLE = {"pk", "sk", "gsi1pk", "gsi1sk", *GSI1_PROJECTED_ATTRIBUTES}


def gsi1_view(item: Item) -> Item:
    """What a gsi1 query is guaranteed to return of `item`."""
    return {name: value for name, value in item.items() if name in GSI1_VISIBLE}


def dynamodb_projection(index: str, item: Item) -> Item:
    """What DynamoDB returns of `item` from a query of `index`, read from the table definition the
    DynamoDB backends of this suite create their table with: ALL = the item; KEYS_ONLY / INCLUDE =
    the table keys, the index keys and the NonKeyAttributes."""
    definition = table_definition("contract")
    gsi = next(g for g in definition["GlobalSecondaryIndexes"] if g["IndexName"] == index)
    if gsi["Projection"]["ProjectionType"] == "ALL":
        return item
    names = {k["AttributeName"] for k in definition["KeySchema"]} | {k["AttributeName"] for k in gsi["KeySchema"]}
    names |= set(gsi["Projection"].get("NonKeyAttributes", []))
    return {name: value for name, value in item.items() if name in names}


def keys_of(items: list[Item]) -> list[tuple[str, str]]:
    return [(item["pk"], item["sk"]) for item in items]


def sks(page: QueryPage) -> list[str]:
    return [item["sk"] for item in page.items]


def query_all(store: ItemStore, partition: str, *, limit: int, **kwargs: Any) -> list[Item]:
    """Every item of a query, fetched `limit` at a time through next_key."""
    items: list[Item] = []
    after = None
    for _ in range(10_000):
        page = store.query(partition, limit=limit, after=after, **kwargs)
        assert len(page.items) <= limit
        items += page.items
        if page.next_key is None:
            return items
        assert len(page.items) == limit, "a page before the last must be full"
        after = page.next_key
    raise AssertionError("paging did not end")


def now() -> int:
    return int(time.time())


# -- put / get ------------------------------------------------------------------------------

ODD_VALUES: dict[str, Any] = {
    "text": "plain",
    "cjk": "中文テキスト한국어",
    "emoji": "memo 📝 with 👩‍💻 and 🇯🇵",
    "empty": "",
    "int": 42,
    "negative": -7,
    "zero": 0,
    "large_int": 2**62 + 12345,
    "huge_int": 10**30 + 1,
    "float": 3.25,
    "tiny_float": 1e-7,
    "third": 1 / 3,
    "neg_float": -2.5e10,
    "true": True,
    "false": False,
    "none": None,
    "list": [1, "two", 3.5, None, False, [], {}, ["nested", ""]],
    "dict": {"a": {"b": {"c": [1, 2, {"d": ""}]}}, "empty": "", "none": None, "flag": True},
    "empty_list": [],
    "empty_dict": {},
    "reserved word": "name with space",
    "status": "a DynamoDB reserved word as attribute name",
    "a.b": "dot in name",
}


def test_put_get_round_trips_json_values(store: ItemStore) -> None:
    item = {"pk": "u#1", "sk": "memo#1", **ODD_VALUES}
    store.put(item)
    got = store.get(("u#1", "memo#1"))
    assert got == item
    assert got is not None
    assert type(got["int"]) is int and type(got["large_int"]) is int and type(got["huge_int"]) is int
    assert got["huge_int"] == 10**30 + 1
    assert type(got["float"]) is float and type(got["third"]) is float
    assert got["third"] == 1 / 3
    assert got["true"] is True and got["false"] is False and got["none"] is None
    assert got["dict"]["a"]["b"]["c"][2] == {"d": ""}


def test_keys_with_unicode_and_punctuation(store: ItemStore) -> None:
    item = {"pk": "u#ユーザー😀", "sk": "memo#%_*?'\"\\", "v": 1}
    store.put(item)
    assert store.get(("u#ユーザー😀", "memo#%_*?'\"\\")) == item


def test_get_missing_returns_none(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a"})
    assert store.get(("p", "b")) is None
    assert store.get(("q", "a")) is None


def test_put_replaces_whole_item(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "x": 1, "y": 2})
    store.put({"pk": "p", "sk": "a", "x": 3})
    assert store.get(("p", "a")) == {"pk": "p", "sk": "a", "x": 3}


def test_delete_removes_item_and_ignores_missing(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a"})
    store.delete(("p", "a"))
    assert store.get(("p", "a")) is None
    store.delete(("p", "a"))  # absent: no error


@pytest.mark.parametrize(
    "bad",
    [
        {"pk": "", "sk": "a"},
        {"pk": "p", "sk": ""},
        {"pk": "p", "sk": "a", "gsi1pk": ""},
        {"pk": "p", "sk": "a", "gsi2sk": 5},
    ],
)
def test_put_rejects_empty_or_non_string_keys(store: ItemStore, bad: Item) -> None:
    with pytest.raises(ValueError):
        store.put(bad)


# -- batch_get ------------------------------------------------------------------------------


def test_batch_get_keeps_order_collapses_duplicates_skips_missing(store: ItemStore) -> None:
    for sk in "abcde":
        store.put({"pk": "p", "sk": sk, "v": sk.upper()})
    keys = [("p", "d"), ("p", "a"), ("p", "zz"), ("p", "d"), ("q", "a"), ("p", "c"), ("p", "a")]
    got = store.batch_get(keys)
    assert keys_of(got) == [("p", "d"), ("p", "a"), ("p", "c")]
    assert [item["v"] for item in got] == ["D", "A", "C"]


def test_batch_get_empty(store: ItemStore) -> None:
    assert store.batch_get([]) == []


def test_batch_get_more_than_100_keys(store: ItemStore) -> None:
    store.transact([Put({"pk": "p", "sk": f"{i:03d}", "i": i}) for i in range(0, 100)])
    store.transact([Put({"pk": "p", "sk": f"{i:03d}", "i": i}) for i in range(100, 160)])
    wanted = [("p", f"{i:03d}") for i in reversed(range(0, 200, 1))]  # 40 of them missing
    wanted += [("p", "005"), ("p", "150")]  # duplicates at the end collapse
    got = store.batch_get(wanted)
    assert [item["i"] for item in got] == list(reversed(range(160)))


# -- query: table ---------------------------------------------------------------------------


@pytest.fixture
def memos(store: ItemStore) -> list[str]:
    sort_keys = [
        "memo#001",
        "memo#002",
        "memo#010",
        "memo#011",
        "memo#100",
        "memo%_x",
        "note#001",
        "note#002",
        "todo#a",
        "todo#b",
    ]
    for sk in sort_keys:
        store.put({"pk": "u#1", "sk": sk, "body": sk})
    store.put({"pk": "u#2", "sk": "memo#001"})  # another partition
    store.put({"pk": "u#10", "sk": "memo#001"})  # partition that starts like u#1
    return sort_keys


def test_query_whole_partition_in_order(store: ItemStore, memos: list[str]) -> None:
    page = store.query("u#1")
    assert sks(page) == sorted(memos)
    assert page.next_key is None
    assert page.items[0] == {"pk": "u#1", "sk": "memo#001", "body": "memo#001"}
    assert sks(store.query("u#1", descending=True)) == sorted(memos, reverse=True)


def test_query_unknown_partition_is_empty(store: ItemStore, memos: list[str]) -> None:
    assert store.query("u#nobody") == QueryPage(items=[], next_key=None)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"prefix": "memo#"}, ["memo#001", "memo#002", "memo#010", "memo#011", "memo#100"]),
        ({"prefix": "memo#01"}, ["memo#010", "memo#011"]),
        ({"prefix": "memo%_"}, ["memo%_x"]),
        ({"prefix": "memo#1"}, ["memo#100"]),
        ({"prefix": "zzz"}, []),
        ({"prefix": ""}, None),
        ({"start": "note#"}, ["note#001", "note#002", "todo#a", "todo#b"]),
        ({"start": "note#002"}, ["note#002", "todo#a", "todo#b"]),
        ({"end": "memo#010"}, ["memo#001", "memo#002"]),
        ({"end": "memo#0100"}, ["memo#001", "memo#002", "memo#010"]),
        (
            {"start": "memo#002", "end": "note#002"},
            ["memo#002", "memo#010", "memo#011", "memo#100", "memo%_x", "note#001"],
        ),
        ({"start": "memo#010", "end": "memo#010"}, []),
        ({"start": "todo", "end": "memo"}, []),
        ({"end": ""}, []),
        ({"start": ""}, None),
        ({"prefix": "memo#", "start": "memo#002"}, ["memo#002", "memo#010", "memo#011", "memo#100"]),
        ({"prefix": "memo#", "end": "memo#011"}, ["memo#001", "memo#002", "memo#010"]),
        ({"prefix": "memo#", "start": "memo#002", "end": "memo#100"}, ["memo#002", "memo#010", "memo#011"]),
        ({"prefix": "memo#", "start": "a", "end": "z"}, ["memo#001", "memo#002", "memo#010", "memo#011", "memo#100"]),
        ({"prefix": "memo#", "start": "note#"}, []),
        ({"prefix": "note#", "end": "memo#"}, []),
    ],
)
def test_query_sort_key_conditions(
    store: ItemStore, memos: list[str], kwargs: dict[str, str], expected: list[str] | None
) -> None:
    ascending = sorted(memos) if expected is None else expected
    for descending in (False, True):
        want = list(reversed(ascending)) if descending else ascending
        page = store.query("u#1", descending=descending, **kwargs)
        assert sks(page) == want, f"descending={descending}"
        assert page.next_key is None
        paged = query_all(store, "u#1", limit=2, descending=descending, **kwargs)
        assert [item["sk"] for item in paged] == want, f"descending={descending}, paged"


def test_query_orders_by_code_point(store: ItemStore) -> None:
    sort_keys = ["a", "Z", "é", "中", "😀", "a😀", "ａ", "\u00ff", "~", "0"]
    for sk in sort_keys:
        store.put({"pk": "p", "sk": sk})
    assert sks(store.query("p")) == sorted(sort_keys)
    assert sks(store.query("p", prefix="a")) == ["a", "a😀"]
    assert sks(store.query("p", start="é", end="😀")) == [s for s in sorted(sort_keys) if "é" <= s < "😀"]


def test_query_limit_and_next_key_shape(store: ItemStore, memos: list[str]) -> None:
    page = store.query("u#1", limit=3)
    assert sks(page) == sorted(memos)[:3]
    assert page.next_key == {"pk": "u#1", "sk": sorted(memos)[2]}
    page2 = store.query("u#1", limit=3, after=page.next_key)
    assert sks(page2) == sorted(memos)[3:6]
    # a limit that exactly exhausts the query reports no next page
    last = store.query("u#1", limit=4, after={"pk": "u#1", "sk": sorted(memos)[5]})
    assert sks(last) == sorted(memos)[6:]
    assert last.next_key is None
    exact = store.query("u#1", limit=len(memos))
    assert len(exact.items) == len(memos) and exact.next_key is None


def test_query_limit_zero_is_empty(store: ItemStore, memos: list[str]) -> None:
    assert store.query("u#1", limit=0) == QueryPage(items=[], next_key=None)


def test_query_paging_descending(store: ItemStore, memos: list[str]) -> None:
    page = store.query("u#1", limit=4, descending=True)
    assert sks(page) == sorted(memos, reverse=True)[:4]
    rest = store.query("u#1", descending=True, after=page.next_key)
    assert sks(rest) == sorted(memos, reverse=True)[4:]


def test_query_after_survives_changes_to_the_anchor(store: ItemStore, memos: list[str]) -> None:
    page = store.query("u#1", prefix="memo#", limit=2)
    assert sks(page) == ["memo#001", "memo#002"]
    store.delete(("u#1", "memo#002"))
    store.put({"pk": "u#1", "sk": "memo#0015"})  # inserted before the anchor: not seen
    store.put({"pk": "u#1", "sk": "memo#0025"})  # inserted after it: seen
    rest = store.query("u#1", prefix="memo#", after=page.next_key)
    assert sks(rest) == ["memo#0025", "memo#010", "memo#011", "memo#100"]


def test_query_pages_through_many_items(store: ItemStore) -> None:
    # ~4.5 KB each: 250 items exceed DynamoDB's 1 MB page, so adapters must loop over pages.
    padding = "x" * 4500
    for chunk in range(0, 250, 50):
        store.transact(
            [
                Put({"pk": "big", "sk": f"item#{i:04d}", "i": i, "pad": padding, "gsi2pk": "all", "gsi2sk": f"{i:04d}"})
                for i in range(chunk, chunk + 50)
            ]
        )
    everything = store.query("big")
    assert [item["i"] for item in everything.items] == list(range(250))
    assert everything.next_key is None
    assert [item["i"] for item in query_all(store, "big", limit=40)] == list(range(250))
    assert [item["i"] for item in query_all(store, "big", limit=70, descending=True)] == list(reversed(range(250)))
    via_index = query_all(store, "all", index="gsi2", limit=100)
    assert [item["i"] for item in via_index] == list(range(250))
    assert via_index[0]["pad"] == padding
    assert [item["i"] for item in store.query("big", start="item#0100", end="item#0200").items] == list(range(100, 200))


# -- query: indexes -------------------------------------------------------------------------


@pytest.fixture
def indexed(store: ItemStore) -> list[Item]:
    items: list[Item] = [
        {
            "pk": f"memo#{n}",
            "sk": "meta",
            "gsi1pk": "u#1#memos",
            "gsi1sk": f"2024-01-0{n}",
            "gsi2pk": "tag#work",
            "gsi2sk": f"memo#{n}",
            "status": "open" if n % 2 else "done",
            "pinned": n == 3,
            "tagPaths": ["work", f"work/{n}"],
            "createdAt": f"2024-01-0{n}T00:00:00Z",
            "updatedAt": f"2024-01-0{n}T12:00:00Z",
            "body": f"not projected into gsi1 #{n}",
        }
        for n in range(1, 6)
    ]
    # sparse indexes: memo#6 is only in gsi2, memo#7 in none, memo#8 in another gsi1 partition
    items.append({"pk": "memo#6", "sk": "meta", "gsi2pk": "tag#work", "gsi2sk": "memo#6", "body": "6"})
    items.append({"pk": "memo#7", "sk": "meta", "body": "in no index"})
    items.append({"pk": "memo#8", "sk": "meta", "gsi1pk": "u#2#memos", "gsi1sk": "2024-01-01"})
    # half a key pair puts an item in no index
    items.append({"pk": "memo#9", "sk": "meta", "gsi1pk": "u#1#memos", "gsi2sk": "memo#9"})
    for item in items:
        store.put(item)
    return items


def test_gsi1_query_is_sparse_and_projects(store: ItemStore, indexed: list[Item]) -> None:
    page = store.query("u#1#memos", index="gsi1")
    assert [item["pk"] for item in page.items] == [f"memo#{n}" for n in range(1, 6)]
    for got, original in zip(page.items, indexed[:5], strict=True):
        assert got == gsi1_view(original)  # equal: no attribute the index does not project
    assert page.next_key is None
    assert [item["pk"] for item in store.query("u#2#memos", index="gsi1").items] == ["memo#8"]


@pytest.mark.parametrize("index", sorted(INDEXES))
def test_index_queries_return_exactly_dynamodb_projection(store: ItemStore, index: str) -> None:
    pk_attr, sk_attr = INDEXES[index]
    other = {attr for name, keys in INDEXES.items() if name != index for attr in keys}
    item: Item = {
        "pk": "proj",
        "sk": "one",
        pk_attr: "proj#index",
        sk_attr: "1",
        **{attr: f"other-index-{attr}" for attr in sorted(other)},  # another GSI's keys
        **{name: f"projected {name}" for name in ("status", "createdAt", "updatedAt")},
        "pinned": True,
        "tagPaths": ["a", "a/b"],
        "ttl": now() + 3600,
        "content": "a body no INCLUDE projection names",
        "nested": {"deep": [1, 2, {"x": "y"}]},
    }
    store.put(item)
    page = store.query("proj#index", index=index)
    assert page.items == [dynamodb_projection(index, item)]


def test_gsi1_projected_attributes_keep_every_json_value(store: ItemStore) -> None:
    """Projected attributes of every JSON type come back as written (null stays null, false and 0
    stay themselves, nested values whole); an attribute the item lacks stays absent."""
    values: list[Any] = [None, False, 0, 1.5, -7, "", '中文 "quoted"', [], {"a": [1, {"b": None}]}]
    for n, value in enumerate(values):
        store.put(
            {"pk": f"typed#{n}", "sk": "m", "gsi1pk": "typed", "gsi1sk": f"{n:02d}", "status": value, "body": "x"}
        )
    store.put({"pk": "typed#none", "sk": "m", "gsi1pk": "typed", "gsi1sk": "99", "body": "no projected one"})
    found = store.query("typed", index="gsi1").items
    assert [item.get("status", "absent") for item in found] == [*values, "absent"]
    assert found[-1] == {"pk": "typed#none", "sk": "m", "gsi1pk": "typed", "gsi1sk": "99"}
    assert all(type(item["status"]) is type(value) for item, value in zip(found, values, strict=False))


@pytest.mark.parametrize("index", [None, *sorted(INDEXES)])
def test_keys_only_query_returns_the_keys_of_the_same_entries(store: ItemStore, index: str | None) -> None:
    """keys_only: the same entries, order and paging as the full query, each holding only the
    table keys and the index's keys; an expired item stays invisible."""
    pk_attr, sk_attr = ("pk", "sk") if index is None else INDEXES[index]
    for n in range(5):
        item: Item = {"pk": "ko" if index is None else f"ko#{n}", "sk": f"s{n}", "body": "x" * 50, "updatedAt": "t"}
        if index is not None:
            item.update({pk_attr: "ko#index", sk_attr: f"{n % 3}"})
        if n == 4:
            item["ttl"] = now() - 10
        store.put(item)
    partition = "ko" if index is None else "ko#index"
    kept = ("pk", "sk") if index is None else ("pk", "sk", pk_attr, sk_attr)
    full = store.query(partition, index=index).items
    keys = store.query(partition, index=index, keys_only=True).items
    assert keys == [{name: entry[name] for name in kept} for entry in full]
    assert len(keys) == 4
    first = store.query(partition, index=index, keys_only=True, limit=2)
    rest = store.query(partition, index=index, keys_only=True, after=first.next_key)
    assert first.items + rest.items == keys


def test_gsi1_ranges_descending_and_paging(store: ItemStore, indexed: list[Item]) -> None:
    page = store.query("u#1#memos", index="gsi1", start="2024-01-02", end="2024-01-05", descending=True)
    assert [item["pk"] for item in page.items] == ["memo#4", "memo#3", "memo#2"]
    first = store.query("u#1#memos", index="gsi1", prefix="2024-01", limit=2)
    assert [item["pk"] for item in first.items] == ["memo#1", "memo#2"]
    assert first.next_key == {"pk": "memo#2", "sk": "meta", "gsi1pk": "u#1#memos", "gsi1sk": "2024-01-02"}
    second = store.query("u#1#memos", index="gsi1", prefix="2024-01", limit=2, after=first.next_key)
    assert [item["pk"] for item in second.items] == ["memo#3", "memo#4"]
    third = store.query("u#1#memos", index="gsi1", prefix="2024-01", limit=2, after=second.next_key)
    assert [item["pk"] for item in third.items] == ["memo#5"]
    assert third.next_key is None


def test_gsi2_query_returns_whole_items(store: ItemStore, indexed: list[Item]) -> None:
    page = store.query("tag#work", index="gsi2")
    assert page.items == indexed[:6]
    page = store.query("tag#work", index="gsi2", prefix="memo#", descending=True, limit=4)
    assert [item["pk"] for item in page.items] == ["memo#6", "memo#5", "memo#4", "memo#3"]
    assert page.next_key == {"pk": "memo#3", "sk": "meta", "gsi2pk": "tag#work", "gsi2sk": "memo#3"}
    rest = store.query("tag#work", index="gsi2", prefix="memo#", descending=True, after=page.next_key)
    assert [item["pk"] for item in rest.items] == ["memo#2", "memo#1"]


def test_index_follows_updates_and_removals(store: ItemStore, indexed: list[Item]) -> None:
    store.update(Update(("memo#1", "meta"), remove=["gsi1pk", "gsi1sk"]))
    store.update(Update(("memo#2", "meta"), set={"gsi1sk": "2024-02-01"}))
    store.delete(("memo#3", "meta"))
    page = store.query("u#1#memos", index="gsi1")
    assert [item["pk"] for item in page.items] == ["memo#4", "memo#5", "memo#2"]
    assert store.query("tag#work", index="gsi2", prefix="memo#3").items == []


@pytest.mark.parametrize("index", ["gsi1", "gsi2"])
def test_index_paging_with_equal_index_sort_keys(store: ItemStore, index: str) -> None:
    pk_attr, sk_attr = INDEXES[index]
    for n in range(7):
        store.put({"pk": f"item#{n}", "sk": "meta", pk_attr: "same", sk_attr: "2024"})
    store.put({"pk": "item#first", "sk": "meta", pk_attr: "same", sk_attr: "2023"})
    store.put({"pk": "item#last", "sk": "meta", pk_attr: "same", sk_attr: "2025"})
    items = query_all(store, "same", index=index, limit=3)
    pks = [item["pk"] for item in items]
    assert pks[0] == "item#first" and pks[-1] == "item#last"
    assert sorted(pks[1:-1]) == [f"item#{n}" for n in range(7)]
    backwards = [item["pk"] for item in query_all(store, "same", index=index, limit=2, descending=True)]
    assert backwards[0] == "item#last" and backwards[-1] == "item#first"
    assert sorted(backwards[1:-1]) == [f"item#{n}" for n in range(7)]


def test_unknown_index_is_rejected(store: ItemStore) -> None:
    with pytest.raises((KeyError, ValueError)):
        store.query("p", index="gsi9")


# -- conditions -----------------------------------------------------------------------------


def test_put_condition_exists_false(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "v": 1}, Condition(exists=False))
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "a", "v": 2}, Condition(exists=False))
    assert store.get(("p", "a")) == {"pk": "p", "sk": "a", "v": 1}


def test_put_condition_exists_true(store: ItemStore) -> None:
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "a", "v": 1}, Condition(exists=True))
    assert store.get(("p", "a")) is None
    store.put({"pk": "p", "sk": "a", "v": 1})
    store.put({"pk": "p", "sk": "a", "v": 2}, Condition(exists=True))
    assert store.get(("p", "a")) == {"pk": "p", "sk": "a", "v": 2}


#: The item the equals-condition tests compare against: every JSON-ish value type.
CONDITION_ITEM: dict[str, Any] = {
    "pk": "p",
    "sk": "a",
    "version": 3,
    "status": "open",
    "nested": {"a": [1, {"b": None}], "c": ""},
    "list": ["x", 2, True],
    "nothing": None,
    "flag": False,
}


@pytest.mark.parametrize(
    "expected",
    [
        {"version": 3},
        {"version": 3.0},
        {"status": "open"},
        {"version": 3, "status": "open"},
        {"nested": {"a": [1, {"b": None}], "c": ""}},
        {"list": ["x", 2, True]},
        {"nothing": None},
        {"flag": False},
    ],
)
def test_condition_equals_match(store: ItemStore, expected: dict[str, Any]) -> None:
    original = dict(CONDITION_ITEM)
    store.put(original)
    store.put({**original, "touched": 1}, Condition(equals=expected))
    assert store.get(("p", "a")) == {**original, "touched": 1}
    store.update(Update(("p", "a"), add={"touched": 1}, condition=Condition(equals=expected)))
    assert store.get(("p", "a")) == {**original, "touched": 2}
    store.transact([Check(("p", "a"), Condition(exists=True, equals=expected))])
    store.delete(("p", "a"), Condition(equals=expected))
    assert store.get(("p", "a")) is None


@pytest.mark.parametrize(
    "expected",
    [
        {"version": 4},
        {"version": "3"},
        {"status": "closed"},
        {"version": 3, "status": "closed"},
        {"missing": None},
        {"missing": "x"},
        {"nested": {"a": [1, {"b": None}]}},
        {"list": ["x", 2]},
        {"nothing": ""},
        {"flag": True},
    ],
)
def test_condition_equals_mismatch(store: ItemStore, expected: dict[str, Any]) -> None:
    original = dict(CONDITION_ITEM)
    store.put(original)
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "a"}, Condition(equals=expected))
    with pytest.raises(ConditionFailed):
        store.update(Update(("p", "a"), set={"x": 1}, condition=Condition(equals=expected)))
    with pytest.raises(ConditionFailed):
        store.delete(("p", "a"), Condition(equals=expected))
    with pytest.raises(ConditionFailed) as failed:
        store.transact([Check(("p", "a"), Condition(equals=expected))])
    assert failed.value.index == 0
    assert store.get(("p", "a")) == original


def test_condition_equals_on_absent_item_fails(store: ItemStore) -> None:
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "a"}, Condition(equals={"v": None}))
    with pytest.raises(ConditionFailed):
        store.update(Update(("p", "a"), set={"v": 1}, condition=Condition(equals={"v": 1})))
    assert store.get(("p", "a")) is None


def test_update_conditions(store: ItemStore) -> None:
    with pytest.raises(ConditionFailed):
        store.update(Update(("p", "a"), set={"v": 1}, condition=Condition(exists=True)))
    assert store.get(("p", "a")) is None
    created = store.update(Update(("p", "a"), set={"v": 1}, condition=Condition(exists=False)))
    assert created == {"pk": "p", "sk": "a", "v": 1}
    with pytest.raises(ConditionFailed):
        store.update(Update(("p", "a"), set={"v": 2}, condition=Condition(exists=False)))
    updated = store.update(Update(("p", "a"), set={"v": 2}, condition=Condition(exists=True)))
    assert updated == {"pk": "p", "sk": "a", "v": 2}
    assert store.get(("p", "a")) == updated


def test_delete_conditions(store: ItemStore) -> None:
    with pytest.raises(ConditionFailed):
        store.delete(("p", "a"), Condition(exists=True))
    store.delete(("p", "a"), Condition(exists=False))
    store.put({"pk": "p", "sk": "a"})
    with pytest.raises(ConditionFailed):
        store.delete(("p", "a"), Condition(exists=False))
    assert store.get(("p", "a")) is not None
    store.delete(("p", "a"), Condition(exists=True))
    assert store.get(("p", "a")) is None


def test_empty_condition_always_holds(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a"}, Condition())
    store.put({"pk": "p", "sk": "a", "v": 1}, Condition())
    store.update(Update(("p", "b"), set={"v": 1}, condition=Condition()))
    store.transact([Check(("p", "c"), Condition()), Check(("p", "a"), Condition())])
    store.delete(("p", "a"), Condition())
    assert store.get(("p", "a")) is None and store.get(("p", "b")) is not None


# -- update ---------------------------------------------------------------------------------


def test_update_creates_absent_item(store: ItemStore) -> None:
    result = store.update(Update(("p", "a"), set={"title": "t", "tags": ["x"]}, remove=["gone"], add={"n": 2}))
    assert result == {"pk": "p", "sk": "a", "title": "t", "tags": ["x"], "n": 2}
    assert store.get(("p", "a")) == result


def test_update_with_no_changes_creates_key_only_item(store: ItemStore) -> None:
    assert store.update(Update(("p", "a"))) == {"pk": "p", "sk": "a"}
    store.transact([Update(("p", "b"))])
    assert store.get(("p", "b")) == {"pk": "p", "sk": "b"}
    store.put({"pk": "p", "sk": "c", "v": 1})
    assert store.update(Update(("p", "c"))) == {"pk": "p", "sk": "c", "v": 1}


def test_update_set_remove_add_on_existing_item(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "keep": "k", "drop": 1, "count": 5, "ratio": 0.5, "title": "old"})
    result = store.update(
        Update(
            ("p", "a"),
            set={"title": "new", "meta": {"x": [1, 2]}, "empty": ""},
            remove=["drop", "never-there"],
            add={"count": 3, "ratio": 0.25, "fresh": -1},
        )
    )
    expected = {
        "pk": "p",
        "sk": "a",
        "keep": "k",
        "count": 8,
        "ratio": 0.75,
        "title": "new",
        "meta": {"x": [1, 2]},
        "empty": "",
        "fresh": -1,
    }
    assert result == expected
    assert store.get(("p", "a")) == expected


def test_update_same_attribute_in_several_clauses(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "a": 10, "b": 10, "c": 10})
    # remove, then set, then add - whatever the backend's own rules on overlapping paths
    result = store.update(Update(("p", "a"), set={"a": 1, "b": 5}, remove=["b", "c"], add={"a": 2, "c": 3}))
    assert result == {"pk": "p", "sk": "a", "a": 3, "b": 5, "c": 3}


def test_update_cannot_change_key_attributes(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a"})
    with pytest.raises(ValueError):
        store.update(Update(("p", "a"), set={"sk": "b"}))
    with pytest.raises(ValueError):
        store.update(Update(("p", "a"), remove=["pk"]))
    with pytest.raises(ValueError):
        store.transact([Update(("p", "a"), set={"pk": "q"})])
    assert store.query("p").items == [{"pk": "p", "sk": "a"}]


# Not on moto: its in-process DynamoDB does not lock items, so concurrent updates get lost there.
@pytest.mark.parametrize(
    "store", ["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)], indirect=True
)
def test_concurrent_adds_are_atomic(store: ItemStore) -> None:
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(10):
                store.update(Update(("p", "counter"), add={"n": 1}))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert store.get(("p", "counter")) == {"pk": "p", "sk": "counter", "n": 40}


# -- transactions ---------------------------------------------------------------------------


def test_transact_applies_every_op(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "upd", "n": 1})
    store.put({"pk": "p", "sk": "del"})
    store.put({"pk": "p", "sk": "chk", "v": "x"})
    store.transact(
        [
            Put({"pk": "p", "sk": "new", "v": 1}, Condition(exists=False)),
            Update(("p", "upd"), add={"n": 1}, set={"s": "t"}, condition=Condition(equals={"n": 1})),
            Delete(("p", "del"), Condition(exists=True)),
            Check(("p", "chk"), Condition(equals={"v": "x"})),
            Update(("p", "created"), set={"v": 2}),
        ]
    )
    assert store.get(("p", "new")) == {"pk": "p", "sk": "new", "v": 1}
    assert store.get(("p", "upd")) == {"pk": "p", "sk": "upd", "n": 2, "s": "t"}
    assert store.get(("p", "del")) is None
    assert store.get(("p", "chk")) == {"pk": "p", "sk": "chk", "v": "x"}
    assert store.get(("p", "created")) == {"pk": "p", "sk": "created", "v": 2}


def test_transact_is_all_or_nothing(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "n": 1})
    store.put({"pk": "p", "sk": "b", "n": 1})
    before = store.query("p").items
    with pytest.raises(ConditionFailed) as failed:
        store.transact(
            [
                Put({"pk": "p", "sk": "c", "n": 1}),
                Update(("p", "a"), add={"n": 1}),
                Delete(("p", "b")),
                Put({"pk": "p", "sk": "a2"}, Condition(exists=True)),
                Update(("p", "d"), set={"x": 1}),
            ]
        )
    assert failed.value.index == 3
    assert store.query("p").items == before


def test_transact_reports_first_failing_op(store: ItemStore) -> None:
    store.put({"pk": "p", "sk": "a", "v": 1})
    store.put({"pk": "p", "sk": "b", "v": 1})
    ops = [
        Check(("p", "a"), Condition(exists=True)),
        Update(("p", "b"), set={"v": 2}, condition=Condition(equals={"v": 9})),
        Put({"pk": "p", "sk": "a2"}, Condition(exists=True)),
        Delete(("p", "b2"), Condition(exists=True)),
    ]
    with pytest.raises(ConditionFailed) as failed:
        store.transact(ops)
    assert failed.value.index == 1
    with pytest.raises(ConditionFailed) as failed:
        store.transact([ops[0], ops[3], ops[2]])
    assert failed.value.index == 1
    with pytest.raises(ConditionFailed) as failed:
        store.transact([Check(("p", "zz"), Condition(exists=True)), ops[0]])
    assert failed.value.index == 0
    assert store.get(("p", "b")) == {"pk": "p", "sk": "b", "v": 1}


def test_transact_check_does_not_write(store: ItemStore) -> None:
    store.transact([Check(("p", "a"), Condition(exists=False)), Put({"pk": "p", "sk": "b"})])
    assert store.get(("p", "a")) is None
    assert store.get(("p", "b")) == {"pk": "p", "sk": "b"}
    with pytest.raises(ConditionFailed) as failed:
        store.transact([Put({"pk": "p", "sk": "c"}), Check(("p", "b"), Condition(exists=False))])
    assert failed.value.index == 1
    assert store.get(("p", "c")) is None


def test_transact_limits(store: ItemStore) -> None:
    store.transact([Put({"pk": "p", "sk": f"{i:03d}"}) for i in range(100)])
    assert len(store.query("p").items) == 100
    with pytest.raises(ValueError):
        store.transact([Put({"pk": "q", "sk": f"{i:03d}"}) for i in range(101)])
    with pytest.raises(ValueError):
        store.transact([Put({"pk": "q", "sk": "a"}), Check(("q", "a"), Condition(exists=False))])
    with pytest.raises(ValueError):
        store.transact([Update(("q", "a"), set={"v": 1}), Delete(("q", "a"))])
    assert store.query("q").items == []


def test_transact_empty_is_a_no_op(store: ItemStore) -> None:
    """No ops: no error (DynamoDB itself rejects an empty TransactWriteItems) and no change."""
    store.put({"pk": "u#empty", "sk": "a", "n": 1})
    before = store.query("u#empty").items
    assert store.transact([]) is None  # type: ignore[func-returns-value]
    assert store.query("u#empty").items == before == [{"pk": "u#empty", "sk": "a", "n": 1}]
    assert store.query("u#nothing").items == []


# -- TTL ------------------------------------------------------------------------------------


@pytest.fixture
def expiring(store: ItemStore) -> dict[str, Item]:
    t = now()
    items = {
        "expired": {
            "pk": "p",
            "sk": "expired",
            "ttl": t - 3600,
            "gsi2pk": "g",
            "gsi2sk": "1",
            "gsi1pk": "g",
            "gsi1sk": "1",
        },
        "just_expired": {"pk": "p", "sk": "just_expired", "ttl": t, "gsi2pk": "g", "gsi2sk": "2"},
        "live": {"pk": "p", "sk": "live", "ttl": t + 3600, "gsi2pk": "g", "gsi2sk": "3", "gsi1pk": "g", "gsi1sk": "3"},
        "float_live": {"pk": "p", "sk": "float_live", "ttl": t + 3600.5},
        "forever": {"pk": "p", "sk": "forever", "gsi2pk": "g", "gsi2sk": "4"},
    }
    for item in items.values():
        store.put(item)
    return items


def test_expired_items_are_invisible_to_reads(store: ItemStore, expiring: dict[str, Item]) -> None:
    assert store.get(("p", "expired")) is None
    assert store.get(("p", "just_expired")) is None  # ttl == now counts as passed
    assert store.get(("p", "live")) == expiring["live"]
    keys = [("p", sk) for sk in ("expired", "live", "just_expired", "forever", "float_live")]
    assert keys_of(store.batch_get(keys)) == [("p", "live"), ("p", "forever"), ("p", "float_live")]
    assert sks(store.query("p")) == ["float_live", "forever", "live"]
    page = store.query("p", limit=1)
    assert sks(page) == ["float_live"]
    assert sks(store.query("p", limit=5, after=page.next_key)) == ["forever", "live"]
    assert [item["gsi2sk"] for item in store.query("g", index="gsi2").items] == ["3", "4"]


def test_expired_items_are_invisible_to_gsi1(store: ItemStore, expiring: dict[str, Item]) -> None:
    assert "ttl" in GSI1_PROJECTED_ATTRIBUTES  # how DynamoDB can tell expired index items apart
    assert [item["gsi1sk"] for item in store.query("g", index="gsi1").items] == ["3"]


def test_expired_item_counts_as_absent_for_conditions(store: ItemStore, expiring: dict[str, Item]) -> None:
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "expired", "v": 1}, Condition(exists=True))
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "expired", "v": 1}, Condition(equals={"gsi2sk": "1"}))
    with pytest.raises(ConditionFailed):
        store.delete(("p", "expired"), Condition(exists=True))
    with pytest.raises(ConditionFailed) as failed:
        store.transact([Check(("p", "live"), Condition(exists=True)), Check(("p", "expired"), Condition(exists=True))])
    assert failed.value.index == 1
    store.transact(
        [Check(("p", "expired"), Condition(exists=False)), Check(("p", "just_expired"), Condition(exists=False))]
    )
    with pytest.raises(ConditionFailed):
        store.put({"pk": "p", "sk": "live"}, Condition(exists=False))
    store.put({"pk": "p", "sk": "expired", "v": 1}, Condition(exists=False))
    assert store.get(("p", "expired")) == {"pk": "p", "sk": "expired", "v": 1}
    store.delete(("p", "just_expired"), Condition(exists=False))
    assert store.get(("p", "just_expired")) is None


def test_update_over_expired_item_starts_fresh(store: ItemStore, expiring: dict[str, Item]) -> None:
    t = now()
    store.put({"pk": "p", "sk": "window", "ttl": t - 10, "count": 41, "other": "old"})
    result = store.update(Update(("p", "window"), add={"count": 1}, set={"ttl": t + 60}))
    assert result == {"pk": "p", "sk": "window", "count": 1, "ttl": t + 60}
    assert store.get(("p", "window")) == result
    result = store.update(Update(("p", "window"), add={"count": 1}))
    assert result["count"] == 2

    fresh = store.update(Update(("p", "expired"), set={"v": 1}, condition=Condition(exists=False)))
    assert fresh == {"pk": "p", "sk": "expired", "v": 1}
    with pytest.raises(ConditionFailed):
        store.update(Update(("p", "just_expired"), set={"v": 1}, condition=Condition(exists=True)))
    assert store.get(("p", "just_expired")) is None


def test_transact_update_over_expired_item_starts_fresh(store: ItemStore, expiring: dict[str, Item]) -> None:
    t = now()
    store.put({"pk": "p", "sk": "window", "ttl": t - 10, "count": 41, "other": "old"})
    store.transact(
        [
            Update(("p", "window"), add={"count": 1}),
            Update(("p", "expired"), set={"v": 2}, condition=Condition(exists=False)),
            Update(("p", "live"), add={"n": 1}, condition=Condition(exists=True)),
        ]
    )
    assert store.get(("p", "window")) == {"pk": "p", "sk": "window", "count": 1}
    assert store.get(("p", "expired")) == {"pk": "p", "sk": "expired", "v": 2}
    assert store.get(("p", "live")) == {**expiring["live"], "n": 1}
    # an expired item does not make a transaction fail, but a real failure still does
    with pytest.raises(ConditionFailed) as failed:
        store.transact(
            [
                Update(("p", "just_expired"), add={"count": 1}),
                Update(("p", "live"), add={"n": 1}, condition=Condition(exists=False)),
            ]
        )
    assert failed.value.index == 1
    assert store.get(("p", "just_expired")) is None
    assert store.get(("p", "live")) == {**expiring["live"], "n": 1}


# -- DynamoDB adapter specifics (not part of the contract) ----------------------------------


@pytest.mark.parametrize("env", ["moto_env", pytest.param("dynamodb_local_env", marks=pytest.mark.dynamodb_local)])
def test_store_builds_its_own_client(request: pytest.FixtureRequest, env: str) -> None:
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    endpoint = request.getfixturevalue(env)  # None for moto
    store = DynamoDBItemStore(f"mesq-own-{uuid.uuid4().hex[:8]}", endpoint_url=endpoint, region="us-east-1")
    config = store._client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (5, 30)
    assert config.retries["mode"] == "standard"
    assert config.retries["total_max_attempts"] == 6  # botocore: max_attempts=5 retries + 1
    assert store.create_table_if_missing() is True
    assert store.create_table_if_missing() is False
    store.put({"pk": "p", "sk": "a", "v": 1.5})
    assert store.get(("p", "a")) == {"pk": "p", "sk": "a", "v": 1.5}
    store._client.delete_table(TableName=store.table_name)


def _offline_client(port: int | None = None) -> Any:
    if port is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]  # closed again: nothing listens there
    return boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="offline",
        aws_secret_access_key="offline",
        config=Config(connect_timeout=1, read_timeout=1, retries={"mode": "standard", "max_attempts": 1}),
    )


def test_unreachable_dynamodb_raises_store_unavailable() -> None:
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    store = DynamoDBItemStore("mesq-offline", client=_offline_client())
    with pytest.raises(StoreUnavailable):
        store.get(("p", "a"))
    with pytest.raises(StoreUnavailable):
        store.batch_get([("p", "a")])
    with pytest.raises(StoreUnavailable):
        store.query("p")
    with pytest.raises(StoreUnavailable):
        store.put({"pk": "p", "sk": "a"})
    with pytest.raises(StoreUnavailable):
        store.update(Update(("p", "a"), set={"v": 1}))
    with pytest.raises(StoreUnavailable):
        store.transact([Delete(("p", "a"))])


def test_dynamodb_throttling_maps_to_store_unavailable() -> None:
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    client = _offline_client(1)
    store = DynamoDBItemStore("mesq-stubbed", client=client)
    with Stubber(client) as stubber:
        stubber.add_client_error("get_item", "ProvisionedThroughputExceededException", http_status_code=400)
        stubber.add_client_error("put_item", "ThrottlingException", http_status_code=400)
        with pytest.raises(StoreUnavailable):
            store.get(("p", "a"))
        with pytest.raises(StoreUnavailable):
            store.put({"pk": "p", "sk": "a"})


def test_batch_get_retries_unprocessed_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from mesq.adapters.store import dynamodb
    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    sleeps: list[int] = []
    monkeypatch.setattr(dynamodb, "_backoff", sleeps.append)

    client = _offline_client(1)
    store = DynamoDBItemStore("tbl", client=client)

    def key(sk: str) -> dict[str, Any]:
        return {"pk": {"S": "p"}, "sk": {"S": sk}}

    with Stubber(client) as stubber:
        stubber.add_response(
            "batch_get_item",
            {
                "Responses": {"tbl": [{**key("b"), "n": {"N": "2"}}]},
                "UnprocessedKeys": {"tbl": {"Keys": [key("a"), key("c")], "ConsistentRead": True}},
            },
        )
        stubber.add_response(
            "batch_get_item", {"Responses": {"tbl": []}, "UnprocessedKeys": {"tbl": {"Keys": [key("a"), key("c")]}}}
        )
        stubber.add_response(
            "batch_get_item",
            {"Responses": {"tbl": [{**key("c"), "n": {"N": "3.5"}}, {**key("a"), "n": {"N": "1"}}]}},
        )
        got = store.batch_get([("p", "c"), ("p", "a"), ("p", "b"), ("p", "a")])
        stubber.assert_no_pending_responses()
    assert got == [{"pk": "p", "sk": "c", "n": 3.5}, {"pk": "p", "sk": "a", "n": 1}, {"pk": "p", "sk": "b", "n": 2}]

    with Stubber(client) as stubber:
        for _ in range(8):
            stubber.add_response(
                "batch_get_item", {"Responses": {"tbl": []}, "UnprocessedKeys": {"tbl": {"Keys": [key("a")]}}}
            )
        with pytest.raises(StoreUnavailable):
            store.batch_get([("p", "a")])
    assert sleeps == [0, 1, *range(1, 8)]  # backoff grows only while no progress is made


def test_sqlite_sweeps_expired_items(tmp_path) -> None:
    """SQLite has no TTL daemon: the adapter deletes expired rows in batches as it writes."""
    from mesq.adapters.store.sqlite import SWEEP_EVERY_WRITES, SQLiteItemStore

    sqlite_store = SQLiteItemStore(tmp_path / "sweep.db")
    for i in range(10):
        sqlite_store.put({"pk": "old", "sk": str(i), "ttl": 1})
    sqlite_store.put({"pk": "live", "sk": "x", "ttl": 4_000_000_000})
    for i in range(SWEEP_EVERY_WRITES):
        sqlite_store.put({"pk": "w", "sk": str(i)})
    rows = sqlite_store._conn.execute("SELECT pk, COUNT(*) FROM items GROUP BY pk ORDER BY pk").fetchall()
    assert rows == [("live", 1), ("w", SWEEP_EVERY_WRITES)]
    sqlite_store.close()
