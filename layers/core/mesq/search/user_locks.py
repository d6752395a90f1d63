"""One lock per user, made on first use: an index's writers in one process take turns per user
(a read-modify-write of the user's stored index), while different users never wait on each other.
Each index keeps its own `UserLocks`, so the AI index and the literal index do not wait on each
other either."""

from __future__ import annotations

import threading


class UserLocks:
    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def __call__(self, user_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(user_id, threading.Lock())
