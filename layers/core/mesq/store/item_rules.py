"""The ItemStore port's rules, written once so every adapter enforces them identically.

The port is DynamoDB-shaped, so these are DynamoDB's rules: key and index-key attributes are
non-empty strings, a transaction holds at most 100 operations and touches each key once, and an
item whose numeric `ttl` is at or before now (whole epoch seconds) is expired. Adapters decide
*when* to apply a rule (before or after checking conditions); the rule and its error message
live here, so the contract suite sees the same failure from every backend.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..kernel.messages import quoted
from ..kernel.ports.storage import INDEXES, KEY_ATTRIBUTES, MAX_TRANSACTION_OPS, Condition, Key, Put, Update, WriteOp
from .table import TTL_ATTRIBUTE

#: A tuple, not a set: validation reports the first bad attribute in a stable order.
INDEX_KEY_ATTRIBUTES = tuple(attr for keys in INDEXES.values() for attr in keys)


def clock() -> int:
    """Now in whole epoch seconds: the `now` of the expiry rule."""
    return int(time.time())


def ttl_of(item: Mapping[str, Any]) -> int | float | None:
    """The item's expiry time, or None: a missing or non-number `ttl` never expires."""
    ttl = item.get(TTL_ATTRIBUTE)
    # bool is an int subclass, but `ttl: true` is not a time.
    return ttl if isinstance(ttl, int | float) and not isinstance(ttl, bool) else None


def expired(item: Mapping[str, Any], now: int) -> bool:
    """Whether reads must treat the item as absent: DynamoDB deletes expired items late."""
    ttl = ttl_of(item)
    return ttl is not None and ttl <= now


def valid_key(key: Key) -> bool:
    """DynamoDB rejects empty key strings, so an item with such a key cannot exist."""
    return isinstance(key[0], str) and isinstance(key[1], str) and bool(key[0]) and bool(key[1])


def validate_key(key: Key) -> None:
    if not valid_key(key):
        raise ValueError(f"key parts must be non-empty strings, not {quoted(key)}")


def validate_index_key(name: str, value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"index key {quoted(name)} must be a non-empty string, not {quoted(value)}")


def validate_item(item: Mapping[str, Any]) -> None:
    """Reject what DynamoDB rejects: key and index-key attributes must be non-empty strings."""
    for name in ("pk", "sk"):
        value = item.get(name)
        if not isinstance(value, str) or not value:
            raise ValueError(f"item attribute {quoted(name)} must be a non-empty string, not {quoted(value)}")
    for name in INDEX_KEY_ATTRIBUTES:
        if name in item:
            validate_index_key(name, item[name])


def validate_update_keys(op: Update) -> None:
    """An update changes attributes of the item at its key; it cannot move the item."""
    touched = sorted(KEY_ATTRIBUTES.intersection([*op.set, *op.remove, *op.add]))
    if touched:
        raise ValueError(f"an update cannot change the key attributes {touched}")


def key_of(op: WriteOp) -> Key:
    if isinstance(op, Put):
        return (op.item["pk"], op.item["sk"])
    return op.key


def validate_transaction(ops: Sequence[WriteOp]) -> None:
    """DynamoDB's transaction shape: at most MAX_TRANSACTION_OPS operations, one per key."""
    if len(ops) > MAX_TRANSACTION_OPS:
        raise ValueError(f"a transaction holds at most {MAX_TRANSACTION_OPS} operations")
    keys = [key_of(op) for op in ops]
    if len(set(keys)) != len(keys):
        raise ValueError("a transaction may touch each key only once")


def must_exist(condition: Condition | None) -> bool:
    """Whether the condition needs a live item: `equals` implies `exists=True`."""
    return condition is not None and (condition.exists is True or bool(condition.equals))


__all__ = [
    "INDEX_KEY_ATTRIBUTES",
    "clock",
    "expired",
    "key_of",
    "must_exist",
    "ttl_of",
    "valid_key",
    "validate_index_key",
    "validate_item",
    "validate_key",
    "validate_transaction",
    "validate_update_keys",
]
