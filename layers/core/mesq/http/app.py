"""The REST application: one Starlette route per OpenAPI path, generated at construction.

Per request: trace id -> credential -> scopes -> arguments (path, query, header, JSON body) ->
JSON Schema validation -> the operation (in a worker thread: stores are synchronous; on Lambda on the
invocation's own thread, concurrency.py) ->
envelope (a write's with what it recorded: `changeIds`, `runId`, `sessionId`). Limits, validation,
auth and error mapping happen here once for every route.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import __version__
from ..application.invocation import check_registry, invoke, prepare_registry
from ..application.ratelimit import Bucket, RateLimiter
from ..application.validation import prepare_validators
from ..asgi.auth import require_scopes, rest_principal
from ..asgi.body import read_json_object
from ..asgi.envelope import NO_STORE, failure, internal_failure, success
from ..asgi.instance import instance_url
from ..asgi.trace import trace_id_of
from ..kernel.errors import MesqError, ValidationError
from ..kernel.i18n import requested_language
from ..kernel.recorded import Recorded
from ..kernel.spec import Operation, Spec, load_spec
from ..wiring.services import Services
from .attachments import attachment_routes
from .challenge import rest_challenge
from .export import export_routes
from .imports import import_routes
from .params import collect_arguments

#: REST is otherwise unlimited (docs/contract.md §7 names MCP); attachment bytes count for both.
REST_COUNTED_BUCKETS: frozenset[Bucket] = frozenset({"attachment_read"})


async def run_operation(
    operation: Operation, services: Services, limiter: RateLimiter, request: Request, trace_id: str
) -> Response:
    principal = await rest_principal(request, services, limiter)
    require_scopes(principal, operation.scopes, operation.mcp.any_scope)
    arguments = collect_arguments(operation, request)
    if operation.has_body:
        body = await read_json_object(request)
        misplaced = {p.argument: p for p in operation.parameters if p.argument in body}
        if misplaced:
            name, param = sorted(misplaced.items())[0]
            where = "header" if param.location == "header" else f"{param.location} parameter"
            raise ValidationError(f"{name}: send it as the {param.name} {where}, not in the body")
        arguments.update(body)
    recorded = Recorded()
    data = await invoke(
        operation,
        arguments,
        principal=principal,
        services=services,
        trace_id=trace_id,
        channel="api",
        limiter=limiter,
        counted=REST_COUNTED_BUCKETS,
        recorded=recorded,
        language=requested_language(request.headers.get("accept-language")),
        base_url=instance_url(request, services),
    )
    return success(data, trace_id, operation.success_status, recorded.summary() if operation.is_write else None)


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


def _healthz_of(services: Services) -> Any:
    async def healthz(request: Request) -> Response:
        """Live (200) from the first accepted connection; `ready` once search has warmed up
        (`mesq serve`: the literal indexes loaded, search/warm_up.py; elsewhere at once)."""
        body = {"status": "ok", "ready": services.search.ready, "version": __version__, "traceId": trace_id_of(request)}
        return JSONResponse(body, headers=NO_STORE)

    return healthz


def _openapi_endpoint(spec: Spec) -> Any:
    async def openapi(request: Request) -> Response:
        return JSONResponse(spec.rest_document)

    return openapi


def api_routes(services: Services, spec: Spec | None = None) -> list[Route]:
    spec = spec or load_spec()
    check_registry(spec)
    if services.settings.prepare_at_init:
        prepare_registry()
        prepare_validators(operation.input_schema for operation in spec.operations.values())
    return [
        Route("/healthz", _healthz_of(services), methods=["GET"]),
        Route("/api/openapi.json", _openapi_endpoint(spec), methods=["GET"]),
        # The byte-carrying attachment routes (x-mesq-raw), before any templated JSON route.
        *attachment_routes(services, spec),
        *export_routes(services, spec),
        *import_routes(services, spec),
        *operation_routes(spec, services),
    ]
