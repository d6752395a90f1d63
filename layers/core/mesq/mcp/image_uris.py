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
Bounded per user and in all: a user's least recently used attachment goes when the user holds
USER_MAX_ENTRIES, and the least recently active user's oldest when all hold MAX_ENTRIES. So one
account reading fresh ids (each is remembered, `missing`) only ever forgets its own: it cannot
make another's next read cost a GetItem and a `page_image` count, nor learn from its own
forgotten entries how much others read, unless MAX_ENTRIES / USER_MAX_ENTRIES users are busy at
once. A registered id keeps its type for life (a deleted image's reads keep counting in
`page_image` and answer NOT_FOUND); a `missing` one may be registered later (a direct upload
session hands out its path first), so the endpoint reads it again while `attachment_read` has room.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .resources import AttachmentKind

#: Enough for every image a few thousand people look at within a minute; ~200 bytes an entry.
MAX_ENTRIES = 4096
#: One user's share: a person's views draw a few dozen thumbnails a minute; past this a user's
#: own oldest go first (a read of one costs its GetItem again, nothing more).
USER_MAX_ENTRIES = 256

Key = tuple[str, str, str]  # (user id, namespace, attachment id)


class ImageUris:
    def __init__(self, max_entries: int | None = None, user_max_entries: int | None = None) -> None:
        # Read at construction, not at import: a test can make the memory small.
        self._max = MAX_ENTRIES if max_entries is None else max_entries
        self._user_max = USER_MAX_ENTRIES if user_max_entries is None else user_max_entries
        #: Per user (least recently active first), their attachments (least recently used first).
        self._users: OrderedDict[str, OrderedDict[tuple[str, str], AttachmentKind]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def kind(self, key: Key) -> AttachmentKind | None:
        """What its record said when last read; None for an attachment not seen (or forgotten)."""
        user, namespace, attachment_id = key
        with self._lock:
            theirs = self._users.get(user)
            known = None if theirs is None else theirs.get((namespace, attachment_id))
            if theirs is not None and known is not None:
                theirs.move_to_end((namespace, attachment_id))
                self._users.move_to_end(user)
            return known

    def remember(self, key: Key, kind: AttachmentKind) -> None:
        user, namespace, attachment_id = key
        with self._lock:
            theirs = self._users.setdefault(user, OrderedDict())
            self._users.move_to_end(user)
            if (namespace, attachment_id) not in theirs:
                self._size += 1
            theirs[(namespace, attachment_id)] = kind
            theirs.move_to_end((namespace, attachment_id))
            if len(theirs) > self._user_max:
                theirs.popitem(last=False)
                self._size -= 1
            while self._size > self._max:
                oldest_user, oldest = next(iter(self._users.items()))
                oldest.popitem(last=False)
                self._size -= 1
                if not oldest:
                    del self._users[oldest_user]
