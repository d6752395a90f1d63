"""The REST application: one Starlette route per OpenAPI path, generated at construction.

Per request: trace id -> credential -> scopes -> arguments (path, query, header, JSON body) ->
JSON Schema validation -> the operation (in a worker thread: stores are synchronous) ->
envelope. Limits, validation, auth and error mapping happen here once for every route.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import __version__
from ..concurrency import run_sync
from ..config import Settings
from ..context import Call, Services
from ..errors import Internal, MesqError, MethodNotAllowed, NotFound, ValidationError
from ..operations import REGISTRY, check_registry
from ..ratelimit import ATTACHMENT_READ_OPERATIONS, RateLimiter
from ..spec import Operation, Spec, load_spec
from ..validation import validate_arguments
from .attachments import attachment_routes
from .auth import require_scopes, rest_challenge, rest_principal
from .body import accepts_html, read_json_object
from .envelope import NO_STORE, failure, internal_failure, success
from .hosts import HostGuardMiddleware
from .params import collect_arguments
from .trace import TraceIdMiddleware, trace_id_of


async def run_operation(
    operation: Operation, services: Services, limiter: RateLimiter, request: Request, trace_id: str
) -> Response:
    principal = await rest_principal(request, services, limiter)
    require_scopes(principal, operation.scopes)
    arguments = collect_arguments(operation, request)
    if operation.has_body:
        body = await read_json_object(request)
        misplaced = {p.argument: p for p in operation.parameters if p.argument in body}
        if misplaced:
            name, param = sorted(misplaced.items())[0]
            where = "header" if param.location == "header" else f"{param.location} parameter"
            raise ValidationError(f"{name}: send it as the {param.name} {where}, not in the body")
        arguments.update(body)
    validate_arguments(operation, arguments)
    if operation.operation_id in ATTACHMENT_READ_OPERATIONS and limiter.enabled:
        # REST is otherwise unlimited (docs/contract.md §7 names MCP); attachment bytes count for both.
        await run_sync(limiter.hit, principal.credential_id, "attachment_read")
    call = Call(principal=principal, services=services, trace_id=trace_id, channel="api")
    data = await run_sync(REGISTRY[operation.operation_id], call, arguments)
    return success(data, trace_id, operation.success_status)


def _path_endpoint(operations: dict[str, Operation], services: Services, limiter: RateLimiter) -> Any:
    async def endpoint(request: Request) -> Response:
        trace_id = trace_id_of(request)
        # Starlette answers HEAD on every GET route: it runs the GET (the server drops the body).
        operation = operations["GET" if request.method == "HEAD" else request.method]
        try:
            return await run_operation(operation, services, limiter, request, trace_id)
        except MesqError as error:
            headers = rest_challenge(request, services) if error.http_status == 401 else None
            return failure(error, trace_id, headers)
        except Exception as exc:  # every other fault is internal: no text leaks
            return internal_failure(exc, trace_id)

    return endpoint


def operation_routes(spec: Spec, services: Services) -> list[Route]:
    by_path: dict[str, dict[str, Operation]] = defaultdict(dict)
    for operation in spec.operations.values():
        by_path[operation.path][operation.method] = operation
    # Literal paths before templated ones, so /memo/search is never taken for /memo/{id}.
    ordered = sorted(by_path, key=lambda path: (path.count("{"), path))
    limiter = RateLimiter(services.items, services.settings)
    return [
        Route(path, _path_endpoint(by_path[path], services, limiter), methods=list(by_path[path])) for path in ordered
    ]


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__, "traceId": trace_id_of(request)}, headers=NO_STORE)


def _openapi_endpoint(spec: Spec) -> Any:
    async def openapi(request: Request) -> Response:
        return JSONResponse(spec.rest_document)

    return openapi


#: Renders an error as a browser page (mesq/web supplies it; this layer does not know templates).
ErrorPage = Callable[[MesqError, str], Response]
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
        if exc.status_code == 405:
            error = MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}")
        elif exc.status_code == 404:
            error = NotFound(f"no page or route {request.url.path}")
        else:  # No other HTTPException is raised by the routes; should one appear, it is a fault.
            return await unhandled(request, exc)
        page = _as_page(request, error_page)
        return page(error, trace_id) if page else failure(error, trace_id)

    async def unhandled(request: Request, exc: Exception) -> Response:
        trace_id = trace_id_of(request)
        answer = internal_failure(exc, trace_id)  # logs the traceback
        page = _as_page(request, error_page)
        return page(Internal.for_trace(trace_id), trace_id) if page else answer

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


def api_routes(services: Services, spec: Spec | None = None) -> list[Route]:
    spec = spec or load_spec()
    check_registry(spec)
    return [
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/api/openapi.json", _openapi_endpoint(spec), methods=["GET"]),
        # The byte-carrying attachment routes (x-mesq-raw), before any templated JSON route.
        *attachment_routes(services, spec),
        *operation_routes(spec, services),
    ]


def create_api_app(services: Services) -> Starlette:
    return starlette_app(api_routes(services), services.settings)
