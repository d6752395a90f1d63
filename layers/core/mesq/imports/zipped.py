"""A stranger's ZIP file, read within bounds (flomo's export, a ZIP of Todoist CSVs, memos' files).

`open_zip(path)` reads the central directory through the account archive's reader
(`archive/bounded_zip.py`: a stream, each entry checked before the next is read, so a directory of
a million entries is refused before it is held), under IMPORT_ZIP's caps, and refuses, with one
line and before anything is read from a member:
- a bomb: more members, more bytes once unpacked (as the entries declare them), or a member over
  the ratio (past 1 MiB) than the caps allow, or members whose packed data overlap (one
  compressed stream counted many times);
- a member name that leaves the archive (`../x`, `/etc/x`, `C:\\x`, a NUL) or a symbolic link;
- two members of the same name (a reader would keep one and drop the other unsaid);
- an encrypted member, or a compression other than stored and deflated.
`read(name, limit)` then never returns more than the member declared (the reader stops there and
checks the CRC) nor more than `limit`. Every refusal is a `SourceError`.

Names are read as they were written: UTF-8 (marked or not), or GB18030 when every unmarked name
past ASCII is Chinese in it (a ZIP made on Chinese Windows), else cp437 (`_named_as_written`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import posixpath
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..archive.bounded_zip import CHUNK, Member, member_in
from ..archive.bounded_zip import BoundedZip as ZipReader
from ..archive.format import ArchiveError
from ..archive.limits import GIB, CapExceeded, ZipCaps
from ..kernel.cjk_text import CJK_CHARS
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from .plan import SourceError

#: An export of another app: as many members as a ZIP of Markdown notes, up to 8 GiB unpacked.
IMPORT_ZIP = ZipCaps(members=100_000, total_bytes=8 * GIB)
#: The caps a bomb trips (the name's length is only a malformed entry).
_BOMB_CAPS = frozenset({"member count", "central directory size", "total uncompressed size", "member size",
                        "compression ratio"})  # fmt: skip
_DRIVE = re.compile(r"^[A-Za-z]:")
#: What a Chinese name in GBK holds past ASCII: CJK text and punctuation, the middle dot (GBK's
#: A1A4) and General Punctuation's quotes, dashes and ellipsis.
_CHINESE = re.compile(f"[{CJK_CHARS}\u00b7\u2010-\u2027]")


@contextmanager
def _refused_as_source_errors(reading_member: bool = False) -> Iterator[None]:
    """The archive reader's refusals as one-line `SourceError`s (a bomb says it may be one), their
    words kept as the reader wrote them (a page says them in its reader's language)."""
    try:
        yield
    except CapExceeded as error:
        raise SourceError(
            Text("%(refusal)s (a ZIP bomb?)", refusal=error.text) if error.cap in _BOMB_CAPS else error.text
        ) from None
    except ArchiveError as error:
        if reading_member:  # the reader's words name the file and the member already; say what to do
            raise SourceError(
                Text("%(refusal)s. The ZIP is damaged: download or copy the export again", refusal=error.text),
                detail=error.detail,
            ) from None
        raise SourceError(error.text, detail=error.detail) from None


class BoundedZip:
    """The members of a sound ZIP by normalised POSIX name (folders left out)."""

    def __init__(self, reader: ZipReader, label: str) -> None:
        self.reader = reader
        self.label = label
        self.members: dict[str, Member] = {}
        listed: list[Member] = []
        with _refused_as_source_errors():
            entries = list(reader.members())  # the caps checked entry by entry as it is walked
            for member in _named_as_written(entries):
                name = _checked_name(member.name, label)
                if stat.S_ISLNK(member.mode):
                    raise SourceError(
                        Text(
                            "%(file)s: member %(member)s is a symbolic link; links are not imported",
                            file=label,
                            member=quoted(member.name),
                        )
                    )
                listed.append(member)
                if not member.name.endswith("/"):
                    if name in self.members:  # which of the two is the file? Neither is guessed
                        raise SourceError(
                            Text("%(file)s: two members named %(member)s", file=label, member=quoted(name))
                        )
                    self.members[name] = member
        _refuse_overlaps(listed, label)

    def names(self) -> list[str]:
        return sorted(self.members)

    def size(self, name: str) -> int:
        return self.members[name].size

    def read(self, name: str, limit: int) -> bytes:
        return b"".join(self._chunks(name, limit))

    def digest(self, name: str, limit: int) -> tuple[int, str]:
        """(size, SHA-256) of a member, read through once in chunks (its bytes are not kept)."""
        hashed, size = hashlib.sha256(), 0
        for chunk in self._chunks(name, limit):
            size += len(chunk)
            hashed.update(chunk)
        return size, hashed.hexdigest()

    def copy(self, name: str, target: BinaryIO, limit: int) -> None:
        """Write a member to `target` in chunks (a database an importer opens from a file)."""
        for chunk in self._chunks(name, limit):
            target.write(chunk)

    def _chunks(self, name: str, limit: int) -> Iterator[bytes]:
        member = self.members[name]
        if member.size > limit:
            raise SourceError(
                Text(
                    "%(where)s is %(size)s bytes, over the %(limit)s read for it",
                    where=member_in(self.label, name),
                    size=member.size,
                    limit=limit,
                )
            )
        with _refused_as_source_errors(reading_member=True), self.reader.open(member) as data:
            while chunk := data.read(CHUNK):
                yield chunk

    def close(self) -> None:
        self.reader.close()


def _named_as_written(members: list[Member]) -> list[Member]:
    """The members with their names in GB18030 when the archive's legacy names are (`_gb18030`):
    Explorer's "Send to > Compressed folder" on Chinese Windows, and older 7-Zip and WinRAR, write
    names in the system's code page (GBK) without the UTF-8 mark, where cp437 read 截图.png as
    `╜╪═╝.png` (a flomo card's picture "not in the export", a Todoist project's space in mojibake).
    The archive is read one way: when every name read as cp437 with a byte past ASCII is GB18030
    and Chinese text (`_gb18030`), all of them are; else none (a Western cp437 name such as
    `café.txt`, whose bytes are no GB18030, keeps the archive in cp437 as before)."""
    legacy = [member for member in members if member.legacy_name]
    names = {member.name: _gb18030(member.name.encode("cp437")) for member in legacy}
    if not legacy or None in names.values():
        return members
    return [
        dataclasses.replace(member, name=names[member.name] or member.name, legacy_name=False)
        if member.legacy_name
        else member
        for member in members
    ]


def _gb18030(raw: bytes) -> str | None:
    """`raw` as GB18030 when it is that and reads as Chinese: every character past ASCII CJK (or
    the middle dot and the General Punctuation quotes and dashes GBK holds); None otherwise. GBK
    is GB18030's two-byte part, and the ASCII bytes it leaves alone include `\\` as a second byte
    (運 is 0xDF 0x5C): read before the name is split at `\\` or `/`."""
    try:
        name = raw.decode("gb18030")
    except UnicodeDecodeError:
        return None
    return name if all(ord(char) < 0x80 or _CHINESE.match(char) for char in name) else None


def _checked_name(raw: str, label: str) -> str:
    name = raw.replace("\\", "/")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if "\0" in name or name.startswith("/") or _DRIVE.match(name) or ".." in parts:
        raise SourceError(
            Text("%(file)s: member name %(member)s leaves the archive (path traversal)", file=label, member=quoted(raw))
        )
    return posixpath.join(*parts) if parts else ""


def _refuse_overlaps(members: list[Member], label: str) -> None:
    ordered = sorted(members, key=lambda member: member.offset)
    for first, second in itertools.pairwise(ordered):
        if first.offset + first.compressed > second.offset:
            raise SourceError(
                Text(
                    "%(file)s: members %(first)s and %(second)s overlap (a ZIP bomb?)",
                    file=label,
                    first=quoted(first.name),
                    second=quoted(second.name),
                )
            )


def open_zip(path: Path, label: str | None = None) -> BoundedZip:
    label = label or path.name
    with _refused_as_source_errors():
        reader = ZipReader(path, IMPORT_ZIP, label)
    try:
        return BoundedZip(reader, label)
    except BaseException:
        reader.close()
        raise
