"""What the attachments a `resources/read` named turned out to be, remembered per process.

The endpoint counts every `resources/read` before it reads anything from the store (docs/decisions.md
"resources/read counted first"): one of the caller's images counts in `page_image` (an MCP Apps view
draws a memo's thumbnails, one read each), any other read in `attachment_read`, and only the
attachment's record tells which. An attachment not seen before is counted in `page_image` first
and read; this memory then counts the next read of the same attachment in its own bucket before
any read, so a flood of one non-image URI meets `attachment_read` without a GetItem per call.

Keyed by (user, namespace, attachment id), never by the URI's spelling (`%2F` or `%2f` name one
attachment, and each spelling would cost a read) nor across users: one user's answers are never
another's (another account's path never gets here: its shape refuses it, `resources.own_attachment`).
Bounded: least recently used out. A registered id keeps its type for life (a deleted image's
reads keep counting in `page_image` and answer NOT_FOUND); a `missing` one may be registered
later (a direct upload session hands out its path first), so the endpoint reads it again while
`attachment_read` has room.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .resources import AttachmentKind

#: Enough for every image a few thousand people look at within a minute; ~200 bytes an entry.
MAX_ENTRIES = 4096

Key = tuple[str, str, str]  # (user id, namespace, attachment id)


class ImageUris:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._max = max_entries
        self._known: OrderedDict[Key, AttachmentKind] = OrderedDict()
        self._lock = threading.Lock()

    def kind(self, key: Key) -> AttachmentKind | None:
        """What its record said when last read; None for an attachment not seen (or forgotten)."""
        with self._lock:
            known = self._known.get(key)
            if known is not None:
                self._known.move_to_end(key)
            return known

    def remember(self, key: Key, kind: AttachmentKind) -> None:
        with self._lock:
            self._known[key] = kind
            self._known.move_to_end(key)
            while len(self._known) > self._max:
                self._known.popitem(last=False)
