"""A stranger's ZIP (imports/zipped.py) is read through the account archive's streaming reader:
a central directory of more members than IMPORT_ZIP allows is refused as it is walked, never held
(`zipfile.ZipFile`, which the importers used before, builds an object per entry first: ~0.5 KB
each), and a member is read, copied and digested within its declared size."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from mesq.imports.plan import SourceError
from mesq.imports.zipped import IMPORT_ZIP, open_zip
from tests.hostile.import_files import many_members


def test_a_directory_over_the_member_cap_is_refused_before_it_is_held(tmp_path: Path) -> None:
    path = many_members(tmp_path / "many.zip", IMPORT_ZIP.members * 2)
    tracemalloc.start()
    try:
        with pytest.raises(SourceError) as refused:
            open_zip(path, "export.zip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "member count cap" in refused.value.message and "ZIP bomb" in refused.value.message
    # 200k entries through zipfile: 95 MB of ZipInfo objects (measured) before any count could be checked.
    assert peak < 8 * 1024 * 1024, peak


def test_members_are_read_copied_and_digested_within_their_declared_size(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    body = b"flomo card " * 10_000
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("flomo@x/index.html", body)
        archive.writestr("flomo@x/file/", b"")  # a folder: not a member
    bounded = open_zip(path)
    try:
        assert bounded.names() == ["flomo@x/index.html"] and bounded.size("flomo@x/index.html") == len(body)
        assert bounded.read("flomo@x/index.html", len(body)) == body
        assert bounded.digest("flomo@x/index.html", len(body)) == (len(body), hashlib.sha256(body).hexdigest())
        copied = io.BytesIO()
        bounded.copy("flomo@x/index.html", copied, len(body))
        assert copied.getvalue() == body
        with pytest.raises(SourceError, match="over the 100 read for it"):
            bounded.read("flomo@x/index.html", 100)
    finally:
        bounded.close()


def _zipped_without_the_utf8_mark(path: Path, members: dict[str, bytes]) -> Path:
    """A ZIP whose Chinese member names are UTF-8 bytes with no UTF-8 mark (general purpose bit
    11), as Info-ZIP's `zip` on Linux and other tools write them when an unpacked export is zipped
    again. zipfile always sets the mark, so each name is written as ASCII of its byte length and
    its bytes replaced afterwards (a CRC covers the data, never the name)."""
    stand_ins: dict[bytes, bytes] = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (name, data) in enumerate(members.items()):
            real = name.encode("utf-8")
            stand_in = f"m{number}-".encode().ljust(len(real), b"x")
            stand_ins[stand_in] = real
            archive.writestr(stand_in.decode("ascii"), data)
    raw = path.read_bytes()
    for stand_in, real in stand_ins.items():
        raw = raw.replace(stand_in, real)
    path.write_bytes(raw)
    with zipfile.ZipFile(path) as check:  # no mark: zipfile itself reads the names as cp437
        assert all(not info.flag_bits & 0x800 for info in check.infolist())
    return path


def test_utf8_names_without_the_utf8_mark_are_read_as_utf8(tmp_path: Path) -> None:
    """A flomo export unpacked and zipped again on Linux (`zip -r`) names its members in UTF-8
    without the mark: they were read as cp437 (mojibake), so a card's
    picture named 截图 1.png was "not in the export" and a Todoist project 购物 [1].csv became a
    space named in mojibake. Names that are no UTF-8 are still read as cp437."""
    path = _zipped_without_the_utf8_mark(
        tmp_path / "again.zip",
        {"flomo@林/index.html": b"<html></html>", "flomo@林/file/截图 1.png": b"png", "购物 [1].csv": b"TYPE"},
    )
    bounded = open_zip(path)
    assert sorted(bounded.members) == ["flomo@林/file/截图 1.png", "flomo@林/index.html", "购物 [1].csv"]
    assert bounded.read("flomo@林/file/截图 1.png", 3) == b"png"

    legacy = tmp_path / "legacy.zip"
    with zipfile.ZipFile(legacy, "w") as archive:
        archive.writestr("caf-.txt", b"x")
    legacy.write_bytes(legacy.read_bytes().replace(b"caf-.txt", b"caf\x82.txt"))  # cp437 é: no UTF-8
    assert list(open_zip(legacy).members) == ["café.txt"]
