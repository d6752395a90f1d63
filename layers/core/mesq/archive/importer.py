"""`import_account`: an archive (format.py) back into a user's partition.

1. Validate the whole archive before writing: the manifest, every file's SHA-256, every record
   line (`format.parse_record`), every record's blob present. The first fault raises
   ArchiveError naming the file and line, and nothing has been written.
2. Refuse an account that already holds records of the kinds the archive carries which the
   archive does not (ArchiveError, nothing written): its counters and board settings would be
   kept beside the imported records and no longer match them. An empty account, or the same
   archive imported again, passes.
3. Write the attachments' bytes (a blob already there with the same size is kept), then the
   records in transactions of up to MAX_TRANSACTION_OPS Puts, each `exists=False`: a record the
   account already holds is never overwritten, so importing the same archive twice creates
   nothing new (a transaction that meets an existing record is retried item by item).
4. A task record written before the todo due index (no GSI1 keys, `todos/due_index.py`) drops the
   account's "board indexed" marker, so the next narrowed query_todos backfills the board.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..kernel.keys import user_partition
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, BlobStore, Condition, ConditionFailed, ItemStore, Put
from ..store.each import write_each
from ..store.paging import walk
from ..todos import untouched_board
from ..todos.due_index import forget_indexed
from ..todos.keys import KIND_PREFIX, due_keys_of, record_of
from ..todos.keys import PREFIX as TODO_PREFIX
from .format import (
    BLOB_DIR,
    CHANGE_PREFIX,
    MANIFEST,
    RECORDS,
    ArchiveError,
    carries_blob,
    check_manifest,
    covered_by,
    exported,
    parse_record,
    rehome,
)

_ABSENT = Condition(exists=False)


@dataclass
class ImportReport:
    records: int = 0
    created: int = 0
    existing: int = 0
    blobs: int = 0
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float(self.records)


def _open(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ArchiveError(f"{path.name}: not a readable ZIP archive ({error})") from None


def _lines(archive: zipfile.ZipFile) -> Iterator[tuple[int, bytes]]:
    with archive.open(RECORDS) as member:
        for number, line in enumerate(member, start=1):
            line = line.rstrip(b"\r\n")
            if line:
                yield number, line


def _verify(archive: zipfile.ZipFile) -> dict[str, Any]:
    names = set(archive.namelist())
    if MANIFEST not in names:
        raise ArchiveError(f"{MANIFEST}: missing")
    manifest = check_manifest(archive.read(MANIFEST))
    for name, entry in manifest["files"].items():
        if name not in names:
            raise ArchiveError(f"{name}: listed in the manifest but missing")
        digest = hashlib.sha256()
        with archive.open(name) as member:
            for chunk in iter(lambda: member.read(1 << 16), b""):
                digest.update(chunk)
        if digest.hexdigest() != entry["sha256"]:
            raise ArchiveError(f"{name}: checksum does not match the manifest")
    return manifest


def validate(path: Path) -> tuple[dict[str, Any], set[str]]:
    """The manifest and the sort keys of every record of a sound archive; ArchiveError at the
    first fault."""
    with _open(path) as archive:
        manifest = _verify(archive)
        owner = manifest["owner"]
        seen: set[str] = set()
        for number, line in _lines(archive):
            item = parse_record(line, number, owner)
            if item["sk"] in seen:
                raise ArchiveError(f"{RECORDS} line {number}: a second record for sk {item['sk']!r}")
            seen.add(item["sk"])
            if carries_blob(item) and BLOB_DIR + item["path"] not in manifest["files"]:
                raise ArchiveError(f"{RECORDS} line {number}: its attachment {item['path']!r} is not in the archive")
    return manifest, seen


def _refuse_an_account_of_its_own(items: ItemStore, user_id: str, manifest: dict[str, Any], archived: set[str]) -> None:
    """ArchiveError, before anything is written, when the account holds records of the kinds this
    archive carries (all of them, or those of its credential's `scopes`) that the archive does not:
    the account's counters (memo stats, tag counts, list sizes, graph counts) and its board's
    settings and slugs would be kept beside the archive's records and no longer match them. An
    empty account, one holding only this archive's records (the same archive imported again), or
    one whose own records are of kinds the archive does not carry passes, and so does one whose
    only records are the empty board its first visit to Todos made (`todos/untouched_board.py`:
    removed first, unless a task lands in it meanwhile). Change records carry no counter and are
    not counted."""
    owner = manifest["owner"]
    carried = covered_by(manifest["scopes"]) if "scopes" in manifest else (lambda item: True)
    own: list[str] = []  # the account's records the archive does not hold
    board: list[str] = []  # every record of the account's board, the archive's sort keys too
    for item in walk(items, user_partition(user_id), keys_only=True):
        sk = str(item["sk"])
        if not exported(sk) or sk.startswith(CHANGE_PREFIX) or not carried({"sk": sk}):
            continue
        if sk.startswith(TODO_PREFIX):
            board.append(sk)
        if rehome(sk, user_id, owner) not in archived:
            own.append(sk)
    if not own:
        return
    # The board a first visit to Todos made, with nothing in it, makes way for the archive's
    # (its settings and slug claim too, though the archive has records under the same keys).
    empty_board = untouched_board.removal(items, user_id, board) if set(own) <= set(board) else None
    if empty_board is not None:
        with contextlib.suppress(ConditionFailed):
            items.transact(list(empty_board))
            return
    raise ArchiveError(
        f"this account already holds {len(own)} record(s) of the kinds the archive carries that the archive"
        f" does not (the first: {own[0]!r}); import into a new, empty account: merging them would leave the"
        " account's counters and board settings out of step with the imported records"
    )


def _commit(items: ItemStore, batch: list[dict[str, Any]], report: ImportReport) -> None:
    created = write_each(items, [Put(item, _ABSENT) for item in batch])
    report.created += created
    report.existing += len(batch) - created


def _unindexed_task(item: dict[str, Any], user_id: str) -> bool:
    """A task record without the due-index keys the todo writes give it today."""
    if not str(item.get("sk", "")).startswith(KIND_PREFIX["task"]):
        return False
    current = {name: item[name] for name in ("gsi1pk", "gsi1sk") if name in item}
    return current != due_keys_of(user_id, record_of(item))


def import_account(items: ItemStore, blobs: BlobStore, user_id: str, path: Path) -> ImportReport:
    started = time.perf_counter()
    manifest, archived = validate(path)
    owner = manifest["owner"]
    _refuse_an_account_of_its_own(items, user_id, manifest, archived)
    report = ImportReport()
    with _open(path) as archive:
        for name, entry in manifest["files"].items():
            if not name.startswith(BLOB_DIR):
                continue
            target = rehome(name.removeprefix(BLOB_DIR), owner, user_id)
            existing = blobs.head(target)
            if existing is None or existing.size != entry.get("bytes"):
                with archive.open(name) as member:
                    blobs.put(target, member, entry.get("contentType") or "application/octet-stream")
            report.blobs += 1
        batch: list[dict[str, Any]] = []
        unindexed = False
        for number, line in _lines(archive):
            batch.append(rehome(parse_record(line, number, owner), owner, user_id))
            unindexed = unindexed or _unindexed_task(batch[-1], user_id)
            report.records += 1
            if len(batch) == MAX_TRANSACTION_OPS:
                _commit(items, batch, report)
                batch = []
        _commit(items, batch, report)
    if unindexed:
        forget_indexed(items, user_id)
    report.seconds = time.perf_counter() - started
    return report


def manifest_of(path: Path) -> dict[str, Any]:
    with _open(path) as archive:
        return check_manifest(archive.read(MANIFEST))


__all__ = ["ArchiveError", "ImportReport", "import_account", "manifest_of", "validate"]
