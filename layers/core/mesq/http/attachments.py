"""The attachment routes that carry bytes instead of JSON (docs/contract.md §8), documented as
`x-mesq-raw` operations in mesq/attachments/openapi.yaml (memo) and todo.openapi.yaml (todo: the
same two routes under /api/toolkit/todo/attachments/, with the todo scopes):

- `POST /api/toolkit/memo/resources/upload`: multipart relay upload (field `file`), counted while
  reading so nothing past 100 MiB (+ form overhead) is ever buffered.
- `GET`/`HEAD /api/toolkit/memo/resources/read?path=...`: the bytes, streamed. HEAD reads only
  storage metadata. Status codes: 404 missing object, 500 storage failure before the response
  (including a response-header timeout of the S3 client), 499 client cancelled. Objects larger
  than `Settings.attachment_redirect_bytes` on a store that can presign (Lambda: its 6 MB
  response cap) are answered with a 307 to a 60-second presigned GET, after every check.

Both are plain ASGI apps (not Starlette endpoints) because they need the raw `receive`: to
count upload bytes and to notice a client that goes away while a download is being prepared
or streamed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Iterator
from typing import IO, Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..application.ratelimit import RateLimiter
from ..asgi.auth import require_scopes, rest_principal
from ..asgi.body import multipart_problem
from ..asgi.downloads import download_headers
from ..asgi.envelope import NO_STORE, failure, internal_failure, logger, storage_failure, success
from ..asgi.instance import instance_url
from ..asgi.trace import trace_id_of
from ..attachments import reads, uploads
from ..attachments.paths import MEMO, TODO, Namespace
from ..kernel.concurrency import run_sync
from ..kernel.context import Call, Principal
from ..kernel.errors import ClientClosed, MesqError, NotFound, PayloadTooLarge, ValidationError
from ..kernel.messages import quoted
from ..kernel.ports.storage import BlobNotFound, BlobStore, StoreUnavailable
from ..kernel.spec import Spec
from ..wiring.services import Services
from .challenge import rest_challenge

#: namespace -> (relay upload operationId, download operationId)
RAW_OPERATIONS: dict[Namespace, tuple[str, str]] = {
    MEMO: ("relay_memo_resource_upload", "download_memo_resource"),
    TODO: ("relay_todo_attachment_upload", "download_todo_attachment"),
}
#: Multipart framing and the small text fields on top of the file itself.
FORM_OVERHEAD_BYTES = 1024 * 1024
REDIRECT_SECONDS = 60
CHUNK_BYTES = 1 << 16


def _error_response(error: MesqError, trace_id: str, request: Request, services: Services) -> Response:
    return failure(error, trace_id, rest_challenge(request, services) if error.http_status == 401 else None)


def _rest_call(request: Request, principal: Principal, services: Services, trace_id: str) -> Call:
    """The `Call` of an attachment request: its answers' URLs start with the request's own base."""
    return Call(
        principal=principal, services=services, trace_id=trace_id, channel="api",
        base_url=instance_url(request, services),
    )  # fmt: skip


async def _principal(request: Request, services: Services, scope: str) -> Principal:
    principal = await rest_principal(request, services, RateLimiter(services.items, services.settings))
    require_scopes(principal, (scope,))
    return principal


class _TooLarge(Exception):
    pass


class RelayUpload:
    """`POST .../resources/upload`: one file in multipart field `file`."""

    def __init__(self, services: Services, kind: Namespace) -> None:
        self.services = services
        self.kind = kind
        self.limit = uploads.MAX_FILE_BYTES + FORM_OVERHEAD_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise _TooLarge
            return message

        request = Request(scope, counted)
        trace_id = trace_id_of(request)
        try:
            response = await self._handle(request, trace_id)
        except MesqError as error:
            response = _error_response(error, trace_id, request, self.services)
        except Exception as exc:
            response = internal_failure(exc, trace_id)
        await response(scope, receive, send)

    async def _handle(self, request: Request, trace_id: str) -> Response:
        principal = await _principal(request, self.services, self.kind.write_scope)
        media_type = request.headers.get("content-type", "")
        if not media_type.lower().startswith("multipart/form-data"):
            raise ValidationError(
                f"Content-Type must be multipart/form-data with the file in field 'file'; got {media_type or 'none'}"
            )
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            raise PayloadTooLarge(self._too_large_message())
        try:
            async with request.form(max_files=1, max_fields=10, max_part_size=64 * 1024) as form:
                file = form.get("file")
                if not isinstance(file, UploadFile):
                    raise ValidationError("multipart field 'file' (the file itself) is required")
                display = form.get("displayName")
                mime = form.get("mimeType")
                name = display if isinstance(display, str) else (file.filename or "")
                media = mime if isinstance(mime, str) else (file.content_type or "application/octet-stream")
                # The parser spooled the part to a temporary file (over 1 MiB it is on disk) while
                # `counted` enforced the limit; the blob store copies it in chunks, so the file is
                # never whole in memory. Inside the form's block: closing the form deletes it.
                call = _rest_call(request, principal, self.services, trace_id)
                size = await run_sync(_rewound_size, file.file)
                resource = await run_sync(uploads.store_file, call, file.file, size, name, media, self.kind)
        except _TooLarge:
            raise PayloadTooLarge(self._too_large_message()) from None
        except HTTPException as exc:  # the multipart parser's 400s
            raise ValidationError(f"multipart body: {multipart_problem(exc)}") from None
        return success(resource, trace_id, 201)

    @staticmethod
    def _too_large_message() -> str:
        return f"the file is over {uploads.MAX_FILE_BYTES} bytes (100 MiB per file); nothing was stored"


def _rewound_size(file: IO[bytes]) -> int:
    """The spooled part's size, the file left at its start for the copy."""
    size = file.seek(0, os.SEEK_END)
    file.seek(0)
    return size


class _Opening:
    """Opens the object and reads its first chunk in a worker thread: every storage failure
    before the response starts surfaces there (so it can still be a 404 or a 500), and the
    iterator is started, so closing it releases the file or the HTTP connection. A client that
    leaves meanwhile `abandon`s it: whichever side comes second closes the object."""

    def __init__(self, blobs: BlobStore, path: str) -> None:
        self._blobs, self._path = blobs, path
        self._lock = threading.Lock()
        self._abandoned = False
        self._iterator: Iterator[bytes] | None = None

    def run(self) -> tuple[Iterator[bytes], bytes | None]:
        iterator = self._blobs.stream(self._path, CHUNK_BYTES)
        try:
            first = next(iterator, None)
        except BaseException:
            _close(iterator)
            raise
        with self._lock:
            self._iterator = iterator
            if self._abandoned:
                _close(iterator)
        return iterator, first

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            if self._iterator is not None:
                _close(self._iterator)


def _close(iterator: Iterator[bytes]) -> None:
    close = getattr(iterator, "close", None)
    if close is not None:
        close()


class ResourceRead:
    """`GET`/`HEAD .../resources/read?path=...`."""

    def __init__(self, services: Services, kind: Namespace) -> None:
        self.services = services
        self.kind = kind
        self.limiter = RateLimiter(services.items, services.settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        trace_id = trace_id_of(request)
        try:
            prepared = await self._prepare(request, trace_id)
        except MesqError as error:
            await _error_response(error, trace_id, request, self.services)(scope, receive, send)
            return
        except StoreUnavailable as exc:
            await storage_failure("attachment", exc, trace_id)(scope, receive, send)
            return
        except Exception as exc:
            await internal_failure(exc, trace_id)(scope, receive, send)
            return
        if isinstance(prepared, Response):
            await prepared(scope, receive, send)
            return
        await self._stream(prepared, scope, receive, send, trace_id)

    async def _prepare(self, request: Request, trace_id: str) -> Response | tuple[reads.Stored, dict[str, str]]:
        principal = await _principal(request, self.services, self.kind.read_scope)
        unknown = sorted(set(request.query_params) - {"path"})
        if unknown:
            raise ValidationError(f"unknown query parameter(s) {', '.join(map(repr, unknown))}")
        paths = request.query_params.getlist("path")
        if len(paths) != 1:
            raise ValidationError("path: give exactly one attachment path (URL-encoded)")
        call = _rest_call(request, principal, self.services, trace_id)
        if request.method == "GET" and self.limiter.enabled:
            await run_sync(self.limiter.hit, principal.credential_id, "attachment_read")
        stored = await run_sync(reads.stat, call, paths[0], self.kind)
        headers = download_headers(stored.record["displayName"], stored.info.content_type, stored.info.size)
        if request.method == "HEAD":
            return Response(status_code=200, headers=headers)
        threshold = self.services.settings.attachment_redirect_bytes
        blobs = self.services.blobs
        if threshold is not None and stored.info.size > threshold and blobs.transport == "direct":
            url = blobs.presign_get(
                paths[0],
                REDIRECT_SECONDS,
                filename=stored.record["displayName"],
                content_type=stored.info.content_type,
            )
            return Response(status_code=307, headers={**NO_STORE, "Location": url})
        return stored, headers

    async def _stream(
        self, prepared: tuple[reads.Stored, dict[str, str]], scope: Scope, receive: Receive, send: Send, trace_id: str
    ) -> None:
        stored, headers = prepared
        path = stored.record["path"]

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        watcher = asyncio.ensure_future(watch())
        opener = _Opening(self.services.blobs, path)
        opening = asyncio.ensure_future(run_sync(opener.run))
        iterator: Iterator[bytes] | None = None
        try:
            await asyncio.wait({watcher, opening}, return_when=asyncio.FIRST_COMPLETED)
            if not opening.done():
                # Gone before the response: stop here; the object is closed once it is open.
                opener.abandon()
                opening.add_done_callback(_retrieve)
                await self._cancelled(scope, receive, send, trace_id, path, 0)
                return
            try:
                iterator, chunk = opening.result()
            except BlobNotFound:
                await failure(NotFound(f"the file of attachment {quoted(path)} is missing"), trace_id)(
                    scope, receive, send
                )
                return
            except StoreUnavailable as exc:
                await storage_failure("attachment", exc, trace_id)(scope, receive, send)
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
                }
            )
            size, sent = stored.info.size, 0
            while chunk is not None:
                if watcher.done():
                    raise ClientClosed("the client went away")
                # Never more than Content-Length: an object that grew meanwhile is cut, not overrun.
                chunk = chunk[: size - sent]
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    sent += len(chunk)
                if sent >= size:
                    break
                chunk = await run_sync(next, iterator, None)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            if sent < size:
                logger.warning("attachment shorter than its size", extra={"traceId": trace_id, "sent": sent})
        except ClientClosed:
            await self._cancelled(scope, receive, send, trace_id, path, -1)
        except (StoreUnavailable, OSError) as exc:
            # Headers are out: all that is left is to cut the body short (the client sees a short read).
            logger.warning("attachment stream failed", extra={"traceId": trace_id, "error": str(exc)})
        finally:
            watcher.cancel()
            if iterator is not None:
                await run_sync(_close, iterator)

    @staticmethod
    async def _cancelled(scope: Scope, receive: Receive, send: Send, trace_id: str, path: str, sent: int) -> None:
        """docs/contract.md §8: a cancelled request is a 499. The client is gone, so this is for logs and proxies;
        after the headers went out only the log can say it."""
        logger.info("attachment read cancelled by the client", extra={"traceId": trace_id, "status": 499})
        if sent == 0:
            with contextlib.suppress(Exception):
                await failure(ClientClosed("the client closed the request"), trace_id)(scope, receive, send)


def _retrieve(opening: asyncio.Future[Any]) -> None:
    """Consume the abandoned open's outcome so a storage error is not reported as unretrieved."""
    if not opening.cancelled():
        opening.exception()


def attachment_routes(services: Services, spec: Spec) -> list[Route]:
    raw = spec.raw_operations
    routes = []
    for kind, (upload, read) in RAW_OPERATIONS.items():
        routes.append(Route(raw[upload].path, RelayUpload(services, kind), methods=["POST"]))
        routes.append(Route(raw[read].path, ResourceRead(services, kind), methods=["GET", "HEAD"]))
    return routes
