"""CORS for the endpoints browser-hosted OAuth/MCP clients call cross-origin: discovery,
registration, token and revocation. None of them uses cookies, so any origin may, and the
preflight (OPTIONS) is answered for every method listed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import request_response
from starlette.types import ASGIApp

Endpoint = Callable[[Request], Awaitable[Response]]


def open_cors(endpoint: Endpoint, methods: list[str]) -> ASGIApp:
    return CORSMiddleware(
        request_response(endpoint), allow_origins=["*"], allow_methods=methods, allow_headers=["*"], max_age=3600
    )
