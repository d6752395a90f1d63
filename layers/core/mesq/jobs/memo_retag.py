"""The memo re-tag migration (`memos/retag.py`) for every listed user: at `mesq serve` start, in a
background thread (the server listens first; an account already at the current tag rule costs one
read), and by `mesq memos retag` (the command AWS deployments run, docs/deploy.md)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from aws_lambda_powertools import Logger

from ..auth.users import list_users
from ..kernel.ports.storage import ItemStore
from ..memos.retag import RetagReport, retag_user

logger = Logger(child=True)


def retag_every_user(items: ItemStore) -> Iterator[tuple[str, RetagReport]]:
    """(username, report) of each listed user, as each is done."""
    for user in list_users(items):
        yield str(user["username"]), retag_user(items, str(user["id"]))


def retag_in_background(items: ItemStore, say: Callable[[str], None]) -> threading.Thread:
    """Re-tag every user's memos on a daemon thread; `say` gets one line when any memo changed,
    and one for each account with a `#word` too long to be a tag (it stays text: never silently)."""

    def run() -> None:
        try:
            reports = list(retag_every_user(items))
        except Exception:  # a start must not fail on it: logged, re-tried at the next start
            logger.exception("re-tagging memos by the current tag rule failed; it runs again at the next start")
            return
        retagged = sum(report.retagged for _name, report in reports)
        if retagged:
            accounts = sum(1 for _name, report in reports if report.retagged)
            say(f"Tags: {retagged} memo(s) of {accounts} account(s) re-tagged by the current #tag rule")
        for name, report in reports:
            if report.overlong_count:
                say(f"Tags, {name}: {report.overlong_line()}")

    thread = threading.Thread(target=run, name="mesq-memo-retag", daemon=True)
    thread.start()
    return thread


__all__ = ["retag_every_user", "retag_in_background"]
