"""Personal access tokens (PATs).

A PAT is `mesq_pat_<43 url-safe chars>` (256 random bits), shown once. Only its SHA-256 is
stored: a fast hash is right for a high-entropy random secret (there is nothing to brute-force),
and it lets authentication be one GetItem on `PAT#<hash>`. The user's partition keeps the
listing record (name, scopes, expiry, last use) under `PAT#<tokenId>`.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from ..kernel.context import Principal
from ..kernel.errors import NotFound, Unauthorized, ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, Item, ItemStore, Key, Put, Update
from ..kernel.timestamps import format_timestamp, now_timestamp, parse_timestamp, utc_now
from .lookup_cache import cache_for
from .oauth.names import hidden_characters
from .scopes import order_scopes, parse_scopes

PAT_PREFIX = "mesq_pat_"
MAX_NAME_LENGTH = 100
MAX_EXPIRY_DAYS = 3650
# Last-use is informational: refreshing it at most once a minute keeps reads from writing.
LAST_USED_RESOLUTION = timedelta(seconds=60)


def secret_digest(secret: str) -> str:
    """SHA-256 of a 256-bit random secret (PATs, OAuth tokens, web sessions): a fast hash is right
    when there is nothing to brute-force, and it keeps authentication to one GetItem."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _lookup_key(digest: str) -> tuple[str, str]:
    return (f"PAT#{digest}", "PAT")


def record_use(items: ItemStore, stamps: list[tuple[Key, dict[str, Any]]]) -> None:
    """Stamp a credential's use on its lookup item and its record in one transaction (callers do
    it at most once a minute); a credential revoked meanwhile fails the condition and is refused."""
    try:
        items.transact([Update(key=key, set=stamp, condition=Condition(exists=True)) for key, stamp in stamps])
    except ConditionFailed:
        raise Unauthorized("the access token has been revoked") from None


def record_key(user_id: str, token_id: str) -> tuple[str, str]:
    return (user_partition(user_id), f"PAT#{token_id}")


def public_token(record: dict[str, Any]) -> dict[str, Any]:
    result = {
        "id": record["tokenId"],
        "name": record["name"],
        "scopes": record["scopes"],
        "createdAt": record["createdAt"],
    }
    for field in ("expiresAt", "lastUsedAt", "revokedAt"):
        if record.get(field):
            result[field] = record[field]
    return result


def token_status(token: dict[str, Any], now: datetime) -> str:
    """`revoked`, `expired` or `active`, for a public token record (CLI listing and the page)."""
    if token.get("revokedAt"):
        return "revoked"
    expires_at = token.get("expiresAt")
    if expires_at and parse_timestamp(expires_at, "expiresAt") <= now:
        return "expired"
    return "active"


def create_token(
    items: ItemStore,
    user_id: str,
    *,
    name: str,
    scopes: str | list[str],
    expires_days: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """Create a PAT; returns (the secret token, its public record). The secret is never stored."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise ValidationError("token name must be 1..%(max_name_length)s characters", max_name_length=MAX_NAME_LENGTH)
    # The name is how Activity, the tokens page and get_context say who acted: a line break, a NUL
    # or a bidi override ("laptop\u202egpj") would make it read as another one (a client_name is
    # refused the same way).
    hidden = hidden_characters(name, joiners=True)
    if hidden:
        raise ValidationError(
            "token name must not contain control or format characters (line breaks, bidi overrides, zero-width "
            "characters): found %(found)s",
            found=", ".join(hidden),
        )
    granted = order_scopes(parse_scopes(scopes))
    if expires_days is not None and not 1 <= expires_days <= MAX_EXPIRY_DAYS:
        raise ValidationError("expiry must be 1..%(max_expiry_days)s days", max_expiry_days=MAX_EXPIRY_DAYS)
    token = PAT_PREFIX + secrets.token_urlsafe(32)
    token_id = secrets.token_hex(8)
    digest = secret_digest(token)
    now = utc_now()
    record: dict[str, Any] = {
        "pk": record_key(user_id, token_id)[0],
        "sk": f"PAT#{token_id}",
        "tokenId": token_id,
        "digest": digest,
        "name": name,
        "scopes": granted,
        "createdAt": format_timestamp(now),
    }
    lookup: dict[str, Any] = {
        "pk": _lookup_key(digest)[0],
        "sk": "PAT",
        "userId": user_id,
        "tokenId": token_id,
        "name": name,  # the change history's actor name
        "scopes": granted,
    }
    if expires_days is not None:
        expires = now + timedelta(days=expires_days)
        record["expiresAt"] = lookup["expiresAt"] = format_timestamp(expires)
        lookup["ttl"] = int(expires.timestamp())  # the store forgets the lookup once it expires
    items.transact([Put(lookup, Condition(exists=False)), Put(record, Condition(exists=False))])
    return token, public_token(record)


def list_tokens(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    page = items.query(user_partition(user_id), prefix="PAT#")
    return [public_token(record) for record in page.items]


def revoke_token(items: ItemStore, user_id: str, token_id: str) -> dict[str, Any]:
    record = items.get(record_key(user_id, token_id))
    if record is None:
        raise NotFound("no token %(token_id)s", token_id=quoted(token_id))
    if not record.get("revokedAt"):
        items.transact(
            [
                Update(
                    key=record_key(user_id, token_id),
                    set={"revokedAt": now_timestamp()},
                    condition=Condition(exists=True),
                ),
                Delete(_lookup_key(record["digest"])),
            ]
        )
        cache_for(items).evict(record["digest"])
        record = items.get(record_key(user_id, token_id)) or record
    return public_token(record)


def authenticate_token(items: ItemStore, token: str) -> Principal:
    """The principal behind a PAT, or Unauthorized (unknown, revoked or expired).

    One GetItem: revocation deletes the lookup item in the same transaction that marks the
    record, so the lookup alone is authoritative. A found lookup is reused for a few seconds
    (auth/lookup_cache.py: a revocation elsewhere is honoured within its TTL_SECONDS).
    """
    if not _is_pat(token):
        raise Unauthorized("the access token is not valid")
    digest = secret_digest(token)
    lookup_key = _lookup_key(digest)
    cache = cache_for(items)
    lookup = cache.get(digest)
    if lookup is None:
        lookup = items.get(lookup_key)
        if lookup is None:
            raise Unauthorized("the access token is not valid, revoked or expired")
        cache.put(digest, lookup)
    now = utc_now()
    if _expired(lookup, now):
        raise Unauthorized("the access token has expired")
    if _use_due(lookup, now):
        stamp = {"lastUsedAt": format_timestamp(now)}
        try:
            record_use(items, [(lookup_key, stamp), (record_key(lookup["userId"], lookup["tokenId"]), stamp)])
        except Unauthorized:
            cache.evict(digest)
            raise
        cache.update(digest, stamp)
    return _principal(lookup)


def cached_principal(items: ItemStore, token: str) -> Principal | None:
    """The principal behind a PAT when knowing it takes no storage call: its lookup is cached,
    unexpired, and its last use was recorded within LAST_USED_RESOLUTION. None otherwise, for
    `authenticate_token` to decide (it reads or writes the store). An async caller answers a warm
    client's calls from this without a hop to a worker thread."""
    if not _is_pat(token):
        return None
    lookup = cache_for(items).get(secret_digest(token))
    if lookup is None:
        return None
    now = utc_now()
    if _expired(lookup, now) or _use_due(lookup, now):
        return None
    return _principal(lookup)


def _is_pat(token: str) -> bool:
    return token.startswith(PAT_PREFIX) and len(token) <= 200


def _expired(lookup: Item, now: datetime) -> bool:
    expires_at = lookup.get("expiresAt")
    if not expires_at:
        return False
    return parse_timestamp(expires_at, "expiresAt") <= now


def _use_due(lookup: Item, now: datetime) -> bool:
    """Whether this use should be recorded (last use unknown or older than the resolution)."""
    last_used = lookup.get("lastUsedAt")
    return not last_used or parse_timestamp(last_used, "lastUsedAt") + LAST_USED_RESOLUTION < now


def _principal(lookup: Item) -> Principal:
    return Principal(
        user_id=lookup["userId"],
        scopes=frozenset(lookup["scopes"]),
        credential_id=f"pat:{lookup['tokenId']}",
        kind="pat",
        name=str(lookup.get("name", "")),
    )
