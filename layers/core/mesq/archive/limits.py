"""The caps every import reads a stranger's file under (docs/security.md "Imports").

An upload is a stranger's file: a 1 MB ZIP can claim gigabytes, a manifest can be all of memory,
one JSON line can be the whole file, a YAML note can expand to gigabytes by aliases. Every reader
of an import (`bounded_zip.BoundedZip`, the account importer, the Markdown importer and the
importers of other apps' exports) checks these before it holds or writes what they bound, and
refuses with `CapExceeded`: one line naming the cap, its value and where it was hit.

`ZipCaps` bundles the ZIP-level caps; `ARCHIVE_ZIP` and `NOTES_ZIP` are the two readers' sets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..history.records import CHANGE_PREFIX
from ..kernel.i18n import N_, Text
from ..memos.keys import MEMO_PREFIX
from ..reading.keys import BOOK_PREFIX, NOTE_PREFIX
from ..todos.keys import PREFIX as TODO_PREFIX
from .format import MAX_LINE_BYTES, MEMO_FILES, TODO_FILES, ArchiveError

KIB, MIB, GIB = 1024, 1024**2, 1024**3


#: The caps' names as a refusal says them, in the catalog so that a page says them in its
#: reader's language (a name not listed stays English).
CAP_NAMES = (
    N_("member count"), N_("central directory size"), N_("total uncompressed size"), N_("member size"),
    N_("compression ratio"), N_("member name length"), N_("line length"), N_("manifest size"),
    N_("attachments per archive"), N_("records per archive"), N_("records of the target account"),
    N_("memos per archive"), N_("todo records per archive"), N_("books per archive"),
    N_("reading notes per archive"), N_("history entries per archive"),
)  # fmt: skip


class CapExceeded(ArchiveError):
    """A cap of an import was reached: `cap` names it (as docs/security.md does)."""

    def __init__(self, cap: str, limit: int, where: str | Text, what: str | Text = "") -> None:
        shown = f"{limit:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
        if what:
            text = Text("%(where)s: over the %(cap)s cap of %(limit)s: %(what)s",
                        where=where, cap=Text(cap), limit=shown, what=what)  # fmt: skip
        else:
            text = Text("%(where)s: over the %(cap)s cap of %(limit)s", where=where, cap=Text(cap), limit=shown)
        super().__init__(text)
        self.cap = cap
        self.limit = limit


@dataclass(frozen=True)
class ZipCaps:
    """The caps of one ZIP reader (see docs/security.md for each value's reason)."""

    #: Entries in the central directory (counted as they are read, not as the end record says).
    members: int = 300_000
    #: Bytes of the central directory: it is read in a stream, but its size bounds the walk.
    directory_bytes: int = 64 * MIB
    #: Uncompressed bytes of all members together, as their entries declare them (and as they
    #: are read: a member that inflates past its declared size is refused).
    total_bytes: int = 8 * GIB
    #: Uncompressed bytes of any one member.
    member_bytes: int = 2 * GIB
    #: Uncompressed size over compressed size of one member, checked for members over
    #: `ratio_floor` bytes (a tiny member may compress to a few bytes).
    ratio: int = 200
    ratio_floor: int = 1 * MIB
    #: Bytes of one member's name.
    name_bytes: int = 1024


#: The account archive (archive/importer.py): an account of 100k memos with their Markdown pages
#: and attachments is ~200k members.
ARCHIVE_ZIP = ZipCaps()
#: A ZIP of Markdown notes (archive/markdown_import.py): the reader keeps one small entry per file.
NOTES_ZIP = ZipCaps(members=100_000, total_bytes=4 * GIB)

#: Members under `attachments/` (and version 1's `blobs/`): each is indexed, with its manifest entry (~0.5 KB), until
#: the records say which are used.
ATTACHMENTS = 100_000
#: `manifest.json`: read as a stream (`ijson`), keeping only the entries an import uses.
MANIFEST_BYTES = 48 * MIB
#: One line of `records.jsonl`, checked before the line is held (a DynamoDB item is at most 400 KB).
LINE_BYTES = MAX_LINE_BYTES
#: Records of one archive in all, and per kind (sort-key prefix): they bound an import's time
#: and its counter rebuild. Derived kinds (counters, reminder index) are not imported at all.
RECORDS_TOTAL = 3_000_000
RECORDS_PER_KIND: dict[str, int] = {
    MEMO_PREFIX: 500_000,
    MEMO_FILES: 100_000,
    TODO_FILES: 100_000,
    TODO_PREFIX: 500_000,
    BOOK_PREFIX: 5_000,
    NOTE_PREFIX: 1_000_000,
    CHANGE_PREFIX: 2_000_000,
}
#: The account's own records an import compares with the archive (a non-empty target account).
OWN_RECORDS = 200_000
#: YAML front matter (archive/markdown_import.py): aliases are refused outright; these bound the rest.
FRONT_MATTER_BYTES = 64 * KIB
FRONT_MATTER_DEPTH = 20


def kind_of(sk: str) -> str:
    """The RECORDS_PER_KIND key of a sort key ("" for a kind without a cap of its own)."""
    return next((prefix for prefix in RECORDS_PER_KIND if sk.startswith(prefix)), "")


__all__ = [
    "ARCHIVE_ZIP",
    "ATTACHMENTS",
    "FRONT_MATTER_BYTES",
    "FRONT_MATTER_DEPTH",
    "LINE_BYTES",
    "MANIFEST_BYTES",
    "NOTES_ZIP",
    "OWN_RECORDS",
    "RECORDS_PER_KIND",
    "RECORDS_TOTAL",
    "CapExceeded",
    "ZipCaps",
    "kind_of",
]
