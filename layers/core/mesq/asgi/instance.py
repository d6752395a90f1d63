"""Who is asking where: the instance URL clients call this deployment by (OAuth issuer, resource
URLs) and the client address per-IP limits count."""

from __future__ import annotations

from starlette.requests import Request

from ..wiring.services import Services


def instance_url(request: Request, services: Services) -> str:
    """The configured public URL (`MESQ_PUBLIC_URL`, `--public-url`), or the request's base URL."""
    return services.settings.public_url or str(request.base_url).rstrip("/")


def client_ip(request: Request) -> str:
    """The caller's address for per-IP limits. Mangum fills `client` from API Gateway's
    requestContext.http.sourceIp; uvicorn from the socket (or X-Forwarded-For, only from the
    proxies `mesq serve --forwarded-allow-ips` trusts)."""
    return request.client.host if request.client else "unknown"
