"""Undo by actor at 100k changes (issue 38 finding 16): `undo_changes {actor, since}` and
`list_changes {actor}` for an agent that made 20 changes, in a history of 100,000 change records
of another agent over the last 30 days (SQLite; the records written with direct batched store
transactions, as `bench/memo_seed.py` writes memos). Reports the median wall time of each (5
runs; each run undoes the agent's newest changes, the later ones the undo before them), and the
items each read from the store. Where the by-actor index exists (GSI3, `history/actor_index.py`),
its backfill runs first, as `mesq history index` would after an upgrade, and is timed apart.

Run alone: `python bench/undo_by_actor.py [CHANGES]` (default 100000)."""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "layers" / "core"))

OTHER = {"kind": "pat", "id": "pat:busy-agent", "name": "Busy agent"}
TARGET_CHANGES = 20
RUNS = 5


class Counting:
    """An ItemStore that counts the items its reads return."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.read = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, key: Any) -> Any:
        self.read += 1
        return self.inner.get(key)

    def batch_get(self, keys: Any) -> Any:
        found = self.inner.batch_get(keys)
        self.read += len(found)
        return found

    def query(self, partition: str, **options: Any) -> Any:
        page = self.inner.query(partition, **options)
        self.read += len(page.items)
        return page


def seed(items: Any, user_id: str, count: int) -> None:
    from mesq.history.records import change_item, change_put, new_change_id

    start = datetime.now(UTC) - timedelta(days=30)
    step = timedelta(days=29) / count
    batch = []
    for number in range(count):
        moment = start + step * number
        batch.append(change_put(change_item(
            user_id=user_id, change_id=new_change_id(moment), at=moment.isoformat(), actor=OTHER,
            run_id=f"run-{number // 10}", session_id=f"session-{number // 100}", operation="update_memo",
            kind="memo", record_id=f"m{number % 5000}",
            before={"content": "a", "revision": 1}, after={"content": "b", "revision": 2},
            expires=int((moment + timedelta(days=90)).timestamp()),
        )))  # fmt: skip
        if len(batch) == 100:
            items.transact(batch)
            batch = []
    if batch:
        items.transact(batch)


def main(count: int) -> None:
    from mesq.application.invocation import REGISTRY
    from mesq.kernel.context import Call, Principal
    from mesq.kernel.timestamps import format_timestamp
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), search_index_updates="off", search_provider="none")
        services = build_services(settings)
        user = "bench-user"
        started = time.perf_counter()
        seed(services.items, user, count)
        print(f"seeded {count} change records in {time.perf_counter() - started:.1f}s")
        scopes = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})
        principal = Principal(user_id=user, scopes=scopes, credential_id="pat:target-agent", kind="pat", name="T")
        call = Call(principal=principal, services=services, trace_id="bench", channel="api")
        for number in range(TARGET_CHANGES):
            REGISTRY["create_memo"](call, {"content": f"agent memo {number}"})
        try:
            from mesq.history.actor_index import backfill
        except ImportError:  # a version without the index: nothing to backfill
            pass
        else:
            begun = time.perf_counter()
            given = backfill(services.items, user)
            print(f"backfill: {time.perf_counter() - begun:.1f}s, {given} records given keys (written with them)")
        counting = Counting(services.items)
        measured = Call(principal=principal, services=dataclasses.replace(services, items=counting),
                        trace_id="bench", channel="api")  # fmt: skip
        since = format_timestamp(datetime.now(UTC) - timedelta(days=31))
        for name, operation, args in (
            ("list_changes {actor}", "list_changes", {"actor": "target-agent", "limit": 100}),
            ("undo_changes {actor, since}", "undo_changes", {"actor": "pat:target-agent", "since": since}),
        ):
            times, reads, answer = [], [], None
            for _run in range(RUNS):
                counting.read = 0
                begun = time.perf_counter()
                answer = REGISTRY[operation](measured, args)
                times.append(time.perf_counter() - begun)
                reads.append(counting.read)
            assert answer is not None
            found = len(answer.get("changes", answer.get("undone", [])))
            print(
                f"{name}: median {statistics.median(times) * 1000:.1f} ms over {RUNS} runs "
                f"(first {times[0] * 1000:.1f} ms), store items read {reads[0]} (first run) / {reads[-1]} (last); "
                f"{found} in the last answer"
            )
        services.items.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
