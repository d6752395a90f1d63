"""A stranger's ZIP file, read within bounds (flomo's export, a ZIP of Todoist CSVs).

`open_zip(path)` refuses, with one line and before anything is read from a member:
- a member name that leaves the archive (`../x`, `/etc/x`, `C:\\x`, a NUL) or a symbolic link;
- an encrypted member;
- a bomb: more than MAX_MEMBERS members, more than MAX_TOTAL_BYTES once unpacked (as the central
  directory declares it), a member over MAX_RATIO times its packed size (past 1 MiB), or members
  whose packed data overlap (one compressed stream counted many times).
`read(name, limit)` then never returns more than the member declared (zipfile stops there and
checks the CRC) nor more than `limit`.

This is the one place the importers open a ZIP: when archive/ offers its bounded reader
(issue 38), `open_zip` is where to point at it.
"""

from __future__ import annotations

import hashlib
import itertools
import posixpath
import re
import stat
import zipfile
from pathlib import Path

from ..kernel.messages import quoted
from .plan import SourceError

MAX_MEMBERS = 100_000
MAX_TOTAL_BYTES = 8 * 1024 * 1024 * 1024
MAX_RATIO = 200
_RATIO_FLOOR = 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
CHUNK_BYTES = 1 << 16


class BoundedZip:
    """The members of a sound ZIP by normalised POSIX name (folders left out)."""

    def __init__(self, archive: zipfile.ZipFile, label: str) -> None:
        self.archive = archive
        self.label = label
        self.members: dict[str, zipfile.ZipInfo] = {}
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise SourceError(f"{label}: {len(infos)} members, over the {MAX_MEMBERS} an import reads (a ZIP bomb?)")
        total = 0
        for info in infos:
            name = _checked_name(info.filename, label)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise SourceError(f"{label}: member {quoted(info.filename)} is a symbolic link; links are not imported")
            if info.flag_bits & 0x1:
                raise SourceError(f"{label}: member {quoted(info.filename)} is encrypted")
            total += info.file_size
            if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * max(1, info.compress_size):
                raise SourceError(
                    f"{label}: member {quoted(info.filename)} unpacks to {info.file_size} bytes"
                    f" from {info.compress_size}"
                    f" (over {MAX_RATIO}:1, a ZIP bomb?)"
                )
            if not info.is_dir():
                self.members[name] = info
        if total > MAX_TOTAL_BYTES:
            raise SourceError(f"{label}: unpacks to {total} bytes, over the {MAX_TOTAL_BYTES} an import reads")
        _refuse_overlaps(infos, label)

    def names(self) -> list[str]:
        return sorted(self.members)

    def size(self, name: str) -> int:
        return self.members[name].file_size

    def read(self, name: str, limit: int) -> bytes:
        info = self.members[name]
        if info.file_size > limit:
            raise SourceError(f"{self.label}: {name} is {info.file_size} bytes, over the {limit} read for it")
        try:
            with self.archive.open(info) as member:
                data = member.read(limit + 1)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as error:
            raise SourceError(f"{self.label}: {name} cannot be read ({error})") from None
        if len(data) > limit:
            raise SourceError(f"{self.label}: {name} is over the {limit} bytes read for it")
        return data

    def digest(self, name: str, limit: int) -> tuple[int, str]:
        """(size, SHA-256) of a member, read through once in chunks (its bytes are not kept)."""
        info = self.members[name]
        if info.file_size > limit:
            raise SourceError(f"{self.label}: {name} is {info.file_size} bytes, over the {limit} read for it")
        hashed, size = hashlib.sha256(), 0
        try:
            with self.archive.open(info) as member:
                while chunk := member.read(CHUNK_BYTES):
                    size += len(chunk)
                    if size > limit:
                        raise SourceError(f"{self.label}: {name} is over the {limit} bytes read for it")
                    hashed.update(chunk)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as error:
            raise SourceError(f"{self.label}: {name} cannot be read ({error})") from None
        return size, hashed.hexdigest()

    def close(self) -> None:
        self.archive.close()


def _checked_name(raw: str, label: str) -> str:
    name = raw.replace("\\", "/")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if "\0" in name or name.startswith("/") or _DRIVE.match(name) or ".." in parts:
        raise SourceError(f"{label}: member name {quoted(raw)} leaves the archive (path traversal); nothing imported")
    return posixpath.join(*parts) if parts else ""


def _refuse_overlaps(infos: list[zipfile.ZipInfo], label: str) -> None:
    ordered = sorted(infos, key=lambda info: info.header_offset)
    for first, second in itertools.pairwise(ordered):
        if first.header_offset + first.compress_size > second.header_offset:
            overlapping = f"{quoted(first.filename)} and {quoted(second.filename)}"
            raise SourceError(f"{label}: members {overlapping} overlap (a ZIP bomb?)")


def open_zip(path: Path, label: str | None = None) -> BoundedZip:
    label = label or path.name
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError) as error:
        raise SourceError(f"{label}: not a readable ZIP file ({error})") from None
    try:
        return BoundedZip(archive, label)
    except BaseException:
        archive.close()
        raise
