"""`Host` validation against DNS rebinding, for every route of every app (docs/decisions.md
"Slow clients, anonymous limits and DNS rebinding").

A rebinding page makes the browser send the attacker's own DNS name as `Host`, so a request is
served only when its Host names this instance:

- the host of the configured public URL (`MESQ_PUBLIC_URL` / `--public-url`), and the extra
  names of `MESQ_ALLOWED_HOSTS`;
- a loopback name (`localhost`, `127.0.0.1`, `[::1]`, any port): a browser sends one only for a
  page served from loopback itself, and a local reverse proxy forwards its upstream's address;
- without a public URL: on Lambda the API Gateway domain the request came in on
  (`requestContext.domainName`, which API Gateway only routes when it is mapped to this API),
  elsewhere any IP literal (`mesq serve` on a LAN address: an IP is never a rebinding name);
- with or without one, a Lambda function URL's own domain (`<id>.lambda-url.<region>.on.aws`,
  CalDAV's front door): Lambda routes a request to the function by that Host alone, so no other
  name can arrive there.

Anything else is 421 Misdirected Request. Ports are not compared: rebinding changes the name,
not the port, and a proxy may add or drop a default port.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..kernel.errors import MisdirectedRequest
from ..wiring.config import Settings
from .envelope import failure
from .trace import trace_id_of

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: The domains of Lambda function URLs (`<url-id>.lambda-url.<region>.on.aws`).
FUNCTION_URL_SUFFIX = ".on.aws"


def host_name(authority: str) -> str | None:
    """The lower-case name of a `Host` value without port, brackets or a trailing dot."""
    value = authority.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1 :] and not value[end + 1 :].startswith(":")):
            return None
        name = value[1:end]
    else:
        name, _, port = value.partition(":")
        if ":" in port:
            return None  # an unbracketed IPv6 literal is not a valid Host
    name = name.rstrip(".")
    return name or None


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _api_gateway_domain(scope: Scope) -> str | None:
    event: Any = scope.get("aws.event")  # Mangum: the API Gateway event
    if not isinstance(event, dict):
        return None
    domain = (event.get("requestContext") or {}).get("domainName")
    return host_name(domain) if isinstance(domain, str) else None


class HostPolicy:
    def __init__(self, settings: Settings) -> None:
        public = (urlsplit(settings.public_url).hostname or "").rstrip(".") if settings.public_url else None
        self.public_configured = public is not None
        self.names = frozenset(
            name for name in (public, *(host_name(extra) for extra in settings.allowed_hosts)) if name
        )

    def allows(self, host: str | None, scope: Scope) -> bool:
        name = host_name(host) if host else None
        if name is None:
            return False
        if name in self.names or name in LOOPBACK_NAMES:
            return True
        if "aws.event" in scope and name.endswith(FUNCTION_URL_SUFFIX) and name == _api_gateway_domain(scope):
            return True
        if self.public_configured:
            return False
        if "aws.event" in scope:
            return name == _api_gateway_domain(scope)
        return is_ip_literal(name)


class HostGuardMiddleware:
    """421 with the error envelope for a `Host` that does not name this instance."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.policy = HostPolicy(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host")
        if self.policy.allows(host, scope):
            await self.app(scope, receive, send)
            return
        shown = (host or "")[:100]
        error = MisdirectedRequest(
            "this server does not answer for host %(host)s; use its configured address", host=repr(shown)
        )
        await failure(error, trace_id_of(Request(scope)), {"Connection": "close"})(scope, receive, send)
