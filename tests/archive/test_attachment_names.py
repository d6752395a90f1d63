"""An archive's attachment files are named as their owner named them (docs/archive.md, "What an
archive holds"): `attachments/memo/<id>/cat.png`, not `blobs/users/<owner>/memo/<id>`, a file
without a name or an extension that a person who unzips the archive cannot tell from the others
nor open. Real SQLite and local blob files."""

from __future__ import annotations

import base64
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.archive.format import MANIFEST, RECORDS, attachment_file_name
from mesq.archive.importer import import_account
from mesq.auth.users import create_user

from .test_round_trip import PICTURE, PLAN, caller, populate, records

AT = "2030-01-01T00:00:00Z"


def _attachments(path: Path) -> dict[str, bytes]:
    """The archive's attachment files (every member but the records, the manifest and the pages)."""
    with zipfile.ZipFile(path) as archive:
        return {
            name: archive.read(name)
            for name in archive.namelist()
            if name not in (RECORDS, MANIFEST) and not name.startswith("memos/")
        }


def _manifest(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        manifest: dict[str, Any] = json.loads(archive.read(MANIFEST))
        return manifest


def _ids(path: Path) -> dict[str, str]:
    """displayName -> attachment id, from the archive's attachment records."""
    with zipfile.ZipFile(path) as archive:
        lines = [json.loads(line) for line in archive.read(RECORDS).splitlines()]
    return {line["displayName"]: line["id"] for line in lines if line["sk"].startswith(("MEMOATT#", "TODOATT#"))}


def test_attachments_are_named_as_their_owner_named_them_and_survive_a_round_trip(tmp_path: Path) -> None:
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "a-blobs")
    source = populate(items, blobs, "alice")
    first = tmp_path / "first.zip"
    export_account(items, blobs, source, first, AT)
    ids = _ids(first)
    expected = {
        f"attachments/memo/{ids['cat.png']}/cat.png": PICTURE,
        f"attachments/todo/{ids['plan.pdf']}/plan.pdf": PLAN,
    }
    assert _attachments(first) == expected
    files = _manifest(first)["files"]
    assert {name: (files[name]["bytes"], files[name]["contentType"]) for name in expected} == {
        name: (len(data), "image/png" if name.endswith(".png") else "application/pdf")
        for name, data in expected.items()
    }

    # export -> import (into another account) -> export: the same names, bytes and checksums.
    other_items, other_blobs = SQLiteItemStore(tmp_path / "b.db"), LocalBlobStore(tmp_path / "b-blobs")
    target = create_user(other_items, "bob", "correct horse battery")["id"]
    import_account(other_items, other_blobs, target, first)
    assert records(other_items, target) == records(items, source)
    second = tmp_path / "second.zip"
    export_account(other_items, other_blobs, target, second, AT)
    assert _attachments(second) == expected
    assert {n: _manifest(second)["files"][n] for n in expected} == {n: files[n] for n in expected}


def test_a_name_that_is_no_safe_file_name_is_made_one(tmp_path: Path) -> None:
    """A display name is what a person typed or their device sent: it may hold a path, characters
    Windows refuses, a device name, no extension, or more bytes than a file name may have. Each
    becomes one safe file name in its attachment's own folder (two files of one name never meet)."""
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "a-blobs")
    user_id = create_user(items, "carol", "correct horse battery")["id"]
    call = caller(items, blobs, user_id)
    long_name = "长" * 200 + ".txt"  # 600 bytes of UTF-8
    given = {
        "../../etc/passwd": ("text/plain", "_.._etc_passwd.txt"),
        'a/b\\c:d*e?"f<g>h|.txt': ("text/plain", "a_b_c_d_e__f_g_h_.txt"),
        "CON.txt": ("text/plain", "_CON.txt"),
        "scan": ("image/png", "scan.png"),
        "notes": ("application/x-unknown", "notes"),
        "  .hidden. ": ("text/plain", "hidden.txt"),
        "..": ("image/jpeg", "attachment.jpg"),
        "photo.png": ("image/png", "photo.png"),
        "photo.png ": ("image/png", "photo.png"),  # the same name twice: each in its own folder
        long_name: ("text/plain", None),
    }
    resources = []
    for name, (mime, _) in given.items():
        upload = call("upload_memo_resource", displayName=name, mimeType=mime, content=base64.b64encode(b"x").decode())
        resources.append({k: upload[k] for k in ("path", "displayName", "mimeType", "fileSize", "type") if k in upload})
    call("create_memo", content="files", resources=resources)
    out = tmp_path / "c.zip"
    export_account(items, blobs, user_id, out, AT)
    names = sorted(_attachments(out))
    assert len(names) == len(given)
    shown = {}
    for name in names:
        _, kind, attachment_id, file_name = name.split("/")
        assert kind == "memo" and file_name and file_name not in (".", "..")
        assert len(file_name.encode()) <= 200, file_name
        shown.setdefault(file_name, []).append(attachment_id)
    for name, (_, expected) in given.items():
        if expected is not None:
            assert expected in shown, (name, sorted(shown))
    assert len(shown["photo.png"]) == 2
    (long_file,) = [n for n in shown if n.startswith("长")]
    assert long_file.endswith(".txt")
    # The name is a function of the record: the importer and a second export agree with it.
    from mesq.archive.format import attachment_member

    assert attachment_member("memo", "a1", "../../etc/passwd", "text/plain") == "attachments/memo/a1/_.._etc_passwd.txt"


def test_an_archive_in_the_earlier_layout_still_imports(tmp_path: Path) -> None:
    """Archives written before (version 1: `blobs/<blob path>`) import as they did."""
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "a-blobs")
    source = populate(items, blobs, "alice")
    current = tmp_path / "current.zip"
    export_account(items, blobs, source, current, AT)
    with zipfile.ZipFile(current) as archive:
        lines = [json.loads(line) for line in archive.read(RECORDS).splitlines()]
        paths = {line["id"]: line["path"] for line in lines if line["sk"].startswith(("MEMOATT#", "TODOATT#"))}
        manifest = json.loads(archive.read(MANIFEST))
        members = {name: archive.read(name) for name in archive.namelist() if name != MANIFEST}

    def earlier(name: str) -> str:
        if not name.startswith("attachments/"):
            return name
        return "blobs/" + paths[name.split("/")[2]]

    manifest["version"] = 1
    manifest["files"] = {earlier(name): entry for name, entry in manifest["files"].items()}
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(old, "w") as archive:
        for name, data in members.items():
            archive.writestr(earlier(name), data)
        archive.writestr(MANIFEST, json.dumps(manifest))
    assert any(name.startswith("blobs/users/") for name in zipfile.ZipFile(old).namelist())

    other_items, other_blobs = SQLiteItemStore(tmp_path / "b.db"), LocalBlobStore(tmp_path / "b-blobs")
    target = create_user(other_items, "bob", "correct horse battery")["id"]
    import_account(other_items, other_blobs, target, old)
    assert records(other_items, target) == records(items, source)
    for path in paths.values():
        stored = path.replace(f"users/{source}/", f"users/{target}/")
        assert b"".join(other_blobs.stream(stored)) == b"".join(blobs.stream(path))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("CON .txt", "_CON.txt"),  # the space before the extension trimmed: it was `CON.txt`, the console
        ("nul  .tar.gz", "_nul  .tar.gz"),  # Windows drops the spaces before a device name's extension
        ("AUX .", "_AUX.txt"),
        ("COM¹.txt", "_COM¹.txt"),  # the superscript digits are ports too
        ("LPT³", "_LPT³.txt"),
        ("CONIN$", "_CONIN$.txt"),
        ("console.txt", "console.txt"),
        ("COM10.txt", "COM10.txt"),
    ],
)
def test_no_attachment_file_is_named_as_a_windows_device(name: str, expected: str) -> None:
    """A file named as a device (`CON`, `NUL`, `COM1`, with or without an extension) cannot be
    made on Windows: unzipping the archive there would fail or write to the device. The check is
    made on the name as it ends up, after its trailing dots and spaces are trimmed."""
    assert attachment_file_name(name, "text/plain") == expected
