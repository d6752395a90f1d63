"""The REST 401 challenge (the MCP endpoint builds its own, with the RFC 6750 error codes)."""

from __future__ import annotations

from starlette.requests import Request

from ..asgi.instance import resource_base
from ..wiring.services import Services


def rest_challenge(request: Request, services: Services) -> dict[str, str]:
    """The REST 401 challenge: like /mcp's, it names the protected-resource metadata (RFC 9728),
    so an OAuth client can find the authorization server from a REST call too. A request that sent
    a credential is told `error="invalid_token"` (RFC 6750 §3.1: what an OAuth client refreshes
    on); one without any gets no error code."""
    metadata = f"{resource_base(request, services)}/.well-known/oauth-protected-resource/api/toolkit"
    error = ' error="invalid_token",' if request.headers.get("authorization") else ""
    return {"WWW-Authenticate": f'Bearer realm="mesq",{error} resource_metadata="{metadata}"'}
