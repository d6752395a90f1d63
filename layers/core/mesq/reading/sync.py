"""One user's reading sync (docs/contract.md §13): credential -> provider -> book snapshots ->
the idempotent merge, with the outcome written to the sync status the settings page shows.

Incremental: a book whose notebook entry (its `sort` mark and counts) is unchanged since the last
sync is not fetched again. A book that is no longer in the notebook list has no notes upstream:
its notes are marked deletedUpstream. Any provider failure (expired credential, rate limit,
malformed answer) ends the run as `lastError`; books merged before it stay (each book is
all-or-nothing and a re-run is idempotent). A lease item keeps two runs of one user apart.

Items: `U#<user>` / `READ#SYNCSTATUS` (status) and `READ#SYNCLEASE` (`ttl` = the lease's end).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.ports.sealer import Sealer, SealingError
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore
from . import store
from .credentials import Credential, load_credential
from .merge import MergeReport, apply_snapshot
from .model import COUNTERS, BookSnapshot, UpstreamBook
from .provider import ProviderError, ReadingProvider

logger = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)

STATUS_SK = "READ#SYNCSTATUS"
LEASE_SK = "READ#SYNCLEASE"
LEASE_SECONDS = 900
ProviderFactory = Callable[[Credential], ReadingProvider]
Clock = Callable[[], str]


def sync_status(items: ItemStore, user_id: str) -> Item | None:
    return items.get((user_partition(user_id), STATUS_SK))


def shelf_counts(items: ItemStore, user_id: str) -> dict[str, int]:
    books = store.all_books(items, user_id)
    counts = {"books": len(books)}
    counts.update({name: sum(int(book.get(name, 0)) for book in books) for name in COUNTERS})
    return counts


def _record(items: ItemStore, user_id: str, now: str, **fields: Any) -> Item:
    previous = sync_status(items, user_id) or {}
    status: Item = {
        "pk": user_partition(user_id),
        "sk": STATUS_SK,
        "lastAttemptAt": now,
        "counts": shelf_counts(items, user_id),
    }
    for kept in ("lastSuccessAt", "lastRun"):
        if kept in previous:
            status[kept] = previous[kept]
    status.update({name: value for name, value in fields.items() if value is not None})
    items.put(status)
    return status


def _acquire(items: ItemStore, user_id: str) -> bool:
    lease = {"pk": user_partition(user_id), "sk": LEASE_SK, "ttl": int(time.time()) + LEASE_SECONDS}
    try:
        items.put(lease, Condition(exists=False))
    except ConditionFailed:
        return False
    return True


def _run(items: ItemStore, user_id: str, provider: ReadingProvider, now: str) -> MergeReport:
    report = MergeReport()
    upstream = provider.books()
    stored = {book["externalId"]: book for book in store.all_books(items, user_id)}
    listed = set()
    for book in upstream:
        listed.add(book.external_id)
        known = stored.get(book.external_id)
        if known is not None and book.mark is not None and known.get("upstreamMark") == book.mark:
            continue  # unchanged since the last sync: not fetched again
        report.add(apply_snapshot(items, user_id, BookSnapshot(book, tuple(provider.notes(book))), now, "sync"))
    for external_id, known in stored.items():
        if external_id in listed or (int(known.get("highlightCount", 0)) + int(known.get("thoughtCount", 0))) == 0:
            continue
        gone = BookSnapshot(_as_upstream(known), ())
        report.add(apply_snapshot(items, user_id, gone, now, "sync"))
    return report


def _as_upstream(book: Item) -> UpstreamBook:
    return UpstreamBook(
        external_id=book["externalId"], title=book["title"], author=book.get("author", ""), cover=book.get("cover")
    )


def sync_user(items: ItemStore, sealer: Sealer, user_id: str, providers: ProviderFactory, clock: Clock) -> Item:
    """Run one sync for `user_id` and return the status it recorded (or the current one when a
    run is already under way)."""
    now = clock()
    try:
        credential = load_credential(items, sealer, user_id)
    except SealingError:
        logger.exception("reading credential cannot be opened", extra={"userId": user_id})
        why = Text("the stored credential cannot be decrypted; save it again")
        unreadable = _error("CREDENTIAL_UNREADABLE", why, now)
        return _record(items, user_id, now, lastError=unreadable)
    if credential is None:
        missing = _error("NO_CREDENTIAL", Text("no WeChat Reading credential is saved"), now)
        return _record(items, user_id, now, lastError=missing)
    if not _acquire(items, user_id):
        return sync_status(items, user_id) or _record(items, user_id, now)
    provider = providers(credential)
    try:
        report = _run(items, user_id, provider, now)
    except ProviderError as error:
        logger.info("reading sync failed", extra={"userId": user_id, "code": error.code})
        failed = _error(error.code, error.text, now)
        return _record(items, user_id, now, lastError=failed, notices=provider.notices or None)
    finally:
        provider.close()
        items.delete((user_partition(user_id), LEASE_SK))
    last_run = {**report.as_dict(), "source": credential.kind}
    return _record(items, user_id, now, lastSuccessAt=now, lastRun=last_run, notices=provider.notices or None)


def _error(code: str, message: Text, at: str) -> dict[str, Any]:
    """The status's `lastError`: its code, its message in English and as a template with its
    parameters (`said`: the settings page says it in the reader's language)."""
    return {"code": code, "message": str(message), "at": at, "said": message.stored()}
