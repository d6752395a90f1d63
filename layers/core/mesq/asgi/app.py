"""The one way every MeSQ Starlette app is built (REST, MCP and OAuth functions, `mesq serve`):
the trace-id middleware around the routes, and the handlers that turn a routing miss or an
unexpected fault into the JSON error envelope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..errors import MethodNotAllowed, NotFound
from .envelope import failure, internal_failure
from .trace import TraceIdMiddleware, trace_id_of


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    trace_id = trace_id_of(request)
    if exc.status_code == 405:
        return failure(MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}"), trace_id)
    if exc.status_code == 404:
        return failure(NotFound(f"no route {request.url.path}"), trace_id)
    # No other HTTPException is raised by the routes; should one appear, it is a fault.
    return internal_failure(exc, trace_id)


async def _unhandled(request: Request, exc: Exception) -> Response:
    return internal_failure(exc, trace_id_of(request))


def exception_handlers() -> dict[Any, Any]:
    return {HTTPException: _http_error, Exception: _unhandled}


def starlette_app(routes: Sequence[BaseRoute]) -> Starlette:
    """Every MeSQ app (REST function, MCP function, `mesq serve`) is built the same way."""
    return Starlette(
        routes=list(routes), exception_handlers=exception_handlers(), middleware=[Middleware(TraceIdMiddleware)]
    )
