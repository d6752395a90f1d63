"""Imports whose server stopped mid-run (kill -9, a crash, the machine's power), marked interrupted
when `mesq serve` starts, before anyone opens a page: a reader of the store or of REST sees
"interrupted", not "running" for a process that is gone. In a background thread once the server
listens (the start never waits for it); each listed account costs one query of its open runs
(`imports/reports.mark_interrupted_runs`: at most OPEN_MOST small items) and one write per run
marked. A run kept by another machine, container or Lambda environment stays running until it
has been silent for 15 minutes (`reports.STALE_SECONDS`), as when it is read."""

from __future__ import annotations

import threading
from collections.abc import Callable

from aws_lambda_powertools import Logger

from ..auth.users import list_users
from ..imports.reports import mark_interrupted_runs
from ..kernel.ports.storage import ItemStore

logger = Logger(child=True)


def mark_every_user(items: ItemStore) -> int:
    """The running imports of every listed account whose process is gone, marked interrupted; how many."""
    return sum(mark_interrupted_runs(items, str(user["id"])) for user in list_users(items))


def mark_in_background(items: ItemStore, say: Callable[[str], None]) -> threading.Thread:
    """`mark_every_user` on a daemon thread; `say` gets one line when it marked any."""

    def run() -> None:
        try:
            marked = mark_every_user(items)
        except Exception:  # a start must not fail on it: the page and the report still mark them when read
            logger.exception("marking the imports interrupted by the last stop failed; they are marked when read")
            return
        if marked:
            say(f"Imports: {marked} stopped with the server, marked interrupted (Settings -> Import lists them)")

    thread = threading.Thread(target=run, name="mesq-unfinished-imports", daemon=True)
    thread.start()
    return thread


__all__ = ["mark_every_user", "mark_in_background"]
