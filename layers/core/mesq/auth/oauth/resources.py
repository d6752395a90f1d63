"""RFC 8707 resource indicators: which resources this instance issues tokens for, and where a
token may be used (its audience).

Resources are URLs of this instance: `<instance>/mcp` and its variants (`/mcp/readonly`,
`/mcp/x/<toolsets>`, `/mcp/x/<toolsets>/readonly`) and `<instance>/api/toolkit` (REST). An
authorization request without `resource` gets `<instance>/mcp`, the resource an MCP client
connects to. A token bound to `/mcp` is good on every `/mcp` variant (they only narrow what is
visible); a token bound to a variant only on that variant and its `/readonly` form, so a token a
person approved for a read-only or narrowed connection never reaches the full endpoint.

REST (`/api/toolkit/...`) accepts tokens bound to `/api/toolkit` and to `/mcp` itself: MCP tools
hand agents REST URLs (upload sessions, attachment reads past the MCP cap), the scopes are the
same and checked the same way, and `/mcp` already reaches every operation. Tokens of the
narrowed MCP variants are refused there (REST cannot apply their narrowing), and REST tokens are
never accepted by MCP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from ...kernel.messages import quoted
from ...kernel.toolsets import (
    TOOLSET_ALIASES,
    VALID_TOOLSET_NAMES,
    toolsets_read_scopes,
    toolsets_scopes,
    url_toolsets_problem,
)
from ..scopes import ALL_SCOPES, READ_SCOPES, order_scopes
from .errors import OAuthError

MCP_PATH = "/mcp"
REST_PATH = "/api/toolkit"
_RESOURCE_PATH = re.compile(r"/mcp(/readonly|/x/(?P<toolsets>[^/]+)(/readonly)?)?|/api/toolkit")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Connection:
    """What a resource's path connects to: the REST API, or MCP narrowed to `toolsets` (none:
    every group its access allows), read-only or not."""

    rest: bool
    toolsets: tuple[str, ...] = ()
    readonly: bool = False


def connection_of(path: str) -> Connection | None:
    """The connection of a resource path (`/mcp/x/memo,todo/readonly`), or None for a path that is
    no protected resource of an instance. An alias (`all`, `default`) selects every group."""
    match = _RESOURCE_PATH.fullmatch(path.rstrip("/"))
    if match is None:
        return None
    if match[0] == REST_PATH:
        return Connection(rest=True)
    names = tuple(name for name in (match["toolsets"] or "").split(",") if name)
    if set(names) & set(TOOLSET_ALIASES):
        names = ()
    return Connection(rest=False, toolsets=names, readonly=match[0].endswith("/readonly"))


def connection_read_scopes(resource: str) -> frozenset[str] | None:
    """The read scopes a connection to `resource` (a normalized resource URL) can use: those of the
    tool groups its `/mcp/x/{toolsets}` path selects; None when it reaches every group or is not
    narrowed by groups (`/mcp`, `/mcp/readonly`, `/mcp/x/all`, `/mcp/x/code`, REST)."""
    connection = connection_of(urlsplit(resource).path)
    if connection is None or connection.rest or not connection.toolsets:
        return None
    return toolsets_read_scopes(connection.toolsets)


def connection_scopes(path: str) -> list[str]:
    """The scopes a connection to the resource at `path` can use (RFC 9728 `scopes_supported`):
    the read and write scopes of the groups a `/mcp/x/{toolsets}` path selects, only their reads
    on its `/readonly` form; every scope, or every read scope read-only, where the connection is
    not narrowed by groups. The 401 challenge of the URL asks for the reads among them."""
    connection = connection_of(path)
    readonly = connection is not None and connection.readonly
    narrowed = toolsets_scopes(connection.toolsets, readonly=readonly) if connection and connection.toolsets else None
    if narrowed is None:
        return order_scopes(READ_SCOPES if readonly else ALL_SCOPES)
    return order_scopes(narrowed)


def _origin(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[parts.scheme]


def is_alias(url: str, instance: str, aliases: frozenset[str]) -> bool:
    """Whether `url` is on another name of `instance`: the same scheme and port, a host in
    `aliases` (the names the deployment declares for itself; see asgi/instance.py)."""
    origin, own = _origin(url), _origin(instance)
    if origin is None or own is None:
        return False
    return origin[0] == own[0] and origin[2] == own[2] and origin[1] != own[1] and origin[1] in aliases


def canonical_resource(resource: str | None, instance: str, aliases: frozenset[str]) -> str | None:
    """`resource` named on another name of this instance, as the instance's own URL (the token is
    bound to that one resource whichever name the client connected by); anything else unchanged,
    for normalize_resource to judge."""
    if resource is None or not is_alias(resource, instance, aliases):
        return resource
    parts = urlsplit(resource)
    if parts.query or parts.fragment or parts.username or parts.password:
        return resource  # refused as it is
    return instance + parts.path


def normalize_resource(resource: str | None, instance: str) -> str:
    """The canonical resource URL (`<instance><path>`), or OAuthError invalid_target."""
    if resource is None or resource.strip() == "":
        return instance + MCP_PATH
    if len(resource) > 500:
        raise OAuthError("invalid_target", "resource is too long")
    if _origin(resource) is None:  # also catches what urlsplit cannot parse (a bad IPv6 literal or port)
        raise OAuthError("invalid_target", "resource must be an absolute http(s) URL")
    parts = urlsplit(resource)
    if parts.fragment or parts.query or parts.username or parts.password:
        raise OAuthError("invalid_target", "resource must be an absolute URL without query, fragment or user info")
    if _origin(resource) != _origin(instance):
        raise OAuthError("invalid_target", f"resource {quoted(resource)} is not served by this instance ({instance})")
    path = parts.path.rstrip("/")
    match = _RESOURCE_PATH.fullmatch(path)
    if not match:
        raise OAuthError(
            "invalid_target",
            f"resource {quoted(resource)} is not a protected resource of this instance; use {instance}{MCP_PATH}",
        )
    if match["toolsets"] is not None:
        # The check of the /mcp/x/{toolsets} route itself: a token must not be bound to a URL that
        # can never be connected to, and a URL the route accepts must have its metadata document.
        problem = url_toolsets_problem(match["toolsets"])
        if problem is not None:
            raise OAuthError(
                "invalid_target", f"resource {quoted(resource)} {problem}; valid toolsets: {VALID_TOOLSET_NAMES}"
            )
    return instance + path


def accepts(token_resource: str, instance: str, request_path: str) -> bool:
    """Whether a token bound to `token_resource` may be used on `request_path` of `instance`."""
    if _origin(token_resource) != _origin(instance):
        return False
    bound = urlsplit(token_resource).path
    path = request_path.rstrip("/") or "/"
    if path == REST_PATH or path.startswith(REST_PATH + "/"):
        return bound in (REST_PATH, MCP_PATH)
    if bound == REST_PATH:
        return False
    if not (path == MCP_PATH or path.startswith(MCP_PATH + "/")):
        return False
    return bound == MCP_PATH or path in (bound, bound + "/readonly")
