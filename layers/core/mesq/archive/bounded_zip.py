"""`BoundedZip`: a ZIP file read as a stranger's file, under `limits.ZipCaps`.

Why not `zipfile.ZipFile` alone: it builds an object per member of the central directory before
a caller can count them (500k members: +282 MB), trusts the sizes an entry declares, and inflates
whatever a member holds. This reader

- finds the end record and walks the central directory as a stream, checking the member count
  (as counted, not as declared), the directory's size, each name's length, each member's declared
  size, ratio and the running total before it goes on, and keeps only the entries the caller
  asks for (`index(keep)`);
- reads a member in chunks (`open`, `read`, `lines`): stored or deflated only, never encrypted;
  it inflates at most the size the entry declares (a member that inflates past it, or ends short,
  or fails its CRC, is refused), so what a reader holds is one chunk, or one line under its cap.

Every refusal is `limits.CapExceeded` (a cap, its value, where) or `ArchiveError` (a malformed
file), one line each. Importers of other apps' exports use it the same way (archive/README.md).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from ..kernel.i18n import Text
from .format import ArchiveError
from .limits import ARCHIVE_ZIP, CapExceeded, ZipCaps

_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIG = b"PK\x05\x06"
_LOCATOR = struct.Struct("<4sLQL")
_LOCATOR_SIG = b"PK\x06\x07"
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_EOCD64_SIG = b"PK\x06\x06"
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_CENTRAL_SIG = b"PK\x01\x02"
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_LOCAL_SIG = b"PK\x03\x04"
_ZIP64_EXTRA = 0x0001
_STORED, _DEFLATED = 0, 8
_ENCRYPTED, _UTF8 = 0x1, 0x800
_MAX_COMMENT = 0xFFFF
CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Member:
    """One central-directory entry: what reading the member needs."""

    name: str
    method: int
    crc: int
    compressed: int
    size: int
    offset: int  # of its local header
    mode: int = 0  # the Unix file mode the entry records (its external attributes' high 16 bits)
    legacy_name: bool = False  # read as cp437 (no UTF-8 mark, no UTF-8): its bytes are name.encode("cp437")


def _line(where: str | Text, number: int) -> Text:
    return Text("%(where)s line %(line)s", where=where, line=number)


def member_in(file: str, name: str) -> Text:
    """A member named in an error: "flomo.zip: notes/index.html" (its name cut at 80 characters),
    said in the reader's language (a Chinese page has no ASCII colon between the two)."""
    return Text("%(file)s: %(member)s", file=file, member=name[:80])


def _bytes(size: int) -> Text:
    shown = f"{size:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
    return Text("%(size)s bytes", size=shown)


class BoundedZip:
    """A ZIP file on disk, read under `caps`. `label` names it in errors (the upload's name)."""

    def __init__(self, path: Path, caps: ZipCaps = ARCHIVE_ZIP, label: str | None = None) -> None:
        self.caps = caps
        self.label = label or path.name
        try:
            self._file: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed by close()
        except OSError as error:  # the server's own copy of the upload, or a path the command line named
            raise ArchiveError(
                Text("%(file)s cannot be opened; check that it is there and may be read, then try again",
                     file=self.label),
                detail=f"{type(error).__name__}: {error}",
            ) from None  # fmt: skip
        try:
            self._directory_offset, self._directory_size, self._declared = self._end_record()
        except BaseException:
            self._file.close()
            raise

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> BoundedZip:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- the central directory --------------------------------------------------------------

    def _not_a_zip(self, why: Text) -> ArchiveError:
        # The first fault a person meets who picked the wrong file: said in their language.
        return ArchiveError(Text("%(file)s: not a readable ZIP archive (%(why)s)", file=self.label, why=why))

    def _end_record(self) -> tuple[int, int, int]:
        handle = self._file
        end = handle.seek(0, 2)
        tail_start = max(0, end - _EOCD.size - _MAX_COMMENT)
        handle.seek(tail_start)
        tail = handle.read(end - tail_start)
        at = tail.rfind(_EOCD_SIG)
        if at < 0 or len(tail) - at < _EOCD.size:
            handle.seek(0)
            if handle.read(4) == _LOCAL_SIG:  # a ZIP's start without its end: a download or copy cut short
                raise ArchiveError(
                    Text(
                        "%(file)s: the ZIP is cut short (its end is missing); download or copy it again",
                        file=self.label,
                    )
                )
            raise self._not_a_zip(Text("no end of central directory record"))
        _, disk, _, _, count, size, offset, _ = _EOCD.unpack_from(tail, at)
        record_at = tail_start + at
        if disk != 0:
            raise self._not_a_zip(Text("a multi-part archive"))
        if 0xFFFF in (count,) or 0xFFFFFFFF in (size, offset):
            count, size, offset, record_at = self._zip64_end(record_at)
        if size > self.caps.directory_bytes:
            raise CapExceeded("central directory size", self.caps.directory_bytes, self.label, _bytes(size))
        if count > self.caps.members:
            listed = f"{count:,}"
            raise CapExceeded("member count", self.caps.members, self.label, Text("it lists %(count)s", count=listed))
        if offset + size != record_at:
            raise self._not_a_zip(Text("the central directory is not where the end record says"))
        return offset, size, count

    def _zip64_end(self, eocd_at: int) -> tuple[int, int, int, int]:
        if eocd_at < _LOCATOR.size:
            raise self._not_a_zip(Text("a ZIP64 end record is missing"))
        self._file.seek(eocd_at - _LOCATOR.size)
        signature, _, record_at, _ = _LOCATOR.unpack(self._file.read(_LOCATOR.size))
        if signature != _LOCATOR_SIG or record_at + _EOCD64.size > eocd_at - _LOCATOR.size:
            raise self._not_a_zip(Text("a ZIP64 end record is missing"))
        self._file.seek(record_at)
        fields = _EOCD64.unpack(self._file.read(_EOCD64.size))
        if fields[0] != _EOCD64_SIG:
            raise self._not_a_zip(Text("a ZIP64 end record is malformed"))
        return fields[7], fields[8], fields[9], record_at

    def members(self) -> Iterator[Member]:
        """Every member, read from the central directory as a stream, each checked against the
        caps before the next is read."""
        caps, handle = self.caps, self._file
        position, end = self._directory_offset, self._directory_offset + self._directory_size
        count = total = 0
        while position < end:
            handle.seek(position)
            head = handle.read(_CENTRAL.size)
            if len(head) < _CENTRAL.size or head[:4] != _CENTRAL_SIG:
                raise self._not_a_zip(Text("entry %(number)s of the central directory is malformed", number=count + 1))
            fields = _CENTRAL.unpack(head)
            flags, method, crc, compressed, size = fields[5], fields[6], fields[9], fields[10], fields[11]
            name_length, extra_length, comment_length, offset = fields[12], fields[13], fields[14], fields[18]
            mode = fields[17] >> 16
            count += 1
            if count > caps.members:
                raise CapExceeded("member count", caps.members, self.label, Text("more entries than that"))
            if name_length > caps.name_bytes:
                raise CapExceeded(
                    "member name length",
                    caps.name_bytes,
                    Text("%(file)s entry %(number)s", file=self.label, number=count),
                )
            raw_name = handle.read(name_length)
            extra = handle.read(extra_length)
            position += _CENTRAL.size + name_length + extra_length + comment_length
            size, compressed, offset = _zip64_sizes(extra, size, compressed, offset)
            name, legacy_name = _member_name(raw_name, flags)
            where = member_in(self.label, name)
            if flags & _ENCRYPTED:
                raise ArchiveError(Text("%(where)s: encrypted members are not read", where=where))
            if method not in (_STORED, _DEFLATED):
                raise ArchiveError(
                    Text(
                        "%(where)s: compression method %(method)s is not read (stored or deflated only)",
                        where=where,
                        method=method,
                    )
                )
            if size > caps.member_bytes:
                raise CapExceeded("member size", caps.member_bytes, where, _bytes(size))
            if size > caps.ratio_floor and size > caps.ratio * max(compressed, 1):
                shown, packed = f"{size:,}", f"{compressed:,}"
                raise CapExceeded(
                    "compression ratio", caps.ratio, where,
                    Text("%(size)s bytes from %(compressed)s", size=shown, compressed=packed),
                )  # fmt: skip
            total += size
            if total > caps.total_bytes:
                raise CapExceeded("total uncompressed size", caps.total_bytes, self.label)
            yield Member(name, method, crc, compressed, size, offset, mode, legacy_name)
        if position != end:
            raise self._not_a_zip(Text("the central directory ends inside an entry"))

    def index(self, keep: Callable[[str], bool]) -> dict[str, Member]:
        """The members whose name `keep` accepts, by name (the whole directory is checked)."""
        kept: dict[str, Member] = {}
        for member in self.members():
            if keep(member.name):
                if member.name in kept:
                    raise ArchiveError(
                        Text("%(where)s is in the archive twice", where=member_in(self.label, member.name))
                    )
                kept[member.name] = member
        return kept

    # -- members ------------------------------------------------------------------------------

    def open(self, member: Member) -> MemberReader:
        handle = self._file
        handle.seek(member.offset)
        head = handle.read(_LOCAL.size)
        if len(head) < _LOCAL.size or head[:4] != _LOCAL_SIG:
            raise ArchiveError(
                Text("%(where)s: its local header is malformed", where=member_in(self.label, member.name))
            )
        fields = _LOCAL.unpack(head)
        start = member.offset + _LOCAL.size + fields[10] + fields[11]
        if start + member.compressed > self._directory_offset:
            raise ArchiveError(
                Text("%(where)s: its data runs past the archive", where=member_in(self.label, member.name))
            )
        return MemberReader(handle, member, start, member_in(self.label, member.name))

    def read(self, member: Member, limit: int) -> bytes:
        """The member whole, when it is at most `limit` bytes (CapExceeded otherwise)."""
        if member.size > limit:
            raise CapExceeded("member size", limit, member_in(self.label, member.name), _bytes(member.size))
        with self.open(member) as reader:
            return reader.read()

    def lines(
        self, member: Member, max_line: int, on_chunk: Callable[[bytes], object] | None = None
    ) -> Iterator[tuple[int, bytes]]:
        """(line number, line without its end) of every non-empty line; a line longer than
        `max_line` is refused before more than `max_line` bytes of it are held. `on_chunk` sees
        every chunk read (a checksum)."""
        where = member_in(self.label, member.name)
        pending = bytearray()
        number = 0
        with self.open(member) as reader:
            while chunk := reader.read(CHUNK):
                if on_chunk is not None:
                    on_chunk(chunk)
                pending += chunk
                start = 0
                while (end := pending.find(b"\n", start)) >= 0:
                    number += 1
                    line = bytes(pending[start:end]).rstrip(b"\r")
                    if len(line) > max_line:
                        raise CapExceeded("line length", max_line, _line(where, number))
                    if line:
                        yield number, line
                    start = end + 1
                del pending[:start]
                if len(pending) > max_line:
                    raise CapExceeded("line length", max_line, _line(where, number + 1))
        if pending.strip():
            yield number + 1, bytes(pending).rstrip(b"\r")


def _member_name(raw: bytes, flags: int) -> tuple[str, bool]:
    """A member's name, and whether it was read as cp437: UTF-8 when the entry says so (bit 11),
    and when it does not but its bytes are UTF-8 all the same (Info-ZIP's `zip` on Linux, and other
    tools, write UTF-8 names without the mark: an export unpacked and zipped again named 截图.png as
    cp437 mojibake); else cp437, the format's own. A cp437 name that is also valid UTF-8 needs two
    or more characters of its upper half in a row that spell a UTF-8 sequence: no name a person
    wrote in cp437 does. cp437 maps every byte to its own character, so a cp437 name gives its
    bytes back (imports/zipped.py reads a whole archive of GBK names from them)."""
    if flags & _UTF8:
        return raw.decode("utf-8", errors="replace"), False
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("cp437"), True


def _zip64_sizes(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int, int]:
    """The sizes and offset a ZIP64 extra field carries for the fields set to 0xFFFFFFFF."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        body = extra[at + 4 : at + 4 + length]
        if kind == _ZIP64_EXTRA:
            values = list(struct.unpack_from(f"<{len(body) // 8}Q", body))
            if size == 0xFFFFFFFF and values:
                size = values.pop(0)
            if compressed == 0xFFFFFFFF and values:
                compressed = values.pop(0)
            if offset == 0xFFFFFFFF and values:
                offset = values.pop(0)
        at += 4 + length
    return size, compressed, offset


class MemberReader:
    """One member's bytes, inflated a chunk at a time, never past the size its entry declares."""

    def __init__(self, handle: BinaryIO, member: Member, start: int, where: Text) -> None:
        self._handle, self._member, self._where = handle, member, where
        self._position = start  # of the next compressed byte
        self._left = member.compressed  # compressed bytes not yet read
        self._inflate = zlib.decompressobj(-zlib.MAX_WBITS) if member.method == _DEFLATED else None
        self._pending = b""  # input the inflater has not taken yet (its unconsumed tail)
        self._out = 0
        self._crc = 0

    def __enter__(self) -> MemberReader:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def _input(self) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        if self._left <= 0:
            return b""
        self._handle.seek(self._position)
        data = self._handle.read(min(CHUNK, self._left))
        if not data:
            raise ArchiveError(Text("%(where)s: the archive ends inside this member", where=self._where))
        self._position += len(data)
        self._left -= len(data)
        return data

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (-1: the rest of the member, which the caller bounded)."""
        if size < 0:
            parts = []
            while part := self.read(CHUNK):
                parts.append(part)
            return b"".join(parts)
        wanted = min(size, self._member.size - self._out)
        data = b""
        while not data and wanted > 0:
            raw = self._input()
            if self._inflate is None:
                data = raw[:wanted]
                self._pending = raw[wanted:]
            elif raw:
                try:
                    data = self._inflate.decompress(raw, wanted)
                except zlib.error:
                    raise ArchiveError(Text("%(where)s: its compressed data is corrupt", where=self._where)) from None
                self._pending = self._inflate.unconsumed_tail
            if not raw:
                break
        if not data and wanted > 0:
            read, declared = f"{self._out:,}", f"{self._member.size:,}"
            raise ArchiveError(
                Text(
                    "%(where)s: shorter than its entry says (%(read)s of %(size)s bytes)",
                    where=self._where,
                    read=read,
                    size=declared,
                )
            )
        self._out += len(data)
        self._crc = zlib.crc32(data, self._crc)
        if self._out == self._member.size and size > 0 and not self._finished():
            raise ArchiveError(Text("%(where)s: inflates past the size its entry declares", where=self._where))
        if self._out == self._member.size and self._crc != self._member.crc:
            raise ArchiveError(Text("%(where)s: its CRC does not match", where=self._where))
        return data

    def _finished(self) -> bool:
        """Whether nothing is left to inflate once the declared size is out."""
        if self._inflate is None:
            return True
        if self._inflate.eof:
            return True
        try:
            extra = self._inflate.decompress(self._pending or self._input(), 1)
        except zlib.error:
            return False
        return not extra and (self._inflate.eof or (not self._pending and self._left <= 0))


__all__ = ["BoundedZip", "Member", "MemberReader"]
