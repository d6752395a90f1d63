"""Writing a book snapshot (from a sync or a file import) into the shelf, idempotently.

The snapshot is compared with the stored notes of the book: new notes are added, changed ones
rewritten, notes the source no longer has are marked `deletedUpstream` (never dropped), and a
note that is unchanged is not written at all, so running the same snapshot twice changes
nothing. Writes go in transactions of at most 100 operations: the notes with their conditions
(absent for a new note, the read `version` for a changed one) plus the book item with the ADD
of exactly the counter changes those notes make, so the counts always agree with the notes. The
book's metadata and `upstreamMark` go in the last transaction only (crash safety: `_commit`). A
concurrent writer makes a condition fail; the book is then re-read and merged again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..kernel.errors import ServiceUnavailable
from ..kernel.keys import user_partition
from ..kernel.ports.storage import (
    MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_OPS,
    Condition,
    ConditionFailed,
    Delete,
    Item,
    ItemStore,
    Put,
    Update,
    WriteOp,
    transaction_bytes,
)
from . import store
from .model import (
    COUNTERS,
    PROVIDER,
    BookSnapshot,
    UpstreamBook,
    book_id,
    book_key,
    fingerprint,
    note_record,
    note_sort_key,
)

ATTEMPTS = 3
#: The book fields written with every chunk: enough for a half-written book to be listed (and found by id).
_IDENTITY = ("id", "provider", "externalId", "title", "author")
_COUNTER_OF = {"highlight": "highlightCount", "note": "thoughtCount"}


@dataclass
class MergeReport:
    added: int = 0
    updated: int = 0
    marked_deleted: int = 0
    unchanged: int = 0
    books_changed: int = 0

    def add(self, other: MergeReport) -> None:
        self.added += other.added
        self.updated += other.updated
        self.marked_deleted += other.marked_deleted
        self.unchanged += other.unchanged
        self.books_changed += other.books_changed

    def as_dict(self) -> dict[str, int]:
        return {
            "added": self.added,
            "updated": self.updated,
            "markedDeleted": self.marked_deleted,
            "unchanged": self.unchanged,
            "booksChanged": self.books_changed,
        }


@dataclass
class _Plan:
    notes: list[WriteOp] = field(default_factory=list)
    deltas: list[Counter[str]] = field(default_factory=list)  # one per note write
    report: MergeReport = field(default_factory=MergeReport)


def _counted(item: Item | None) -> Counter[str]:
    if item is None:
        return Counter()
    if item.get("deletedUpstream"):
        return Counter({"deletedUpstreamCount": 1})
    return Counter({_COUNTER_OF[item["noteType"]]: 1})


def _stored(user_id: str, record: Item, version: int, now: str, deleted: bool) -> Item:
    item = {**record, "pk": user_partition(user_id), "sk": note_sort_key(record), "version": version}
    item["fingerprint"] = fingerprint(record)
    if deleted:
        item["deletedUpstream"] = True
        item["deletedUpstreamAt"] = now
    if version > 1:
        item["updatedAt"] = now
    return item


def _replace(plan: _Plan, old: Item, new: Item) -> None:
    """Write `new` over `old`, conditioned on the version read; a moved sort key deletes the old one."""
    same_version = Condition(equals={"version": old["version"]})
    if new["sk"] == old["sk"]:
        plan.notes.append(Put(new, same_version))
        plan.deltas.append(_delta(old, new))
        return
    plan.notes.append(Delete((old["pk"], old["sk"]), same_version))
    plan.deltas.append(_delta(old, None))
    plan.notes.append(Put(new, Condition(exists=False)))
    plan.deltas.append(_delta(None, new))


def _delta(old: Item | None, new: Item | None) -> Counter[str]:
    """How the book's counters change when `old` becomes `new` (None: absent); may be negative."""
    delta = _counted(new)
    for name, value in _counted(old).items():
        delta[name] -= value
    return delta


def _plan(user_id: str, snapshot: BookSnapshot, existing: list[Item], now: str) -> _Plan:
    plan = _Plan()
    book = book_id(snapshot.book.external_id)
    by_id = {item["id"]: item for item in existing}
    seen: set[str] = set()
    for note in snapshot.notes:
        record = note_record(book, snapshot.book.external_id, note)
        if record["id"] in seen:
            continue  # the same upstream id twice in one answer: the first one counts
        seen.add(record["id"])
        old = by_id.get(record["id"])
        if old is None:
            new = _stored(user_id, record, 1, now, deleted=False)
            plan.notes.append(Put(new, Condition(exists=False)))
            plan.deltas.append(_delta(None, new))
            plan.report.added += 1
        elif old.get("fingerprint") != fingerprint(record) or old.get("deletedUpstream"):
            _replace(plan, old, _stored(user_id, record, int(old["version"]) + 1, now, deleted=False))
            plan.report.updated += 1
        else:
            plan.report.unchanged += 1
    for old in existing:
        if old["id"] in seen or old.get("deletedUpstream") or not snapshot.complete:
            continue  # (an incomplete snapshot: a note missing from it may be one the sync could not read)
        # The mark keeps every field of the note as it was.
        marked = {**old, "version": int(old["version"]) + 1, "deletedUpstream": True, "deletedUpstreamAt": now}
        plan.notes.append(Put(marked, Condition(equals={"version": old["version"]})))
        plan.deltas.append(_delta(old, marked))
        plan.report.marked_deleted += 1
    return plan


def _last_note_at(existing: list[Item], plan: _Plan) -> str | None:
    final = {item["id"]: item for item in existing}
    for op in plan.notes:
        if isinstance(op, Put):
            final[op.item["id"]] = op.item
    live = [item["createdAt"] for item in final.values() if not item.get("deletedUpstream")]
    return max(live) if live else None


def _book_meta(snapshot: BookSnapshot, last_note_at: str | None, now: str, source: str) -> dict[str, Any]:
    upstream = snapshot.book
    meta: dict[str, Any] = {
        "id": book_id(upstream.external_id),
        "provider": PROVIDER,
        "externalId": upstream.external_id,
        "title": upstream.title,
        "author": upstream.author,
        "syncedAt": now,
        "source": source,
    }
    if upstream.cover:
        meta["cover"] = upstream.cover
    if last_note_at:
        meta["lastNoteAt"] = last_note_at
    if upstream.mark is not None:
        meta["upstreamMark"] = upstream.mark
    return meta


def _book_changed(stored: Item | None, meta: dict[str, Any]) -> bool:
    if stored is None:
        return True
    compared = [name for name in meta if name not in ("syncedAt", "source")]
    return any(stored.get(name) != meta[name] for name in compared) or any(
        name not in meta and name in stored for name in ("lastNoteAt", "upstreamMark")
    )


def _chunk_starts(notes: Sequence[WriteOp], room: int) -> list[int]:
    """Where each transaction's notes start: at most MAX_TRANSACTION_OPS - 1 notes (the book's
    own write is the last) and `room` bytes of payload (long notes: DynamoDB takes 4 MB)."""
    starts, count, used = [0], 0, 0
    for position, op in enumerate(notes):
        size = transaction_bytes([op])
        if count and (count == MAX_TRANSACTION_OPS - 1 or used + size > room):
            starts.append(position)
            count, used = 0, 0
        count, used = count + 1, used + size
    return starts


def _commit(items: ItemStore, user_id: str, plan: _Plan, meta: dict[str, Any]) -> None:
    """Write the notes chunk by chunk; only the LAST transaction writes the book's metadata and
    `upstreamMark`. An earlier chunk carries its counter ADDs (so counts always agree with the
    notes), the identity a book item needs to be listed, and REMOVEs the mark: a crash between
    chunks leaves a book no sync can take for up to date, so the next sync (or re-import) merges
    the whole snapshot again and repairs it."""
    key = book_key(user_id, meta["id"])
    starts = _chunk_starts(plan.notes, MAX_TRANSACTION_BYTES - transaction_bytes([Update(key, set=meta)]))
    ends = [*starts[1:], len(plan.notes)]
    identity = {name: meta[name] for name in _IDENTITY}
    for start, end in zip(starts, ends, strict=True):
        ops, deltas = plan.notes[start:end], plan.deltas[start:end]
        total: Counter[str] = Counter()
        for delta in deltas:
            total.update(delta)
        add = {name: total.get(name, 0) for name in COUNTERS}
        if start == starts[-1]:
            # A mark the meta lacks is taken away (an incomplete snapshot: fetched again next time).
            remove = [name for name in ("lastNoteAt", "upstreamMark") if name not in meta]
            book = Update(key, set=meta, remove=remove, add=add)
        else:
            book = Update(key, set=identity, remove=["upstreamMark"], add=add)
        items.transact([*ops, book])


def apply_snapshot(items: ItemStore, user_id: str, snapshot: BookSnapshot, now: str, source: str) -> MergeReport:
    """Merge one book; retried on a concurrent change (ServiceUnavailable if it keeps changing)."""
    for _attempt in range(ATTEMPTS):
        existing = list(store.book_notes(items, user_id, book_id(snapshot.book.external_id)))
        stored_book = store.read_book(items, user_id, book_id(snapshot.book.external_id))
        plan = _plan(user_id, snapshot, existing, now)
        meta = _book_meta(snapshot, _last_note_at(existing, plan), now, source)
        if not snapshot.complete:
            meta.pop("upstreamMark", None)  # a book with notes the sync could not read is fetched again
        if snapshot.complete and "upstreamMark" not in meta and stored_book and "upstreamMark" in stored_book:
            # A snapshot without a mark (a file import) keeps the sync's mark: _commit may have
            # to take it away while the chunks are written, and gives it back with the last.
            meta["upstreamMark"] = stored_book["upstreamMark"]
        if not plan.notes and not _book_changed(stored_book, meta):
            return plan.report
        try:
            _commit(items, user_id, plan, meta)
        except ConditionFailed:
            continue
        plan.report.books_changed = 1
        return plan.report
    raise ServiceUnavailable("the reading shelf kept changing while it was being written; try again")


def update_details(items: ItemStore, user_id: str, stored_book: Item, upstream: UpstreamBook, now: str) -> MergeReport:
    """Bring a book's title, author and cover up to the source's when its notes are unchanged
    (a rename keeps the notebook entry's sort and counts, so the book is not fetched again).
    One write when they differ, none otherwise; the book must exist (a concurrent removal wins)."""
    wanted = {"title": upstream.title, "author": upstream.author}
    if upstream.cover:  # as a merge does, a cover the source no longer names is kept
        wanted["cover"] = upstream.cover
    if all(stored_book.get(name) == value for name, value in wanted.items()):
        return MergeReport()
    key = book_key(user_id, stored_book["id"])
    try:
        items.transact([Update(key, set={**wanted, "syncedAt": now}, condition=Condition(exists=True))])
    except ConditionFailed:
        return MergeReport()
    return MergeReport(books_changed=1)
