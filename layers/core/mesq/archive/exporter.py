"""`export_account`: a user's data as one ZIP archive (format.py), streamed: the partition is read a
query page at a time, each record line and each attachment's bytes are written straight into the
archive and hashed on the way, and the manifest comes last, itself written a file entry at a time.

What memory grows with is the number of files in the archive (one Markdown page per memo): the
ZIP's central directory (`zipfile` keeps one `ZipInfo` per member until it closes) and each file's
checksum for the manifest, kept as a small tuple (`_Entry`), about 0.6 KB per memo in all; never
with the records' or attachments' size."""

from __future__ import annotations

import hashlib
import json
import struct
import zipfile
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import IO, Any
from zoneinfo import ZoneInfo

from ..auth.user_zone import configured_zone
from ..history.records import CHANGE_PREFIX, expanded
from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.storage import BlobNotFound, BlobStore, ItemStore
from ..kernel.timestamps import in_zone, parse_timestamp
from ..memos.keys import MEMO_PREFIX
from ..store.paging import walk
from . import preferences, words
from .format import FORMAT, MANIFEST, MEMO_DIR, RECORDS, VERSION, carries_blob, covered_by, exported, member_of

#: A file's manifest entry, compact while the archive is written: (sha256 hex, bytes, contentType).
_Entry = tuple[str, int, str | None]


@dataclass
class ExportReport:
    records: int = 0
    blobs: int = 0
    blob_bytes: int = 0
    missing_blobs: list[str] = field(default_factory=list)  # the attachments' names (displayName)
    counts: dict[str, int] = field(default_factory=dict)  # by stored kind: the manifest's
    kinds: Counter[str] = field(default_factory=Counter)  # in a person's words (words.py)
    preferences: dict[str, str] = field(default_factory=dict)  # the language and zone the manifest carries


class _Hashing:
    """A zip member being written, hashed as it goes."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> None:
        self.target.write(data)
        self.digest.update(data)
        self.size += len(data)

    def entry(self, content_type: str | None = None) -> _Entry:
        return (self.digest.hexdigest(), self.size, content_type)


def _write_manifest(member: IO[bytes], head: dict[str, Any], files: dict[str, _Entry]) -> None:
    """The manifest as JSON, `files` written one entry at a time: the same document as
    `json.dumps({**head, "files": {name: {"sha256", "bytes", "contentType"?}}})` without ever
    holding it (or a dict per file) whole."""
    member.write(json.dumps(head, sort_keys=True)[:-1].encode() + b', "files": {')
    for number, name in enumerate(sorted(files)):
        digest, size, content_type = files[name]
        entry: dict[str, Any] = {"sha256": digest, "bytes": size}
        if content_type is not None:
            entry["contentType"] = content_type
        separator = ", " if number else ""
        member.write(f"{separator}{json.dumps(name)}: {json.dumps(entry, sort_keys=True)}".encode())
    member.write(b"}}")


def _kind(sk: str) -> str:
    head, _, rest = sk.partition("#")
    if head in ("TODO", "READ", "REMIND"):
        return f"{head}#{rest.partition('#')[0]}"
    return head


def _shown(timestamp: Any, zone: str | None) -> Any:
    """A stored time as a person there reads it: the same instant on `zone`'s clock with its offset
    (`2026-12-07T04:13:15+14:00`); as stored (UTC, `Z`) without a zone or for what is no time."""
    if not zone or not isinstance(timestamp, str):
        return timestamp
    try:
        return in_zone(parse_timestamp(timestamp, "createdAt"), ZoneInfo(zone)).isoformat()
    except (ValidationError, ValueError, LookupError):
        return timestamp


#: Info-ZIP's extended timestamp extra field: the modification time as Unix seconds.
_UNIX_TIME_FIELD = 0x5455


def _moment(timestamp: Any) -> datetime | None:
    try:
        return parse_timestamp(str(timestamp), "at") if timestamp else None
    except ValidationError:
        return None


def _member(name: str, moment: datetime | None, fallback: datetime, zone: tzinfo) -> zipfile.ZipInfo:
    """A member dated `moment` (else `fallback`, the archive's own time): what a file manager shows
    is the DOS date and time, a wall clock with no zone, so it is the account's clock (else UTC's);
    the extended timestamp holds the instant itself, which unzip and 7-Zip set on the file they
    write. A member opened by name alone was dated 1 January 1980. A moment a DOS date cannot
    hold (before 1980, after 2107) gets the archive's DOS date and keeps its own instant in the
    extended timestamp when that holds it (1901 to 2038), so an unzipped 1979 memo reads 1979."""
    moment = moment or fallback
    shown = moment if 1980 <= in_zone(moment, zone).year <= 2107 else fallback  # what a DOS date can hold
    local = in_zone(shown, zone)
    info = zipfile.ZipInfo(name, date_time=(local.year, local.month, local.day, local.hour, local.minute, local.second))
    info.compress_type = zipfile.ZIP_DEFLATED
    seconds = int(moment.timestamp()) if -(2**31) <= int(moment.timestamp()) < 2**31 else int(shown.timestamp())
    if -(2**31) <= seconds < 2**31:
        info.extra = struct.pack("<HHBi", _UNIX_TIME_FIELD, 5, 1, seconds)
    return info


def memo_markdown(item: dict[str, Any], zone: str | None = None) -> str:
    """A memo as Markdown with the YAML front matter the Markdown import reads; its times in the
    account's `zone` (the pages are for people: the day they wrote it, not UTC's)."""
    created, updated = _shown(item.get("createdAt"), zone), _shown(item.get("updatedAt"), zone)
    lines = ["---", f"created: {json.dumps(created)}", f"updated: {json.dumps(updated)}"]
    lines.append(f"tags: {json.dumps(item.get('tags') or [], ensure_ascii=False)}")
    lines.append(f"pinned: {'true' if item.get('pinned') else 'false'}")
    if item.get("status"):
        lines.append(f"status: {json.dumps(item['status'])}")
    lines += ["---", "", str(item.get("content", ""))]
    return "\n".join(lines) + "\n"


def _records(items: ItemStore, user_id: str, keep: Callable[[dict[str, Any]], bool]) -> Iterator[dict[str, Any]]:
    for item in walk(items, user_partition(user_id)):
        if exported(item["sk"]) and keep(item):
            # a change record as the archive format has it (never `packed`)
            yield expanded(item) if item["sk"].startswith(CHANGE_PREFIX) else item


def export_account(
    items: ItemStore,
    blobs: BlobStore,
    user_id: str,
    out: Path | IO[bytes],
    exported_at: str,
    *,
    scopes: Collection[str] | None = None,
) -> ExportReport:
    """The archive of `user_id` written to `out` (a path or a seekable binary file). `scopes`
    (a credential's) narrows it to the kinds they may read (format.covered_by); None: all of it."""
    report = ExportReport()
    files: dict[str, _Entry] = {}
    blob_paths: list[tuple[str, str, str]] = []  # (blob path, archive member, the name its owner knows it by)
    keep = covered_by(scopes) if scopes is not None else (lambda item: True)
    zone = configured_zone(items, user_id)
    clock: tzinfo = ZoneInfo(zone) if zone else UTC
    made = _moment(exported_at) or datetime.now(UTC)

    def dated(name: str, moment: datetime | None = None) -> zipfile.ZipInfo:
        return _member(name, moment, made, clock)

    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        with archive.open(dated(RECORDS), "w", force_zip64=True) as member:
            sink = _Hashing(member)
            for item in _records(items, user_id, keep):
                sink.write(json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() + b"\n")
                report.records += 1
                kind = _kind(item["sk"])
                report.counts[kind] = report.counts.get(kind, 0) + 1
                report.kinds.update(words.count([item["sk"]]))
                if carries_blob(item):
                    blob_paths.append((item["path"], member_of(item), str(item.get("displayName") or item["path"])))
            files[RECORDS] = sink.entry()
        # A second pass over the memos (a zip takes one member at a time): one Markdown page each.
        memos = walk(items, user_partition(user_id), prefix=MEMO_PREFIX) if keep({"sk": MEMO_PREFIX}) else iter(())
        for item in memos:
            name = f"{MEMO_DIR}{item['sk'].removeprefix(MEMO_PREFIX)}.md"
            with archive.open(dated(name, _moment(item.get("updatedAt"))), "w") as memo:
                page = _Hashing(memo)
                page.write(memo_markdown(item, zone).encode())
                files[name] = page.entry()
        for path, member_name, name in blob_paths:
            info = blobs.head(path)
            if info is None:
                report.missing_blobs.append(name)
                continue
            try:
                with archive.open(dated(member_name), "w", force_zip64=True) as member:
                    sink = _Hashing(member)
                    for chunk in blobs.stream(path):
                        sink.write(chunk)
            except BlobNotFound:
                report.missing_blobs.append(name)
                continue
            files[member_name] = sink.entry(info.content_type)
            report.blobs += 1
            report.blob_bytes += sink.size
        head: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "owner": user_id,
            "exportedAt": exported_at,
            "records": report.records,
            "counts": report.counts,
        }
        if account := preferences.of_account(items, user_id):
            # Not records (the profile never leaves; the zone's item travels only with the board):
            # the person's language and zone, whatever the scopes (archive/preferences.py).
            head[preferences.ACCOUNT] = account
            report.preferences = dict(account)
        if scopes is not None:
            # What the credential covered: a reader knows the archive is not the whole account.
            head["scopes"] = sorted(scope for scope in scopes if scope.endswith(":read"))
        with archive.open(dated(MANIFEST), "w") as member:
            _write_manifest(member, head, files)
    return report
