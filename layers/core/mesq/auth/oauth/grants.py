"""Grants and their tokens: code exchange, refresh rotation, revocation, bearer authentication.

A grant (`U#<userId>` / `OAUTHGRANT#<grantId>`) is one approved authorization: one client, one
person, the approved scopes and the RFC 8707 resource. It holds the digests of its one live
access token and one live refresh token, so revoking it deletes exactly those lookups in one
transaction. Refreshing rotates both; the used refresh token stays (marked `used`) until it
would have expired, so presenting it again is recognised as reuse and revokes the whole grant
(OAuth 2.1 §4.3.1), except within `REFRESH_GRACE_SECONDS` of its use: then its client gets the
pair the first presentation got (sealed on the used token's item under the token itself), as
long as that pair is still the grant's live one, or a clean `invalid_grant` without revoking.
A replayed authorization code likewise revokes the grant it created
(RFC 6749 §4.1.2). A new grant supersedes the person's earlier grants of the same client and
resource (the MCP step-up re-authorizes for more scopes): they are revoked once it is stored.
Access-token lookups are authoritative: one GetItem per request.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...kernel.context import Principal
from ...kernel.errors import NotFound, Unauthorized
from ...kernel.messages import quoted
from ...kernel.ports.storage import Condition, ConditionFailed, Delete, ItemStore, Key, Put, Update, WriteOp
from ...kernel.timestamps import format_timestamp, now_timestamp, utc_now
from ...store.paging import walk
from ..scopes import known_scopes, order_scopes
from ..tokens import record_use
from .errors import OAuthError
from .keys import (
    ACCESS_PREFIX,
    ACCESS_SECONDS,
    MAX_SECRET_LENGTH,
    REFRESH_GRACE_SECONDS,
    REFRESH_PREFIX,
    REFRESH_SECONDS,
    USED_CODE_RETENTION_SECONDS,
    access_key,
    code_key,
    digest,
    grant_key,
    new_id,
    new_secret,
    refresh_key,
)
from .names import shown_name
from .resources import normalize_resource
from .sealing import seal, unseal

LAST_USED_RESOLUTION_SECONDS = 60


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]

    def response(self) -> dict[str, Any]:
        """The RFC 6749 §5.1 token response."""
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": self.refresh_token,
            "scope": " ".join(self.scopes),
        }


def _invalid_grant(description: str) -> OAuthError:
    return OAuthError("invalid_grant", description)


def _token_writes(grant: dict[str, Any], scopes: list[str]) -> tuple[IssuedTokens, list[WriteOp], dict[str, Any]]:
    """Puts for a fresh access + refresh token of `grant`; returns what the grant keeps (the
    digests, and its `ttl`: the refresh token's expiry)."""
    now = int(time.time())
    access, refresh = new_secret(ACCESS_PREFIX), new_secret(REFRESH_PREFIX)
    access_digest, refresh_digest = digest(access), digest(refresh)
    common = {"grantId": grant["grantId"], "userId": grant["userId"], "clientId": grant["clientId"]}
    writes: list[WriteOp] = [
        Put(
            {
                "pk": access_key(access_digest)[0],
                "sk": access_key(access_digest)[1],
                **common,
                "scopes": scopes,
                "resource": grant["resource"],
                "clientName": grant.get("clientName", ""),  # the change history's actor name
                "expiresAtEpoch": now + ACCESS_SECONDS,
                "ttl": now + ACCESS_SECONDS,
            },
            Condition(exists=False),
        ),
        Put(
            {
                "pk": refresh_key(refresh_digest)[0],
                "sk": refresh_key(refresh_digest)[1],
                **common,
                "state": "active",
                "expiresAtEpoch": now + REFRESH_SECONDS,
                "ttl": now + REFRESH_SECONDS,
            },
            Condition(exists=False),
        ),
    ]
    tokens = IssuedTokens(access, refresh, ACCESS_SECONDS, tuple(scopes))
    # The grant lives as long as its refresh token: once that expires nothing can use the grant,
    # and the Connected-apps page must not list it (each rotation starts a new 30 days).
    kept = {"accessDigest": access_digest, "refreshDigest": refresh_digest, "ttl": now + REFRESH_SECONDS}
    return tokens, writes, kept


def exchange_code(
    items: ItemStore,
    *,
    code: str,
    client_id: str,
    redirect_uri: str | None,
    code_verifier: str | None,
    resource: str | None,
    instance: str,
) -> IssuedTokens:
    """authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 8707 §2.2)."""
    if not code_verifier:
        raise OAuthError("invalid_request", "code_verifier is required (PKCE)")
    if len(code) > MAX_SECRET_LENGTH:
        raise _invalid_grant("the authorization code is not valid")
    key = code_key(digest(code))
    record = items.get(key)
    if record is None:
        raise _invalid_grant("the authorization code is unknown or expired")
    if record["state"] != "issued":
        _revoke_replayed(items, record)
        raise _invalid_grant("the authorization code was already used; the tokens issued from it are revoked")
    used_until = int(record["expiresAtEpoch"]) + USED_CODE_RETENTION_SECONDS
    try:
        _check_code(record, client_id, redirect_uri, code_verifier, resource, instance)
    except OAuthError:
        # A code is single-use whatever the outcome (RFC 6749 §4.1.2): a failed PKCE or
        # redirect check spends it too, so a stolen code gets one guess.
        _spend_failed_code(items, key, used_until)
        raise
    grant_id = new_id()
    grant = {
        "pk": grant_key(record["userId"], grant_id)[0],
        "sk": grant_key(record["userId"], grant_id)[1],
        "grantId": grant_id,
        "userId": record["userId"],
        "clientId": record["clientId"],
        "clientName": record["clientName"],
        "scopes": record["scopes"],
        "resource": record["resource"],
        "redirectUri": record["redirectUri"],  # where the code went: Connected apps groups by it
        "createdAt": now_timestamp(),
    }
    tokens, writes, digests = _token_writes(grant, record["scopes"])
    grant.update(digests)
    try:
        items.transact(
            [
                Update(
                    key=key,
                    set={"state": "used", "grantId": grant_id, "ttl": used_until},
                    condition=Condition(equals={"state": "issued"}),
                ),
                Put(grant, Condition(exists=False)),
                *writes,
            ]
        )
    except ConditionFailed:
        # A concurrent exchange of the same code won: this one is the replay.
        replayed = items.get(key)
        if replayed is not None:
            _revoke_replayed(items, replayed)
        raise _invalid_grant("the authorization code was already used; the tokens issued from it are revoked") from None
    _supersede_earlier(items, grant)
    return tokens


def _supersede_earlier(items: ItemStore, grant: dict[str, Any]) -> None:
    """Revoke the person's earlier live grants of the same client for the same resource whose
    scopes the new one holds and more, with their access and refresh tokens: that is the MCP
    step-up (a 403 `insufficient_scope`, then a new authorization for the union of scopes), which
    renews the connection it widens, so Connected apps shows it once and disconnecting it ends
    every token the client holds (docs/decisions.md, "superseded grants"). An authorization for
    the same scopes or fewer is another device of the person connecting the same app (a
    metadata-document client id is the same on every machine): it never signs the first one out.
    Only the person's own partition is read; another client, another resource (a second
    connector on a narrowed URL) and any later grant (a concurrent exchange) are left alone, so of
    two racing exchanges the newer one survives. The new grant is already stored: a revocation
    that keeps losing to a concurrent refresh is left for the person to disconnect rather than
    failing the exchange."""
    newer = (grant["createdAt"], grant["grantId"])
    widened = set(grant["scopes"])
    for earlier in walk(items, grant_key(grant["userId"], "")[0], prefix="OAUTHGRANT#"):
        if (
            earlier["clientId"] == grant["clientId"]
            and earlier["resource"] == grant["resource"]
            and set(earlier["scopes"]) < widened
            and not earlier.get("revokedAt")
            and (earlier["createdAt"], earlier["grantId"]) < newer
        ):
            with contextlib.suppress(ConditionFailed):
                _revoke(items, grant["userId"], earlier["grantId"])


def _check_code(
    record: dict[str, Any],
    client_id: str,
    redirect_uri: str | None,
    code_verifier: str,
    resource: str | None,
    instance: str,
) -> None:
    if record["clientId"] != client_id:
        raise _invalid_grant("the authorization code was issued to another client")
    if record["expiresAtEpoch"] <= time.time():
        raise _invalid_grant("the authorization code has expired")
    if redirect_uri != record["redirectUri"] and (record["redirectUriGiven"] or redirect_uri is not None):
        raise _invalid_grant("redirect_uri does not match the one of the authorization request")
    # Imported here: access-token checks (this module's other half) run on the MCP function,
    # whose cold start keeps authlib out (tests/mcp/test_cold_import.py).
    from authlib.oauth2.rfc7636.challenge import CODE_VERIFIER_PATTERN, compare_s256_code_challenge

    if not CODE_VERIFIER_PATTERN.match(code_verifier):
        raise _invalid_grant("code_verifier must be 43..128 unreserved characters (RFC 7636)")
    if not compare_s256_code_challenge(code_verifier, record["codeChallenge"]):
        raise _invalid_grant("code_verifier does not match the code_challenge")
    if resource is not None and normalize_resource(resource, instance) != record["resource"]:
        raise OAuthError("invalid_target", "resource differs from the one the user approved")


def _spend_failed_code(items: ItemStore, key: Key, used_until: int) -> None:
    """Mark an issued code used without a grant (a later presentation is then a replay)."""
    spend = Update(key=key, set={"state": "used", "ttl": used_until}, condition=Condition(equals={"state": "issued"}))
    with contextlib.suppress(ConditionFailed):  # a concurrent exchange spent it first
        items.update(spend)


def _revoke_replayed(items: ItemStore, code_record: dict[str, Any]) -> None:
    if code_record.get("grantId"):
        _revoke(items, code_record["userId"], code_record["grantId"])


def refresh(
    items: ItemStore,
    *,
    refresh_token: str,
    client_id: str,
    scope: str | None,
    resource: str | None,
    instance: str,
) -> IssuedTokens:
    """refresh_token grant with rotation and reuse detection (OAuth 2.1 §4.3)."""
    if len(refresh_token) > MAX_SECRET_LENGTH or not refresh_token.startswith(REFRESH_PREFIX):
        raise _invalid_grant("the refresh token is not valid")
    presented = digest(refresh_token)
    key = refresh_key(presented)
    record = items.get(key)
    if record is None:
        raise _invalid_grant("the refresh token is unknown, revoked or expired")
    if record["clientId"] != client_id:
        raise _invalid_grant("the refresh token was issued to another client")
    if record["state"] != "active":
        return _answer_again(items, record, refresh_token, resource, instance)
    if record["expiresAtEpoch"] <= time.time():
        raise _invalid_grant("the refresh token has expired")
    grant = items.get(grant_key(record["userId"], record["grantId"]))
    if grant is None or grant.get("revokedAt") or grant.get("refreshDigest") != presented:
        raise _invalid_grant("the refresh token has been revoked")
    scopes = list(grant["scopes"])
    # Scopes MeSQ does not have are ignored here too (a client may send back the `scope` it asked
    # for, `offline_access` included); nothing of ours left keeps the grant's scopes.
    requested = known_scopes(scope)
    if requested:
        if not requested <= set(scopes):
            raise OAuthError("invalid_scope", "a refresh can only keep or narrow the approved scopes")
        scopes = order_scopes(requested)
    if resource is not None and normalize_resource(resource, instance) != grant["resource"]:
        raise OAuthError("invalid_target", "resource differs from the one the user approved")
    tokens, writes, digests = _token_writes(grant, scopes)
    now = int(time.time())
    answer = {"access": tokens.access_token, "refresh": tokens.refresh_token, "until": now + tokens.expires_in}
    used = {"state": "used", "answer": seal(refresh_token, answer, key[0]), "answerUntil": now + REFRESH_GRACE_SECONDS}
    try:
        items.transact(
            [
                Update(key=key, set=used, condition=Condition(equals={"state": "active"})),
                Update(
                    # A narrowed refresh narrows the grant: later refreshes without `scope` keep the
                    # narrowed set (RFC 6749 §6 lets a refresh reduce, never regain, the scope).
                    key=grant_key(grant["userId"], grant["grantId"]),
                    set={**digests, "scopes": scopes},
                    condition=Condition(equals={"refreshDigest": grant["refreshDigest"]}),
                ),
                # The access token of the previous round goes: one live access token per grant.
                Delete(access_key(grant["accessDigest"])),
                *writes,
            ]
        )
    except ConditionFailed:
        # Another refresh with the same token won the race (a host's two requests refreshing
        # together): its answer is this one's too, sealed on the token's item in the same
        # transaction; a token revoked meanwhile is gone.
        again = items.get(key)
        if again is None:
            raise _invalid_grant("the refresh token has been revoked") from None
        if again["state"] == "active":
            raise _invalid_grant("the grant changed during the refresh; try again") from None
        return _answer_again(items, again, refresh_token, resource, instance)
    return tokens


def _answer_again(
    items: ItemStore, record: dict[str, Any], refresh_token: str, resource: str | None, instance: str
) -> IssuedTokens:
    """A used refresh token presented again by its client. Within `REFRESH_GRACE_SECONDS` of its
    use: the pair its first presentation got while that pair is still the grant's live one, else
    `invalid_grant` (the grant stays). Later: reuse, which revokes the grant (OAuth 2.1 §4.3.1)."""
    if record.get("answerUntil", 0) <= time.time():
        _revoke(items, record["userId"], record["grantId"])
        raise _invalid_grant("the refresh token was already used; every token of this grant is revoked")
    answer = unseal(refresh_token, str(record.get("answer", "")), refresh_key(digest(refresh_token))[0])
    grant = items.get(grant_key(record["userId"], record["grantId"]))
    if (
        answer is None
        or grant is None
        or grant.get("revokedAt")
        or grant.get("refreshDigest") != digest(answer["refresh"])
    ):
        raise _invalid_grant("the refresh token was already used and the tokens it gave are no longer valid")
    if resource is not None and normalize_resource(resource, instance) != grant["resource"]:
        raise OAuthError("invalid_target", "resource differs from the one the user approved")
    expires_in = int(answer["until"]) - int(time.time())
    return IssuedTokens(answer["access"], answer["refresh"], max(expires_in, 1), tuple(grant["scopes"]))


#: The writes `revoke_writes` makes per grant (its record, its access token, its refresh token).
REVOKE_WRITES = 3


def revoke_writes(key: Key, grant: dict[str, Any]) -> list[WriteOp]:
    """The REVOKE_WRITES writes that end `grant` (stored at `key`) and its live tokens, on the
    condition that it has not refreshed since it was read."""
    return [
        Update(
            key=key,
            set={"revokedAt": now_timestamp(), "ttl": int(time.time()) + REFRESH_SECONDS},
            condition=Condition(equals={"refreshDigest": grant["refreshDigest"]}),
        ),
        Delete(access_key(grant["accessDigest"])),
        Delete(refresh_key(grant["refreshDigest"])),
    ]


def _revoke(items: ItemStore, user_id: str, grant_id: str) -> bool:
    """Revoke a grant and its live tokens; False when it does not exist."""
    key = grant_key(user_id, grant_id)
    for _ in range(3):  # a concurrent refresh may move the digests between read and write
        grant = items.get(key)
        if grant is None:
            return False
        if grant.get("revokedAt"):
            return True
        try:
            items.transact(revoke_writes(key, grant))
            return True
        except ConditionFailed:
            continue
    raise ConditionFailed("the grant kept changing while it was being revoked")


def revoke_token(items: ItemStore, token: str, client_id: str | None) -> None:
    """RFC 7009: revoke the grant behind an access or refresh token issued to `client_id` (the
    authenticated client; None when the request named no client: holding the token suffices).
    Unknown tokens, and tokens of another client, are ignored (the endpoint answers 200 anyway:
    §2.2)."""
    if len(token) > MAX_SECRET_LENGTH:
        return
    if token.startswith(ACCESS_PREFIX):
        record = items.get(access_key(digest(token)))
    elif token.startswith(REFRESH_PREFIX):
        record = items.get(refresh_key(digest(token)))
    else:
        return
    if record is None or (client_id is not None and record["clientId"] != client_id):
        return
    _revoke(items, record["userId"], record["grantId"])


def public_grant(grant: dict[str, Any]) -> dict[str, Any]:
    result = {
        "id": grant["grantId"],
        "clientId": grant["clientId"],
        "clientName": shown_name(grant["clientName"]),  # stored before registration refused hidden characters
        "scopes": grant["scopes"],
        "resource": grant["resource"],
        "createdAt": grant["createdAt"],
    }
    if grant.get("lastUsedAt"):
        result["lastUsedAt"] = grant["lastUsedAt"]
    return result


def _usable(items: ItemStore, grant: dict[str, Any]) -> bool:
    """Not revoked, and (for a grant stored before grants expired with their refresh token, which
    has no `ttl`) its refresh token still there."""
    if grant.get("revokedAt"):
        return False
    return "ttl" in grant or items.get(refresh_key(grant["refreshDigest"])) is not None


def list_grants(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    """The person's connected apps (live grants), newest first."""
    grants = [
        public_grant(grant)
        for grant in walk(items, grant_key(user_id, "")[0], prefix="OAUTHGRANT#")
        if _usable(items, grant)
    ]
    return sorted(grants, key=lambda grant: grant["createdAt"], reverse=True)


def get_grant(items: ItemStore, user_id: str, grant_id: str) -> dict[str, Any]:
    """One of the person's live grants (public fields); NotFound when unknown or revoked."""
    grant = items.get(grant_key(user_id, grant_id)) if grant_id and len(grant_id) <= 100 else None
    if grant is None or grant.get("revokedAt"):
        raise NotFound("no connected app %(grant_id)s", grant_id=quoted(grant_id))
    return public_grant(grant)


def revoke_grant(items: ItemStore, user_id: str, grant_id: str) -> None:
    """Revoke one of the person's grants and every token it issued; NotFound when unknown."""
    if not grant_id or len(grant_id) > 100 or not _revoke(items, user_id, grant_id):
        raise NotFound("no connected app %(grant_id)s", grant_id=quoted(grant_id))


def authenticate_access_token(items: ItemStore, token: str, accepts: Callable[[str], bool]) -> Principal:
    """The principal behind an OAuth access token whose resource `accepts` approves, or
    Unauthorized (unknown, revoked, expired, or issued for another resource: RFC 8707)."""
    if not token.startswith(ACCESS_PREFIX) or len(token) > MAX_SECRET_LENGTH:
        raise Unauthorized("the access token is not valid")
    key = access_key(digest(token))
    record = items.get(key)
    if record is None:
        raise Unauthorized("the access token is not valid, revoked or expired")
    now = utc_now()
    if record["expiresAtEpoch"] <= now.timestamp():
        raise Unauthorized("the access token has expired")
    if not accepts(record["resource"]):
        raise Unauthorized(
            "the access token was issued for another resource (%(resource)s)", resource=record["resource"]
        )
    last_used = record.get("lastUsedEpoch", 0)
    if last_used + LAST_USED_RESOLUTION_SECONDS < now.timestamp():
        record_use(
            items,
            [
                (key, {"lastUsedEpoch": int(now.timestamp())}),
                (grant_key(record["userId"], record["grantId"]), {"lastUsedAt": format_timestamp(now)}),
            ],
        )
    return Principal(
        user_id=record["userId"],
        scopes=frozenset(record["scopes"]),
        credential_id=f"oauth:{record['grantId']}",
        kind="oauth",
        name=str(record.get("clientName", "")),
    )
