"""SQLite adapter of ItemStore: the embedded default for `mesq serve` and tests.

One table holds every item as JSON plus the key, index and TTL columns; the four GSIs are
partial indexes over their key columns, so a query is an index range scan exactly like a
DynamoDB Query. A store made before GSI3 (change records by actor) or GSI4 (by session) gets their
columns when it opens (the records written before GSI3 get their keys from
`history/actor_index.py`; those written before sessions have none and need none). GSI1's
index also holds `ttl` (`items_gsi1_live`, which replaced `items_gsi1` when a store opens): a
`keys_only` query of it (the due index's candidates, thousands of them) is then answered from
the index alone, without a table lookup per entry for the expiry check.
WAL mode lets readers run beside the single writer; every write, including a transaction, is one
`BEGIN IMMEDIATE` so conditions and writes are atomic across threads and processes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...kernel.messages import quoted
from ...kernel.ports.storage import (
    INDEXES,
    Check,
    Condition,
    ConditionFailed,
    Cursor,
    Delete,
    Item,
    Key,
    Put,
    QueryPage,
    Update,
    WriteOp,
)
from ...store.item_rules import (
    clock,
    key_of,
    must_exist,
    ttl_of,
    validate_item,
    validate_transaction,
    validate_update_keys,
)
from ...store.table import projected
from ..private_files import private_directory, private_file

# Expired items are deleted in small batches after every SWEEP_EVERY_WRITES commits.
SWEEP_EVERY_WRITES = 100
SWEEP_BATCH = 500

_TABLE = """
CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    gsi1pk TEXT, gsi1sk TEXT,
    gsi2pk TEXT, gsi2sk TEXT,
    ttl INTEGER,
    data TEXT NOT NULL,
    gsi3pk TEXT, gsi3sk TEXT,
    gsi4pk TEXT, gsi4sk TEXT,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
"""
#: Columns added after the first version of the table, added to an older file when it opens.
_ADDED_COLUMNS = ("gsi3pk", "gsi3sk", "gsi4pk", "gsi4sk")
_SCHEMA = """
DROP INDEX IF EXISTS items_gsi1;
CREATE INDEX IF NOT EXISTS items_gsi1_live ON items (gsi1pk, gsi1sk, pk, sk, ttl) WHERE gsi1pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_gsi2 ON items (gsi2pk, gsi2sk, pk, sk) WHERE gsi2pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_gsi3 ON items (gsi3pk, gsi3sk, pk, sk) WHERE gsi3pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_gsi4 ON items (gsi4pk, gsi4sk, pk, sk) WHERE gsi4pk IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_ttl ON items (ttl) WHERE ttl IS NOT NULL;
"""

#: The expiry rule (`item_rules.expired`: ttl <= now) turned around for SQL: a row is live when
#: its ttl column (NULL unless the item's `ttl` is a number) is after the bound `now`.
_LIVE = "(ttl IS NULL OR ttl > ?)"

#: What opening the store can raise (a missing directory, an unreadable or foreign file): the
#: CLI names the data directory instead (runtime/cli/common.py).
OPEN_ERRORS = (OSError, sqlite3.Error)


#: Keys per batch_get statement (two bound values each, far below SQLite's variable limit).
_BATCH_KEYS = 250


def _index_keys(item: Item, index: str) -> tuple[str | None, str | None]:
    """The item's keys in `index`, or (None, None): like a DynamoDB GSI, an index holds only
    items that carry both of its key attributes (sparse index)."""
    pk_attr, sk_attr = INDEXES[index]
    pk, sk = item.get(pk_attr), item.get(sk_attr)
    if isinstance(pk, str) and isinstance(sk, str):
        return pk, sk
    return None, None


def _live_item(conn: sqlite3.Connection, key: Key) -> Item | None:
    """The item at `key` unless it is absent or expired. Callers hold the store's lock."""
    sql = f"SELECT data FROM items WHERE pk=? AND sk=? AND {_LIVE}"  # noqa: S608 (a constant, no values)
    row = conn.execute(sql, (key[0], key[1], clock())).fetchone()
    return json.loads(row[0]) if row else None


def _keys_of(row: Sequence[Any], pk_col: str, sk_col: str, partition: str, index: str | None) -> Item:
    """A keys-only entry from a (NULL, sort key, pk, sk) row: read from the index alone."""
    entry: Item = {"pk": row[2], "sk": row[3]}
    if index is not None:
        entry[pk_col], entry[sk_col] = partition, row[1]
    return entry


class SQLiteItemStore:
    """ItemStore over one SQLite file (or `:memory:` for throwaway stores)."""

    def __init__(self, path: str | Path) -> None:
        self._path = str(path)
        if self._path != ":memory:":
            private_directory(Path(self._path).parent)
            private_file(Path(self._path))
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(_TABLE)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(items)")}
        for column in _ADDED_COLUMNS:
            if column not in columns:
                try:
                    self._conn.execute(f"ALTER TABLE items ADD COLUMN {column} TEXT")  # a constant name
                except sqlite3.OperationalError as error:  # another process opening it added it first
                    if "duplicate column" not in str(error):
                        raise
        self._conn.executescript(_SCHEMA)
        self._writes = 0

    # -- reads -------------------------------------------------------------------------------

    def get(self, key: Key) -> Item | None:
        with self._lock:
            return _live_item(self._conn, key)

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        found: dict[Key, Item] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            # One statement per partition and chunk, not one per key (a page's 200 keys are one
            # read); `pk = ? AND sk IN (...)` is answered from the primary key.
            by_partition: dict[str, list[str]] = {}
            for pk, sk in unique:
                by_partition.setdefault(pk, []).append(sk)
            for pk, sks in by_partition.items():
                for first in range(0, len(sks), _BATCH_KEYS):
                    chunk = sks[first : first + _BATCH_KEYS]
                    marks = ", ".join("?" for _ in chunk)
                    sql = f"SELECT sk, data FROM items WHERE pk = ? AND sk IN ({marks}) AND {_LIVE}"  # noqa: S608
                    for sk, data in self._conn.execute(sql, [pk, *chunk, clock()]):
                        found[(pk, sk)] = json.loads(data)
        return [found[key] for key in unique if key in found]

    def query(
        self,
        partition: str,
        *,
        index: str | None = None,
        prefix: str | None = None,
        start: str | None = None,
        end: str | None = None,
        descending: bool = False,
        limit: int | None = None,
        after: Cursor | None = None,
        keys_only: bool = False,
    ) -> QueryPage:
        pk_col, sk_col = ("pk", "sk") if index is None else INDEXES[index]
        clauses = [f"{pk_col} = ?", f"{sk_col} IS NOT NULL", _LIVE]
        params: list[Any] = [partition, clock()]
        if prefix is not None:
            # A range, the prefix up to the prefix with its last character's successor (exact in
            # UTF-8's byte order, which SQLite compares), so SQLite reads the index's range, not the
            # whole partition. Without a successor (empty, or ending in U+10FFFF): substr, not LIKE
            # (sort keys may contain % and _).
            if prefix and ord(prefix[-1]) < 0x10FFFF:
                following = ord(prefix[-1]) + 1
                following = 0xE000 if 0xD800 <= following <= 0xDFFF else following  # past the surrogates
                clauses.append(f"{sk_col} >= ? AND {sk_col} < ?")
                params += [prefix, prefix[:-1] + chr(following)]
            else:
                clauses.append(f"substr({sk_col}, 1, ?) = ?")
                params += [len(prefix), prefix]
        if start is not None:
            clauses.append(f"{sk_col} >= ?")
            params.append(start)
        if end is not None:
            clauses.append(f"{sk_col} < ?")
            params.append(end)
        order = "DESC" if descending else "ASC"
        order_cols = [sk_col] if index is None else [sk_col, "pk", "sk"]
        if after is not None:
            anchor = [after[sk_col]] if index is None else [after[sk_col], after["pk"], after["sk"]]
            cmp = "<" if descending else ">"
            cols = ", ".join(order_cols)
            marks = ", ".join("?" for _ in order_cols)
            clauses.append(f"({cols}) {cmp} ({marks})")
            params += list(anchor)
        # Only column names (from INDEXES) and placeholders are interpolated; values are bound.
        data = "NULL" if keys_only else "data"
        sql = (
            f"SELECT {data}, {sk_col}, pk, sk FROM items WHERE {' AND '.join(clauses)} "  # noqa: S608
            f"ORDER BY {', '.join(f'{c} {order}' for c in order_cols)}"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit + 1)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        has_more = limit is not None and len(rows) > limit
        rows = rows[:limit] if limit is not None else rows
        if keys_only:
            items = [_keys_of(row, pk_col, sk_col, partition, index) for row in rows]
        else:
            items = [json.loads(row[0]) for row in rows]
        if index is not None and not keys_only:
            items = [projected(index, item) for item in items]
        next_key: Cursor | None = None
        if has_more and rows:
            next_key = {"pk": rows[-1][2], "sk": rows[-1][3]}
            if index is not None:
                next_key[pk_col] = partition
                next_key[sk_col] = rows[-1][1]
        return QueryPage(items=items, next_key=next_key)

    # -- writes ------------------------------------------------------------------------------

    def put(self, item: Item, condition: Condition | None = None) -> None:
        self.transact([Put(item, condition)])

    def update(self, op: Update) -> Item:
        with self._write() as conn:
            result = self._apply(conn, op, 0)
        assert result is not None
        return result

    def delete(self, key: Key, condition: Condition | None = None) -> None:
        self.transact([Delete(key, condition)])

    def transact(self, ops: Sequence[WriteOp]) -> None:
        validate_transaction(ops)
        with self._write() as conn:
            for index, op in enumerate(ops):
                self._check(conn, key_of(op), getattr(op, "condition", None), index)
            for index, op in enumerate(ops):
                self._apply(conn, op, index, checked=True)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
                self._writes += 1
                if self._writes % SWEEP_EVERY_WRITES == 0:
                    self._sweep_expired()

    def _sweep_expired(self) -> None:
        """Delete a batch of expired items: what DynamoDB's TTL does in the background. Reads
        already hide them; this keeps idempotency records and rate-limit windows from piling up."""
        self._conn.execute(
            "DELETE FROM items WHERE (pk, sk) IN (SELECT pk, sk FROM items WHERE ttl IS NOT NULL AND ttl <= ? LIMIT ?)",
            (clock(), SWEEP_BATCH),
        )

    def _check(self, conn: sqlite3.Connection, key: Key, condition: Condition | None, index: int) -> Item | None:
        current = _live_item(conn, key)
        if condition is None:
            return current
        if must_exist(condition) and current is None:
            raise ConditionFailed("item does not exist", index)
        if condition.exists is False and current is not None:
            raise ConditionFailed("item already exists", index)
        for name, expected in condition.equals.items():
            if current is None or name not in current or current[name] != expected:
                raise ConditionFailed(f"attribute {quoted(name)} does not match", index)
        return current

    def _apply(self, conn: sqlite3.Connection, op: WriteOp, index: int, *, checked: bool = False) -> Item | None:
        key = key_of(op)
        if isinstance(op, Check):
            return None
        if isinstance(op, Put):
            if not checked:
                self._check(conn, key, op.condition, index)
            self._write_item(conn, op.item)
            return op.item
        if isinstance(op, Delete):
            if not checked:
                self._check(conn, key, op.condition, index)
            conn.execute("DELETE FROM items WHERE pk=? AND sk=?", key)
            return None
        validate_update_keys(op)
        current = _live_item(conn, key) if checked else self._check(conn, key, op.condition, index)
        item: Item = dict(current) if current is not None else {"pk": key[0], "sk": key[1]}
        for name in op.remove:
            item.pop(name, None)
        item.update(op.set)
        for name, amount in op.add.items():
            item[name] = item.get(name, 0) + amount
        self._write_item(conn, item)
        return item

    def _write_item(self, conn: sqlite3.Connection, item: Item) -> None:
        validate_item(item)
        conn.execute(
            "INSERT OR REPLACE INTO items"
            " (pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, gsi4pk, gsi4sk, ttl, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item["pk"],
                item["sk"],
                *_index_keys(item, "gsi1"),
                *_index_keys(item, "gsi2"),
                *_index_keys(item, "gsi3"),
                *_index_keys(item, "gsi4"),
                ttl_of(item),
                json.dumps(item, ensure_ascii=False, separators=(",", ":")),
            ),
        )
