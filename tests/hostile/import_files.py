"""Hostile import files, made in the test (small on disk, whatever they claim): deflate bombs,
an archive of 500k members, a YAML alias note, and archives whose records carry what the
attacker wants (a valid manifest and checksums, so only the record checks can catch them)."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


@dataclass
class RawMember:
    """A member written as given: its compressed bytes, declared size and CRC."""

    name: str
    data: bytes | Callable[[], Iterable[bytes]]  # compressed bytes, or chunks of them
    size: int
    crc: int
    method: int = zipfile.ZIP_DEFLATED


def raw_zip(path: Path, members: Iterable[RawMember]) -> Path:
    """A ZIP written by hand: local headers, data and a central directory for each member (no
    ZIP64: every size and count here fits the plain records)."""
    directory = io.BytesIO()
    count = 0
    with path.open("wb") as out:
        for member in members:
            offset = out.tell()
            name = member.name.encode()
            chunks = [member.data] if isinstance(member.data, bytes) else member.data()
            header_at = out.tell()
            out.write(
                struct.pack(
                    "<4s2B4HL2L2H",
                    b"PK\x03\x04",
                    20,
                    0,
                    0,
                    member.method,
                    0,
                    0,
                    member.crc,
                    0,
                    member.size,
                    len(name),
                    0,
                )
                + name
            )
            compressed = sum(out.write(chunk) for chunk in chunks)
            end = out.tell()
            out.seek(header_at + 18)
            out.write(struct.pack("<L", compressed))
            out.seek(end)
            directory.write(
                struct.pack(
                    "<4s4B4HL2L5H2L",
                    b"PK\x01\x02",
                    20,
                    3,
                    20,
                    0,
                    0,
                    member.method,
                    0,
                    0,
                    member.crc,
                    compressed,
                    member.size,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + name
            )
            count += 1
        at = out.tell()
        out.write(directory.getvalue())
        shown = count
        out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, shown, shown, directory.tell(), at, 0))
    return path


def deflated_run(byte: bytes, compressed_mib: float) -> tuple[Callable[[], Iterable[bytes]], int]:
    """(chunks, uncompressed size) of a deflate stream of one repeated byte, about
    `compressed_mib` MiB compressed (~1,000 times that uncompressed). One 1 MiB block compressed
    once, repeated after full flushes (each flush resets the window: the block's bytes repeat)."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = squeezer.compress(byte * MIB) + squeezer.flush(zlib.Z_FULL_FLUSH)
    repeats = max(1, int(compressed_mib * MIB / len(block)))
    final = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # an empty last block

    def chunks() -> Iterable[bytes]:
        for _ in range(repeats):
            yield block
        yield final

    return chunks, repeats * MIB


def bomb_archive(path: Path, compressed_mib: float) -> Path:
    """An archive whose `manifest.json` is ~1,000 x `compressed_mib` MiB of spaces: an importer
    that reads the manifest whole holds all of it. (Its CRC is left 0: a reader that checks it
    has read the whole member first, which is the fault.)"""
    chunks, size = deflated_run(b" ", compressed_mib)
    return raw_zip(path, [_stored("records.jsonl", b""), RawMember("manifest.json", chunks, size, 0)])


def _stored(name: str, data: bytes) -> RawMember:
    return RawMember(name, data, len(data), zlib.crc32(data), zipfile.ZIP_STORED)


def many_members(path: Path, count: int) -> Path:
    """An archive of `count` empty stored members (~100 bytes each on disk), with the ZIP64 end
    records a count over 65,535 needs. Built in bulk: a member at a time is seconds per 100k."""
    local, directory, offset = [], [], 0
    for n in range(count):
        name = f"m/{n}".encode()
        local.append(struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name)
        directory.append(
            struct.pack(
                "<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0, offset
            )
            + name
        )
        offset += len(local[-1])
    body, listing = b"".join(local), b"".join(directory)
    record_at = len(body) + len(listing)
    zip64_end = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(listing), len(body))
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, record_at, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(listing), len(body), 0)
    path.write_bytes(body + listing + zip64_end + locator + end)
    return path


def alias_note(levels: int = 9) -> bytes:
    """The billion-laughs note: 242 bytes of YAML whose `created` expands to 9^levels strings."""
    lines = ["---", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    lines += [f"created: *a{levels - 1}", "---", "a note"]
    return "\n".join(lines).encode()


def notes_zip(notes: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in notes.items():
            archive.writestr(name, data)
    return out.getvalue()


def rewritten(
    source: Path,
    out: Path,
    change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
    blobs: dict[str, bytes] | None = None,
) -> Path:
    """A copy of an exported archive with its records changed by `change` (and `blobs` added
    or replaced), the manifest's checksums made right again."""
    with zipfile.ZipFile(source) as archive:
        records = [json.loads(line) for line in archive.read("records.jsonl").splitlines()]
        manifest = json.loads(archive.read("manifest.json"))
        files = {name: archive.read(name) for name in archive.namelist() if name not in ("manifest.json",)}
    changed = change(records)
    changed.sort(key=lambda record: record["sk"])
    files["records.jsonl"] = "".join(json.dumps(r, sort_keys=True) + "\n" for r in changed).encode()
    files.update(blobs or {})
    manifest["files"] = {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)} for name, data in files.items()
    }
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in files.items():
            target.writestr(name, data)
        target.writestr("manifest.json", json.dumps(manifest))
    return out


__all__ = ["alias_note", "bomb_archive", "many_members", "notes_zip", "raw_zip", "rewritten"]
