"""The import caps one by one, in process (docs/security.md "Imports"): each refuses in one line
naming the cap, before what it bounds is held. The server-level bombs are in
test_import_bombs.py."""

from __future__ import annotations

import json
import os
import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from mesq.archive import importer, limits
from mesq.archive.bounded_zip import BoundedZip
from mesq.archive.format import ArchiveError
from mesq.archive.limits import CapExceeded, ZipCaps

from .import_files import many_members


def _archive(path: Path, records: bytes, manifest: dict[str, object] | None = None) -> Path:
    import hashlib

    head = {
        "format": "mesq-archive",
        "version": 1,
        "owner": "someone",
        "files": {"records.jsonl": {"sha256": hashlib.sha256(records).hexdigest(), "bytes": len(records)}},
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("records.jsonl", records)
        archive.writestr("manifest.json", json.dumps(manifest or head))
    return path


def test_a_long_line_is_refused_before_it_is_held(tmp_path: Path) -> None:
    line = os.urandom(3 * 1024 * 1024).hex().encode()  # 6 MB, incompressible: under the ratio cap
    path = _archive(tmp_path / "line.zip", line + b"\n")
    tracemalloc.start()
    try:
        with pytest.raises(CapExceeded, match="line length cap of 524,288"):
            importer.validate(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * 1024 * 1024, peak  # never the whole 6 MB line


def test_a_directory_that_lies_about_its_count_is_counted(tmp_path: Path) -> None:
    path = many_members(tmp_path / "lying.zip", 2_000)
    data = bytearray(path.read_bytes())
    at = data.rfind(b"PK\x06\x06")  # the ZIP64 end record's two counts say 1
    struct.pack_into("<2Q", data, at + 24, 1, 1)
    path.write_bytes(bytes(data))
    with BoundedZip(path, ZipCaps(members=1_000)) as archive, pytest.raises(CapExceeded, match="member count cap"):
        archive.index(lambda name: False)


def test_records_per_kind_and_the_manifest_size_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memos = b"".join(
        json.dumps(
            {
                "pk": "U#someone",
                "sk": f"MEMO#m{n}",
                "id": f"m{n}",
                "content": "x",
                "status": "NORMAL",
                "pinned": False,
                "createdAt": "2030-01-01T00:00:00Z",
                "updatedAt": "2030-01-01T00:00:00Z",
            }
        ).encode()
        + b"\n"
        for n in range(5)
    )
    path = _archive(tmp_path / "memos.zip", memos)
    importer.validate(path)  # sound
    monkeypatch.setitem(limits.RECORDS_PER_KIND, "MEMO#", 4)
    with pytest.raises(CapExceeded, match="memos per archive cap of 4"):
        importer.validate(path)
    monkeypatch.setattr(importer, "MANIFEST_BYTES", 64)
    with pytest.raises(CapExceeded, match="manifest size cap of 64"):
        importer.validate(path)


def test_a_refusal_is_one_short_line(tmp_path: Path) -> None:
    path = _archive(tmp_path / "bad.zip", b'{"pk": "U#someone", "sk": "MEMO#' + b"Z" * 400_000 + b'"}\n')
    with pytest.raises(ArchiveError) as refused:
        importer.validate(path)
    assert "\n" not in refused.value.message and len(refused.value.message) < 300, refused.value.message
