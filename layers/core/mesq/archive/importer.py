"""`import_account`: an archive (format.py) back into a user's partition.

1. Validate the whole archive before writing: the manifest, every file's SHA-256, every record
   line (`format.parse_record`), every record's blob present. The first fault raises
   ArchiveError naming the file and line, and nothing has been written.
2. Write the attachments' bytes (a blob already there with the same size is kept), then the
   records in transactions of up to MAX_TRANSACTION_OPS Puts, each `exists=False`: a record the
   account already holds is never overwritten, so importing the same archive twice creates
   nothing new (a transaction that meets an existing record is retried item by item).
3. A task record written before the todo due index (no GSI1 keys, `todos/due_index.py`) drops the
   account's "board indexed" marker, so the next narrowed query_todos backfills the board.
"""

from __future__ import annotations

import hashlib
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.ports import MAX_TRANSACTION_OPS, BlobStore, Condition, ConditionFailed, ItemStore, Put
from ..todos.due_index import forget_indexed
from ..todos.keys import KIND_PREFIX, due_keys_of, record_of
from .format import BLOB_DIR, MANIFEST, RECORDS, ArchiveError, carries_blob, check_manifest, parse_record, rehome

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


def validate(path: Path) -> tuple[dict[str, Any], int]:
    """The manifest and the record count of a sound archive; ArchiveError at the first fault."""
    with _open(path) as archive:
        manifest = _verify(archive)
        owner = manifest["owner"]
        seen: set[tuple[str, str]] = set()
        count = 0
        for number, line in _lines(archive):
            item = parse_record(line, number, owner)
            key = (item["pk"], item["sk"])
            if key in seen:
                raise ArchiveError(f"{RECORDS} line {number}: a second record for sk {item['sk']!r}")
            seen.add(key)
            if carries_blob(item) and BLOB_DIR + item["path"] not in manifest["files"]:
                raise ArchiveError(f"{RECORDS} line {number}: its attachment {item['path']!r} is not in the archive")
            count += 1
    return manifest, count


def _commit(items: ItemStore, batch: list[dict[str, Any]], report: ImportReport) -> None:
    if not batch:
        return
    try:
        items.transact([Put(item, _ABSENT) for item in batch])
        report.created += len(batch)
        return
    except ConditionFailed:
        pass
    for item in batch:
        try:
            items.put(item, _ABSENT)
            report.created += 1
        except ConditionFailed:
            report.existing += 1


def _unindexed_task(item: dict[str, Any], user_id: str) -> bool:
    """A task record without the due-index keys the todo writes give it today."""
    if not str(item.get("sk", "")).startswith(KIND_PREFIX["task"]):
        return False
    current = {name: item[name] for name in ("gsi1pk", "gsi1sk") if name in item}
    return current != due_keys_of(user_id, record_of(item))


def import_account(items: ItemStore, blobs: BlobStore, user_id: str, path: Path) -> ImportReport:
    started = time.perf_counter()
    manifest, _ = validate(path)
    owner = manifest["owner"]
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
