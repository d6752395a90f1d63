"""Browser sessions: an opaque random id in a cookie, its SHA-256 as the store key.

Item: pk `WEBSESSION#<sha256(id)>`, sk `SESSION` with the user, the CSRF token (synchronizer
token: random per session, compared on every cookie-authenticated POST), the creation time and
the last use. A session ends after `IDLE` without use or `ABSOLUTE` after sign-in, whichever
comes first; the item's `ttl` is that moment, so the store forgets it by itself, and `load`
checks both limits too (the TTL sweep is lazy). Each session is also an entry of the GSI2 partition
`U#<userId>#WEBSESSIONS`, so `end_user_sessions` can sign a user out everywhere (after a
password change) without a scan. A stolen store dump yields no usable cookie:
only hashes are stored. Nothing lives in process memory, so every Lambda instance and every
`mesq serve` worker sees the same sessions.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from ...auth.tokens import secret_digest
from ...kernel.keys import user_partition
from ...kernel.ports.storage import Condition, ConditionFailed, ItemStore, Update
from ...store.paging import walk

IDLE_SECONDS = 12 * 3600
ABSOLUTE_SECONDS = 7 * 24 * 3600
# Last use is refreshed at most once a minute: most page views stay a single GetItem.
TOUCH_SECONDS = 60
MAX_SESSION_ID_LENGTH = 100

Clock = Callable[[], float]


@dataclass(frozen=True)
class WebSession:
    session_id: str
    user_id: str
    username: str
    csrf_token: str

    @property
    def credential_id(self) -> str:
        # A short, non-secret label for logs and Principal.credential_id.
        return "session:" + _digest(self.session_id)[:16]


_digest = secret_digest


def _key(session_id: str) -> tuple[str, str]:
    return (f"WEBSESSION#{_digest(session_id)}", "SESSION")


def _user_index(user_id: str, session_key: tuple[str, str]) -> dict[str, str]:
    return {"gsi2pk": f"{user_partition(user_id)}#WEBSESSIONS", "gsi2sk": session_key[0]}


def _expiry(created: float, last_seen: float) -> int:
    return int(min(last_seen + IDLE_SECONDS, created + ABSOLUTE_SECONDS))


def create_session(items: ItemStore, user_id: str, username: str, clock: Clock) -> WebSession:
    """A new session (a new id at every sign-in: no session fixation)."""
    session = WebSession(
        session_id=secrets.token_urlsafe(32),
        user_id=user_id,
        username=username,
        csrf_token=secrets.token_urlsafe(32),
    )
    now = clock()
    pk, sk = _key(session.session_id)
    item = {
        "pk": pk,
        "sk": sk,
        "userId": user_id,
        "username": username,
        "csrf": session.csrf_token,
        "created": now,
        "lastSeen": now,
        "ttl": _expiry(now, now),
        **_user_index(user_id, (pk, sk)),
    }
    items.put(item, Condition(exists=False))
    return session


def load_session(items: ItemStore, session_id: str | None, clock: Clock) -> WebSession | None:
    """The live session for a cookie value, or None (unknown, ended, idle or too old)."""
    if not session_id or len(session_id) > MAX_SESSION_ID_LENGTH:
        return None
    key = _key(session_id)
    item = items.get(key)
    if item is None:
        return None
    now = clock()
    created, last_seen = float(item["created"]), float(item["lastSeen"])
    if now >= _expiry(created, last_seen):
        return None
    if now - last_seen >= TOUCH_SECONDS:
        try:
            items.update(
                Update(
                    key=key,
                    # The index keys too: sessions made before the index existed join it here.
                    set={"lastSeen": now, "ttl": _expiry(created, now), **_user_index(item["userId"], key)},
                    condition=Condition(exists=True),
                )
            )
        except ConditionFailed:
            return None  # signed out meanwhile
    return WebSession(session_id=session_id, user_id=item["userId"], username=item["username"], csrf_token=item["csrf"])


def end_session(items: ItemStore, session_id: str) -> None:
    """Sign out: the item is deleted, so the cookie is worthless even if someone kept a copy."""
    items.delete(_key(session_id))


def end_user_sessions(items: ItemStore, user_id: str) -> int:
    """Sign the user out of every browser (a password change); returns how many sessions ended."""
    entries = list(walk(items, _user_index(user_id, ("", ""))["gsi2pk"], index="gsi2"))
    for entry in entries:
        items.delete((entry["pk"], entry["sk"]))
    return len(entries)


def same_token(expected: str, given: str | None) -> bool:
    return given is not None and secrets.compare_digest(expected.encode(), given.encode())


__all__ = ["WebSession", "create_session", "end_session", "end_user_sessions", "load_session", "same_token"]
