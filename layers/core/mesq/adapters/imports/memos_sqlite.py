"""A memos database (`memos_prod.db`) read as the `imports.memos.MemosDatabase` port: SQLite
opened read-only and immutable (`file:...?mode=ro&immutable=1`), so the file is never written,
locked or given a journal; checked with `PRAGMA quick_check` before a row is read, after a table
that computes a column (a stranger's expression SQLite runs per row) is refused, with CHECK
constraints never evaluated and no value longer than MAX_VALUE_BYTES.

The schema generation is read from the tables, following memos' published migrations:

- before 0.19: no `uid` nor `resource_name` (the row id names a memo), pins in `memo_organizer`,
  files in `resource`;
- 0.19-0.20: `memo.resource_name`; `resource` with `internal_path` / `external_link`;
- 0.21: `memo.uid`;
- 0.22-0.23: `memo.tags` (JSON) and `memo.payload` (its `tags` too); `resource.storage_type` /
  `reference` (DATABASE, LOCAL, EXTERNAL, S3);
- 0.24-0.25: `memo.pinned` (`memo_organizer` no longer read);
- 0.26 to 0.3x: the table `attachment` (was `resource`).

Where the folder is: the file's own folder (a path, or a folder holding it), or a ZIP of that
folder, whose database is copied to a temporary file (bounded) and whose files are read from the
ZIP. Local files (`LOCAL` storage, `internal_path`) are looked up inside that folder only: a
relative reference beside the database, an absolute one by its trailing components (the folder
moved), never through a symbolic link, never outside it, never a hidden file or folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from ...archive.bounded_zip import member_in
from ...attachments.uploads import MAX_FILE_BYTES
from ...imports.memos import AttachmentRow, MemosRow, MemosUser
from ...imports.plan import MAX_MEMOS, MAX_TEXT, SourceError, Unavailable
from ...imports.zipped import BoundedZip, open_zip
from ...kernel.i18n import Text
from ...kernel.messages import quoted

#: The largest database an import copies out of a ZIP.
MAX_DATABASE_BYTES = 4 * 1024 * 1024 * 1024
#: The longest value (text or blob) SQLite makes or hands back while a memos database is read:
#: an attachment's bytes (MAX_FILE_BYTES) with room to spare, so a blob memos kept is read as
#: before and is skipped by its size, never refused by SQLite.
MAX_VALUE_BYTES = 2 * MAX_FILE_BYTES
#: Content one import reads at most, in all (`plan.MAX_TEXT`; a content is read up to
#: the memo limit, 50,000 characters, so 100,000 rows could be five billion).
MAX_TEXT_CHARACTERS = MAX_TEXT
#: Relation and attachment rows one import reads at most (each table), three a memo: every row
#: read is held until the plan is made (a million tiny attachment rows took 540 MB), and an
#: account keeps at most 100,000 memo attachments anyway (`docs/security.md`).
MAX_ROWS = 3 * MAX_MEMOS
#: Names, paths and links of the attachment rows read at most, in all (characters): each is cut
#: (below), but a million rows of 8,192-character paths would be gigabytes (20,000 of them held
#: 210 MB). A real row's are some hundred characters; as many as an import's memo text.
MAX_FILE_ROW_CHARACTERS = MAX_TEXT
#: A file's name, type or uid, and a path or a link, read at most (characters): a name is cut
#: to 255 anyway, and no path or link of a real file is longer.
_NAME_CHARACTERS = 1024
_PATH_CHARACTERS = 8192
#: What a content over the limit keeps (`MemosRow.cut_from`): it is skipped, and only a link to
#: it from another memo uses its start (its first line). Holding the limit plus one of each such
#: row took 540 MB for 2,600 rows of emoji, all of them skipped.
_PREVIEW_CHARACTERS = 1024
_DATABASE_NAMES = ("memos_prod.db", "memos_dev.db", "memos_demo.db")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _leaves_the_folder(reference: str) -> Text:
    return Text("attachment path %(path)s leaves the database's folder", path=quoted(reference))


def _over_the_limit(size: int, limit: int) -> Text:
    return Text("%(size)s bytes, over the %(limit)s-byte limit per file", size=size, limit=limit)


class _Files:
    """The files beside the database: a folder on disk, or the members of a ZIP."""

    def __init__(self, folder: Path | None, archive: BoundedZip | None, prefix: str) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self.archive = archive
        self.prefix = prefix

    def _candidates(self, reference: str) -> list[str]:
        parts = [part for part in reference.replace("\\", "/").split("/") if part not in ("", ".")]
        if ".." in parts:
            raise SourceError(_leaves_the_folder(reference))
        if reference.replace("\\", "/").startswith("/") or (len(reference) > 1 and reference[1] == ":"):
            # An absolute path of the machine memos ran on: its trailing components, longest first.
            return ["/".join(parts[start:]) for start in range(len(parts))]
        return ["/".join(parts)] if parts else []

    def find(self, reference: str) -> tuple[str, int]:
        """(where, size) of the file a reference names; Unavailable when it is not there. Hidden
        files and folders (`.ssh/...`) are never read: memos keeps none, and the folder beside a
        stranger's database may be a home directory."""
        for candidate in self._candidates(reference):
            if any(part.startswith(".") for part in candidate.split("/")):
                continue
            if self.archive is not None:
                member = self.prefix + candidate
                if member in self.archive.members:
                    return member, self.archive.size(member)
            elif self.folder is not None:
                path = self.folder / candidate
                found = self._inside(path, reference)
                if found is not None:
                    return str(found), found.stat().st_size
        raise Unavailable(Text("its file %(path)s is not in the database's folder", path=quoted(reference)))

    def _inside(self, path: Path, reference: str) -> Path | None:
        assert self.folder is not None
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode) or os.path.realpath(path) != os.path.abspath(path):
            raise SourceError(
                Text(
                    "attachment file %(path)s is reached through a symbolic link; links are not followed",
                    path=quoted(reference),
                )
            )
        if not stat.S_ISREG(info.st_mode):
            return None
        if not os.path.abspath(path).startswith(str(self.folder) + os.sep):
            raise SourceError(_leaves_the_folder(reference))
        return path

    def read(self, where: str, limit: int, reference: str) -> bytes:
        """The bytes at `where` (what `find` gave); refusals name the file by the database's
        `reference`, never by the server's path."""
        if self.archive is not None:
            return self.archive.read(where, limit)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            handle = os.open(where, flags)
            with os.fdopen(handle, "rb") as file:
                data = file.read(limit + 1)
        except OSError as error:
            raise SourceError(
                Text(
                    "attachment file %(path)s cannot be read; check that MeSQ may read the database's"
                    " folder, then import again",
                    path=quoted(reference),
                ),
                detail=f"{type(error).__name__}: {error}",
            ) from None
        if len(data) > limit:
            raise SourceError(
                Text(
                    "attachment file %(path)s grew past %(limit)s bytes while importing",
                    path=quoted(reference),
                    limit=limit,
                )
            )
        return data


def _not_sqlite(label: str | Text) -> Text:
    return Text(
        "%(file)s is not a memos database: it is not a SQLite file at all. Pick memos_prod.db in"
        " memos' data folder (or a ZIP of that folder) and import it",
        file=label,
    )


def _damaged(label: str | Text) -> Text:
    return Text(
        "%(file)s is a damaged database: parts of it cannot be read. Stop memos, copy memos_prod.db"
        " again (a copy made while memos writes, or cut short, is damaged) and import the new copy",
        file=label,
    )


def _not_memos_tables(label: str | Text) -> Text:
    return Text(
        "%(file)s is a SQLite database, but its tables are not the ones memos keeps; check it is"
        " memos' own memos_prod.db",
        file=label,
    )


def _refused(error: sqlite3.Error, label: str | Text, reading: bool) -> SourceError:
    """SQLite's fault as MeSQ's words of what is wrong with the file and what to do; SQLite's own
    text (English, sometimes a path) goes to the server's log only (`SourceError.detail`).
    `reading`: the schema was read already (a fault now is a table not laid out as memos')."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_NOTADB":
        words = _not_sqlite(label)
    elif name == "SQLITE_CORRUPT" or not reading:
        words = _damaged(label)
    else:
        words = _not_memos_tables(label)
    return SourceError(words, detail=f"sqlite3 {name or type(error).__name__}: {error}")


class MemosSqlite:
    """The `MemosDatabase` port over one memos SQLite file (see the module's table)."""

    def __init__(self, database: Path, files: _Files, label: str | Text) -> None:
        self.label = label
        uri = f"{database.resolve().as_uri()}?mode=ro&immutable=1"
        try:
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as error:
            raise _refused(error, label, reading=False) from None
        try:
            self._db.execute("PRAGMA query_only = 1")
            # A stranger's schema holds expressions SQLite runs. A generated column (memos has
            # none) is computed for every row quick_check reads: `printf('%.*c', 900000000, 'x')`
            # made 900 MB and a second of CPU a row, from a 45 KB file. Refused before any row is read;
            self._refuse_generated_columns()
            # CHECK constraints (memos' are `IN (...)` lists) are not data: never evaluated; and
            # no value SQLite makes may be longer than an attachment may be.
            self._db.execute("PRAGMA ignore_check_constraints = 1")
            self._db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            checked = self._db.execute("PRAGMA quick_check").fetchone()
        except sqlite3.Error as error:
            self._db.close()
            raise _refused(error, label, reading=False) from None
        except SourceError:
            self._db.close()
            raise
        if checked is None or checked[0] != "ok":
            self._db.close()
            # quick_check's lines name the damaged pages: for the log, not for the person.
            raise SourceError(_damaged(label), detail=f"quick_check: {checked[0] if checked else 'no answer'}")
        self.files = files
        # memos (Go) stores any bytes as TEXT: a memo cut mid-character must not refuse the database
        self._db.text_factory = _lenient_text
        self._detect()

    # -- the schema -----------------------------------------------------------------------------

    def _refuse_generated_columns(self) -> None:
        """SourceError when a table computes a column (`GENERATED ALWAYS AS`): memos writes none,
        and SQLite would evaluate a stranger's expression for every row quick_check or a query reads."""
        tables = [row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            # table_xinfo's last field: 2 and 3 mark a generated column (virtual, stored)
            if any(row[-1] in (2, 3) for row in self._db.execute(f"PRAGMA table_xinfo({_quoted(str(table))})")):
                raise SourceError(
                    Text(
                        "%(file)s: table %(table)s computes a column (GENERATED ALWAYS AS); memos' own"
                        " database has none, so this file is not memos' memos_prod.db",
                        file=self.label,
                        table=quoted(str(table)),
                    )
                )

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._query(f"PRAGMA table_info({_quoted(table)})")}

    def _query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        try:
            return list(self._db.execute(sql, args))
        except sqlite3.Error as error:
            raise _refused(error, self.label, reading=True) from None

    def _bounded(self, read: int, table: str) -> None:
        if read >= MAX_ROWS:
            shown = f"{MAX_ROWS:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
            raise SourceError(
                Text(
                    "%(file)s: over %(limit)s rows in its %(table)s table, more than one import takes",
                    file=self.label,
                    limit=shown,
                    table=table,
                )
            )

    def _each(self, sql: str) -> Iterator[tuple[Any, ...]]:
        """The rows one at a time (a caller counting them stops before the rest are read)."""
        try:
            cursor = self._db.execute(sql)
            while batch := cursor.fetchmany(256):
                yield from batch
        except sqlite3.Error as error:
            raise _refused(error, self.label, reading=True) from None

    def _one(self, sql: str, *params: Any) -> tuple[Any, ...]:
        try:
            return tuple(self._db.execute(sql, params).fetchone())
        except sqlite3.Error as error:
            raise _refused(error, self.label, reading=True) from None

    def _detect(self) -> None:
        tables = {row[0] for row in self._query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        memo = self._columns("memo") if "memo" in tables else set()
        if not {"id", "creator_id", "created_ts", "content", "row_status"} <= memo or "user" not in tables:
            raise SourceError(
                Text("%(file)s: not a memos database (no memo table with memos' columns)", file=self.label)
            )
        self.memo_columns = memo
        self.id_column = "uid" if "uid" in memo else "resource_name" if "resource_name" in memo else None
        self.organizer = "memo_organizer" in tables
        self.attachment_table = "attachment" if "attachment" in tables else "resource" if "resource" in tables else None
        self.attachment_columns = self._columns(self.attachment_table) if self.attachment_table else set()
        if self.attachment_table == "attachment":
            self.generation = "0.26 or later"
        elif "pinned" in memo:
            self.generation = "0.24-0.25"
        elif "payload" in memo or "tags" in memo:
            self.generation = "0.22-0.23"
        elif "uid" in memo:
            self.generation = "0.21"
        elif "resource_name" in memo:
            self.generation = "0.19-0.20"
        else:
            self.generation = "before 0.19"

    # -- rows -----------------------------------------------------------------------------------

    def users(self) -> list[MemosUser]:
        counts = dict(self._query("SELECT creator_id, COUNT(*) FROM memo GROUP BY creator_id"))
        return [
            MemosUser(_number(ident, self.label, "user.id"), str(name), int(counts.get(ident, 0)))
            for ident, name in self._query("SELECT id, username FROM user ORDER BY id")
        ]

    def memos(self, characters: int) -> list[MemosRow]:
        memo = self.memo_columns
        # A content's start only: text by characters; memos' bytes kept as a blob by bytes, four
        # a character (the most UTF-8 takes), so a blob cut there is past `characters` decoded too.
        start = f"CASE WHEN typeof(content) = 'blob' THEN substr(content, 1, {4 * int(characters)})" \
                f" ELSE substr(content, 1, {int(characters)}) END"  # fmt: skip
        pick = [
            "id",
            f"substr({_quoted(self.id_column)}, 1, {_NAME_CHARACTERS})" if self.id_column else "CAST(id AS TEXT)",
            "creator_id",
            "created_ts",
            "updated_ts" if "updated_ts" in memo else "created_ts",
            "row_status",
            start,
            "visibility" if "visibility" in memo else "'PRIVATE'",
            "pinned" if "pinned" in memo else "0",
            "tags" if "tags" in memo else "'[]'",
            "payload" if "payload" in memo else "'{}'",
            f"CAST({start} AS BLOB)",  # the bytes, to tell a content that is not UTF-8 (read with U+FFFD)
            f"CASE WHEN length(content) > length({start}) THEN length(CAST(content AS TEXT)) END",
        ]
        pinned: set[tuple[int, int]] = set()
        if "pinned" not in memo and self.organizer:
            pinned = {
                (_number(m, self.label, "memo_organizer.memo_id"), _number(u, self.label, "memo_organizer.user_id"))
                for m, u in self._query("SELECT memo_id, user_id FROM memo_organizer WHERE pinned = 1")
            }
        rows: list[MemosRow] = []
        held = 0  # characters of content kept in `rows`
        # The rowids in order first, then each row by its rowid: SQLite sorts whole result rows in
        # memory, and sorting the contents with it held 535 MB for 2,600 rows of 50,001 emoji.
        # Column names from the fixed list above (never from the file's data): not an injection.
        one = f"SELECT {', '.join(pick)} FROM memo WHERE rowid = ?"  # noqa: S608
        for (rowid,) in self._each("SELECT rowid FROM memo ORDER BY created_ts, id"):
            if len(rows) >= MAX_MEMOS:
                shown = f"{MAX_MEMOS:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
                raise SourceError(
                    Text(
                        "%(file)s: over %(limit)s memos (of all its users), more than one import takes",
                        file=self.label,
                        limit=shown,
                    )
                )
            row = self._one(one, rowid)
            ident, uid, creator, created, updated, status, content, visibility, pin, tags, payload, raw, whole = row
            text = _lenient_text(content) if isinstance(content, bytes) else str(content or "")
            cut_from = _integer(whole, self.label) if whole is not None else None
            if cut_from is None and len(text) >= characters:  # whole, but as long as the caller's cut
                cut_from = len(text)
            if cut_from is not None:  # to be skipped as too long: only its start is kept
                text = text[:_PREVIEW_CHARACTERS]
            held += len(text)
            if held > MAX_TEXT_CHARACTERS:
                shown = f"{MAX_TEXT_CHARACTERS:,}"  # (outside the Text call, for Babel)
                raise SourceError(
                    Text(
                        "%(file)s: its memos hold over %(limit)s characters, more than one import takes",
                        file=self.label,
                        limit=shown,
                    )
                )
            ident, creator = _number(ident, self.label, "memo.id"), _number(creator, self.label, "memo.creator_id")
            rows.append(
                MemosRow(
                    id=ident,
                    uid=str(uid),
                    creator_id=creator,
                    created_ts=_integer(created, self.label),
                    updated_ts=_integer(updated, self.label),
                    row_status=str(status),
                    content=text,
                    visibility=str(visibility or "PRIVATE"),
                    pinned=bool(pin) or (ident, creator) in pinned,
                    tags=tuple(_json_tags(tags)) + tuple(_json_tags(payload, "tags")),
                    not_utf8=isinstance(raw, bytes) and not _is_utf8(raw),
                    cut_from=cut_from,
                )
            )
        return rows

    def relations(self) -> list[tuple[int, int, str]]:
        if "memo_relation" not in {row[0] for row in self._query("SELECT name FROM sqlite_master WHERE type='table'")}:
            return []
        found: list[tuple[int, int, str]] = []
        for a, b, kind in self._each(
            f"SELECT memo_id, related_memo_id, substr(type, 1, {_NAME_CHARACTERS}) FROM memo_relation"  # noqa: S608 (a constant number)
        ):
            self._bounded(len(found), "memo_relation")
            memo_id = _number(a, self.label, "memo_relation.memo_id")
            found.append((memo_id, _number(b, self.label, "memo_relation.related_memo_id"), str(kind)))
        return found

    def attachments(self) -> list[AttachmentRow]:
        if not self.attachment_table:
            return []
        columns = self.attachment_columns
        uid = "uid" if "uid" in columns else "resource_name" if "resource_name" in columns else "CAST(id AS TEXT)"
        storage = "storage_type" if "storage_type" in columns else "''"
        # Texts read as far as a name, a path or a link can use (a row's text may be 200 MiB).
        reference = f"substr(reference, 1, {_PATH_CHARACTERS})" if "reference" in columns else "''"
        internal = f"substr(internal_path, 1, {_PATH_CHARACTERS})" if "internal_path" in columns else "''"
        external = f"substr(external_link, 1, {_PATH_CHARACTERS})" if "external_link" in columns else "''"
        creator = "creator_id" if "creator_id" in columns else "NULL"
        # Names from the detected schema (fixed words), never from row data: not an injection.
        picked = (
            f"id, substr({uid}, 1, {_NAME_CHARACTERS}), memo_id, substr(filename, 1, {_NAME_CHARACTERS}),"
            f" substr(type, 1, {_NAME_CHARACTERS}), size, substr({storage}, 1, {_NAME_CHARACTERS}), {reference},"
            f" {internal}, {external}, {creator}"
        )
        sql = f"SELECT {picked}, blob IS NOT NULL FROM {_quoted(self.attachment_table)} ORDER BY id"  # noqa: S608
        found: list[AttachmentRow] = []
        held = 0  # characters of names, paths and links kept in `found`
        for (
            ident,
            ref_id,
            memo_id,
            name,
            kind,
            size,
            store,
            ref,
            internal_path,
            link,
            creator_id,
            has_blob,
        ) in self._each(sql):
            self._bounded(len(found), "attachment")
            held += sum(len(str(text or "")) for text in (ref_id, name, kind, store, ref, internal_path, link))
            if held > MAX_FILE_ROW_CHARACTERS:
                shown = f"{MAX_FILE_ROW_CHARACTERS:,}"  # (outside the Text call, for Babel)
                raise SourceError(
                    Text(
                        "%(file)s: its file rows hold over %(limit)s characters of names and paths, more than one"
                        " import takes",
                        file=self.label,
                        limit=shown,
                    )
                )
            store = (
                str(store or "").upper().removeprefix("ATTACHMENT_STORAGE_TYPE_").removeprefix("RESOURCE_STORAGE_TYPE_")
            )
            if store in ("", "UNSPECIFIED"):
                if internal_path:
                    store, ref = "LOCAL", internal_path
                elif link:
                    store, ref = "EXTERNAL", link
                else:
                    store = "DATABASE"
            if store == "DATABASE" and not has_blob:
                store = "MISSING"
            found.append(
                AttachmentRow(
                    id=_number(ident, self.label, "attachment.id"),
                    uid=str(ref_id),
                    memo_id=None if memo_id is None else _number(memo_id, self.label, "attachment.memo_id"),
                    filename=str(name or ""),
                    type=str(kind or ""),
                    size=_number(size or 0, self.label, "attachment.size"),
                    storage=store,
                    reference=str(ref or ""),
                    creator_id=None if creator_id is None else _number(creator_id, self.label, "attachment.creator_id"),
                )
            )
        return found

    # -- bytes ----------------------------------------------------------------------------------

    def _blob(self, attachment: AttachmentRow, limit: int) -> bytes:
        table = _quoted(self.attachment_table or "resource")
        # CAST: a blob stored as TEXT counts and reads as its bytes (length() would count characters)
        length = self._query(f"SELECT length(CAST(blob AS BLOB)) FROM {table} WHERE id = ?", attachment.id)  # noqa: S608
        if not length or length[0][0] is None:
            raise Unavailable(Text("its bytes are not in the database"))
        if int(length[0][0]) > limit:
            raise Unavailable(_over_the_limit(int(length[0][0]), limit))
        data = self._query(f"SELECT CAST(blob AS BLOB) FROM {table} WHERE id = ?", attachment.id)[0][0]  # noqa: S608
        return bytes(data)

    def _bytes(self, attachment: AttachmentRow, limit: int) -> bytes:
        if attachment.storage == "DATABASE":
            return self._blob(attachment, limit)
        if attachment.storage == "LOCAL":
            where, size = self.files.find(attachment.reference)
            if size > limit:
                raise Unavailable(_over_the_limit(size, limit))
            return self.files.read(where, limit, attachment.reference)
        raise Unavailable(Text("stored on %(storage)s", storage=attachment.storage))

    def checked_bytes(self, attachment: AttachmentRow, limit: int) -> tuple[int, str]:
        data = self._bytes(attachment, limit)
        return len(data), hashlib.sha256(data).hexdigest()

    def reader(self, attachment: AttachmentRow, limit: int) -> Callable[[], bytes]:
        return lambda: self._bytes(attachment, limit)

    def close(self) -> None:
        self._db.close()


def _lenient_text(data: bytes) -> str:
    """A TEXT value as str, bytes that are not UTF-8 as U+FFFD (SQLite's own decoding refuses them)."""
    return data.decode("utf-8", "replace")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _number(value: Any, label: str | Text, column: str) -> int:
    """An id or count column as the integer memos writes there; a stranger's file may hold text."""
    if isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        return int(value)
    raise SourceError(
        Text("%(file)s: %(column)s %(value)s is not a number", file=label, column=column, value=quoted(str(value)))
    )


def _integer(value: Any, label: str | Text) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SourceError(
            Text("%(file)s: a memo time %(value)s is not a number", file=label, value=quoted(value))
        ) from None


def _json_tags(raw: Any, key: str | None = None) -> list[str]:
    """Tags from memos' JSON fields; a field that is not JSON holds none (memos would not read it)."""
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else None
    except ValueError:
        return []
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    return (
        [str(tag).strip().lstrip("#") for tag in value if isinstance(tag, str | int)] if isinstance(value, list) else []
    )


def _database_in(folder: Path) -> Path:
    for name in _DATABASE_NAMES:
        if (folder / name).is_file():
            return folder / name
    found = sorted(folder.glob("*.db"))
    if len(found) == 1:
        return found[0]
    raise SourceError(Text("%(folder)s: no memos database (memos_prod.db) in this folder", folder=folder.name))


def _no_pending_wal(database: Path) -> None:
    """Read immutable, SQLite never looks at a write-ahead log: memos' latest changes may still sit
    in `memos_prod.db-wal`, so an import would silently miss them. Refuse instead."""
    wal = database.with_name(database.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise SourceError(_pending_wal(wal.name, database.name))


def _pending_wal(wal: str, database: str) -> Text:
    return Text(
        "%(wal)s holds changes not yet in %(database)s: stop memos first (it folds them in when it stops), then import",
        wal=wal,
        database=database,
    )


@contextlib.contextmanager
def open_memos_database(path: Path, label: str | None = None) -> Iterator[MemosSqlite]:
    """The database at `path`: a `.db` file, a folder holding `memos_prod.db`, or a ZIP of that
    folder. `label` names the file in refusals (an upload's own name; the path's by default)."""
    if path.is_dir():
        database = _database_in(path)
        _no_pending_wal(database)
        opened = MemosSqlite(database, _Files(database.parent, None, ""), database.name)
    else:
        with path.open("rb") as handle:
            is_zip = handle.read(4) == b"PK\x03\x04"
        if not is_zip:
            _no_pending_wal(path)
            opened = MemosSqlite(path, _Files(path.parent, None, ""), label or path.name)
        else:
            with _from_zip(path, label or path.name) as opened_from_zip:
                yield opened_from_zip
            return
    try:
        yield opened
    finally:
        opened.close()


@contextlib.contextmanager
def _from_zip(path: Path, label: str) -> Iterator[MemosSqlite]:
    archive = open_zip(path, label)
    try:
        members = [name for name in archive.names() if PurePosixPath(name).name in _DATABASE_NAMES]
        if not members:  # another app's export, or notes: say what to pick, and where notes go
            raise SourceError(
                Text(
                    "%(file)s: no memos_prod.db in this ZIP. Import memos_prod.db from memos' data folder (or"
                    " a ZIP of that folder); a ZIP of Markdown notes goes to Settings → Import → A ZIP of"
                    " Markdown notes",
                    file=label,
                )
            )
        if len(members) != 1:
            raise SourceError(
                Text(
                    "%(file)s: a ZIP of memos' folder holds one memos_prod.db (%(count)s found)",
                    file=label,
                    count=len(members),
                )
            )
        member = members[0]
        if archive.size(member) > MAX_DATABASE_BYTES:
            raise SourceError(
                Text("%(file)s: the database is over %(limit)s bytes", file=label, limit=MAX_DATABASE_BYTES)
            )
        wal = member + "-wal"  # memos runs SQLite in WAL mode: a ZIP of a running memos' folder holds one
        if wal in archive.members and archive.size(wal) > 0:
            raise SourceError(_pending_wal(PurePosixPath(wal).name, PurePosixPath(member).name))
        prefix = member[: -len(PurePosixPath(member).name)]
        with tempfile.TemporaryDirectory(prefix="mesq-memos-") as folder:
            copy = Path(folder) / "memos.db"
            with copy.open("wb") as target:
                archive.copy(member, target, MAX_DATABASE_BYTES)
            opened = MemosSqlite(copy, _Files(None, archive, prefix), member_in(label, member))
            try:
                yield opened
            finally:
                opened.close()
    finally:
        archive.close()
