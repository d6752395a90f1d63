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
