"""Run by path by tests/e2e/test_mcp_resource_read_costs.py: `mesq serve` whose SQLite item store
appends the key of every record it reads (get, batch_get, query) to the file named by
`MESQ_TEST_READS_LOG`, one line each, so a test over HTTP sees what each request cost the store.
Arguments: those of `mesq` (`serve --data-dir ... --port ...`)."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.runtime.cli.main import main

LOG = os.environ["MESQ_TEST_READS_LOG"]
_lock = threading.Lock()


def _logged(read: Any, describe: Any) -> Any:
    def reading(self: SQLiteItemStore, *args: Any, **kwargs: Any) -> Any:
        with _lock, open(LOG, "a", encoding="utf-8") as log:
            log.write(describe(*args) + "\n")  # before the read: its answer is sent after
        return read(self, *args, **kwargs)

    return reading


SQLiteItemStore.get = _logged(SQLiteItemStore.get, lambda key: repr(tuple(key)))  # type: ignore[method-assign]
SQLiteItemStore.batch_get = _logged(SQLiteItemStore.batch_get, lambda keys: repr([tuple(k) for k in keys]))  # type: ignore[method-assign]
SQLiteItemStore.query = _logged(SQLiteItemStore.query, lambda partition, *_: repr((partition, "query")))  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main())
