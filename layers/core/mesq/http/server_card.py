"""How directories list MeSQ: the MCP Server Card of an instance and the registry's `server.json`.

- `GET /.well-known/mcp/server-card.json` (and `GET /mcp/server-card`, the location the Server
  Card extension now reserves: `<streamable-http-url>/server-card`) answer the card of this
  instance (schema `https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json`,
  the experimental extension of SEP-2127): its identity, `/mcp` and `/mcp/x/{toolsets}` as
  streamable-http remotes with the protocol versions they serve, and the optional
  `Authorization` header (a PAT; without it a client signs in with OAuth). As the extension asks:
  any origin may read it (CORS, `ETag` exposed), `Cache-Control: public, max-age=3600`, an `ETag`
  with `If-None-Match` -> 304, and `application/mcp-server-card+json` to a client that asks for it.
- `registry_server_json()` is the repository's `server.json` for the MCP Registry (schema
  2025-12-11): the same identity, with the instance's host as a variable, since every person runs
  their own instance. `infra/server_json.py` writes it; a test holds the file to it.

Both repeat `kernel/server_identity.py` and the package version, so they cannot drift from what
`server/discover` says.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, request_response
from starlette.types import ASGIApp

from .. import __version__
from ..asgi.instance import instance_url
from ..kernel.server_identity import (
    REGISTRY_NAME,
    SERVED_PROTOCOL_VERSIONS,
    SERVER_DESCRIPTION,
    SERVER_TITLE,
)
from ..wiring.services import Services

CARD_PATHS = ("/.well-known/mcp/server-card.json", "/mcp/server-card")
CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
CARD_MEDIA_TYPE = "application/mcp-server-card+json"
REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

_AUTHORIZATION = {
    "name": "Authorization",
    "description": "A MeSQ personal access token; leave the header out to sign in with OAuth instead.",
    "isRequired": False,
    "isSecret": True,
    "value": "Bearer {token}",
    "variables": {
        "token": {
            "description": "A personal access token (Settings, Access credentials; or `mesq token create`).",
            "isRequired": True,
            "isSecret": True,
        }
    },
}
_TOOLSETS_VARIABLE = {
    "description": "Tool groups, comma separated: fewer tools cost the model less context.",
    "isRequired": True,
    "default": "memo",
    "placeholder": "memo,todo,todo_inbox",
}


def _remotes(base: str) -> list[dict[str, Any]]:
    versions = list(SERVED_PROTOCOL_VERSIONS)
    return [
        {"type": "streamable-http", "url": f"{base}/mcp", "headers": [_AUTHORIZATION],
         "supportedProtocolVersions": versions},
        {"type": "streamable-http", "url": f"{base}/mcp/x/{{toolsets}}", "headers": [_AUTHORIZATION],
         "variables": {"toolsets": dict(_TOOLSETS_VARIABLE)},
         "supportedProtocolVersions": versions},
    ]  # fmt: skip


def server_card(instance: str) -> dict[str, Any]:
    """The Server Card of the instance at `instance` (scheme and host, no path)."""
    return {
        "$schema": CARD_SCHEMA,
        "name": REGISTRY_NAME,
        "title": SERVER_TITLE,
        "version": __version__,
        "description": SERVER_DESCRIPTION,
        "websiteUrl": f"{instance}/",
        "remotes": _remotes(instance),
    }


def registry_server_json() -> dict[str, Any]:
    """The repository's `server.json` (MCP Registry): one remote per URL, the host a variable."""
    remotes = _remotes("https://{host}")
    host = {"description": "Your MeSQ instance's host name (MESQ_PUBLIC_URL without https://).",
            "isRequired": True, "placeholder": "mesq.example.com"}  # fmt: skip
    for remote in remotes:
        remote["variables"] = {"host": host, **remote.get("variables", {})}
        del remote["supportedProtocolVersions"]  # not a field of the registry's remotes
    return {
        "$schema": REGISTRY_SCHEMA,
        "name": REGISTRY_NAME,
        "title": SERVER_TITLE,
        "description": SERVER_DESCRIPTION,
        "version": __version__,
        "remotes": remotes,
    }


def registry_server_json_text() -> str:
    return json.dumps(registry_server_json(), indent=2, ensure_ascii=False) + "\n"


def _card_endpoint(services: Services) -> ASGIApp:
    async def card(request: Request) -> Response:
        body = json.dumps(server_card(instance_url(request, services)), separators=(",", ":")).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"Cache-Control": "public, max-age=3600", "ETag": etag, "Vary": "Accept"}
        if etag in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]:
            return Response(status_code=304, headers=headers)
        wanted = CARD_MEDIA_TYPE if CARD_MEDIA_TYPE in request.headers.get("accept", "") else "application/json"
        return Response(body, media_type=wanted, headers=headers)

    return CORSMiddleware(
        request_response(card),
        allow_origins=["*"],
        allow_methods=["GET"],
        allow_headers=["Content-Type", "If-None-Match"],
        expose_headers=["ETag"],
        max_age=3600,
    )


def server_card_routes(services: Services) -> list[Route]:
    endpoint = _card_endpoint(services)
    return [Route(path, endpoint, methods=["GET", "HEAD", "OPTIONS"]) for path in CARD_PATHS]
