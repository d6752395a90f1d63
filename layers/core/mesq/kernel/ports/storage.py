"""Storage ports: what domain code may ask of storage, and nothing more.

`ItemStore` is deliberately DynamoDB-shaped (partition key + sort key, two GSIs, conditional
writes, all-or-nothing transactions, TTL) so the single-table design in `docs/data-model.md`
maps 1:1 onto DynamoDB and can be emulated faithfully by SQLite. `BlobStore` is the object
storage port (local files or S3).

Item values are plain JSON-like Python values: str, int, float, bool, None, list, dict.
Attribute names `pk`, `sk`, `gsi1pk`, `gsi1sk`, `gsi2pk`, `gsi2sk` and `ttl` are reserved
for keys and expiry; `ttl` is epoch seconds, and an item whose `ttl` has passed is treated as
absent by every read and by `Condition(exists=False)` (DynamoDB deletes lazily, so adapters
must hide expired items themselves).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal, Protocol

Item = dict[str, Any]
Key = tuple[str, str]
#: Where a query page ended: the key attributes of its last item (table keys, plus the index's
#: keys for an index query), i.e. DynamoDB's LastEvaluatedKey. Opaque to domain code.
Cursor = dict[str, str]

INDEXES: Mapping[str, tuple[str, str]] = {
    "gsi1": ("gsi1pk", "gsi1sk"),
    "gsi2": ("gsi2pk", "gsi2sk"),
    "gsi3": ("gsi3pk", "gsi3sk"),
    "gsi4": ("gsi4pk", "gsi4sk"),
}
#: DynamoDB's TransactWriteItems limit, kept by every adapter so code tested on SQLite runs on
#: DynamoDB; domain code sizes its transactions by it.
MAX_TRANSACTION_OPS = 100
#: DynamoDB's TransactWriteItems payload limit (4 MB), less room for what `transaction_bytes`
#: does not count (type tags, expressions): a domain transaction past it is refused up front.
MAX_TRANSACTION_BYTES = 3_500_000
KEY_ATTRIBUTES = frozenset({"pk", "sk"})
RESERVED_ATTRIBUTES = frozenset(
    {"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "gsi4pk", "gsi4sk", "ttl"}
)


class StoreError(Exception):
    """Base class for storage failures that domain code may want to handle."""


class ConditionFailed(StoreError):
    """A conditional write (or one of a transaction's conditions) did not hold.

    `index` is the position of the failing operation inside a transaction, when known.
    """

    def __init__(self, message: str = "condition failed", index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class StoreUnavailable(StoreError):
    """The backend could not be reached or throttled us past our retries."""


@dataclass(frozen=True)
class Condition:
    """A write precondition on the item at the operation's key.

    exists=True: the item must exist (and not be expired).
    exists=False: the item must be absent (or expired).
    equals: every named attribute must exist and equal the given value (implies exists).
    """

    exists: bool | None = None
    equals: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Put:
    item: Item
    condition: Condition | None = None


@dataclass(frozen=True)
class Update:
    """Partial update. `set` overwrites attributes, `remove` deletes them, `add` atomically adds
    numbers (a missing attribute counts as 0). Creates the item when absent unless a condition
    forbids it (the DynamoDB UpdateItem semantics)."""

    key: Key
    set: Mapping[str, Any] = field(default_factory=dict)
    remove: Sequence[str] = ()
    add: Mapping[str, int | float] = field(default_factory=dict)
    condition: Condition | None = None


@dataclass(frozen=True)
class Delete:
    key: Key
    condition: Condition | None = None


@dataclass(frozen=True)
class Check:
    key: Key
    condition: Condition


WriteOp = Put | Update | Delete | Check


def transaction_bytes(ops: Sequence[WriteOp]) -> int:
    """About what a transaction of `ops` weighs on DynamoDB: the UTF-8 JSON of the items, keys,
    values and conditions it sends (DynamoDB refuses more than 4 MB; SQLite has no limit, so
    code tested there would pass and fail on AWS)."""
    total = 0
    for op in ops:
        if isinstance(op, Put):
            parts: tuple[Any, ...] = (op.item,)
        elif isinstance(op, Update):
            parts = (op.key, dict(op.set), list(op.remove), dict(op.add))
        else:
            parts = (op.key,)
        condition = op.condition
        if condition is not None:
            parts = (*parts, dict(condition.equals))
        total += len(json.dumps(parts, ensure_ascii=False, default=str).encode())
    return total


@dataclass(frozen=True)
class QueryPage:
    items: list[Item]
    next_key: Cursor | None = None  # pass as `after` to continue; None when the query is done


class ItemStore(Protocol):
    """DynamoDB-shaped item storage. Every method is synchronous and thread-safe."""

    def get(self, key: Key) -> Item | None: ...

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        """Items for the keys that exist, in the order of `keys`; duplicates collapse."""
        ...

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
        """Items of one partition (of the table, or of `index` in INDEXES), ordered by sort key.

        `prefix` keeps sort keys starting with it; `start` (inclusive) and `end` (exclusive)
        bound the sort key; `after` resumes after a `QueryPage.next_key` (stable
        even if that item changed meanwhile). Items read from an
        index carry exactly the table keys, the index's keys and its projected attributes
        (`store.table.INDEX_PROJECTIONS`; every attribute for a projection of ALL).
        `keys_only`: each entry carries only the table keys and the index's keys, for a caller
        that reads the records by key anyway (SQLite then answers from its index alone, without
        reading or decoding the items; DynamoDB returns less).
        """
        ...

    def put(self, item: Item, condition: Condition | None = None) -> None: ...

    def update(self, op: Update) -> Item:
        """Apply one Update and return the whole item as it is afterwards."""
        ...

    def delete(self, key: Key, condition: Condition | None = None) -> None: ...

    def transact(self, ops: Sequence[WriteOp]) -> None:
        """All-or-nothing: every condition holds and every write applies, or nothing changes
        and ConditionFailed names the first failing op. At most 100 ops, one per key."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class BlobInfo:
    path: str
    size: int
    content_type: str
    modified_at: str  # ISO 8601 UTC
    metadata: Mapping[str, str] = field(default_factory=dict)


#: What `BlobStore.put` writes: the bytes themselves, or a readable binary file positioned at its
#: start, which the store copies in chunks (a relay upload never holds the file in memory).
BlobSource = bytes | IO[bytes]


class BlobStore(Protocol):
    """Object storage addressed by opaque, validated relative paths like `u/<user>/<name>`."""

    #: "direct" when presign_put works (S3), "relay" when bytes must flow through MeSQ.
    transport: Literal["direct", "relay"]

    def put(
        self,
        path: str,
        data: BlobSource,
        content_type: str,
        metadata: Mapping[str, str] | None = None,
    ) -> BlobInfo: ...

    def get(self, path: str, max_bytes: int | None = None) -> bytes:
        """Whole object; raises BlobTooLarge when it exceeds `max_bytes` (checked while reading)."""
        ...

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]: ...

    def head(self, path: str) -> BlobInfo | None: ...

    def delete(self, path: str) -> None: ...

    def copy(self, source: str, target: str, metadata: Mapping[str, str] | None = None) -> BlobInfo:
        """Copy an object inside the store (type kept; user metadata replaced when given).
        BlobNotFound when `source` is missing."""
        ...

    def presign_put(self, path: str, content_type: str, size: int, expires_in: int) -> str:
        """A URL the client can PUT exactly `size` bytes of `content_type` to (direct only)."""
        ...

    def presign_get(self, path: str, expires_in: int, *, filename: str, content_type: str) -> str:
        """A URL the client can GET the object from (direct only), answered as a download named
        `filename` (`Content-Disposition: attachment`) whose Content-Type is `content_type` only
        when a browser cannot run it (`store.blob_downloads.inline_safe_type`)."""
        ...


class BlobNotFound(StoreError):
    pass


class BlobTooLarge(StoreError):
    pass


class InvalidBlobPath(StoreError):
    pass


class PresignUnsupported(StoreError):
    pass


__all__ = [
    "INDEXES",
    "MAX_TRANSACTION_BYTES",
    "MAX_TRANSACTION_OPS",
    "BlobInfo",
    "BlobNotFound",
    "BlobStore",
    "BlobTooLarge",
    "Check",
    "Condition",
    "ConditionFailed",
    "Cursor",
    "Delete",
    "InvalidBlobPath",
    "Item",
    "ItemStore",
    "Key",
    "PresignUnsupported",
    "Put",
    "QueryPage",
    "StoreError",
    "StoreUnavailable",
    "Update",
    "WriteOp",
    "transaction_bytes",
]
