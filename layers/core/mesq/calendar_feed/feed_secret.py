"""The per-user calendar feed secret: created, rotated and revoked in the browser only.

The feed URL is `/calendar/<secret>.ics`: a calendar app cannot send a bearer token, so the URL
itself is the credential. The secret is `mesq_cal_<43 url-safe chars>` (256 random bits),
shown on the settings page right after it is made and never again. Only its SHA-256 is stored
(`auth.tokens.secret_digest`, as for PATs), in two items written in one transaction:

- `U#<user>` / `CALFEED`: the user's feed record (`digest`, `createdAt`); one feed per user;
- `CALFEED#<digest>` / `CALFEED`: the lookup a feed request reads (`userId`), one GetItem.

Rotating replaces both (the old URL stops working in the same transaction); revoking deletes
both. A lookup whose user record no longer names its digest is refused too.
"""

from __future__ import annotations

import secrets
from typing import Any

from ..auth.tokens import secret_digest
from ..kernel.errors import NotFound
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, Delete, ItemStore, Key, Put, WriteOp
from ..kernel.timestamps import now_timestamp

SECRET_PREFIX = "mesq_cal_"
RECORD_SK = "CALFEED"
_SECRET_LENGTH = len(SECRET_PREFIX) + 43


def record_key(user_id: str) -> Key:
    return (user_partition(user_id), RECORD_SK)


def _lookup_key(digest: str) -> Key:
    return (f"CALFEED#{digest}", RECORD_SK)


def feed_record(items: ItemStore, user_id: str) -> dict[str, Any] | None:
    """The user's feed (`createdAt`), or None when there is none."""
    record = items.get(record_key(user_id))
    return {"createdAt": record["createdAt"]} if record else None


def issue(items: ItemStore, user_id: str) -> str:
    """A new feed secret for the user, replacing (revoking) any previous one; the secret."""
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    digest = secret_digest(secret)
    now = now_timestamp()
    previous = items.get(record_key(user_id))
    pk, sk = record_key(user_id)
    ops: list[WriteOp] = []
    if previous is not None:
        ops.append(Delete(_lookup_key(previous["digest"])))
        condition = Condition(equals={"digest": previous["digest"]})
    else:
        condition = Condition(exists=False)
    lookup_pk, lookup_sk = _lookup_key(digest)
    ops += [
        Put({"pk": pk, "sk": sk, "digest": digest, "createdAt": now}, condition),
        Put({"pk": lookup_pk, "sk": lookup_sk, "userId": user_id, "createdAt": now}, Condition(exists=False)),
    ]
    items.transact(ops)
    return secret


def revoke(items: ItemStore, user_id: str) -> None:
    previous = items.get(record_key(user_id))
    if previous is None:
        raise NotFound("there is no calendar feed to revoke")
    items.transact([Delete(_lookup_key(previous["digest"])), Delete(record_key(user_id))])


def owner_of(items: ItemStore, secret: str) -> str | None:
    """The user whose live feed `secret` is, or None (malformed, revoked or rotated)."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) != _SECRET_LENGTH:
        return None
    digest = secret_digest(secret)
    lookup = items.get(_lookup_key(digest))
    if lookup is None:
        return None
    user_id = str(lookup["userId"])
    record = items.get(record_key(user_id))
    return user_id if record is not None and record.get("digest") == digest else None
