"""The HTTP side of `/mcp`: everything decided before the SDK reads the JSON-RPC message.

Per request, in this order (docs/contract.md §2, architecture "Request flow (MCP)"):

1. POST only (GET would open a never-ending SSE stream, a Lambda timeout): others -> 405.
2. Origin check against DNS rebinding -> 403.
3. The URL's toolsets (`/mcp/x/{toolsets}`) -> 400 when it names none or an unknown one, before
   any credential: the names are public, and no token can ever connect to such a URL.
   Then the credential -> 401 with the `WWW-Authenticate` challenge of docs/contract.md §1 (with
   `scope`: the read scopes, what connecting needs; writes are stepped up).
4. At least one read scope -> 403 `insufficient_scope`.
5. Visibility from scopes, the /readonly path, URL toolsets and the X-MCP-* headers -> 400 for
   an unknown toolset / tool name.
6. The body caps (bodies.py: 140,858,712 bytes = base64 of a 100 MiB file + 1 MiB for one upload
   `tools/call`, ~1 MiB for anything else), checked while reading, before anything parses JSON
   -> 413 PAYLOAD_TOO_LARGE; a large upload is parsed off the event loop, once. The REST
   media-type rules of docs/contract.md §3 do not apply here (seed: "此处不采用上述 JSON 媒体类型检查"),
   but a Content-Type other than application/json gets the 400 envelope here (the SDK's answer
   is plain text); the SDK's `Accept` check answers 406 itself.
   Handshake-era bodies are parsed and validated here (legacy.py: fixed messages, never the SDK's
   pydantic dump; JSON-RPC batches for 2025-03-26 and older).
7. Step-up: a `tools/call` of a tool that only missing scopes hide, or a `resources/read` that
   needs a scope the token lacks -> 403 `insufficient_scope` naming the scopes the call needs
   (MCP authorization, "Runtime Insufficient Scope Errors"). A tool hidden by the URL, the
   headers or read-only mode is no scope matter: the SDK handler answers -32602.
8. The stateless, JSON-response `StreamableHTTPSessionManager` running on this event loop
   (running_manager.py: started by the loop's first request, since Mangum gives no lifespan)
   serves the one message with the process-wide `Server`; the body
   already read is replayed to it (a batch: message by message, answers collected into one
   array). The SDK picks the era: 2026-07-28 (`server/discover`, `_meta` envelope,
   `Mcp-Method`/`Mcp-Name` header checks; its version and missing-header rejections are amended,
   versions.py) or the legacy `initialize` handshake. A repeated `tools/list` is answered from
   the endpoint's memory of the SDK's first answer to the same request (list_memo.py).

Every response carries `Cache-Control: private, no-store`; HTTP-level errors use the JSON error
envelope of docs/contract.md §3.
"""

from __future__ import annotations

import collections
import functools
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

import anyio
import pydantic_core
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.inbound import NAME_BEARING_METHODS, decode_header_value
from mcp_types import PARSE_ERROR
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from ..application.ratelimit import Bucket, RateLimiter
from ..asgi.auth import authenticate_async, bearer_token, count_unauthenticated
from ..asgi.body import media_type
from ..asgi.envelope import failure, internal_failure
from ..asgi.origin import is_allowed_origin
from ..asgi.trace import trace_id_of
from ..attachments.paths import Namespace
from ..auth.oauth.metadata import PROTECTED_RESOURCE_PREFIX
from ..auth.scopes import ALL_SCOPES, READ_SCOPES, missing_scopes, order_scopes
from ..kernel.concurrency import invocation_clock, run_sync
from ..kernel.context import Principal
from ..kernel.errors import (
    Forbidden,
    MesqError,
    MethodNotAllowed,
    PayloadTooLarge,
    RateLimited,
    Unauthorized,
    ValidationError,
)
from ..kernel.i18n import requested_language
from ..kernel.messages import quoted
from ..wiring.services import Services
from . import cors, resources
from .bodies import (
    MESSAGE_BODY_CAP,
    UPLOAD_BODY_CAP,
    UPLOAD_TOOLS,
    ReadBody,
    UploadCall,
    is_upload_call,
    read_body,
    upload_call,
)
from .catalog import Catalog
from .image_uris import ImageUris
from .legacy import PARSE_ERROR_MESSAGE, BodyRejected, LegacyBody, named_rejection, read_legacy_body, rpc_error
from .limits import rate_bucket, retry_after, rpc_error_body
from .list_memo import ListMemo
from .request_state import SCOPE_KEY, RequestState
from .resource_metadata import instance_url, resource_base
from .result import logger
from .running_manager import RunningManagers
from .versions import amend_rejection
from .visibility import FILTER_HEADERS, Visibility, parse_url_toolsets, resolve
from .wire import Captured, amending_send

MCP_BODY_CAP = UPLOAD_BODY_CAP
CACHE_CONTROL = b"private, no-store"
JSON_MEDIA_TYPE = "application/json"
CONNECT_SCOPES = " ".join(order_scopes(READ_SCOPES))
CORRELATION_HEADER = "x-correlation-id"
MAX_CORRELATION_ID = 128

# The SDK logs its manager's start and end at INFO: once per event loop here, not news.
logging.getLogger("mcp.server.streamable_http_manager").setLevel(logging.WARNING)


class _Rejected(Exception):
    def __init__(self, error: MesqError, headers: dict[str, str] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.headers = headers


class _Answered(Exception):
    """The endpoint answers a JSON-RPC error itself (a body the SDK must not see)."""

    def __init__(self, response: Response) -> None:
        super().__init__("answered before the SDK")
        self.response = response


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_modern(request: Request) -> bool:
    """Whether the SDK routes this request to its 2026-07-28 entry: every Mcp-Protocol-Version
    that is not a handshake version. There it holds the body to the Mcp-Method/Mcp-Name headers
    (else HEADER_MISMATCH), so they can be trusted; elsewhere they are only a claim."""
    version = request.headers.get("mcp-protocol-version")
    return version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS


def _calls(body: LegacyBody) -> list[tuple[str | None, str | None]]:
    """(method, name or uri) of each servable message of a handshake-era body."""
    calls: list[tuple[str | None, str | None]] = []
    for message in body.messages:
        if message.rejection is None:
            key = NAME_BEARING_METHODS.get(message.method or "")
            target = message.params.get(key) if key else None
            calls.append((message.method, target if isinstance(target, str) else None))
    return calls


def _answer_unservable(body: LegacyBody, limited: dict[str, RateLimited]) -> None:
    """What no SDK handler can answer: a limited `initialize` (the SDK reserves it) gets its
    JSON-RPC error here, and a body of limited notifications only gets HTTP 429 (nothing to
    answer in). Every other limited message is answered by its handler."""
    servable = [message for message in body.messages if message.rejection is None]
    for message in servable:
        if message.method == "initialize" and "connection" in limited:
            answer = rpc_error_body(limited["connection"], message.decoded.get("id"))
            raise _Answered(JSONResponse(answer, headers={"Retry-After": retry_after(limited) or "1"}))
    requests = [message for message in servable if isinstance(message.decoded, dict) and "id" in message.decoded]
    if servable and not requests:
        raise _Rejected(next(iter(limited.values())))


def _modern_amendment(body: bytes) -> Callable[[Any, Mapping[str, str]], Any]:
    """How the SDK's 2026-07-28 400s are amended: the served versions and missing headers
    (versions.py), then a bad id or refused params named (legacy.py). `body` is at most
    MESSAGE_BODY_CAP (a large upload's is the slim copy), so re-reading it on an error is cheap."""

    def amend(payload: Any, headers: Mapping[str, str]) -> Any:
        amended = amend_rejection(payload, headers)
        if amended is not payload:
            return amended
        return named_rejection(payload, body, headers.get("mcp-protocol-version"))

    return amend


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
        self.message_cap = min(MESSAGE_BODY_CAP, body_cap)
        self.limiter = RateLimiter(services.items, services.settings)
        self.list_memo = ListMemo()
        self.images = ImageUris()
        self.managers = RunningManagers(
            lambda: StreamableHTTPSessionManager(
                app=server, json_response=True, stateless=True, max_request_body_size=body_cap
            )
        )

    # -- the checks before the SDK -------------------------------------------------------------

    def _challenge(self, request: Request, *params: str) -> dict[str, str]:
        """`WWW-Authenticate: Bearer <params>, resource_metadata="..."`: the metadata of the URL
        the client called (`/.well-known/oauth-protected-resource/mcp/x/todo/readonly` for
        `/mcp/x/todo/readonly`), whose `resource` is that URL, as RFC 9728 §3.3 has a client check."""
        toolsets = request.path_params.get("toolsets")
        resource = "/mcp" + (f"/x/{quote(str(toolsets), safe=',')}" if toolsets else "")
        resource += "/readonly" if self.readonly else ""
        # The URL the client called, also on another name of the instance (asgi/instance.resource_base).
        metadata = f"{resource_base(request, self.services)}{PROTECTED_RESOURCE_PREFIX}{resource}"
        return {"WWW-Authenticate": "Bearer " + ", ".join((*params, f"resource_metadata={_quoted(metadata)}"))}

    async def _limit(self, subject: str, bucket: Bucket, count: int = 1) -> None:
        if self.limiter.enabled:
            await run_sync(self.limiter.hit, subject, bucket, count)

    async def _unauthenticated(self, request: Request, error: Unauthorized, *params: str) -> _Rejected:
        """The 401 to answer, unless this client IP is over its unauthenticated budget (429)."""
        scope = self._connect_scopes(request.path_params.get("toolsets"))
        challenge = self._challenge(request, *params, f"scope={_quoted(scope)}")
        try:
            await count_unauthenticated(self.limiter, request)
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
            return await authenticate_async(self.services.items, token, instance, request.url.path)
        except Unauthorized as error:
            raise await self._unauthenticated(request, error, 'error="invalid_token"') from None

    async def _admit(self, request: Request, trace_id: str) -> tuple[RequestState, bytes, LegacyBody | None]:
        if request.method != "POST":
            raise _Rejected(
                MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}; MCP messages are POSTed"),
                {"Allow": "POST"},
            )
        origin = request.headers.get("origin")
        if not is_allowed_origin(origin, request.headers.get("host"), self.services.settings.public_url):
            raise _Rejected(Forbidden(f"requests from origin {quoted(origin)} are not allowed"))
        if (url_toolsets := request.path_params.get("toolsets")) is not None:
            # Before the credential: a URL no token can ever connect to must not send the person
            # through OAuth first (its metadata document is a 404, so a client falls back to the
            # root document and has the person approve a grant for the whole of /mcp).
            # The path as sent, when the server keeps it: a name spelled in `%XX` escapes is
            # decoded in `path_params` (`me%6Do` read as memo) and refused as capitals are.
            raw_path = request.scope.get("raw_path")
            sent = raw_path.decode("latin-1") if isinstance(raw_path, bytes) else None
            try:
                parse_url_toolsets(url_toolsets, sent_path=sent)
            except ValidationError as error:
                raise _Rejected(error) from None
        principal = await self._principal(request)
        if not principal.scopes & self._connect_scope_set(request.path_params.get("toolsets")):
            # No read scope this URL's tools use: a memo-only token on /mcp/x/todo was admitted
            # and listed no tool at all, which a client shows as a server with nothing in it.
            scope = self._connect_scopes(request.path_params.get("toolsets"))
            # The scopes the challenge asks for, not every read scope: on /mcp/x/todo only todo:read.
            needed = scope.replace(" ", ", ")
            raise _Rejected(
                Forbidden(f"connecting to {request.url.path} needs at least one read scope ({needed})"),
                self._challenge(request, 'error="insufficient_scope"', f"scope={_quoted(scope)}"),
            )
        visibility = self._visibility(request, principal)
        # A request the SDK routes to the 2026-07-28 path is limited and stepped up by its
        # headers, before the body is read; any other request by its body's messages.
        modern = _is_modern(request)
        header_method = request.headers.get("mcp-method") if modern else None
        target = decode_header_value(request.headers.get("mcp-name")) if header_method else None
        limited: dict[str, RateLimited] = {}
        read_buckets: dict[str, tuple[Bucket, ...]] = {}
        if header_method:
            limited = await self._rate_limit(principal, [(header_method, target)], read_buckets)
            if limited and header_method.startswith("notifications/"):
                raise _Rejected(next(iter(limited.values())))  # a notification has no answer to carry it
            self._step_up(request, visibility, [(header_method, target)])
        if media_type(request.headers.get("content-type")) != JSON_MEDIA_TYPE:
            # The SDK would answer a plain-text "Invalid Content-Type header": say it in the envelope.
            raise _Rejected(
                ValidationError(
                    "Content-Type must be application/json; got %(value)s",
                    value=quoted(request.headers.get("content-type") or "none"),
                )
            )
        # A 2026-07-28 request names its tool before the body is read: only an upload gets the large cap.
        cap = self.body_cap if not header_method or is_upload_call(header_method, target) else self.message_cap
        read = await read_body(request, cap)
        if read is None:
            raise _Rejected(self._too_large(cap))
        body = read.data
        if read.large and not read.names_upload_tool:
            raise _Rejected(self._too_large(self.message_cap))  # refused unparsed: it cannot be an upload
        legacy = None
        call_arguments = None
        if not modern:
            try:
                legacy = await self._read_legacy(read, request.headers.get("mcp-protocol-version"))
            except BodyRejected as rejected:
                raise _Answered(JSONResponse(rejected.error, status_code=rejected.status)) from None
        if read.large:
            upload = await self._upload_call(read, legacy)
            body, call_arguments = upload.slim_body, upload.arguments
        calls: list[tuple[str | None, str | None]] = [(header_method, target)] if header_method else []
        if legacy is not None:
            calls = _calls(legacy)
            limited = await self._rate_limit(principal, calls, read_buckets)
            if limited:
                _answer_unservable(legacy, limited)
            self._step_up(request, visibility, calls)
        elif not header_method:
            limited = await self._rate_limit(principal, [(None, None)])  # the SDK rejects it: no Mcp-Method
            if limited:
                raise _Rejected(next(iter(limited.values())))
        state = RequestState(
            principal=principal,
            services=self.services,
            visibility=visibility,
            trace_id=trace_id,
            correlation_id=_correlation_id(request),
            remaining_ms=invocation_clock(request.scope.get("aws.context")),  # Mangum's; none locally
            rate_limited=limited,
            read_buckets=read_buckets,
            language=requested_language(request.headers.get("accept-language")),
            call_arguments=call_arguments,
            base_url=instance_url(request, self.services),
            cancel_on_disconnect=any(method == "tools/call" and name in _RUN_LONG for method, name in calls),
        )
        return state, body, legacy

    def _too_large(self, cap: int) -> PayloadTooLarge:
        if cap >= self.body_cap:
            return PayloadTooLarge(
                f"request body exceeds {self.body_cap} bytes (base64 of 100 MiB + 1 MiB); send large files "
                "through an upload session (POST /api/toolkit/memo/resources/upload-session)"
            )
        uploads = " and ".join(sorted(UPLOAD_TOOLS))
        return PayloadTooLarge(
            f"request body exceeds {cap} bytes: only one tools/call of {uploads} may be larger (up to "
            f"{self.body_cap} bytes); send large files through an upload session "
            "(POST /api/toolkit/memo/resources/upload-session)"
        )

    @staticmethod
    async def _read_legacy(read: ReadBody, version: str | None) -> LegacyBody:
        """A large body is parsed in a worker thread, where `pydantic_core.from_json` leaves the
        event loop free to serve others; a small one (under ~1 MiB, milliseconds) in place."""
        if read.large:
            return await run_sync(read_legacy_body, read.data, version)
        return read_legacy_body(read.data, version)

    async def _upload_call(self, read: ReadBody, legacy: LegacyBody | None) -> UploadCall:
        """The one upload call a large body must be (413 otherwise); its arguments stay parsed
        here and the SDK gets the message without them, so it never parses megabytes on the loop."""
        if legacy is not None:
            decoded = None if legacy.batch else legacy.messages[0].decoded
        else:
            try:
                decoded = await run_sync(pydantic_core.from_json, read.data)
            except ValueError:
                raise _Answered(JSONResponse(rpc_error(PARSE_ERROR, PARSE_ERROR_MESSAGE), status_code=400)) from None
        upload = upload_call(decoded)
        if upload is None:
            raise _Rejected(self._too_large(self.message_cap))
        return upload

    async def _rate_limit(
        self,
        principal: Principal,
        calls: Iterable[tuple[str | None, str | None]],
        read_buckets: dict[str, tuple[Bucket, ...]] | None = None,
    ) -> dict[str, RateLimited]:
        """Count each message (a batch counts every message it carries) in its bucket before
        anything reads the store: a client flooding `resources/read` past its limit costs one
        counter ADD a call, never a GetItem. The buckets over their limit, for the handlers to
        answer in MCP's own forms (limits.py).

        `resources/read` of one of the caller's own images counts in `page_image`: the MCP Apps
        memo view reads one per image to draw its thumbnails, and a 40-photo memo passed the 30
        a minute of `attachment_read` (the web counts a shown image the same way,
        web/memos/uploads.py). The URI cannot tell an image, its record can: an attachment this
        process has not seen counts in `page_image` (the generous bucket) first, then its record
        is read, and if it is no image it counts in `attachment_read` too; the answer is
        remembered (`ImageUris`), so its next read counts in its own bucket before any read (an
        id found missing counts in `attachment_read` and is read again while that has room: it
        may have been registered since). A URI that cannot name an own attachment (another
        account's path, a malformed one, an unknown scheme), or that the token may not read (the
        step-up refuses it), counts in `attachment_read` with no read. `read_buckets` collects
        each read's buckets, where its handler looks for its limit (`limits.counted_buckets`)."""
        if not self.limiter.enabled:
            return {}
        buckets: list[Bucket] = []
        unseen: dict[str, tuple[Namespace, str]] = {}  # URI -> the own attachment it names
        missing: dict[str, tuple[Namespace, str]] = {}  # ... found unregistered when last read
        uri_counts: collections.Counter[str] = collections.Counter()
        for method, name in calls:
            bucket = rate_bucket(method, name)
            if bucket == "attachment_read" and method == "resources/read" and name is not None:
                attachment = resources.own_attachment(name, principal.user_id)
                if attachment is not None and missing_scopes(principal.scopes, (attachment[0].read_scope,)):
                    attachment = None  # the step-up refuses it below: no record to read for it
                known = None if attachment is None else self.images.kind(self._image_key(principal, attachment))
                if attachment is not None and known in (None, "image"):
                    bucket = "page_image"
                    if known is None:
                        unseen[name] = attachment
                elif attachment is not None and known == "missing":
                    missing[name] = attachment
                uri_counts[name] += 1
                if read_buckets is not None:
                    read_buckets[name] = (bucket,)
            buckets.append(bucket)
        limited = await self._count(principal, buckets)
        # Over its first bucket an attachment is refused unread; within it, its record is read.
        to_read = {**(unseen if "page_image" not in limited else {}),
                   **(missing if "attachment_read" not in limited else {})}  # fmt: skip
        no_images: list[Bucket] = []
        found: dict[tuple[str, str, str], resources.AttachmentKind] = {}  # one read per attachment, however spelled
        for name, attachment in to_read.items():
            key = self._image_key(principal, attachment)
            if key not in found:
                found[key] = await run_sync(
                    resources.attachment_kind, self.services.items, principal.user_id, attachment
                )
                self.images.remember(key, found[key])
            kind = found[key]
            if kind != "image" and name in unseen:
                no_images += ["attachment_read"] * uri_counts[name]
                if read_buckets is not None:
                    read_buckets[name] = ("page_image", "attachment_read")
        limited.update(await self._count(principal, no_images))
        return limited

    async def _count(self, principal: Principal, buckets: Iterable[Bucket]) -> dict[str, RateLimited]:
        """One ADD per bucket (by how many messages count in it); the buckets over their limit."""
        limited: dict[str, RateLimited] = {}
        for bucket, count in collections.Counter(buckets).items():
            try:
                await self._limit(principal.credential_id, bucket, count)
            except RateLimited as error:
                limited[bucket] = error
        return limited

    @staticmethod
    def _image_key(principal: Principal, attachment: tuple[Namespace, str]) -> tuple[str, str, str]:
        kind, attachment_id = attachment
        return (principal.user_id, kind.name, attachment_id)

    def _step_up(
        self, request: Request, visibility: Visibility, calls: Iterable[tuple[str | None, str | None]]
    ) -> None:
        """403 `insufficient_scope` naming every scope the calls need, if scopes alone stop one."""
        needed: set[str] = set()
        reasons: list[str] = []
        for method, target in calls:
            if method == "tools/call" and target is not None:
                tool = self.catalog.get(target)
                scopes = visibility.step_up_scopes(tool) if tool is not None else None
                subject = f"tool {target!r}"
            elif method == "resources/read" and target is not None:
                scopes = resources.required_scopes(target)
                scopes = scopes if scopes and missing_scopes(visibility.scopes, scopes) else None
                # Attachments the URL's groups never read are refused by the handler, whatever the
                # scopes: a challenge for them would have the person widen a narrowed connection.
                if scopes and visibility.attachment_reason("", scopes[0]) is not None:
                    scopes = None
                subject = "reading a memo attachment"
            else:
                continue
            if scopes:
                needed.update(scopes)
                reasons.append(visibility.scope_reason(subject, scopes) or subject)
        if needed:
            wanted = " ".join(order_scopes(needed))
            raise _Rejected(
                Forbidden("; ".join(dict.fromkeys(reasons))),
                self._challenge(request, 'error="insufficient_scope"', f"scope={_quoted(wanted)}"),
            )

    def _visibility(self, request: Request, principal: Principal) -> Visibility:
        # A header sent on several lines is one comma-separated list (RFC 9110 §5.3).
        headers = tuple(
            (name, ",".join(request.headers.getlist(name))) for name in FILTER_HEADERS if name in request.headers
        )
        try:
            return self._resolved(principal.scopes, request.path_params.get("toolsets"), headers)
        except ValidationError as error:
            raise _Rejected(error) from None

    @functools.lru_cache(maxsize=64)  # noqa: B019  # one endpoint per process; bounded
    def _connect_scopes(self, url_toolsets: str | None) -> str:
        """What a challenge asks for: the read scopes the tools of this URL use (docs/contract.md
        §1). MCP clients request exactly the challenge's `scope` (the SDK, Claude Code and VS Code
        take it first), so connecting /mcp/x/todo asks the person to approve reading todos, not
        memos and the reading shelf that connection never shows. /mcp, /mcp/readonly and the
        groups that reach everything (`code` alone, `all`) ask for every read scope. The URL's
        toolsets were checked before any credential was asked for."""
        if url_toolsets is None:
            return CONNECT_SCOPES
        reach = self._resolved(frozenset(ALL_SCOPES), url_toolsets, ())
        names = {*reach.visible, *reach.code_reach(self.catalog)}
        reads = {scope for name in names for scope in self.catalog.tools[name].scopes if scope in READ_SCOPES}
        return " ".join(order_scopes(reads)) if reads else CONNECT_SCOPES

    @functools.lru_cache(maxsize=64)  # noqa: B019  # one endpoint per process; bounded
    def _connect_scope_set(self, url_toolsets: str | None) -> frozenset[str]:
        """`_connect_scopes` as a set: a credential connects with at least one of them."""
        return frozenset(self._connect_scopes(url_toolsets).split())

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
        origin = request.headers.get("origin")
        public_url = self.services.settings.public_url
        if origin is not None and is_allowed_origin(origin, request.headers.get("host"), public_url):
            # A page the rebinding check admits may connect directly (cors.py).
            if request.method == "OPTIONS" and "access-control-request-method" in request.headers:
                await cors.preflight(origin)(scope, receive, send)
                return
            send = cors.readable_by(origin, send)
        try:
            state, body, legacy = await self._admit(request, trace_id)
        except _Rejected as rejected:
            await failure(rejected.error, trace_id, rejected.headers)(scope, receive, send)
            return
        except _Answered as answered:
            answered.response.headers["cache-control"] = CACHE_CONTROL.decode()
            await answered.response(scope, receive, send)
            return
        except Exception as exc:  # a fault before the SDK: logged, answered without its text
            await internal_failure(exc, trace_id)(scope, receive, send)
            return
        scope[SCOPE_KEY] = state
        if legacy is not None and legacy.batch:
            await self._serve_batch(scope, legacy, receive, send, trace_id)
            return
        if legacy is None:  # the 2026-07-28 entry: its rejections are amended (versions.py)
            send = amending_send(send, _modern_amendment(body), request.headers)
        await self._serve(scope, body, receive, send, trace_id, remember=True)

    async def _serve_batch(self, scope: Scope, batch: LegacyBody, receive: Receive, send: Send, trace_id: str) -> None:
        """Each message through the SDK as its own request; one array of their answers."""
        answers: list[Any] = []
        for message in batch.messages:
            if message.rejection is not None:
                answers.append(message.rejection)
                continue
            captured = Captured()
            await self._serve(scope, json.dumps(message.decoded).encode(), receive, captured.send, trace_id)
            answer = captured.json()
            if isinstance(answer, dict) and answer.get("jsonrpc") == "2.0":
                answers.append(answer)
            elif captured.status != 202:  # a transport refusal (406, 415...) holds for the whole batch
                await captured.replay(send)
                return
        headers = {"Cache-Control": CACHE_CONTROL.decode()}
        if wait := retry_after(scope[SCOPE_KEY].rate_limited):
            headers["Retry-After"] = wait
        # Notifications only: 202 and no body.
        response = JSONResponse(answers, headers=headers) if answers else Response(status_code=202, headers=headers)
        await response(scope, receive, send)

    async def _serve(
        self, scope: Scope, body: bytes, receive: Receive, send: Send, trace_id: str, *, remember: bool = False
    ) -> None:
        """The SDK answers `body`; a repeated `tools/list` (`remember`: not a batch's message) is
        answered from the endpoint's memory of the SDK's first answer (list_memo.py)."""
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        started = answered = False
        # A rate-limited message is answered in the body by its handler (limits.py); the header
        # says the same to a client that reads headers first.
        wait = retry_after(scope[SCOPE_KEY].rate_limited)

        async def send_private(message: Message) -> None:
            nonlocal started, answered
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                headers.append((b"cache-control", CACHE_CONTROL))
                if wait:
                    headers.append((b"retry-after", wait.encode()))
                message = {**message, "headers": headers}
            await send(message)

        listing = self.list_memo.request(scope, scope[SCOPE_KEY], body) if remember else None
        if listing is not None and await self.list_memo.answer(listing, send_private):
            return
        sdk_send = self.list_memo.recording(listing, send_private) if listing is not None else send_private
        try:
            manager = await self.managers.manager()
            if not scope[SCOPE_KEY].cancel_on_disconnect:
                await manager.handle_request(scope, replay, sdk_send)
                return
            async with anyio.create_task_group() as group:
                # The client closing the request's stream cancels it (the 2026 protocol's
                # cancellation; in this stateless JSON mode nobody could read the answer anyway):
                # a run_code run stops and frees its worker instead of writing on for its whole
                # wall time. A tool's call already in its thread still finishes whole.
                group.start_soon(_cancel_on_disconnect, receive, group.cancel_scope, lambda: answered)
                await manager.handle_request(scope, replay, sdk_send)
                group.cancel_scope.cancel()
        except Exception as exc:
            if started:  # the answer is on its way: nothing left to tell the client
                logger.exception("mcp transport failed after responding", extra={"traceId": trace_id})
                return
            response: Response = internal_failure(exc, trace_id)
            await response(scope, receive, send)


#: The tools whose call may run long enough to be worth cancelling when the client goes away
#: (a task group per request costs ~0.2 ms of CPU: measured on get_memo, so quick calls skip it).
_RUN_LONG = frozenset({"run_code"})


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope, answered: Callable[[], bool]) -> None:
    """Cancel `scope` when the client goes away before the answer is sent (the body was read
    already: what `receive` reports next is the disconnect)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    if not answered():
        scope.cancel()
