"""Local-filesystem adapter of BlobStore: the default for `mesq serve` and tests (transport "relay").

Layout under `root`: blob `a/b/c.txt` is the file `a/b/c.txt~blob`, its content type and user
metadata are the sidecar `a/b/c.txt~meta.json`. Blob path segments can never contain '~'
(see blob_paths), so no blob path can name or collide with a sidecar, a temp file or a directory,
and `a` and `a/b` can coexist exactly as they can in S3.

Writes are atomic per file: temp file in the same directory, fsync, os.replace, fsync of the
directory. Blob and sidecar are two files, so a crash between the two replaces can pair new bytes
with the previous sidecar; a per-store lock keeps the pair consistent between threads of one
process. Every path is resolved (following symlinks) and must stay under the resolved root, and
blob files are opened with O_NOFOLLOW where the platform has it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any, Literal

from ...kernel.messages import quoted
from ...kernel.ports.storage import (
    BlobInfo,
    BlobNotFound,
    BlobSource,
    BlobTooLarge,
    InvalidBlobPath,
    PresignUnsupported,
)
from ...kernel.timestamps import format_timestamp
from ...store.blob_paths import validate_blob_path, validate_content_type, validate_metadata
from ..private_files import private_directory

_BLOB_SUFFIX = "~blob"
_META_SUFFIX = "~meta.json"
_DEFAULT_CONTENT_TYPE = "application/octet-stream"
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class LocalBlobStore:
    """BlobStore over a directory. Thread-safe; not meant to be shared by several processes."""

    transport: Literal["direct", "relay"] = "relay"

    def __init__(self, root: Path) -> None:
        private_directory(root)
        self._root = root.resolve(strict=True)
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        return self._root

    # -- BlobStore ---------------------------------------------------------------------------

    def put(
        self,
        path: str,
        data: BlobSource,
        content_type: str,
        metadata: Mapping[str, str] | None = None,
    ) -> BlobInfo:
        blob, meta = self._locate(path)
        validate_content_type(content_type)
        user_metadata = validate_metadata(metadata)
        sidecar = json.dumps({"content_type": content_type, "metadata": user_metadata}).encode()
        private_directory(blob.parent)
        # mkdir may have followed a symlink planted after _locate checked: check again.
        self._check_inside(blob.parent.resolve())
        blob_tmp = _write_temp(blob, data)
        try:
            meta_tmp = _write_temp(meta, sidecar)
        except BaseException:
            _discard(blob_tmp)
            raise
        try:
            with self._lock:
                os.replace(blob_tmp, blob)
                os.replace(meta_tmp, meta)
                st = os.stat(blob, follow_symlinks=False)
        except BaseException:
            _discard(blob_tmp)
            _discard(meta_tmp)
            raise
        _fsync_directory(blob.parent)
        return BlobInfo(path, st.st_size, content_type, _mtime(st), user_metadata)

    def get(self, path: str, max_bytes: int | None = None) -> bytes:
        if max_bytes is not None and max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        with self._open(path) as f:
            if max_bytes is None:
                return f.read()
            if os.fstat(f.fileno()).st_size > max_bytes:
                raise BlobTooLarge(f"blob {quoted(path)} is larger than {max_bytes} bytes")
            data = f.read(max_bytes + 1)  # the file may have grown since fstat
            if len(data) > max_bytes:
                raise BlobTooLarge(f"blob {quoted(path)} is larger than {max_bytes} bytes")
            return data

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        """Opens the blob now (so BlobNotFound is raised by this call), reads it lazily."""
        if chunk_size <= 0:
            raise ValueError("chunk_size must be > 0")
        return _chunks(self._open(path), chunk_size)

    def head(self, path: str) -> BlobInfo | None:
        blob, meta = self._locate(path)
        with self._lock:
            try:
                st = os.stat(blob, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return None
            if not stat.S_ISREG(st.st_mode):
                return None
            sidecar = _read_sidecar(meta)
        content_type = sidecar.get("content_type")
        metadata = sidecar.get("metadata")
        return BlobInfo(
            path=path,
            size=st.st_size,
            content_type=content_type if isinstance(content_type, str) else _DEFAULT_CONTENT_TYPE,
            modified_at=_mtime(st),
            metadata=({k: v for k, v in metadata.items() if isinstance(v, str)} if isinstance(metadata, dict) else {}),
        )

    def delete(self, path: str) -> None:
        blob, meta = self._locate(path)
        with self._lock:
            for file in (blob, meta):
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    file.unlink()

    def copy(self, source: str, target: str, metadata: Mapping[str, str] | None = None) -> BlobInfo:
        info = self.head(source)
        if info is None:
            raise BlobNotFound(source)
        data = self.get(source)
        return self.put(target, data, info.content_type, info.metadata if metadata is None else metadata)

    def presign_put(self, path: str, content_type: str, size: int, expires_in: int) -> str:
        validate_blob_path(path)
        raise PresignUnsupported("the local blob store has no direct transport; relay the bytes")

    def presign_get(self, path: str, expires_in: int, *, filename: str, content_type: str) -> str:
        validate_blob_path(path)
        raise PresignUnsupported("the local blob store has no direct transport; relay the bytes")

    # -- internals ---------------------------------------------------------------------------

    def _locate(self, path: str) -> tuple[Path, Path]:
        """(blob file, sidecar file) for a validated path, with every existing symlink resolved."""
        *directories, name = validate_blob_path(path).split("/")
        parent = self._root.joinpath(*directories).resolve()
        self._check_inside(parent)
        blob, meta = parent / (name + _BLOB_SUFFIX), parent / (name + _META_SUFFIX)
        self._check_inside(blob.resolve().parent)
        self._check_inside(meta.resolve().parent)
        return blob, meta

    def _check_inside(self, resolved: Path) -> None:
        if not resolved.is_relative_to(self._root):
            raise InvalidBlobPath("blob path leaves the store root (symlink?)")

    def _open(self, path: str) -> IO[bytes]:
        blob, _ = self._locate(path)
        try:
            fd = os.open(blob, os.O_RDONLY | _O_NOFOLLOW | _O_BINARY)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise BlobNotFound(path) from None
        except OSError as exc:  # ELOOP: the blob file itself is a symlink
            raise InvalidBlobPath(f"blob {quoted(path)} is not a regular file") from exc
        f = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            f.close()
            raise BlobNotFound(path)
        return f


def _chunks(f: IO[bytes], chunk_size: int) -> Iterator[bytes]:
    with f:
        while chunk := f.read(chunk_size):
            yield chunk


#: Copy size for a file source: memory stays at one chunk whatever the file's size.
COPY_CHUNK_BYTES = 1 << 20


def _write_temp(target: Path, data: BlobSource) -> str:
    """Write `data` (bytes, or a file copied in chunks) to a fsynced temp file beside `target`;
    return its name."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=".~", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, bytes | bytearray | memoryview):
                f.write(data)
            else:
                shutil.copyfileobj(data, f, COPY_CHUNK_BYTES)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _discard(name)
        raise
    return name


def _discard(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def _fsync_directory(directory: Path) -> None:
    """Make the renames durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_sidecar(meta: Path) -> dict[str, Any]:
    try:
        with open(meta, "rb") as f:
            value = json.load(f)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _mtime(st: os.stat_result) -> str:
    return format_timestamp(_EPOCH + timedelta(microseconds=st.st_mtime_ns // 1000))


__all__ = ["LocalBlobStore"]
