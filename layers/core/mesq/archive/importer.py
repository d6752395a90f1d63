"""`import_account`: an archive (format.py) back into a user's partition, read as a stranger's
file (docs/archive.md "Import", docs/security.md "Imports").

1. Read under caps (`limits`): the ZIP through `bounded_zip.BoundedZip` (member count, sizes,
   ratio, total, as a stream), `manifest.json` as a stream of events (`ijson`, at most
   MANIFEST_BYTES, keeping only the entries of records and attachments), `records.jsonl` line by
   line with each line's length checked before it is held, records counted per kind.
2. Validate the whole archive before writing: every checksum the import uses, every record
   rebuilt (`records.rebuild`: only the attributes its kind defines, keys derived, ids,
   timestamps and enums checked, attachment paths derived from the record), records in
   sort-key order (so a key twice is a neighbour: no set of keys is held), every attachment's
   bytes present with the size its record says, and the attachments within the account's quota.
   The first fault raises ArchiveError naming the member, line and field; nothing is written.
3. Refuse an account that already holds records of the kinds the archive carries which the
   archive does not (its board's settings and slugs would no longer match), unless this archive's
   import was started before (`journal`): then the rerun finishes it.
4. Write: the journal, the attachments' bytes (at paths derived from their records), the records
   in transactions of up to MAX_TRANSACTION_OPS Puts conditioned on absence (a record the account
   holds is never overwritten), each imported task's reminder index entry (moved to the user's
   zone when one is set, for a date-only due without a zone of its own: `reminder_zone.rezone`), the
   manifest's language and zone where the account set none (`preferences.restore`), then the counters
   recomputed from the records (`counters.rebuild_counters`), then the journal's `done`.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ijson

from ..attachments.paths import MEMO, TODO, attachment_path, namespace_of
from ..attachments.store import attachment_key, check_quota
from ..auth.user_zone import configured_zone
from ..history.records import CHANGE_PREFIX
from ..kernel.errors import PayloadTooLarge
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, BlobStore, Condition, ConditionFailed, Item, ItemStore, Put
from ..kernel.timestamps import format_timestamp
from ..memos.keys import MEMO_PREFIX
from ..store.each import write_each
from ..store.paging import walk
from ..todos import untouched_board
from ..todos.keys import PREFIX as TODO_PREFIX
from ..todos.reminder_zone import rezone
from . import journal, preferences, words
from .bounded_zip import BoundedZip, Member
from .counters import rebuild_counters
from .format import (
    ATTACHMENT_DIR,
    BLOB_DIR,
    FORMAT,
    MANIFEST,
    READABLE_VERSIONS,
    RECORDS,
    VERSION,
    ArchiveError,
    covered_by,
    exported,
    member_of,
    parse_record,
    record_line,
    rehome,
)
from .limits import (
    ARCHIVE_ZIP,
    ATTACHMENTS,
    LINE_BYTES,
    MANIFEST_BYTES,
    OWN_RECORDS,
    RECORDS_PER_KIND,
    RECORDS_TOTAL,
    CapExceeded,
    kind_of,
)
from .records import chained, derived, rebuild, reminder_entry

_ABSENT = Condition(exists=False)
#: The deployment's default attachment quota (`Settings.attachment_quota_bytes`); the command line
#: and the web page pass the configured one.
DEFAULT_QUOTA_BYTES = 1024**3
_ATTACHMENT_KINDS = {MEMO.record_prefix: MEMO, TODO.record_prefix: TODO}
_FILE_FIELDS = ("displayName", "fileSize", "mimeType", "type")


@dataclass
class ImportReport:
    records: int = 0
    created: int = 0
    existing: int = 0
    derived: int = 0  # counters and index entries of the archive, recomputed instead
    blobs: int = 0
    resumed: bool = False
    seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)  # the archive's records in a person's words
    preferences: dict[str, str] = field(default_factory=dict)  # the language and zone taken from the archive

    @property
    def per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float(self.records)


@dataclass
class _Blob:
    member: Member
    target: str
    size: int
    content_type: str
    name: str  # `the attachment 'cat.png'`, for errors


@dataclass
class _Archive:
    """What validation found: the manifest's head, the members used, the attachments to write."""

    zip: BoundedZip
    manifest: dict[str, Any]
    records: Member
    blobs: list[_Blob] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    #: What each attachment record of the archive says of its file, by path: the fields a memo's
    #: or todo's copy is rewritten to (`_as_registered`).
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Every attachment path a memo or todo record names, with the first line and name naming it.
    named: dict[str, tuple[Text, Any]] = field(default_factory=dict)

    @property
    def owner(self) -> str:
        return str(self.manifest["owner"])

    @property
    def digest(self) -> str:
        return str(self.manifest["files"][RECORDS]["sha256"])


# -- reading ------------------------------------------------------------------------------------


def _manifest(archive: BoundedZip, member: Member, present: Callable[[str], bool]) -> dict[str, Any]:
    """The manifest's head and its `files` entries of the members the import uses (`present`:
    records and the attachments in the ZIP), read as a stream of events: the others are passed."""
    if member.size > MANIFEST_BYTES:
        shown = f"{member.size:,}"
        raise CapExceeded("manifest size", MANIFEST_BYTES, MANIFEST, Text("%(size)s bytes", size=shown))
    manifest: dict[str, Any] = {"files": {}}
    scopes: list[str] = []
    current: str | None = None
    entry_field: str | None = None
    try:
        with archive.open(member) as reader:
            for prefix, event, value in ijson.parse(reader, use_float=True):
                if prefix in ("format", "version", "owner") and event in ("string", "number"):
                    manifest[prefix] = value
                elif prefix == preferences.ACCOUNT or prefix in _PREFERENCE_PREFIXES:
                    _preference_event(manifest, prefix, event, value)
                elif prefix == "scopes" and event == "start_array":
                    manifest["scopes"] = scopes
                elif prefix == "scopes.item" and event == "string":
                    scopes.append(str(value)[:40])
                    if len(scopes) > 20:
                        raise ArchiveError(Text("%(file)s: scopes: more than %(limit)s", file=MANIFEST, limit=20))
                elif prefix == "files" and event == "map_key":
                    current = value if present(str(value)) else None  # an entry of a member it uses
                    if current is not None:
                        manifest["files"][current] = {}
                elif current is not None and prefix == f"files.{current}" and event == "map_key":
                    entry_field = value
                elif (
                    current is not None
                    and prefix == f"files.{current}.{entry_field}"
                    and event in ("string", "number")
                    and entry_field in ("sha256", "bytes", "contentType")
                ):
                    manifest["files"][current][entry_field] = value
    except ijson.JSONError as error:
        raise ArchiveError(
            Text(
                "%(file)s: not JSON; the archive was changed or cut short after MeSQ wrote it. Export the"
                " account again and import the new archive",
                file=MANIFEST,
            ),
            detail=f"ijson: {error}",
        ) from None
    return _checked_manifest(manifest)


_PREFERENCE_PREFIXES = frozenset(f"{preferences.ACCOUNT}.{name}" for name in preferences.NAMES)


def _preference_event(manifest: dict[str, Any], prefix: str, event: str, value: Any) -> None:
    """`account` and its names as the manifest's events give them, for `preferences.checked` to
    judge: a scalar kept (a string cut to 200 characters; a zone name is at most 64), an object or
    a list standing as an empty one of its type."""
    if event in ("map_key", "end_map", "end_array"):
        return
    if event in ("start_map", "start_array"):
        kept: Any = {} if event == "start_map" else []
    else:
        kept = value[:200] if isinstance(value, str) else value
    if prefix == preferences.ACCOUNT:
        manifest[preferences.ACCOUNT] = kept
    elif isinstance(manifest.get(preferences.ACCOUNT), dict):
        manifest[preferences.ACCOUNT][prefix.partition(".")[2]] = kept


def _checked_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    if manifest.get("format") != FORMAT:
        raise ArchiveError(Text("%(file)s: not a %(format)s manifest", file=MANIFEST, format=FORMAT))
    if manifest.get("version") not in READABLE_VERSIONS:
        raise ArchiveError(
            Text(
                "%(file)s: version %(version)s is not %(expected)s",
                file=MANIFEST,
                version=quoted(manifest.get("version")),
                expected=VERSION,
            )
        )
    owner = manifest.get("owner")
    if not isinstance(owner, str) or not owner or len(owner) > 64 or "#" in owner or "/" in owner:
        raise ArchiveError(Text("%(file)s: owner missing or not a user id", file=MANIFEST))
    manifest[preferences.ACCOUNT] = preferences.checked(manifest.get(preferences.ACCOUNT))
    files = manifest["files"]
    if RECORDS not in files:
        raise ArchiveError(Text("%(file)s: files must list %(records)s", file=MANIFEST, records=RECORDS))
    for name, entry in files.items():
        digest = entry.get("sha256")
        if not isinstance(digest, str) or len(digest) != 64:
            raise ArchiveError(Text("%(file)s: files[%(name)s] needs a sha256", file=MANIFEST, name=quoted(name)))
    return manifest


def _present(blob_members: dict[str, Member]) -> Callable[[str], bool]:
    return lambda name: name == RECORDS or name in blob_members


def _open(path: Path, label: str | None) -> BoundedZip:
    return BoundedZip(path, ARCHIVE_ZIP, label)


def _members(archive: BoundedZip) -> tuple[Member, Member, dict[str, Member]]:
    blobs_seen = 0

    def keep(name: str) -> bool:
        nonlocal blobs_seen
        if name.startswith((ATTACHMENT_DIR, BLOB_DIR)):
            if name.endswith("/"):  # a folder's own entry (`zip -r` adds one per attachment id): no file
                return False
            blobs_seen += 1
            if blobs_seen > ATTACHMENTS:  # each is held until the records say which they need
                raise CapExceeded("attachments per archive", ATTACHMENTS, archive.label)
            return True
        return name in (MANIFEST, RECORDS)

    wanted = archive.index(keep)
    for name in (MANIFEST, RECORDS):
        if name not in wanted:
            raise ArchiveError(Text("%(file)s: missing", file=name))
    blobs = {name: member for name, member in wanted.items() if name.startswith((ATTACHMENT_DIR, BLOB_DIR))}
    return wanted[MANIFEST], wanted[RECORDS], blobs


def _items(archive: _Archive, user_id: str, on_chunk: Callable[[bytes], object] | None = None
           ) -> Iterator[tuple[int, dict[str, Any], Item | None]]:  # fmt: skip
    """(line number, the archived record, the record as the import writes it or None when it is
    derived) of every line, in order."""
    owner, previous = archive.owner, ""
    heads: dict[str, list[str]] = {}  # the newest changes per record so far (records.chained)
    for number, line in archive.zip.lines(archive.records, LINE_BYTES, on_chunk):
        where = record_line(number)
        item = parse_record(line, number, owner)
        sk = str(item["sk"])
        if sk == previous:
            raise ArchiveError(
                Text(
                    "%(where)s: a second copy of %(record)s (an archive lists each record once, in order)",
                    where=where,
                    record=words.described_text(sk),
                )
            )
        if sk < previous:
            raise ArchiveError(
                Text(
                    "%(where)s: out of order: %(record)s (an archive lists each record once, in order)",
                    where=where,
                    record=words.described_text(sk),
                )
            )
        previous = sk
        stored = rebuild(rehome(item, owner, user_id), user_id, where)
        if stored is not None:
            chained(stored, heads)
        yield number, item, stored


def _validate(archive: _Archive, user_id: str, blob_members: dict[str, Member], own: set[str] | None) -> None:
    """Every record rebuilt, the records' checksum, the attachments found and checked. `own`: the
    account's own sort keys; those the archive holds are removed from it."""
    digest = hashlib.sha256()
    folders = _attachment_folders(blob_members)
    for total, (number, item, stored) in enumerate(_items(archive, user_id, digest.update), start=1):
        if total > RECORDS_TOTAL:
            raise CapExceeded("records per archive", RECORDS_TOTAL, record_line(number))
        kind = kind_of(str(item["sk"]))
        archive.kinds[kind] += 1
        if kind and archive.kinds[kind] > RECORDS_PER_KIND[kind]:
            what = words.kind_of(kind) or "todo records"  # TODO#: tasks, inbox items, spaces, columns
            raise CapExceeded(f"{what} per archive", RECORDS_PER_KIND[kind], record_line(number))
        if own is not None:
            own.discard(str(item["sk"]))
        if stored is not None and kind in _ATTACHMENT_KINDS:
            archive.blobs.append(_blob(archive, item, stored, (blob_members, folders), number))
            archive.files[str(stored["path"])] = {name: stored[name] for name in _FILE_FIELDS if name in stored}
        elif stored is not None:
            for file in _bound_files(stored):
                archive.named.setdefault(str(file.get("path")), (record_line(number), file.get("displayName")))
    if digest.hexdigest() != archive.digest:
        raise ArchiveError(Text("%(file)s: checksum does not match the manifest", file=RECORDS))
    for blob in archive.blobs:
        _check_blob(archive, blob)


def _attachment_folders(members: dict[str, Member]) -> dict[str, list[str]]:
    """`attachments/<memo|todo>/<id>/` -> the files in it (a named attachment's file). A folder's
    own entry (`attachments/memo/<id>/`, which `zip -r` and most tools add when an unzipped
    archive is zipped again) is no file: counted as one, the folder held two and its file was
    called missing."""
    folders: dict[str, list[str]] = {}
    for name in members:
        if name.startswith(ATTACHMENT_DIR) and name.count("/") == 3 and not name.endswith("/"):
            folders.setdefault(name.rpartition("/")[0] + "/", []).append(name)
    return folders


def _blob(
    archive: _Archive,
    item: dict[str, Any],
    stored: Item,
    present: tuple[dict[str, Member], dict[str, list[str]]],
    number: int,
) -> _Blob:
    """The member of the attachment's bytes: in its id's folder, under the name the archived
    record `item` gives it (format.member_of), else the one file there (the name is for people:
    an archive whose records were edited since still finds its files by id), else where
    version 1 put it (`blobs/<blob path>`)."""
    members, folders = present
    namespace = _ATTACHMENT_KINDS[kind_of(str(stored["sk"]))]
    name = member_of(item)
    if name not in members:
        alone = folders.get(name.rpartition("/")[0] + "/", [])
        name = alone[0] if len(alone) == 1 else BLOB_DIR + attachment_path(archive.owner, str(stored["id"]), namespace)
    member = members.get(name)
    if member is None or name not in archive.manifest["files"]:
        raise ArchiveError(
            Text(
                "%(file)s line %(line)s: the bytes of the attachment %(name)s are not in the archive",
                file=RECORDS,
                line=number,
                name=_named(stored),
            )
        )
    if member.size != stored["fileSize"]:
        found, recorded = f"{member.size:,}", f"{stored['fileSize']:,}"
        raise ArchiveError(
            Text(
                "%(file)s line %(line)s: the attachment %(name)s is %(size)s bytes in the archive, not %(recorded)s",
                file=RECORDS,
                line=number,
                name=_named(stored),
                size=found,
                recorded=recorded,
            )
        )
    content_type = str(stored.get("mimeType") or "application/octet-stream")
    return _Blob(member, str(stored["path"]), member.size, content_type, _named(stored))


def _bound_files(record: Item) -> Iterator[dict[str, Any]]:
    """The file entries a memo (`resources`) or a todo record (`attachments`, an inbox item's
    subtasks' too) names, as the record holds them (changed in place by `_as_registered`)."""
    if str(record.get("sk", "")).startswith(MEMO_PREFIX):
        yield from record.get("resources") or ()
    if str(record.get("sk", "")).startswith(TODO_PREFIX):
        yield from record.get("attachments") or ()
        for subtask in record.get("subtasks") or ():
            yield from subtask.get("attachments") or ()


def _check_named_files(archive: _Archive, items: ItemStore, user_id: str) -> None:
    """Every file a record names is one the archive brings or the account holds: a memo write
    refuses a path that is no registered upload, and an import does too (a link that answers 404)."""
    for path, (where, name) in archive.named.items():
        if path in archive.files:
            continue
        attachment_id = path.rpartition("/")[2]
        namespace = namespace_of(path) or MEMO  # a path records.rebuild derived: one of the two
        if items.get(attachment_key(user_id, attachment_id, namespace)) is None:
            raise ArchiveError(
                Text(
                    "%(where)s: the attachment %(name)s is neither in the archive nor in this account",
                    where=where,
                    name=quoted(str(name or attachment_id)),
                )
            )


def _as_registered(archive: _Archive, record: Item) -> None:
    """A memo's or todo's copy of each file as the archive's attachment record says it (name, size,
    type), as every memo and todo write rebuilds it from the registered record."""
    for file in _bound_files(record):
        file.update(archive.files.get(str(file.get("path")), {}))


def _named(attachment: Item) -> str:
    """`'cat.png'`: an attachment as its owner knows it (never its storage path); the messages
    say "the attachment %(name)s"."""
    return quoted(str(attachment.get("displayName") or ""))


def _check_blob(archive: _Archive, blob: _Blob) -> None:
    digest = hashlib.sha256()
    with archive.zip.open(blob.member) as reader:
        while chunk := reader.read(1 << 16):
            digest.update(chunk)
    if digest.hexdigest() != archive.manifest["files"][blob.member.name]["sha256"]:
        raise ArchiveError(
            Text("the bytes of the attachment %(name)s do not match the manifest's checksum", name=blob.name)
        )


# -- the account --------------------------------------------------------------------------------


def _own_records(items: ItemStore, user_id: str, manifest: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The account's sort keys of the kinds the archive carries (change records, counters and
    derived records aside), and every sort key of its board."""
    carried = covered_by(manifest["scopes"]) if "scopes" in manifest else (lambda item: True)
    own: set[str] = set()
    board: list[str] = []
    for item in walk(items, user_partition(user_id), keys_only=True):
        sk = str(item["sk"])
        if not exported(sk) or sk.startswith(CHANGE_PREFIX) or not carried({"sk": sk}):
            continue
        if sk.startswith(TODO_PREFIX):
            board.append(sk)  # its sizes too: the empty board's removal checks they are 0
        if not derived(sk):
            own.add(sk)
        if len(own) > OWN_RECORDS:
            raise CapExceeded("records of the target account", OWN_RECORDS, Text("this account"))
    return own, board


def _refuse_an_account_of_its_own(items: ItemStore, user_id: str, own: set[str], board: list[str]) -> None:
    """ArchiveError, before anything is written, when the account holds records of the kinds this
    archive carries that the archive does not: its board's settings and slugs would be kept
    beside the archive's. The board a first visit to Todos made, with nothing in it, makes way
    (`todos/untouched_board.py`: removed first, unless a task lands in it meanwhile)."""
    if not own:
        return
    empty_board = untouched_board.removal(items, user_id, board) if own <= set(board) else None
    if empty_board is not None:
        with contextlib.suppress(ConditionFailed):
            items.transact(list(empty_board))
            return
    held = words.in_words_text(words.count(own)) or Text("a board of its own")
    raise ArchiveError(
        Text(
            "this account already holds %(held)s that the archive does not have; import into a new, empty"
            " account (merging would leave this account's board settings out of step with the archive's)",
            held=held,
        )
    )


def _check_quota(items: ItemStore, user_id: str, blobs: list[_Blob], quota: int) -> None:
    """The account's attachments the archive does not hold, plus the archive's, within `quota`."""
    incoming = {blob.target: blob.size for blob in blobs}
    used = 0
    for prefix in _ATTACHMENT_KINDS:
        for record in walk(items, user_partition(user_id), prefix=prefix):
            if str(record.get("path")) not in incoming:
                used += int(record.get("fileSize", 0))
    try:
        check_quota(used, sum(incoming.values()), quota)
    except PayloadTooLarge as error:
        raise ArchiveError(Text("attachments: %(reason)s", reason=error.text)) from None


# -- writing ------------------------------------------------------------------------------------


def _write_blobs(archive: _Archive, blobs: BlobStore, report: ImportReport) -> None:
    for blob in archive.blobs:
        existing = blobs.head(blob.target)
        if existing is None or existing.size != blob.size:
            with archive.zip.open(blob.member) as reader, tempfile.TemporaryFile() as spool:
                # A blob store sends a seekable file of known size (S3's PUT needs the length);
                # the member is inflated into a temporary file a chunk at a time, never held.
                shutil.copyfileobj(reader, spool, 1 << 16)
                spool.seek(0)
                blobs.put(blob.target, spool, blob.content_type)
        report.blobs += 1


def _commit(items: ItemStore, batch: list[Item], report: ImportReport, now: datetime, user_id: str) -> None:
    if report.resumed and batch:  # most are there already: one batch read, not a failed transaction each
        held = {(str(item["pk"]), str(item["sk"])) for item in items.batch_get([_key(item) for item in batch])}
        report.existing += sum(1 for item in batch if _key(item) in held)
        batch = [item for item in batch if _key(item) not in held]
    created = write_each(items, [Put(item, _ABSENT) for item in batch])
    report.created += created
    report.existing += len(batch) - created
    entries = [entry for item in batch if (entry := reminder_entry(item, user_id, now)) is not None]
    write_each(items, [Put(entry, _ABSENT) for entry in entries])


def _key(item: Item) -> tuple[str, str]:
    return (str(item["pk"]), str(item["sk"]))


def _write_records(archive: _Archive, items: ItemStore, user_id: str, report: ImportReport, now: datetime) -> None:
    batch: list[Item] = []
    for _number, _item, stored in _items(archive, user_id):
        report.records += 1
        if stored is None:
            report.derived += 1
            continue
        _as_registered(archive, stored)
        batch.append(stored)
        report.kinds.update(words.count([str(stored["sk"])]))
        if len(batch) == MAX_TRANSACTION_OPS:
            _commit(items, batch, report, now, user_id)
            batch = []
    _commit(items, batch, report, now, user_id)


def validate(path: Path, user_id: str | None = None, label: str | None = None) -> dict[str, Any]:
    """The manifest of a sound archive (its records rebuilt for `user_id`, by default its own
    owner); ArchiveError at the first fault (nothing is written)."""
    with _open(path, label) as archive:
        manifest_member, records, blob_members = _members(archive)
        found = _Archive(archive, _manifest(archive, manifest_member, _present(blob_members)), records)
        _validate(found, user_id or found.owner, blob_members, None)
        return found.manifest


def import_account(
    items: ItemStore,
    blobs: BlobStore,
    user_id: str,
    path: Path,
    *,
    quota_bytes: int = DEFAULT_QUOTA_BYTES,
    label: str | None = None,
    now: datetime | None = None,
) -> ImportReport:
    """Import the archive at `path` into `user_id`'s account (see the module docstring).
    `quota_bytes`: the account's attachment quota; `label`: the archive's name in errors."""
    started = time.perf_counter()
    moment = now or datetime.now(UTC)
    report = ImportReport()
    with _open(path, label) as archive:
        manifest_member, records, blob_members = _members(archive)
        found = _Archive(archive, _manifest(archive, manifest_member, _present(blob_members)), records)
        journaled = journal.read(items, user_id, found.digest)
        report.resumed = journaled is not None
        # The account's own zone, read before the empty board's removal can take it (a rerun: as
        # the first run read it, that removal being done by then).
        own_zone = (journaled or {}).get("accountZone") or configured_zone(items, user_id)
        own, board = (set(), []) if report.resumed else _own_records(items, user_id, found.manifest)
        _validate(found, user_id, blob_members, own)
        _check_named_files(found, items, user_id)
        _check_quota(items, user_id, found.blobs, quota_bytes)
        _refuse_an_account_of_its_own(items, user_id, own, board)
        journal.begin(items, user_id, found.digest, found.owner, format_timestamp(moment), own_zone)
        _write_blobs(found, blobs, report)
        _write_records(found, items, user_id, report, moment)
    report.preferences = preferences.restore(items, user_id, found.manifest[preferences.ACCOUNT], own_zone)
    zone = configured_zone(items, user_id)  # the account's, else the one the archive brought
    if zone is not None:  # the reminders it places (a date-only due's) were indexed in UTC above
        rezone(items, user_id, zone, moment)
    rebuild_counters(items, user_id)
    counts = {"records": report.records, "created": report.created, "existing": report.existing, "blobs": report.blobs}
    journal.finish(items, user_id, found.digest, format_timestamp(datetime.now(UTC)), counts)
    report.seconds = time.perf_counter() - started
    return report


def manifest_of(path: Path) -> dict[str, Any]:
    with _open(path, None) as archive:
        manifest_member, _records, blob_members = _members(archive)
        return _manifest(archive, manifest_member, _present(blob_members))


__all__ = ["ArchiveError", "ImportReport", "import_account", "manifest_of", "validate"]
