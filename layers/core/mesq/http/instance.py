"""The instance URL: what clients call this deployment (OAuth issuer, resource URLs)."""

from __future__ import annotations

from starlette.requests import Request

from ..context import Services


def instance_url(request: Request, services: Services) -> str:
    """The configured public URL (`MESQ_PUBLIC_URL`, `--public-url`), or the request's base URL."""
    return services.settings.public_url or str(request.base_url).rstrip("/")
