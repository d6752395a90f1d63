"""The HTTP side of `/mcp`: everything decided before the SDK reads the JSON-RPC message.

Per request, in this order (docs/contract.md §2, architecture "Request flow (MCP)"):

1. POST only (GET would open a never-ending SSE stream, a Lambda timeout): others -> 405.
2. Origin check against DNS rebinding -> 403.
3. Credential -> 401 with the `WWW-Authenticate` challenge of docs/contract.md §1.
4. At least one read scope -> 403 `insufficient_scope`.
5. Visibility from scopes, the /readonly path, URL toolsets and the X-MCP-* headers -> 400 for
   an unknown toolset / tool name.
6. The body cap (140,858,712 bytes = base64 of a 100 MiB file + 1 MiB), checked while reading,
   before anything parses JSON -> 413 PAYLOAD_TOO_LARGE. The REST media-type rules of docs/contract.md §3
   do not apply here (seed: "此处不采用上述 JSON 媒体类型检查"); the SDK's transport checks
   (`Content-Type: application/json`, `Accept`) answer 400/406 themselves.
7. A fresh stateless, JSON-response `StreamableHTTPSessionManager` (its `run()` is single-use,
   and Mangum gives no lifespan) serves the one message with the process-wide `Server`; the body
   already read is replayed to it. The SDK picks the era: 2026-07-28 (`server/discover`, `_meta`
   envelope, `Mcp-Method`/`Mcp-Name` header checks) or the legacy `initialize` handshake.

Every response carries `Cache-Control: private, no-store`; HTTP-level errors use the JSON error
envelope of docs/contract.md §3.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from ..auth.scopes import READ_SCOPES, order_scopes
from ..concurrency import run_sync
from ..context import Principal, Services
from ..errors import (
    Forbidden,
    MesqError,
    MethodNotAllowed,
    PayloadTooLarge,
    RateLimited,
    Unauthorized,
    ValidationError,
)
from ..http.auth import authenticate_bearer, bearer_token
from ..http.body import read_limited
from ..http.envelope import failure, internal_failure
from ..http.instance import client_ip
from ..http.origin import is_allowed_origin
from ..http.trace import trace_id_of
from ..ratelimit import ATTACHMENT_READ_OPERATIONS, Bucket, RateLimiter
from .catalog import Catalog
from .resource_metadata import METADATA_PATH, instance_url
from .result import logger
from .state import SCOPE_KEY, RequestState
from .visibility import FILTER_HEADERS, Visibility, resolve

#: Base64 length of a 100 MiB file plus 1 MiB for the JSON-RPC frame (docs/contract.md §2).
MCP_BODY_CAP = 4 * -(-100 * 1024 * 1024 // 3) + 1024 * 1024
CACHE_CONTROL = b"private, no-store"
CORRELATION_HEADER = "x-correlation-id"
MAX_CORRELATION_ID = 128

#: JSON-RPC methods counted in the connection bucket (docs/contract.md §7); the rest are calls.
CONNECTION_METHODS = frozenset(
    {"server/discover", "initialize", "notifications/initialized", "ping", "tools/list", "prompts/list",
     "resources/list", "resources/templates/list"}
)  # fmt: skip

# A manager per request would log "session manager started/shutting down" at INFO every time.
logging.getLogger("mcp.server.streamable_http_manager").setLevel(logging.WARNING)


class _Rejected(Exception):
    def __init__(self, error: MesqError, headers: dict[str, str] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.headers = headers


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rate_bucket(method: str | None, name: str | None) -> Bucket:
    if method in CONNECTION_METHODS:
        return "connection"
    if method == "resources/read" or (method == "tools/call" and name in ATTACHMENT_READ_OPERATIONS):
        return "attachment_read"
    return "tool_call"


def _message_method(body: bytes) -> tuple[str | None, str | None]:
    """(method, tool name) of a legacy-era message, read from the body (no Mcp-Method header)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, None  # the SDK answers the parse error; count it as a call
    if not isinstance(message, dict):
        return None, None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    method = message.get("method")
    return (method if isinstance(method, str) else None), (name if isinstance(name, str) else None)


def _trusted_method_header(request: Request) -> str | None:
    """`Mcp-Method` when the SDK will hold the body to it: its era routing sends every request
    whose Mcp-Protocol-Version is not a handshake version to the modern path, which rejects a
    body that disagrees with the headers. Elsewhere the header is only a claim."""
    version = request.headers.get("mcp-protocol-version")
    if version is None or version in HANDSHAKE_PROTOCOL_VERSIONS:
        return None
    return request.headers.get("mcp-method")


def _correlation_id(request: Request) -> str | None:
    supplied = request.headers.get(CORRELATION_HEADER)
    if supplied and len(supplied) <= MAX_CORRELATION_ID and supplied.isprintable() and supplied.isascii():
        return supplied
    event = request.scope.get("aws.event")  # Mangum: the API Gateway request id
    if isinstance(event, dict):
        request_id = event.get("requestContext", {}).get("requestId")
        if isinstance(request_id, str) and request_id:
            return request_id
    return None


class McpEndpoint:
    """ASGI app for one of the /mcp routes (`readonly` for the /readonly variants)."""

    def __init__(
        self,
        server: Server[Any],
        catalog: Catalog,
        services: Services,
        *,
        readonly: bool,
        body_cap: int = MCP_BODY_CAP,
    ) -> None:
        self.server = server
        self.catalog = catalog
        self.services = services
        self.readonly = readonly
        self.body_cap = body_cap
        self.limiter = RateLimiter(services.items, services.settings)

    # -- the checks before the SDK -------------------------------------------------------------

    def _challenge(self, request: Request, *params: str) -> dict[str, str]:
        metadata = f"{instance_url(request, self.services)}{METADATA_PATH}"
        return {"WWW-Authenticate": "Bearer " + ", ".join((*params, f"resource_metadata={_quoted(metadata)}"))}

    async def _limit(self, subject: str, bucket: Bucket) -> None:
        if self.limiter.enabled:
            await run_sync(self.limiter.hit, subject, bucket)

    async def _unauthenticated(self, request: Request, error: Unauthorized, *params: str) -> _Rejected:
        """The 401 to answer, unless this client IP is over its unauthenticated budget (429)."""
        challenge = self._challenge(request, *params)
        try:
            await self._limit(f"ip:{client_ip(request)}", "unauthenticated")
        except RateLimited as limited:
            # Keep the challenge: a client discovers how to sign in from it.
            return _Rejected(limited, challenge)
        return _Rejected(error, challenge)

    async def _principal(self, request: Request) -> Principal:
        try:
            token = bearer_token(request)
        except Unauthorized as error:
            raise await self._unauthenticated(request, error, 'error="invalid_token"') from None
        if token is None:
            raise await self._unauthenticated(
                request, Unauthorized("authentication required: send Authorization: Bearer <token>")
            )
        try:
            # An OAuth token must be bound to this endpoint (RFC 8707 audience; see auth/oauth/resources.py).
            instance = instance_url(request, self.services)
            return await run_sync(authenticate_bearer, self.services.items, token, instance, request.url.path)
        except Unauthorized as error:
            raise await self._unauthenticated(request, error, 'error="invalid_token"') from None

    async def _admit(self, request: Request, trace_id: str) -> tuple[RequestState, bytes]:
        if request.method != "POST":
            raise _Rejected(
                MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}; MCP messages are POSTed"),
                {"Allow": "POST"},
            )
        origin = request.headers.get("origin")
        if not is_allowed_origin(origin, request.headers.get("host"), self.services.settings.public_url):
            raise _Rejected(Forbidden(f"requests from origin {origin!r} are not allowed"))
        principal = await self._principal(request)
        if not principal.scopes & READ_SCOPES:
            wanted = " ".join(order_scopes(READ_SCOPES))
            raise _Rejected(
                Forbidden(f"connecting to MCP needs at least one read scope ({wanted.replace(' ', ', ')})"),
                self._challenge(request, 'error="insufficient_scope"', f"scope={_quoted(wanted)}"),
            )
        visibility = self._visibility(request, principal)
        # A request the SDK routes to the 2026-07-28 path must name its method in headers that
        # match the body (else HEADER_MISMATCH), so the limit applies before the body is read;
        # any other request is classified from its body, whatever headers it carries.
        header_method = _trusted_method_header(request)
        if header_method:
            await self._rate_limit(principal, header_method, request.headers.get("mcp-name"))
        body = await read_limited(request, self.body_cap)
        if body is None:
            raise _Rejected(
                PayloadTooLarge(
                    f"request body exceeds {self.body_cap} bytes (base64 of 100 MiB + 1 MiB); send large "
                    "files through an upload session (POST /api/toolkit/memo/resources/upload-session)"
                )
            )
        if not header_method:
            await self._rate_limit(principal, *_message_method(body))
        state = RequestState(
            principal=principal,
            services=self.services,
            visibility=visibility,
            trace_id=trace_id,
            correlation_id=_correlation_id(request),
        )
        return state, body

    async def _rate_limit(self, principal: Principal, method: str | None, name: str | None) -> None:
        try:
            await self._limit(principal.credential_id, rate_bucket(method, name))
        except RateLimited as limited:
            raise _Rejected(limited) from None

    def _visibility(self, request: Request, principal: Principal) -> Visibility:
        # A header sent on several lines is one comma-separated list (RFC 9110 §5.3).
        headers = tuple(
            (name, ",".join(request.headers.getlist(name))) for name in FILTER_HEADERS if name in request.headers
        )
        try:
            return self._resolved(principal.scopes, request.path_params.get("toolsets"), headers)
        except ValidationError as error:
            raise _Rejected(error) from None

    @functools.lru_cache(maxsize=256)  # noqa: B019  # one endpoint per process; bounded
    def _resolved(
        self, scopes: frozenset[str], url_toolsets: str | None, headers: tuple[tuple[str, str], ...]
    ) -> Visibility:
        """Visibility is a pure function of these inputs and the catalog, and checking every tool
        costs more than the rest of a small call: remember the recent combinations (a few per
        credential kind and URL in practice; the cache is bounded, so odd headers cannot grow it)."""
        return resolve(
            self.catalog, scopes, readonly_path=self.readonly, url_toolsets=url_toolsets, headers=dict(headers)
        )

    # -- ASGI ------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        trace_id = trace_id_of(request)
        try:
            state, body = await self._admit(request, trace_id)
        except _Rejected as rejected:
            await failure(rejected.error, trace_id, rejected.headers)(scope, receive, send)
            return
        except Exception as exc:  # a fault before the SDK: logged, answered without its text
            await internal_failure(exc, trace_id)(scope, receive, send)
            return
        scope[SCOPE_KEY] = state
        await self._serve(scope, body, receive, send, trace_id)

    async def _serve(self, scope: Scope, body: bytes, receive: Receive, send: Send, trace_id: str) -> None:
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        started = False

        async def send_private(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                headers.append((b"cache-control", CACHE_CONTROL))
                message = {**message, "headers": headers}
            await send(message)

        manager = StreamableHTTPSessionManager(
            app=self.server,
            json_response=True,
            stateless=True,
            max_request_body_size=self.body_cap,
        )
        try:
            async with manager.run():
                await manager.handle_request(scope, replay, send_private)
        except Exception as exc:
            if started:  # the answer is on its way: nothing left to tell the client
                logger.exception("mcp transport failed after responding", extra={"traceId": trace_id})
                return
            response: Response = internal_failure(exc, trace_id)
            await response(scope, receive, send)
