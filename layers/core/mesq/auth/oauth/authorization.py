"""Authorization requests between `GET /oauth/authorize` and the consent page (OAUTH_WEB.md).

`/oauth/authorize` validates the request and stores it as a pending request (10 minutes); the
consent page (mesq/web) shows it with `load_pending` and answers it with `decide`, which
consumes it once and returns where the browser goes next: the client's redirect URI with
`code`, `state` and `iss` (RFC 9207), or with `error=access_denied`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from authlib.common.urls import add_params_to_uri

from ...kernel.errors import NotFound, ValidationError
from ...kernel.ports.storage import Condition, ConditionFailed, Delete, ItemStore, Put
from ...kernel.timestamps import now_timestamp
from ..scopes import ALL_SCOPES, READ_SCOPES, known_scopes, order_scopes
from .clients import Client, registered_client
from .grants import get_grant, list_grants, revoke_grant
from .keys import CODE_PREFIX, CODE_SECONDS, PENDING_SECONDS, code_key, digest, new_id, new_secret, pending_key
from .resources import connection_read_scopes, connection_scopes

__all__ = [
    "PendingAuthorization",
    "create_pending",
    "decide",
    "get_grant",
    "list_grants",
    "load_pending",
    "redirect_with",
    "requested_scopes",
    "revoke_grant",
]

#: docs/contract.md §1: no scope or a blank one means these three (still shown on the consent page).
DEFAULT_SCOPES = frozenset({"memo:read", "todo:read", "reading:read"})


@dataclass(frozen=True)
class PendingAuthorization:
    request_id: str
    client_id: str
    client_name: str
    redirect_uri: str
    scopes: tuple[str, ...]  # already defaulted to memo:read todo:read reading:read when blank
    resource: str  # the RFC 8707 resource (e.g. https://host/mcp)
    state: str | None
    offered: bool = False  # no scope was asked: MeSQ offers what the connection can use


def redirect_with(uri: str, params: dict[str, str | None]) -> str:
    """`uri` with `params` added to its query (existing query parameters are kept)."""
    url: str = add_params_to_uri(uri, [(name, value) for name, value in params.items() if value is not None])
    return url


def requested_scopes(client: Client, scope: str | None, resource: str | None = None) -> frozenset[str]:
    """The scopes an authorization request asks for (what the consent page shows and the token
    carries).

    Scopes MeSQ does not have are ignored (RFC 6749 §3.3 lets the server grant less than asked;
    the token response's `scope` says what was granted): MCP clients add `offline_access`,
    `openid` or `claudeai` whatever the metadata lists, and refusing them refused the whole
    connection. When no MeSQ scope is left, the request is treated as one without `scope`: a
    client that registered scopes gets the default set narrowed to what it registered (a client
    registered for `memo:read memo:write` gets `memo:read`); when that leaves nothing (it
    registered write scopes only), the scopes it registered. Either way the person approves them
    on the consent page. An explicit `scope` may name any supported scope.

    A default for a `resource` narrowed to tool groups (`/mcp/x/todo`) keeps only the read scopes
    those groups use (`todo:read`): the person is not asked to let a todos-only connection read
    memos it can never show (ChatGPT reconnects without `scope`). When that leaves nothing (a
    client registered for memos, or for writes only), the URL's read scopes, what its 401
    challenge asks for: a default the URL cannot use bound a token to `/mcp/x/todo` that listed
    no tool at all."""
    requested = known_scopes(scope)
    if not requested and client.scopes is None:
        # A host that says nothing of what it needs (no `scope`, no registered one) is offered
        # what its connection can use, writes included, and the person unticks what they do not
        # want on the consent page (docs/decisions.md, "no scope asked"): read-only had the agent
        # fail on its first write with a scope error the person could not place.
        return frozenset(connection_scopes(urlsplit(resource).path) if resource is not None else ALL_SCOPES)
    if not requested:
        defaults = DEFAULT_SCOPES if client.scopes is None else (DEFAULT_SCOPES & client.scopes) or client.scopes
        reach = connection_read_scopes(resource) if resource is not None else None
        if reach is None:
            return defaults
        return (defaults & reach) or reach
    # A registered `scope` is what the client expects to need, not a ceiling: MCP step-up (a 403
    # insufficient_scope naming more scopes) makes a registered client ask again for the union, and
    # the person approves every scope on the consent page either way.
    return requested


def create_pending(
    items: ItemStore,
    *,
    client: Client,
    redirect_uri: str,
    redirect_uri_given: bool,
    scopes: frozenset[str],
    resource: str,
    state: str | None,
    code_challenge: str,
    issuer: str,
    offered: bool = False,
) -> str:
    """Store a pending authorization request; `offered`: no scope was asked, `scopes` is what
    MeSQ offers (the consent page says so)."""
    request_id = new_id() + new_id()  # 160 bits: the consent URL must not be guessable
    record: dict[str, Any] = {
        "pk": pending_key(request_id)[0],
        "sk": pending_key(request_id)[1],
        "requestId": request_id,
        "clientId": client.client_id,
        "clientName": client.client_name,
        "metadataDocument": client.metadata_document,
        "redirectUri": redirect_uri,
        "redirectUriGiven": redirect_uri_given,
        "scopes": order_scopes(scopes),
        "resource": resource,
        "codeChallenge": code_challenge,
        "issuer": issuer,
        "createdAt": now_timestamp(),
        "ttl": int(time.time()) + PENDING_SECONDS,
    }
    if state is not None:
        record["state"] = state
    if offered:
        record["scopesOffered"] = True
    items.put(record, Condition(exists=False))
    return request_id


def _pending_record(items: ItemStore, request_id: str) -> dict[str, Any]:
    record = items.get(pending_key(request_id)) if request_id and len(request_id) <= 100 else None
    if record is None:
        raise NotFound("this authorization request is unknown, already answered or expired; start again in the app")
    return record


def load_pending(items: ItemStore, request_id: str) -> PendingAuthorization:
    record = _pending_record(items, request_id)
    return PendingAuthorization(
        request_id=record["requestId"],
        client_id=record["clientId"],
        client_name=record["clientName"],
        redirect_uri=record["redirectUri"],
        scopes=tuple(record["scopes"]),
        resource=record["resource"],
        state=record.get("state"),
        offered=bool(record.get("scopesOffered")),
    )


def chosen_scopes(offered: list[str], chosen: list[str] | None) -> list[str]:
    """The scopes the person left ticked on the consent page (None: all of them): some of those
    offered, and a read scope among them when one was offered (an MCP connection needs one)."""
    if chosen is None:
        return offered
    if not set(chosen) <= set(offered):
        raise ValidationError("scopes must be among those the app asked for: %(offered)s", offered=" ".join(offered))
    kept = [scope for scope in offered if scope in set(chosen)]
    if not kept:
        raise ValidationError("tick at least one permission, or deny")
    if set(offered) & READ_SCOPES and not set(kept) & READ_SCOPES:
        raise ValidationError("keep at least one read permission ticked: without one the app cannot connect")
    return kept


def decide(items: ItemStore, user_id: str, request_id: str, approve: bool, scopes: list[str] | None = None) -> str:
    """Answer a pending request for `user_id` (once only) and return the client redirect URL;
    `scopes`: those the person left ticked (None: every one the page showed)."""
    record = _pending_record(items, request_id)
    answer: dict[str, str | None] = {}
    writes: list[Put | Delete] = [Delete(pending_key(request_id), Condition(exists=True))]
    if approve:
        if not record["metadataDocument"] and registered_client(items, record["clientId"]) is None:
            raise NotFound("the application that asked for access is no longer registered")
        granted = chosen_scopes(list(record["scopes"]), scopes)
        code = new_secret(CODE_PREFIX)
        expires = int(time.time()) + CODE_SECONDS
        writes.append(
            Put(
                {
                    "pk": code_key(digest(code))[0],
                    "sk": code_key(digest(code))[1],
                    "state": "issued",
                    "userId": user_id,
                    "clientId": record["clientId"],
                    "clientName": record["clientName"],
                    "redirectUri": record["redirectUri"],
                    "redirectUriGiven": record["redirectUriGiven"],
                    "scopes": granted,
                    "resource": record["resource"],
                    "codeChallenge": record["codeChallenge"],
                    "expiresAtEpoch": expires,
                    "ttl": expires,  # extended once used, to detect a replay (grants.py)
                },
                Condition(exists=False),
            )
        )
        answer["code"] = code
    else:
        answer["error"] = "access_denied"
        answer["error_description"] = "the user denied access"
    try:
        items.transact(writes)
    except ConditionFailed:
        raise NotFound("this authorization request was already answered") from None
    answer["state"] = record.get("state")
    answer["iss"] = record["issuer"]
    return redirect_with(record["redirectUri"], answer)
