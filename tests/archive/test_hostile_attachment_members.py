"""A version 2 archive names each attachment's file (`attachments/<memo|todo>/<id>/<file name>`,
docs/archive.md). The name is for people: an import finds the file by its record's id and writes
its bytes at the path the id derives (`users/<you>/memo|todo/<id>`), never where a member's name
points. These tests give it hostile names and folders (a `..`, an absolute path, a NUL, overlong
UTF-8, a Windows device name, a name other than the record's, two files in one folder, a folder
with no file) and an archive zipped again by a person's tool (folder entries). Real SQLite and
local blob files."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.archive.exporter import export_account
from mesq.archive.format import MANIFEST, RECORDS, ArchiveError
from mesq.archive.importer import import_account
from mesq.auth.users import create_user

from .test_round_trip import PICTURE, populate, records

AT = "2030-01-01T00:00:00Z"
#: A member's name as raw bytes (a NUL, overlong UTF-8), flagged UTF-8: written over a placeholder.
Raw = bytes


def _exported(tmp_path: Path) -> tuple[dict[str, bytes], str]:
    """The members of an archive of a populated account, and its memo attachment's member."""
    items, blobs = SQLiteItemStore(tmp_path / "a.db"), LocalBlobStore(tmp_path / "a-blobs")
    source = populate(items, blobs, "alice")
    path = tmp_path / "first.zip"
    export_account(items, blobs, source, path, AT)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    (cat,) = [name for name in members if name.startswith("attachments/memo/")]
    return members, cat


def _write(out: Path, members: dict[str | Raw, bytes], manifest: dict[str, Any]) -> None:
    """A ZIP of `members` (a bytes name written raw, flagged UTF-8) and the manifest, listing every
    member with its true checksum (so only the import's own rules can refuse it)."""
    raw: dict[str, bytes] = {}
    files = manifest["files"] = {}
    with zipfile.ZipFile(out, "w") as archive:
        for number, (name, data) in enumerate(members.items()):
            if isinstance(name, bytes):
                # Not ASCII, so zipfile flags the name UTF-8; as many bytes as the raw name.
                placeholder = "é" + f"{number:0{len(name) - 2}d}"
                raw[placeholder] = name
                archive.writestr(placeholder, data)
                name = name.decode("utf-8", "replace")
            else:
                archive.writestr(name, data)
            if not name.endswith("/"):
                files[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        archive.writestr(MANIFEST, json.dumps(manifest))
    body = out.read_bytes()
    for placeholder, name in raw.items():
        assert body.count(placeholder.encode()) == 2  # its local header and its directory entry
        body = body.replace(placeholder.encode(), name)
    out.write_bytes(body)


def _target(tmp_path: Path) -> tuple[SQLiteItemStore, LocalBlobStore, str]:
    """Another instance and an empty account in it to import into."""
    items, blobs = SQLiteItemStore(tmp_path / "b.db"), LocalBlobStore(tmp_path / "b-blobs")
    target = create_user(items, "bob", "correct horse battery")["id"]
    return items, blobs, target


def _blob_files(tmp_path: Path) -> list[str]:
    root = tmp_path / "b-blobs"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


def _with_folder_entries(members: dict[str, bytes]) -> dict[str | Raw, bytes]:
    """The members as a person's tool zips them again: an entry for each folder before its files."""
    again: dict[str | Raw, bytes] = {}
    for name, data in members.items():
        parts = name.split("/")
        for depth in range(1, len(parts)):
            again.setdefault("/".join(parts[:depth]) + "/", b"")
        again[name] = data
    return again


def _cat_id(cat: str) -> str:
    return cat.split("/")[2]


#: (what is done to the memo attachment's member, whether the import takes the file). Each gets
#: the members (without the manifest) and the member's name, and answers the new members.
Change = Callable[[dict[str | Raw, bytes], str], dict[str | Raw, bytes]]


def _renamed(new: Callable[[str], str | Raw]) -> Change:
    def change(members: dict[str | Raw, bytes], cat: str) -> dict[str | Raw, bytes]:
        return {(new(cat) if name == cat else name): data for name, data in members.items()}

    return change


def _folder(cat: str) -> str:
    return cat.rpartition("/")[0] + "/"


HOSTILE: dict[str, tuple[Change, bool]] = {
    "dot-dot out of its folder": (_renamed(lambda cat: _folder(cat) + "../../../../../tmp/escaped.png"), False),
    "absolute": (_renamed(lambda cat: "/" + cat), False),
    "another id's folder": (_renamed(lambda cat: "attachments/memo/01a24e7c46d5cda0292d393b7d87/cat.png"), False),
    "the version 1 place of another owner": (_renamed(lambda cat: f"blobs/users/x/memo/{_cat_id(cat)}"), False),
    # In its own folder under another name: the one file there is its file, written at its path.
    "a NUL in its name": (_renamed(lambda cat: (_folder(cat) + "cat\x00.png").encode()), True),
    "overlong UTF-8 for a slash": (_renamed(lambda cat: _folder(cat).encode() + b"..\xc0\xaf..\xc0\xafx.png"), True),
    "a Windows device name": (_renamed(lambda cat: _folder(cat) + "CON"), True),
    "a name other than the record's": (_renamed(lambda cat: _folder(cat) + "kitty.png"), True),
    "two files in its folder, neither the record's": (
        lambda members, cat: {
            **_renamed(lambda c: _folder(c) + "a.png")(members, cat),
            _folder(cat) + "b.png": members[cat],
        },
        False,
    ),
    "a folder with no file": (
        lambda members, cat: {**{n: d for n, d in members.items() if n != cat}, _folder(cat): b""},
        False,
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_member_name_never_places_a_file(tmp_path: Path, case: str) -> None:
    change, taken = HOSTILE[case]
    members, cat = _exported(tmp_path)
    manifest = json.loads(members.pop(MANIFEST))
    hostile = tmp_path / "hostile.zip"
    _write(hostile, change(dict(members), cat), manifest)
    items, blobs, target = _target(tmp_path)
    if not taken:
        with pytest.raises(ArchiveError, match=r"the bytes of the attachment 'cat.png' are not in the archive"):
            import_account(items, blobs, target, hostile)
        assert records(items, target) == {} and _blob_files(tmp_path) == []
        return
    import_account(items, blobs, target, hostile)
    cat_id = _cat_id(cat)
    assert f"users/{target}/memo/{cat_id}~blob" in _blob_files(tmp_path)  # the local store's file of that path
    assert all(name.startswith(f"users/{target}/") for name in _blob_files(tmp_path))
    assert b"".join(blobs.stream(f"users/{target}/memo/{cat_id}")) == PICTURE
    assert not list(tmp_path.glob("**/escaped.png")) and not Path("/tmp/escaped.png").exists()


def test_an_archive_zipped_again_with_folder_entries_and_an_edited_name_imports(tmp_path: Path) -> None:
    """A person unzips an archive, renames an attachment in records.jsonl and zips it again with
    their tool, which adds an entry for each folder (`attachments/memo/<id>/`, as `zip -r` does).
    The file is the one file in its id's folder: the folder's own entry is no second file."""
    members, cat = _exported(tmp_path)
    manifest = json.loads(members.pop(MANIFEST))
    members[RECORDS] = members[RECORDS].replace(b'"displayName":"cat.png"', b'"displayName":"kitty.png"')
    again = _with_folder_entries(members)
    rezipped = tmp_path / "again.zip"
    _write(rezipped, again, manifest)
    assert _folder(cat) in zipfile.ZipFile(rezipped).namelist()
    items, blobs, target = _target(tmp_path)
    report = import_account(items, blobs, target, rezipped)
    assert report.blobs == 2
    assert b"".join(blobs.stream(f"users/{target}/memo/{_cat_id(cat)}")) == PICTURE


def test_folder_entries_do_not_count_as_attachments_against_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An archive zipped again holds an entry for each attachment's folder: one per attachment in
    version 2. They are no files, so they do not count against `limits.ATTACHMENTS` (here 2, the
    archive's own attachments): counted, a re-zipped archive of 50,001 attachments was refused."""
    from mesq.archive import importer

    monkeypatch.setattr(importer, "ATTACHMENTS", 2)
    members, _ = _exported(tmp_path)
    manifest = json.loads(members.pop(MANIFEST))
    again = _with_folder_entries(members)
    rezipped = tmp_path / "again.zip"
    _write(rezipped, again, manifest)
    items, blobs, target = _target(tmp_path)
    assert import_account(items, blobs, target, rezipped).blobs == 2
