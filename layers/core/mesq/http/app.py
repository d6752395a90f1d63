"""The REST application: one Starlette route per OpenAPI path, generated at construction.

Per request: trace id -> credential -> scopes -> arguments (path, query, header, JSON body) ->
JSON Schema validation -> the operation (in a worker thread: stores are synchronous) ->
envelope. Limits, validation, auth and error mapping happen here once for every route.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import __version__
from ..concurrency import run_sync
from ..context import Call, Services
from ..errors import MesqError, MethodNotAllowed, NotFound, ValidationError
from ..messages import quoted
from ..operations import REGISTRY, check_registry
from ..ratelimit import ATTACHMENT_READ_OPERATIONS, RateLimiter
from ..spec import Operation, Spec, load_spec
from ..validation import validate_arguments
from .attachments import attachment_routes
from .auth import authenticate, require_scopes, rest_challenge
from .body import read_json_object
from .envelope import NO_STORE, failure, internal_failure, success
from .params import collect_arguments
from .trace import TraceIdMiddleware, trace_id_of


async def run_operation(
    operation: Operation, services: Services, limiter: RateLimiter, request: Request, trace_id: str
) -> Response:
    principal = authenticate(request, services)
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
    arguments = validate_arguments(operation, arguments)
    if operation.operation_id in ATTACHMENT_READ_OPERATIONS and limiter.enabled:
        # REST is otherwise unlimited (§7 names MCP); attachment bytes count for both (§7).
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


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    trace_id = trace_id_of(request)
    if exc.status_code == 405:
        # Starlette's routing names the route's methods in `Allow` (RFC 9110 §15.5.6 wants it).
        error = MethodNotAllowed(f"{quoted(request.method)} is not allowed on {quoted(request.url.path)}")
        return failure(error, trace_id, dict(exc.headers or {}))
    if exc.status_code == 404:
        return failure(NotFound(f"no route {quoted(request.url.path)}"), trace_id)
    # No other HTTPException is raised by the routes; should one appear, it is a fault.
    return internal_failure(exc, trace_id)


async def _unhandled(request: Request, exc: Exception) -> Response:
    return internal_failure(exc, trace_id_of(request))


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


def exception_handlers() -> dict[Any, Any]:
    return {HTTPException: _http_error, Exception: _unhandled}


def starlette_app(routes: Sequence[BaseRoute]) -> Starlette:
    """Every MeSQ app (REST function, MCP function, `mesq serve`) is built the same way."""
    return Starlette(
        routes=list(routes), exception_handlers=exception_handlers(), middleware=[Middleware(TraceIdMiddleware)]
    )


def create_api_app(services: Services) -> Starlette:
    return starlette_app(api_routes(services))
