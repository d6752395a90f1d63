"""The reading-sync queue port: where a requested sync goes when it does not run in place. On AWS
one message per user, consumed by functions/reading_sync (queue_sqs.py); `mesq serve` has none
and syncs in the calling worker thread (mesq/jobs/reading_sync.py)."""

from __future__ import annotations

from typing import Protocol


class ReadingSyncQueue(Protocol):
    def send(self, user_ids: list[str]) -> int:
        """Queue one sync per user; returns how many were queued."""
        ...
