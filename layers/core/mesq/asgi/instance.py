"""Who is asking where: the instance URL clients call this deployment by (OAuth issuer, resource
URLs) and the client address per-IP limits count."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

from ..auth.oauth.resources import is_alias
from ..wiring.config import Settings
from ..wiring.services import Services
from .hosts import LOOPBACK_NAMES, host_name


def instance_url(request: Request, services: Services) -> str:
    """The configured public URL (`MESQ_PUBLIC_URL`, `--public-url`), or the request's base URL."""
    return services.settings.public_url or str(request.base_url).rstrip("/")


def instance_aliases(settings: Settings) -> frozenset[str]:
    """The other host names the public URL may be reached by, as the same resource: the names of
    `MESQ_ALLOWED_HOSTS`, and every loopback name when the public URL is itself on loopback
    (`--public-url http://127.0.0.1:8000` also answers `localhost:8000`). A loopback name is no
    alias of a public URL elsewhere: `https://localhost` on a person's machine is whatever runs
    there. Empty without a public URL (the request's own URL is the instance then)."""
    if not settings.public_url:
        return frozenset()
    public = host_name(urlsplit(settings.public_url).netloc) or ""
    names = {name for name in (host_name(extra) for extra in settings.allowed_hosts) if name}
    if public in LOOPBACK_NAMES:
        names |= LOOPBACK_NAMES
    return frozenset(names - {public})


def resource_base(request: Request, services: Services) -> str:
    """The instance URL the protected-resource metadata and the 401 challenges name: the URL the
    request came on when it is another name of the instance with the public URL's scheme and port
    (RFC 9728 §3.3: a client uses the metadata only when its `resource` is the URL it connected
    to), else `instance_url`. Authorization and token requests map such a resource back to the
    public URL's (auth/oauth/resources.canonical_resource), so the issuer and every token's
    audience stay the public URL's."""
    instance = instance_url(request, services)
    requested = str(request.base_url).rstrip("/")
    return requested if is_alias(requested, instance, instance_aliases(services.settings)) else instance


def client_ip(request: Request) -> str:
    """The caller's address for per-IP limits. Mangum fills `client` from API Gateway's
    requestContext.http.sourceIp; uvicorn from the socket (or X-Forwarded-For, only from the
    proxies `mesq serve --forwarded-allow-ips` trusts)."""
    return request.client.host if request.client else "unknown"
