"""`GET /api/toolkit/export` (the `x-mesq-raw` operation `export_account` in
mesq/archive/openapi.yaml): the caller's account as a `mesq export` archive, bounded by the
credential's read scopes (archive/format.py `covered_by`).

The archive is written by `archive.exporter.export_account` into an anonymous temporary file
(a ZIP's central directory comes last, and the manifest's checksums need every member first),
then streamed from it a chunk at a time: memory stays bounded by a store page and a chunk,
whatever the account's size. The file is gone when the response ends or the client leaves.

Where one response cannot carry it (a deployment with `attachment_redirect_bytes` set, i.e. Lambda
and its 6 MB response cap), an archive over that size is refused with PAYLOAD_TOO_LARGE naming
`mesq export`, rather than cut.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from typing import IO

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..application.ratelimit import RateLimiter
from ..archive.exporter import export_account
from ..asgi.auth import require_scopes, rest_principal
from ..asgi.envelope import NO_STORE, failure, internal_failure
from ..asgi.trace import trace_id_of
from ..auth.scopes import ALL_SCOPES
from ..kernel.concurrency import run_sync
from ..kernel.errors import MesqError, PayloadTooLarge, ValidationError
from ..kernel.spec import Spec
from ..kernel.timestamps import now_timestamp
from ..wiring.services import Services
from .challenge import rest_challenge

OPERATION = "export_account"
READ_SCOPES = tuple(scope for scope in ALL_SCOPES if scope.endswith(":read"))
CHUNK_BYTES = 1 << 16


class AccountExport:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.limiter = RateLimiter(services.items, services.settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        trace_id = trace_id_of(request)
        try:
            response = await self._prepare(request, trace_id)
        except MesqError as error:
            challenge = rest_challenge(request, self.services) if error.http_status == 401 else None
            response = failure(error, trace_id, challenge)
        except Exception as exc:
            response = internal_failure(exc, trace_id)
        await response(scope, receive, send)

    async def _prepare(self, request: Request, trace_id: str) -> Response:
        principal = await rest_principal(request, self.services, self.limiter)
        require_scopes(principal, READ_SCOPES, any_scope=True)
        if request.query_params:
            raise ValidationError(f"unknown query parameter(s) {', '.join(map(repr, sorted(request.query_params)))}")
        # An export hands out attachment bytes (and costs a walk of the account): it counts where
        # attachment reads count (docs/contract.md §7).
        if self.limiter.enabled:
            await run_sync(self.limiter.hit, principal.credential_id, "attachment_read")
        spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the stream below, or here on failure)
        try:
            exported_at = now_timestamp()
            services = self.services
            await run_sync(
                export_account,
                services.items,
                services.blobs,
                principal.user_id,
                spool,
                exported_at,
                scopes=principal.scopes,
            )
            size = spool.seek(0, os.SEEK_END)
            spool.seek(0)
            cap = services.settings.attachment_redirect_bytes
            if cap is not None and size > cap:
                raise PayloadTooLarge(
                    f"the archive is {size} bytes, over the {cap} bytes one response of this deployment can"
                    " carry; export with `mesq export USER --out FILE` where the data lives"
                )
        except BaseException:
            spool.close()
            raise
        day = exported_at[:10]
        headers = {
            **NO_STORE,
            "Content-Length": str(size),
            "Content-Disposition": f'attachment; filename="mesq-export-{day}.zip"',
            "X-Content-Type-Options": "nosniff",
        }
        return StreamingResponse(_chunks(spool), media_type="application/zip", headers=headers)


async def _chunks(spool: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await run_sync(spool.read, CHUNK_BYTES):
            yield chunk
    finally:
        spool.close()


def export_routes(services: Services, spec: Spec) -> list[Route]:
    operation = spec.raw_operations[OPERATION]
    return [Route(operation.path, AccountExport(services), methods=[operation.method])]
