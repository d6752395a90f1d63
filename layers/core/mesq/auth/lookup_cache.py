"""A brief per-process cache of credential lookup items, so a warm function (or `mesq serve`)
authenticates a burst of calls with one GetItem instead of one per call.

Revocation stays honoured: a revocation in this process evicts the entry at once
(`tokens.revoke_token`), and one made elsewhere (another Lambda instance, the `mesq` CLI beside a
running server) is seen within `TTL_SECONDS`, after which the lookup is read again. Only found
lookups are kept (an unknown token is read every time, so a token created a moment ago works and
guessing gains nothing); expiry is still checked on every call against the current time.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..kernel.ports.storage import Item, ItemStore

#: The revocation bound (docs/decisions.md): a credential revoked in another process stops
#: working here at most this many seconds later.
TTL_SECONDS = 5.0
MAX_ENTRIES = 1024


class LookupCache:
    def __init__(self, ttl: float = TTL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl, self._clock = ttl, clock
        self._entries: OrderedDict[str, tuple[float, Item]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, digest: str) -> Item | None:
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None:
                return None
            if self._clock() - entry[0] >= self._ttl:
                del self._entries[digest]
                return None
            return entry[1]

    def put(self, digest: str, item: Item) -> None:
        with self._lock:
            self._entries[digest] = (self._clock(), item)
            self._entries.move_to_end(digest)
            while len(self._entries) > MAX_ENTRIES:
                self._entries.popitem(last=False)

    def update(self, digest: str, changes: dict[str, Any]) -> None:
        """Keep a cached item in step with a write this process made (its fetch time unchanged)."""
        with self._lock:
            entry = self._entries.get(digest)
            if entry is not None:
                self._entries[digest] = (entry[0], {**entry[1], **changes})

    def evict(self, digest: str) -> None:
        with self._lock:
            self._entries.pop(digest, None)


_caches: weakref.WeakKeyDictionary[ItemStore, LookupCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def cache_for(items: ItemStore) -> LookupCache:
    """One cache per item store (tests and tools build several stores in one process)."""
    with _caches_lock:
        cache = _caches.get(items)
        if cache is None:
            cache = _caches[items] = LookupCache()
        return cache
