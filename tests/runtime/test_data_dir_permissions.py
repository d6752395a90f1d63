"""`mesq serve`'s data directory is private to its user: made 0700 with files 0600 (the SQLite
database and its WAL, blobs, the sealing key), and a directory an older version left 0755 /
0644 is tightened when the services start."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesq.wiring.services import build_sealer, build_services
from tests.settings import inprocess_settings


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # what most shells start with: 0755 / 0644 unless made private
    yield
    os.umask(previous)


def _modes(root: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _use(data_dir: Path) -> None:
    settings = inprocess_settings(data_dir=data_dir)
    services = build_services(settings)
    services.items.put({"pk": "U#u1", "sk": "X#1", "v": 1})
    services.blobs.put("u1/attachments/a1/file", b"hello", "text/plain")
    build_sealer(settings).seal(b"secret", {"purpose": "test"})
    assert (data_dir / "mesq.db-wal").exists()  # checked while the connection holds it open
    assert _loose(data_dir) == {}, _loose(data_dir)
    services.items.close()


def _loose(root: Path) -> dict[str, str]:
    """Every entry with any group or other access, with its mode."""
    return {name: oct(mode) for name, mode in _modes(root).items() if mode & 0o077}


def test_a_new_data_directory_is_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"
    _use(data_dir)
    modes = _modes(data_dir)
    assert modes["."] == 0o700 and modes["mesq.db"] == 0o600 and modes["blobs"] == 0o700
    assert {modes["keys"], modes["keys/secrets.key"]} == {0o700, 0o600}
    blob_files = [name for name in modes if name.startswith("blobs/") and (data_dir / name).is_file()]
    assert blob_files and all(modes[name] == 0o600 for name in blob_files)


def test_an_existing_loose_data_directory_is_tightened_on_start(tmp_path: Path) -> None:
    data_dir = tmp_path / "old"
    (data_dir / "blobs" / "u1").mkdir(parents=True, mode=0o755)
    for directory in (data_dir, data_dir / "blobs", data_dir / "blobs" / "u1"):
        os.chmod(directory, 0o755)
    (data_dir / "blobs" / "u1" / "old-file").write_bytes(b"x")
    (data_dir / "mesq.db").touch(mode=0o644)
    os.chmod(data_dir / "mesq.db", 0o644)
    assert _loose(data_dir)
    _use(data_dir)
    assert _modes(data_dir)["blobs/u1/old-file"] == 0o600


def test_a_file_removed_during_the_walk_is_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI command beside a running server: the server removes a temporary file (SQLite's
    journal, an index snapshot) between the walk listing it and the chmod (CI saw this)."""
    from mesq.adapters import private_files

    data_dir = tmp_path / "busy"
    (data_dir / "blobs").mkdir(parents=True)
    (data_dir / "blobs" / "vanishing.tmp").write_bytes(b"x")
    real_lstat = os.lstat

    def lstat_after_removal(path: os.PathLike[str] | str) -> os.stat_result:
        if str(path).endswith("vanishing.tmp"):
            os.remove(path)
        return real_lstat(path)

    monkeypatch.setattr(private_files.os, "lstat", lstat_after_removal)
    private_files.tighten(data_dir)
    assert not (data_dir / "blobs" / "vanishing.tmp").exists()


def test_the_tree_is_walked_once_then_only_its_root_is_checked(tmp_path: Path) -> None:
    data_dir = tmp_path / "walked"
    (data_dir / "blobs").mkdir(parents=True)
    (data_dir / "blobs" / "a").write_bytes(b"x")
    os.chmod(data_dir / "blobs" / "a", 0o644)
    from mesq.adapters.private_files import TIGHTENED_MARKER, tighten

    tighten(data_dir)
    assert (data_dir / TIGHTENED_MARKER).exists()
    assert stat.S_IMODE((data_dir / "blobs" / "a").stat().st_mode) == 0o600
    os.chmod(data_dir, 0o755)
    os.chmod(data_dir / "blobs" / "a", 0o644)  # after the walk: not this version's doing
    tighten(data_dir)
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / "blobs" / "a").stat().st_mode) == 0o644
