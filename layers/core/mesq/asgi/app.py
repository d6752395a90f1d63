"""The one way every MeSQ Starlette app is built (REST, MCP and OAuth functions, `mesq serve`):
the trace-id middleware and the Host check around the routes, and the handlers that turn a routing miss or an
unexpected fault into the JSON error envelope, or, for the apps that serve browser pages, into
an HTML page for a browser."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..kernel.errors import Internal, MesqError, MethodNotAllowed, NotFound
from ..kernel.messages import quoted
from ..wiring.config import Settings
from .body import accepts_html
from .envelope import failure, internal_failure
from .hosts import HostGuardMiddleware
from .trace import TraceIdMiddleware, trace_id_of

#: Renders an error as a browser page for a request (mesq/web supplies it; this layer does not
#: know templates or sessions).
ErrorPage = Callable[[MesqError, str, Request], Awaitable[Response]]
#: Paths whose clients are never browsers: the MCP endpoint keeps its JSON answers.
NO_PAGES_UNDER = ("/mcp",)


def _as_page(request: Request, error_page: ErrorPage | None) -> ErrorPage | None:
    if error_page is None or not accepts_html(request.headers.get("accept")):
        return None
    path = request.url.path
    return None if any(path == p or path.startswith(p + "/") for p in NO_PAGES_UNDER) else error_page


def exception_handlers(error_page: ErrorPage | None = None) -> dict[Any, Any]:
    """Unmatched routes (404), wrong methods (405) and unhandled faults (500): the JSON envelope,
    or with `error_page` an HTML page for a browser (`Accept: text/html`)."""

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        trace_id = trace_id_of(request)
        error: MesqError
        headers: dict[str, str] = {}
        if exc.status_code == 405:
            error = MethodNotAllowed(
                "%(method)s is not allowed on %(path)s", method=quoted(request.method), path=quoted(request.url.path)
            )
            # Starlette's routing names the route's methods in `Allow` (RFC 9110 §15.5.6 wants it).
            headers = dict(exc.headers or {})
        elif exc.status_code == 404:
            error = NotFound("no page or route %(path)s", path=quoted(request.url.path))
        else:  # No other HTTPException is raised by the routes; should one appear, it is a fault.
            return await unhandled(request, exc)
        page = _as_page(request, error_page)
        if page is None:
            return failure(error, trace_id, headers)
        answer = await page(error, trace_id, request)
        answer.headers.update(headers)
        return answer

    async def unhandled(request: Request, exc: Exception) -> Response:
        trace_id = trace_id_of(request)
        answer = internal_failure(exc, trace_id)  # logs the traceback
        page = _as_page(request, error_page)
        return await page(Internal.for_trace(trace_id), trace_id, request) if page else answer

    return {HTTPException: http_error, Exception: unhandled}


def starlette_app(
    routes: Sequence[BaseRoute],
    settings: Settings,
    *,
    error_page: ErrorPage | None = None,
    extra: Sequence[Middleware] = (),
) -> Starlette:
    """Every MeSQ app (REST function, MCP function, OAuth function, `mesq serve`) is built the
    same way: a trace id on every answer, then the Host check against DNS rebinding, then
    `extra` (the local server's body deadline). The apps that serve browser pages pass
    `error_page`."""
    return Starlette(
        routes=list(routes),
        exception_handlers=exception_handlers(error_page),
        middleware=[Middleware(TraceIdMiddleware), Middleware(HostGuardMiddleware, settings=settings), *extra],
    )
