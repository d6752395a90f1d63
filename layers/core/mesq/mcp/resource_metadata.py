"""RFC 9728 protected-resource metadata for `/mcp`: where the 401 challenge's
`resource_metadata` points. It names the resource, how bearer tokens are sent and the scopes;
`authorization_servers` joins it when the OAuth 2.1 server lands (until then clients use a PAT)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..auth.scopes import ALL_SCOPES
from ..context import Services

METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


def instance_url(request: Request, services: Services) -> str:
    """The configured public URL, or the request's own base URL."""
    return services.settings.public_url or str(request.base_url).rstrip("/")


def resource_metadata_endpoint(services: Services) -> Callable[[Request], Awaitable[Response]]:
    async def metadata(request: Request) -> Response:
        base = instance_url(request, services)
        return JSONResponse(
            {
                "resource": f"{base}/mcp",
                "resource_name": "MeSQ",
                "bearer_methods_supported": ["header"],
                "scopes_supported": list(ALL_SCOPES),
            },
            headers={"Cache-Control": "public, max-age=3600"},
        )

    return metadata
