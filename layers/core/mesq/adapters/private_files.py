"""The data directory of `mesq serve` (SQLite database, its WAL, blobs, the sealing key) is for
the server's own user only: directories 0700, files 0600. New ones are made so; `tighten` takes
group and other access away from what an older version left behind (0755 / 0644), at start."""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


def private_directory(path: Path) -> None:
    """`path` and any missing parents, each created 0700 (mkdir's `mode` covers only the last)."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIRECTORY_MODE)
        except FileExistsError:  # made meanwhile by another process
            continue
        os.chmod(directory, DIRECTORY_MODE)  # the umask may have narrowed it; never widen past 0700


def private_file(path: Path) -> None:
    """Create `path` empty with 0600 unless it exists (SQLite then gives its -wal and -shm files
    the database file's mode)."""
    os.close(os.open(path, os.O_CREAT | os.O_RDWR | getattr(os, "O_NOFOLLOW", 0), FILE_MODE))


# Written once the whole tree has been walked: a data directory with many blobs is walked at the
# first start of this version only, not at every start (and every CLI command).
TIGHTENED_MARKER = ".private-modes"


def tighten(root: Path) -> None:
    """Remove group and other access from `root` and everything under it (symlinks untouched).

    Another process (a running `mesq serve` beside a CLI command) may remove a file while the
    walk passes it (SQLite's journal, an index snapshot's temporary file): a file gone is fine."""
    if not root.is_dir() or root.is_symlink():
        return
    _tighten_one(root)
    marker = root / TIGHTENED_MARKER
    if marker.exists():
        return
    for directory, subdirectories, files in os.walk(root):
        for name in subdirectories + files:
            _tighten_one(Path(directory) / name)
    private_file(marker)


def _tighten_one(path: Path) -> None:
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode) or not info.st_mode & 0o077:
            return
        os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o077)
    except FileNotFoundError:
        return
