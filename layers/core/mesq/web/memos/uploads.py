"""Attachments from the composer: the upload session of the API, driven by `static/memos.js`.

1. `POST /memos/uploads` (JSON `displayName`, `mimeType`, `size`) runs
   `create_memo_upload_session` (name, type, size and quota checked before any byte moves).
2. `direct` (S3): the script PUTs the bytes to the presigned `uploadUrl`, then
   `POST /memos/uploads/complete` runs `complete_memo_upload_session`.
   `relay` (local files, `mesq serve`): the API's relay route takes a bearer token, which a
   browser does not have, so the answer points the script at `POST /memos/uploads/relay`
   instead: the raw bytes as the body, name and type in the query, the session's CSRF token in
   the header. It stores them with the relay's own domain function (`uploads.store_file`).
3. The script adds each answer to the composer, and `create_memo` binds them to the memo.

`GET /memos/attachment?path=` downloads one of the user's memo attachments with the session (the
API's read route takes a bearer token): the same ownership checks (`attachments.reads.stat`), the
same headers (`asgi.downloads`), streamed from a relay store, a 60-second presigned GET on S3; of the
type that GET answers with on both (`inline_safe_type`: an SVG, HTML or text is octet-stream).
`GET /todos/attachment?path=` is the same for a todo attachment (the task and inbox pages list them).
"""

from __future__ import annotations

import tempfile
from typing import IO
from urllib.parse import urlsplit

from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from ...application.ratelimit import Bucket, RateLimiter
from ...asgi.downloads import download_headers
from ...asgi.envelope import NO_STORE
from ...attachments import reads, uploads
from ...attachments.paths import MEMO, TODO, Namespace, kind_of, staging_path
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ...kernel.ports.storage import BlobStore, PresignUnsupported
from ...store.blob_downloads import inline_safe_type
from ..kit.framework import Page, Web, endpoint, json_ok

RELAY = "/memos/uploads/relay"
DOWNLOAD = "/memos/attachment"
TODO_DOWNLOAD = "/todos/attachment"
REDIRECT_SECONDS = 60
SPOOL_MEMORY_BYTES = 1024 * 1024
_SESSION_FIELDS = ("displayName", "mimeType", "size")
_COMPLETE_FIELDS = ("uploadId", "path")


def direct_upload_origin(blobs: BlobStore) -> str | None:
    """Where this store's presigned PUTs go (`https://bucket.s3.region.amazonaws.com`), for the
    memo page's CSP `connect-src`; None for a relay store. Presigning is a local signature:
    nothing is sent, and the probe URL is never used."""
    if blobs.transport != "direct":
        return None
    try:
        url = blobs.presign_put(staging_path("csp", "origin-probe"), "application/octet-stream", 1, 60)
    except PresignUnsupported:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("https", "http") and parts.netloc else None


def _arguments(page: Page, names: tuple[str, ...]) -> dict[str, object]:
    return {name: page.fields.get(name) for name in names if page.fields.get(name) is not None}


async def start_upload(page: Page) -> Response:
    answer = await page.invoke("create_memo_upload_session", _arguments(page, _SESSION_FIELDS))
    if answer["transport"] == "relay":
        answer = {**answer, "uploadEndpoint": RELAY}
    return json_ok(answer)


async def complete_upload(page: Page) -> Response:
    return json_ok(await page.invoke("complete_memo_upload_session", _arguments(page, _COMPLETE_FIELDS)))


def _declared_size(page: Page) -> int | None:
    """The body's declared length (the file's size: the body is the file), None when not given."""
    declared = page.request.headers.get("content-length", "").strip()
    return int(declared) if declared.isascii() and declared.isdigit() else None


async def _spooled_body(page: Page) -> tuple[IO[bytes], int]:
    """The request body in a temporary file (on disk past 1 MiB), refused past the file limit:
    at once when its declared length is over it (nothing read), else as it arrives (chunked)."""
    declared = _declared_size(page)
    if declared is not None and declared > uploads.MAX_FILE_BYTES:
        raise uploads.too_large("file", declared)
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115 - closed by the caller
    size = 0
    async for chunk in page.request.stream():
        size += len(chunk)
        if size > uploads.MAX_FILE_BYTES:
            spool.close()
            raise uploads.too_large("file")
        spool.write(chunk)
    spool.seek(0)
    return spool, size


async def relay_upload(page: Page) -> Response:
    params = page.request.query_params
    name = params.get("displayName", "")
    mime = params.get("mimeType") or page.request.headers.get("content-type") or "application/octet-stream"
    body, size = await _spooled_body(page)
    with body:
        resource = await run_sync(uploads.store_file, page.call(), body, size, name, mime)
    return json_ok(resource)


def _bucket_of(page: Page) -> Bucket:
    """An image shown in a page (a card's thumbnail, its full-size dialog: the browser's
    `Sec-Fetch-Dest: image`) counts in `page_image` (1,200 a minute): a timeline of nine-photo
    memos loads 180 at once and again at each look; at the 30 a minute of `attachment_read` a
    screenful broke, at `tool_call`'s 240 the second look within a minute. A download (a link, a
    script) stays in `attachment_read`."""
    return "page_image" if page.request.headers.get("sec-fetch-dest") == "image" else "attachment_read"


async def download(page: Page, kind: Namespace = MEMO) -> Response:
    paths = page.request.query_params.getlist("path")
    if len(paths) != 1:
        raise ValidationError("%(field)s: give exactly one attachment path", field="path")
    call, services = page.call(), page.web.services
    limiter = RateLimiter(services.items, services.settings)
    bucket = _bucket_of(page)
    if limiter.enabled:
        await run_sync(limiter.hit, page.user.credential_id, bucket)
    stored = await run_sync(reads.stat, call, paths[0], kind)
    if limiter.enabled and bucket == "page_image" and kind_of(str(stored.record.get("mimeType", ""))) != "image":
        # `Sec-Fetch-Dest: image` is the client's word, and a page shows only images as <img>
        # (other files are links): a file that is no image is a download, in its bucket too.
        await run_sync(limiter.hit, page.user.credential_id, "attachment_read")
    if services.blobs.transport == "direct":
        url = await run_sync(
            services.blobs.presign_get,
            paths[0],
            REDIRECT_SECONDS,
            filename=stored.record["displayName"],
            content_type=stored.info.content_type,
        )
        return RedirectResponse(url, status_code=307, headers=dict(NO_STORE))
    # The type the presigned GET above answers with (an SVG, HTML or text is octet-stream there):
    # a page's download is the same file on every store (nosniff and the sandbox CSP kept here).
    served_type = inline_safe_type(stored.info.content_type)
    headers = download_headers(stored.record["displayName"], served_type, stored.info.size)
    return StreamingResponse(services.blobs.stream(paths[0]), headers=headers)


async def download_todo_attachment(page: Page) -> Response:
    return await download(page, TODO)


def upload_routes(web: Web) -> list[Route]:
    return [
        Route("/memos/uploads", endpoint(web, start_upload, api=True), methods=["POST"]),
        Route("/memos/uploads/complete", endpoint(web, complete_upload, api=True), methods=["POST"]),
        Route(RELAY, endpoint(web, relay_upload, api=True, raw_body=True), methods=["POST"]),
        Route(DOWNLOAD, endpoint(web, download), methods=["GET"]),
        Route(TODO_DOWNLOAD, endpoint(web, download_todo_attachment), methods=["GET"]),
    ]


__all__ = ["direct_upload_origin", "upload_routes"]
