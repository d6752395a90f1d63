"""One user's reading sync (docs/contract.md §13): credential -> provider -> book snapshots ->
the idempotent merge, with the outcome written to the sync status the settings page shows.

Incremental: a book whose notebook entry (its `sort` mark and counts) is unchanged since the last
sync is not fetched again (only its title, author and cover are brought up to date), unless every
note we hold of it is marked deleted: listed again, it is fetched. A book that is no longer in the
notebook list has no notes upstream: its notes are marked deletedUpstream. Any provider failure
(expired credential, rate limit, malformed answer, the sync's deadline passing) ends the run as
`lastError`; books merged before it stay (each book is all-or-nothing and a re-run is
idempotent), so the next sync goes on from there. A lease item keeps two runs of one user apart;
it lasts well past the sync's deadline.

Items: `U#<user>` / `READ#SYNCSTATUS` (status) and `READ#SYNCLEASE` (`ttl` = the lease's end).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.errors import ValidationError
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.ports.sealer import Sealer, SealingError
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore
from . import store
from .credentials import Credential, checked, load_credential
from .merge import MergeReport, apply_snapshot, update_details
from .model import COUNTERS, BookSnapshot, Skipped, UpstreamBook
from .provider import ProviderError, ReadingProvider, SyncOutOfTime

logger = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)

STATUS_SK = "READ#SYNCSTATUS"
LEASE_SK = "READ#SYNCLEASE"
#: How long one sync may run: below the reading-sync function's 300 s timeout (template.yaml),
#: so a slow upstream ends in a recorded SYNC_TIMED_OUT, not a killed function.
SYNC_DEADLINE_SECONDS = 240.0
#: The lease outlives the sync's deadline by far (the merge of the last book fetched may run on
#: a little after it), so a second run never starts while the first still writes.
LEASE_SECONDS = 900
#: The provider for a credential and the sync's deadline (a `time.monotonic()` value).
ProviderFactory = Callable[[Credential, float], ReadingProvider]
Clock = Callable[[], str]


def sync_status(items: ItemStore, user_id: str) -> Item | None:
    return items.get((user_partition(user_id), STATUS_SK))


def sync_running(items: ItemStore, user_id: str) -> bool:
    """Whether a sync of `user_id` holds its lease now (in any process: the page's, the scheduled
    pass's, the reading-sync function's); a lease past its `ttl` is a run that died."""
    lease = items.get((user_partition(user_id), LEASE_SK))
    return lease is not None and int(lease.get("ttl", 0)) > time.time()


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


def _run(items: ItemStore, user_id: str, provider: ReadingProvider, now: str, deadline: float) -> MergeReport:
    report = MergeReport()
    upstream = provider.books()
    stored = {book["externalId"]: book for book in store.all_books(items, user_id)}
    listed = set()
    for book in upstream:
        listed.add(book.external_id)
        known = stored.get(book.external_id)
        if _unchanged(known, book):
            assert known is not None  # _unchanged says so only of a stored book
            report.add(update_details(items, user_id, known, book, now))  # a rename has no new mark
            continue  # its notes are not fetched again
        if time.monotonic() >= deadline:
            raise SyncOutOfTime()  # the books merged stay; the next sync skips them as unchanged
        before = len(provider.skipped)
        notes = tuple(provider.notes(book))
        complete = len(provider.skipped) == before  # else: notes of it were skipped, none is marked deleted
        report.add(apply_snapshot(items, user_id, BookSnapshot(book, notes, complete), now, "sync"))
    unread = [skipped for skipped in provider.skipped if skipped.kind == "book"]
    if any(skipped.book_id is None for skipped in unread):
        return report  # a book skipped without its id may be any of ours: none is taken for gone
    listed.update(str(skipped.book_id) for skipped in unread)  # an unread book is no gone book
    for external_id, known in stored.items():
        if external_id in listed or not _synced(known):
            continue
        if (int(known.get("highlightCount", 0)) + int(known.get("thoughtCount", 0))) == 0:
            continue
        gone = BookSnapshot(_as_upstream(known), ())
        report.add(apply_snapshot(items, user_id, gone, now, "sync"))
    return report


def _synced(book: Item) -> bool:
    """Whether a sync brought the book in: it holds the sync's mark (a file import keeps it, and
    a sync cut between chunks leaves `source`) or a sync wrote it last. A book only a file import
    brought in is not on the WeChat shelf, which says nothing of its notes."""
    return "upstreamMark" in book or book.get("source") == "sync"


def _unchanged(known: Item | None, book: UpstreamBook) -> bool:
    """Whether the book's notes are as the last fetch left them: its notebook entry (mark) is the
    same. Not when every note we hold of it is marked deleted: the notebook list names only books
    with notes, so a book listed again was marked gone while it was not (an upstream glitch, or an
    empty list once taken for an empty shelf) and must be fetched, whatever its old mark says."""
    if known is None or book.mark is None or known.get("upstreamMark") != book.mark:
        return False
    live = int(known.get("highlightCount", 0)) + int(known.get("thoughtCount", 0))
    return live > 0 or int(known.get("deletedUpstreamCount", 0)) == 0


def _as_upstream(book: Item) -> UpstreamBook:
    return UpstreamBook(
        external_id=book["externalId"], title=book["title"], author=book.get("author", ""), cover=book.get("cover")
    )


def sync_user(
    items: ItemStore,
    sealer: Sealer,
    user_id: str,
    providers: ProviderFactory,
    clock: Clock,
    deadline_seconds: float = SYNC_DEADLINE_SECONDS,
) -> Item:
    """Run one sync for `user_id` (for at most `deadline_seconds`, besides the merge of the book
    in hand) and return the status it recorded (or the current one when a run is already under
    way). It never raises for what the source sends: every failure is the status's lastError."""
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
    try:
        credential = checked(credential)  # one saved before the check it now passes on saving
    except ValidationError as refused:
        return _record(items, user_id, now, lastError=_error("CREDENTIAL_INVALID", refused.text, now))
    if not _acquire(items, user_id):
        return sync_status(items, user_id) or _record(items, user_id, now)
    deadline = time.monotonic() + deadline_seconds
    provider: ReadingProvider | None = None
    try:
        provider = providers(credential, deadline)
        report = _run(items, user_id, provider, now, deadline)
    except ProviderError as error:
        logger.info("reading sync failed", extra={"userId": user_id, "code": error.code})
        failed = _error(error.code, error.text, now)
        return _record(items, user_id, now, lastError=failed, notices=_notices(provider))
    except Exception:
        # A fault of ours (or a store that failed): logged with its trace, and recorded, so the
        # page says the sync failed and the background sync waits its interval, not a loop.
        logger.exception("reading sync stopped on an unexpected error", extra={"userId": user_id})
        stopped = _error("SYNC_FAILED", Text("the sync stopped on an unexpected error; the next sync retries"), now)
        return _record(items, user_id, now, lastError=stopped)
    finally:
        if provider is not None:
            provider.close()
        items.delete((user_partition(user_id), LEASE_SK))
    last_run = {**report.as_dict(), "source": credential.kind, **_skipped(provider.skipped)}
    if provider.skipped:
        logger.info(
            "reading sync skipped unreadable items", extra={"userId": user_id, "skipped": len(provider.skipped)}
        )
    return _record(items, user_id, now, lastSuccessAt=now, lastRun=last_run, notices=_notices(provider))


#: The most skipped books the status names (the count says the rest).
MAX_SKIPPED_NAMED = 20


def _skipped(skipped: list[Skipped]) -> dict[str, Any]:
    """What a sync skipped, for the status's `lastRun`: `skipped` (the count of items) and
    `skippedItems`, one per book: a notebook entry (`kind` book) or the notes of a book (`kind`
    notes, with their `count`), named by title and upstream id where those could be read ("")."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    for number, item in enumerate(skipped):
        kind = "book" if item.kind == "book" else "notes"
        key = (kind, item.book_id or f"#{number}")
        entry = entries.setdefault(
            key, {"kind": kind, "book": item.title or "", "bookId": item.book_id or "", "count": 0}
        )
        entry["count"] += 1
    return {"skipped": len(skipped), "skippedItems": list(entries.values())[:MAX_SKIPPED_NAMED]}


def _notices(provider: ReadingProvider | None) -> list[str] | None:
    return (provider.notices or None) if provider is not None else None


def _error(code: str, message: Text, at: str) -> dict[str, Any]:
    """The status's `lastError`: its code, its message in English and as a template with its
    parameters (`said`: the settings page says it in the reader's language)."""
    return {"code": code, "message": str(message), "at": at, "said": message.stored()}
