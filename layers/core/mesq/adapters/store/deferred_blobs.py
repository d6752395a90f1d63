"""A BlobStore made on its first use.

Creating the S3 client is a tenth of a second of a function's cold start (botocore loads the
service model and, in a fresh session, the endpoint rules), and most requests never touch a
blob (every MCP call but attachments, every REST call but uploads and reads of files). The
store is therefore built when a method is first called; `transport` is known without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Literal

from ...kernel.ports.storage import BlobInfo, BlobSource, BlobStore


class DeferredBlobStore:
    """Calls `make()` once, on the first method call (thread-safe), and delegates to its store."""

    def __init__(self, make: Callable[[], BlobStore], transport: Literal["direct", "relay"]) -> None:
        self.transport = transport
        self._make = make
        self._store: BlobStore | None = None
        self._lock = threading.Lock()

    @property
    def store(self) -> BlobStore:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = self._make()
        return self._store

    def put(
        self, path: str, data: BlobSource, content_type: str, metadata: Mapping[str, str] | None = None
    ) -> BlobInfo:
        return self.store.put(path, data, content_type, metadata)

    def get(self, path: str, max_bytes: int | None = None) -> bytes:
        return self.store.get(path, max_bytes)

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        return self.store.stream(path, chunk_size)

    def head(self, path: str) -> BlobInfo | None:
        return self.store.head(path)

    def delete(self, path: str) -> None:
        self.store.delete(path)

    def copy(self, source: str, target: str, metadata: Mapping[str, str] | None = None) -> BlobInfo:
        return self.store.copy(source, target, metadata)

    def presign_put(self, path: str, content_type: str, size: int, expires_in: int) -> str:
        return self.store.presign_put(path, content_type, size, expires_in)

    def presign_get(self, path: str, expires_in: int, *, filename: str, content_type: str) -> str:
        return self.store.presign_get(path, expires_in, filename=filename, content_type=content_type)
