"""In-process index updates (`mesq serve`): an ItemStore that tells the search indexer which keys
each successful write touched, like DynamoDB Streams does on AWS. The indexer then re-reads those
keys (indexer.refresh), so this only reports keys, never item contents.

The update runs right after the write on one background worker, so a write never waits for the
embedding model (its first load takes seconds); a query first waits for its user's pending
updates (`settle`), so the next query still sees every write before it. An indexer failure is
logged and never fails the write (the data is stored; `mesq search reindex` repairs the index).

The literal indexes (literal_store.py: memos, reading notes, todo tasks and inbox items) follow the
same writes on a worker of their own, so a literal search (`settle_literal`) never waits for an
embedding; a literal search that finds its kind's index missing or out of step asks for a rebuild
of that kind there (`literal_missing`), in line with the updates.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.ports.storage import Condition, Cursor, Item, ItemStore, Key, QueryPage, Update, WriteOp
from ..store.item_rules import key_of
from .documents import searchable_owner

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
#: The records the literal indexes hold (every `literal_kinds.KINDS` prefix; a test keeps them equal).
LITERAL_PREFIXES = ("MEMO#", "READ#NOTE#", "TODO#TASK#", "TODO#INBOX#")
LITERAL_REBUILD_SECONDS = 60.0


class FollowingStore:
    def __init__(self, inner: ItemStore) -> None:
        self._inner = inner
        self._services: Services | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mesq-search-index")
        self._pending: dict[str, list[Future[None]]] = defaultdict(list)
        self._literal_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mesq-literal-index")
        self._literal_pending: dict[str, list[Future[None]]] = defaultdict(list)
        self._rebuilding: set[tuple[str, str]] = set()
        self._last_rebuild: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def follow(self, services: Services) -> None:
        self._services = services
        services.search.settle = self.settle
        services.search.settle_literal = self.settle_literal
        services.search.literal_missing = self.literal_missing

    def settle_literal(self, user_id: str) -> None:
        """Wait until every literal index update queued for `user_id` so far is done."""
        with self._lock:
            futures = self._literal_pending.pop(user_id, [])
        wait(futures)

    def literal_missing(self, user_id: str, kind: str = "memo") -> None:
        """Queue one rebuild of the user's literal index of `kind`: none while one is queued, and
        at most one a minute a user and kind (counters that disagree with the records would
        otherwise rebuild it on every search; the searches scan meanwhile)."""
        wanted = (user_id, kind)
        with self._lock:
            now = time.monotonic()
            if wanted in self._rebuilding or self._services is None:
                return
            if now - self._last_rebuild.get(wanted, -LITERAL_REBUILD_SECONDS) < LITERAL_REBUILD_SECONDS:
                return
            self._rebuilding.add(wanted)
            self._last_rebuild[wanted] = now
            self._literal_worker.submit(self._literal, user_id, None, kind)

    def _literal(self, user_id: str, sort_keys: list[str] | None, kind: str = "memo") -> None:
        try:
            if self._services is not None:
                from .literal_store import rebuild, refresh  # numpy: only with the first write

                if sort_keys is None:
                    rebuild(self._services, user_id, kind)
                else:
                    refresh(self._services, user_id, sort_keys)
        except Exception:  # the write is stored; a literal search scans until the index is rebuilt
            log.exception("search: in-process literal index update failed")
        finally:
            if sort_keys is None:
                with self._lock:
                    self._rebuilding.discard((user_id, kind))

    def settle(self, user_id: str) -> None:
        """Wait until every index update queued for `user_id` so far is done."""
        with self._lock:
            futures = self._pending.pop(user_id, [])
        wait(futures)

    def _refresh(self, user_id: str, sort_keys: list[str]) -> None:
        try:
            if self._services is not None:
                # Imported here: the index pulls numpy, bm25s and jieba (~0.9 s, ~60 MB), which
                # a process that never writes a searchable record (a CLI command) need not pay.
                from .indexer import refresh

                refresh(self._services, user_id, sort_keys)
        except Exception:  # the write is stored; the index catches up on reindex
            log.exception("search: in-process index update failed")

    def _changed(self, keys: Sequence[Key]) -> None:
        by_user: dict[str, list[str]] = defaultdict(list)
        for pk, sk in keys:
            owner = searchable_owner(pk, sk)
            if owner is not None:
                by_user[owner].append(sk)
        if not by_user or self._services is None:
            return
        with self._lock:
            for user_id, sort_keys in by_user.items():
                self._pending[user_id].append(self._worker.submit(self._refresh, user_id, sort_keys))
                literal_keys = [key for key in sort_keys if key.startswith(LITERAL_PREFIXES)]
                if literal_keys:
                    future = self._literal_worker.submit(self._literal, user_id, literal_keys)
                    self._literal_pending[user_id].append(future)

    # -- writes: delegate, then report ---------------------------------------------------------

    def put(self, item: Item, condition: Condition | None = None) -> None:
        self._inner.put(item, condition)
        self._changed([(item["pk"], item["sk"])])

    def update(self, op: Update) -> Item:
        result = self._inner.update(op)
        self._changed([op.key])
        return result

    def delete(self, key: Key, condition: Condition | None = None) -> None:
        self._inner.delete(key, condition)
        self._changed([key])

    def transact(self, ops: Sequence[WriteOp]) -> None:
        self._inner.transact(ops)
        self._changed([key_of(op) for op in ops])

    # -- reads: delegate -----------------------------------------------------------------------

    def get(self, key: Key) -> Item | None:
        return self._inner.get(key)

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        return self._inner.batch_get(keys)

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
        return self._inner.query(
            partition, index=index, prefix=prefix, start=start, end=end,
            descending=descending, limit=limit, after=after, keys_only=keys_only,
        )  # fmt: skip

    def create_table_if_missing(self, timeout: float = 300.0) -> bool:
        """DynamoDB's one adapter extra (`mesq serve --storage dynamodb`): table DDL, no item write."""
        created: bool = self._inner.create_table_if_missing(timeout)  # type: ignore[attr-defined]
        return created

    def __getattr__(self, name: str) -> Any:
        # Only private adapter state passes through (a test reading SQLite's connection): every
        # port method is overridden above, so a new write can never slip past `_changed`
        # (tests/search/test_following_store.py).
        if name.startswith("_") and not name.startswith("__") and name != "_inner":
            return getattr(self._inner, name)
        raise AttributeError(f"FollowingStore does not pass {name!r} through; override it explicitly")

    def close(self) -> None:
        self._worker.shutdown(wait=True)
        self._literal_worker.shutdown(wait=True)
        self._inner.close()
