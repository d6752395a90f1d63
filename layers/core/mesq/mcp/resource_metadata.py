"""RFC 9728 protected-resource metadata for `/mcp`: where the 401 challenge's
`resource_metadata` points. It names the resource, the built-in authorization server
(`authorization_servers`, see mesq/auth/oauth), how bearer tokens are sent and the scopes. The
variants (/mcp/readonly, /mcp/x/...) are served by mesq/http/oauth.py from the same builder."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..asgi.instance import instance_url, resource_base
from ..auth.oauth.metadata import protected_resource_metadata
from ..wiring.services import Services

__all__ = ["METADATA_PATH", "instance_url", "resource_base", "resource_metadata_endpoint"]

METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


def resource_metadata_endpoint(services: Services) -> Callable[[Request], Awaitable[Response]]:
    async def metadata(request: Request) -> Response:
        base = resource_base(request, services)
        document = protected_resource_metadata(instance_url(request, services), "/mcp", base)
        return JSONResponse(document, headers={"Cache-Control": "public, max-age=3600"})

    return metadata
