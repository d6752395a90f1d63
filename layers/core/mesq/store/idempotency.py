"""Idempotency records for creates (docs/contract.md §3).

A record lives in the caller's partition under `IDEM#<operation>#<sha256(key)>` for 24 hours
(TTL) and holds a fingerprint of the arguments plus the first response. It is written in the
same transaction as the record it creates, so a crash can never leave one without the other.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..kernel.errors import IdempotencyConflict
from ..kernel.ports.storage import Condition, ConditionFailed, ItemStore, Key, Put, WriteOp

TTL_SECONDS = 24 * 3600


def fingerprint(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def record_key(partition: str, operation_id: str, key: str) -> Key:
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    return (partition, f"IDEM#{operation_id}#{digest}")


def replay(items: ItemStore, key: Key, request_fingerprint: str) -> dict[str, Any] | None:
    """The first response for this key, None if the key is new; IdempotencyConflict when the
    key was used with different arguments."""
    record = items.get(key)
    if record is None:
        return None
    if record["fingerprint"] != request_fingerprint:
        raise IdempotencyConflict(
            "this Idempotency-Key was already used with different arguments; use a new key for a new record"
        )
    response: dict[str, Any] = record["response"]
    return response


def claim(key: Key, request_fingerprint: str, response: dict[str, Any]) -> Put:
    """The transaction item that stores the response; fails if the key was claimed meanwhile."""
    return Put(
        {
            "pk": key[0],
            "sk": key[1],
            "fingerprint": request_fingerprint,
            "response": response,
            "ttl": int(time.time()) + TTL_SECONDS,
        },
        Condition(exists=False),
    )


@dataclass(frozen=True)
class Claim:
    """One create's idempotency: its record key (None without an `idempotencyKey`) and the
    fingerprint of its arguments."""

    key: Key | None
    fingerprint: str

    def ops(self, response: dict[str, Any]) -> list[WriteOp]:
        """What the create's transaction adds to store `response` (nothing without a key)."""
        return [] if self.key is None else [claim(self.key, self.fingerprint, response)]

    def replayed(self, items: ItemStore) -> dict[str, Any] | None:
        """The stored first response, if a create with this key already committed."""
        return None if self.key is None else replay(items, self.key, self.fingerprint)


def create_once(
    items: ItemStore,
    partition: str,
    operation_id: str,
    args: dict[str, Any],
    create: Callable[[Claim], dict[str, Any]],
) -> dict[str, Any]:
    """A create honouring `idempotencyKey` (every idempotent create goes through here): a replay
    returns the first response, a reuse with other arguments is IDEMPOTENCY_CONFLICT, and
    `create(claim)` must commit `claim.ops(data)` in the same transaction as its record. When
    that transaction fails because a concurrent twin with the same key won the claim, the
    twin's response is the answer; any other failure passes on."""
    key = args.get("idempotencyKey")
    request = {name: value for name, value in args.items() if name != "idempotencyKey"}
    pending = Claim(record_key(partition, operation_id, key) if key else None, fingerprint(request))
    first = pending.replayed(items)
    if first is not None:
        return first
    try:
        return create(pending)
    except ConditionFailed:
        twin = pending.replayed(items)
        if twin is not None:
            return twin
        raise
