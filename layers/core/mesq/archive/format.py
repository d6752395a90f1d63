"""The account archive's format (pure): which items of a user partition travel, how the owner's
id is carried, and the checks every record line passes before an import writes anything.

An archive is a ZIP file (docs/archive.md):

- `records.jsonl`: one stored item per line (`{"pk", "sk", ...}` exactly as the store holds it);
- `attachments/<memo|todo>/<attachment id>/<file name>`: the bytes of every attachment a record
  names, under the name its owner gave it (`attachment_member`; archives of version 1 held them
  at `blobs/<blob path>`, which an import still reads);
- `memos/<memoId>.md`: each memo as Markdown with YAML front matter (for people; import ignores it);
- `manifest.json`, written last: format, version, source owner, counts and a SHA-256 per file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..attachments import paths as attachment_paths
from ..attachments.store import USAGE_SK
from ..history.records import CHANGE_PREFIX
from ..kernel.i18n import N_, Text
from ..kernel.keys import user_partition
from ..kernel.messages import bounded_message
from ..memos.keys import MEMO_PREFIX, STATS_SK, TAG_PREFIX
from ..reading.keys import BOOK_PREFIX, NOTE_PREFIX
from ..todos.keys import PREFIX as TODO_PREFIX
from ..todos.reminder_schedule import INDEX_PREFIX as REMINDER_INDEX_PREFIX

FORMAT = "mesq-archive"
#: 2: the attachments under `attachments/`, named (1: at `blobs/<blob path>`, unnamed).
VERSION = 2
#: The versions an import reads: this one and every earlier one.
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
#: Where version 1 held the attachments (`blobs/<blob path>`); an import still reads it.
BLOB_DIR = "blobs/"
#: Where the attachments are (`attachments/<memo|todo>/<id>/<file name>`).
ATTACHMENT_DIR = "attachments/"
MEMO_DIR = "memos/"
#: The longest record line an import accepts (a DynamoDB item is at most 400 KB).
MAX_LINE_BYTES = 512 * 1024
#: How deeply a record's JSON may nest (an exported record nests a few levels; parsing and the
#: checks that walk a record recurse once per level, so a 100,000-deep line would exhaust the stack).
MAX_RECORD_DEPTH = 64

#: Sort-key prefixes of the user partition that an archive carries: the person's data and the
#: counters derived from it. Everything else stays: the profile, tokens and OAuth grants, sealed
#: reading credentials, reminder channels (webhook secrets), idempotency claims, upload sessions,
#: sync status and leases, the search index pointer (rebuilt from the records).
MEMO_FILES, TODO_FILES = attachment_paths.MEMO.record_prefix, attachment_paths.TODO.record_prefix
EXPORTED_PREFIXES = (
    MEMO_PREFIX,
    STATS_SK,
    TAG_PREFIX,
    MEMO_FILES,
    TODO_FILES,
    USAGE_SK,
    TODO_PREFIX,
    BOOK_PREFIX,
    NOTE_PREFIX,
    CHANGE_PREFIX,
    REMINDER_INDEX_PREFIX,
)
#: The read scope that covers each carried kind, for an export bounded by a credential's scopes
#: (REST `GET /api/toolkit/export`). Change records go by the kind of record they changed
#: (`history.records.FAMILY`: memo, else todo); the attachment usage counter counts memo and todo
#: files together, so it travels only when both are carried.
SCOPE_OF_PREFIX: Mapping[str, str] = {
    MEMO_PREFIX: "memo:read",
    STATS_SK: "memo:read",
    TAG_PREFIX: "memo:read",
    MEMO_FILES: "memo:read",
    TODO_FILES: "todo:read",
    TODO_PREFIX: "todo:read",
    REMINDER_INDEX_PREFIX: "todo:read",
    BOOK_PREFIX: "reading:read",
    NOTE_PREFIX: "reading:read",
}
USAGE_COUNTER = USAGE_SK
#: What an import says of a record whose kind no archive carries (never the record's key).
NOT_CARRIED = N_(
    "a kind of record an archive does not carry (was this archive written by `mesq export`, and left unedited?)"
)
#: Item attributes whose value is a blob path the archive carries the bytes of.
BLOB_KINDS = (MEMO_FILES, TODO_FILES)


class ArchiveError(Exception):
    """A bad archive, named by its first fault (file and line when there is one). `message` is
    the English (the command line's, REST's); `text` the same words for a page to say in its
    reader's language (a fault a person can meet is written as a `Text` template). `detail`: what
    a library said of it (json's "Expecting value: line 1 column 1", an OSError's text), for the
    server's log only, never answered."""

    def __init__(self, message: str | Text, *, detail: str = "") -> None:
        self.text = message if isinstance(message, Text) else Text(message)
        english = bounded_message(str(self.text))
        super().__init__(english)
        self.message = english
        self.detail = detail


def exported(sk: str) -> bool:
    return sk.startswith(EXPORTED_PREFIXES)


def covered_by(scopes: Collection[str]) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a carried item is one `scopes` may read (see SCOPE_OF_PREFIX)."""
    granted = frozenset(scopes)

    def covered(item: Mapping[str, Any]) -> bool:
        sk = str(item.get("sk", ""))
        if sk.startswith(CHANGE_PREFIX):
            family = "memo" if (item.get("record") or {}).get("kind") == "memo" else "todo"
            return f"{family}:read" in granted
        if sk == USAGE_COUNTER:
            return {"memo:read", "todo:read"} <= granted
        scope = next((scope for prefix, scope in SCOPE_OF_PREFIX.items() if sk.startswith(prefix)), None)
        return scope is not None and scope in granted

    return covered


def carries_blob(item: Mapping[str, Any]) -> bool:
    return str(item.get("sk", "")).startswith(BLOB_KINDS) and isinstance(item.get("path"), str)


#: The longest file name an attachment gets, in UTF-8 bytes: file systems take 255; the rest is
#: room for what a file manager adds to a copy (" (2)").
MAX_FILE_NAME_BYTES = 200
#: What no file name may hold on one system or another: a path separator, what Windows refuses
#: (`: * ? " < > |`), control characters.
_NOT_IN_A_FILE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
#: Names Windows keeps for devices, with or without an extension (`CON.txt` is the console too),
#: and with spaces before it (`CON .txt`): the digits 0-9 and the superscripts 1-3, and the
#: console's input and output.
_PORTS = [f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789¹²³"]
_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", *_PORTS})
#: An extension: a dot, then letters and digits, at the end of a name.
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,10}$")
#: The extension a file without one gets from its type (a table of its own, not the system's
#: `mimetypes`, so a name never depends on the machine that wrote the archive).
EXTENSIONS: Mapping[str, str] = {
    "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/heic": ".heic",
    "image/heif": ".heif", "image/avif": ".avif", "image/svg+xml": ".svg", "image/bmp": ".bmp", "image/tiff": ".tif",
    "application/pdf": ".pdf", "text/plain": ".txt", "text/markdown": ".md", "text/csv": ".csv", "text/html": ".html",
    "application/json": ".json", "application/zip": ".zip", "audio/mpeg": ".mp3", "audio/mp4": ".m4a",
    "audio/x-m4a": ".m4a", "audio/wav": ".wav", "audio/ogg": ".ogg", "audio/webm": ".weba", "video/mp4": ".mp4",
    "video/quicktime": ".mov", "video/webm": ".webm", "application/msword": ".doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.ms-excel": ".xls", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.ms-powerpoint": ".ppt",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}  # fmt: skip


def attachment_file_name(display_name: Any, mime_type: Any) -> str:
    """The file name an attachment has in an archive: its display name, made one name every
    file system takes (a separator, `: * ? " < > |` and control characters as `_`; no leading or
    trailing dot or space, which hide a file or are dropped by Windows; `_` before a Windows
    device name; at most MAX_FILE_NAME_BYTES, the extension kept) and, when it has no extension,
    its type's (`scan` + image/png: `scan.png`), so a double click opens it. `attachment` when
    nothing is left. A function of the record alone: every export of it says the same."""
    name = _NOT_IN_A_FILE_NAME.sub("_", str(display_name or "")).strip(" .")
    found = _EXTENSION.search(name)
    extension = found.group() if found else EXTENSIONS.get(str(mime_type or "").partition(";")[0].strip().lower(), "")
    stem = name[: found.start()] if found else name
    budget = MAX_FILE_NAME_BYTES - len(extension.encode())
    stem = _cut(stem, budget) or "attachment"
    # On the stem as it ends up: trimming it can make a device name (`CON .txt`: `CON.txt`).
    if stem.partition(".")[0].rstrip(" ").upper() in _DEVICES:
        stem = _cut("_" + stem, budget)
    return stem + extension


def _cut(stem: str, budget: int) -> str:
    """`stem` within `budget` UTF-8 bytes (a character is never split), no trailing dot or space."""
    return stem.encode()[:budget].decode("utf-8", "ignore").rstrip(" .")


def attachment_member(namespace: str, attachment_id: str, display_name: Any, mime_type: Any) -> str:
    """`attachments/memo/<id>/cat.png`: the archive member of an attachment's bytes, in a folder
    of its own id, so two files of one name never meet and the import finds it by the record."""
    return f"{ATTACHMENT_DIR}{namespace}/{attachment_id}/{attachment_file_name(display_name, mime_type)}"


def member_of(item: Mapping[str, Any]) -> str:
    """The archive member of an attachment record's bytes (`carries_blob`), from what it says."""
    namespace = (attachment_paths.MEMO if str(item["sk"]).startswith(MEMO_FILES) else attachment_paths.TODO).name
    return attachment_member(namespace, str(item.get("id")), item.get("displayName"), item.get("mimeType"))


def owner_markers(user_id: str) -> tuple[str, str]:
    """The two spellings of a user id inside stored values: its partition and its blob folder."""
    return user_partition(user_id), f"users/{user_id}/"


def rehome(value: Any, source: str, target: str) -> Any:
    """`value` with the source owner's partition and blob folder rewritten to the target's
    (every string, at any depth); unchanged when the owner is the same."""
    if source == target:
        return value
    old_pk, old_dir = owner_markers(source)
    new_pk, new_dir = owner_markers(target)
    old_quoted, new_quoted = old_dir.replace("/", "%2F"), new_dir.replace("/", "%2F")  # in read URLs

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return node.replace(old_dir, new_dir).replace(old_pk, new_pk).replace(old_quoted, new_quoted)
        if isinstance(node, list):
            return [walk(child) for child in node]
        if isinstance(node, dict):
            return {key: walk(child) for key, child in node.items()}
        return node

    return walk(value)


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in `value`, counted without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in node)
    return deepest


def _not_json(where: str | Text) -> Text:
    return Text(
        "%(where)s: not JSON; the archive was changed or cut short after MeSQ wrote it."
        " Export the account again and import the new archive",
        where=where,
    )


def parse_record(line: bytes, number: int, source: str) -> dict[str, Any]:
    """One `records.jsonl` line as an item of `source`'s partition, or ArchiveError naming it."""
    where = record_line(number)
    if len(line) > MAX_LINE_BYTES:
        raise ArchiveError(Text("%(where)s: longer than %(limit)s bytes", where=where, limit=MAX_LINE_BYTES))
    try:
        item = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(_not_json(where), detail=f"{type(error).__name__}: {error}") from None
    except RecursionError:  # deeper than the parser's stack: far past the cap
        raise ArchiveError(_too_deep(where)) from None
    if _depth(item) > MAX_RECORD_DEPTH:
        raise ArchiveError(_too_deep(where))
    if not isinstance(item, dict):
        raise ArchiveError(Text("%(where)s: not a JSON object", where=where))
    pk, sk = item.get("pk"), item.get("sk")
    if not isinstance(pk, str) or not isinstance(sk, str) or not sk:
        raise ArchiveError(Text("%(where)s: pk and sk must be strings", where=where))
    if pk != user_partition(source):
        raise ArchiveError(Text("%(where)s: a record of another account than the one the manifest names", where=where))
    if not exported(sk):
        raise ArchiveError(Text("%(where)s: %(reason)s", where=where, reason=Text(NOT_CARRIED)))
    return item


def record_line(number: int) -> Text:
    """`records.jsonl line 12`, where a fault of the records is."""
    return Text("%(file)s line %(line)s", file=RECORDS, line=number)


def _too_deep(where: Text) -> Text:
    return Text("%(where)s: nested deeper than %(limit)s levels", where=where, limit=MAX_RECORD_DEPTH)
