"""`POST /api/toolkit/import?kind=memos|flomo|todoist` (the `x-mesq-raw` operation
`import_from_app` in mesq/imports/openapi.yaml): an export of another app into the caller's
account (docs/migrating.md).

The body is the file (raw, any Content-Type but multipart; its name in `filename` or `name`) or a
multipart form with the file in field `file` (its name the part's filename); either is spooled
to a temporary file, counted while reading so nothing past
MAX_UPLOAD_BYTES is kept. The import runs in a worker thread holding one of the archive slots
(`asgi/app_imports.py`: one import or export per user, a few per process; one more answers 503
with Retry-After), and counts in the caller's `tool_call` rate-limit bucket.
A file that cannot be imported answers 400 VALIDATION_ERROR with its one line; nothing written.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from typing import IO, Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from ..application.ratelimit import RateLimiter
from ..asgi.app_imports import import_upload, log_refusal
from ..asgi.auth import require_scopes, rest_principal
from ..asgi.body import media_type, multipart_problem
from ..asgi.envelope import failure, internal_failure, storage_failure, success
from ..asgi.trace import trace_id_of
from ..imports.plan import KINDS, CutShort, SourceError
from ..kernel.concurrency import run_sync
from ..kernel.context import Principal
from ..kernel.errors import MesqError, PayloadTooLarge, ValidationError
from ..kernel.i18n import requested_language
from ..kernel.ports.storage import StoreUnavailable
from ..kernel.spec import Spec
from ..wiring.imports import ImportOptions
from ..wiring.services import Services
from .challenge import rest_challenge

OPERATION = "import_from_app"
#: The largest file one request carries (a memos database with its files can be big; on Lambda
#: the API's own 6 MB payload cap comes first: larger ones take `mesq import --from`).
MAX_UPLOAD_BYTES = 256 * 1024 * 1024
FORM_OVERHEAD_BYTES = 1024 * 1024
_QUERY = frozenset({"kind", "memosUser", "timezone", "filename", "name"})
CHUNK_BYTES = 1 << 20


class _TooLarge(Exception):
    pass


def write_scope(kind: str) -> str:
    return "todo:write" if kind == "todoist" else "memo:write"


class AppImport:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.limiter = RateLimiter(services.items, services.settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES:
                raise _TooLarge
            return message

        request = Request(scope, counted)
        trace_id = trace_id_of(request)
        try:
            response = await self._handle(request, trace_id)
        except _TooLarge:
            response = failure(PayloadTooLarge(_too_large()), trace_id)
        except MesqError as error:
            challenge = rest_challenge(request, self.services) if error.http_status == 401 else None
            response = failure(error, trace_id, challenge)
        except StoreUnavailable as exc:
            response = storage_failure("import", exc, trace_id)
        except Exception as exc:
            response = internal_failure(exc, trace_id)
        await response(scope, receive, send)

    async def _handle(self, request: Request, trace_id: str) -> Response:
        principal = await rest_principal(request, self.services, self.limiter)
        query = request.query_params
        unknown = sorted(set(query) - _QUERY)
        if unknown:
            raise ValidationError(f"unknown query parameter(s) {', '.join(map(repr, unknown))}")
        kind = query.get("kind", "")
        if kind not in KINDS:
            raise ValidationError(f"kind: one of {', '.join(KINDS)}")
        require_scopes(principal, (write_scope(kind),))
        options = ImportOptions(
            memos_user=query.get("memosUser") or None,
            timezone=query.get("timezone") or None,
            # A new column's name follows the request's language, as a board REST makes does.
            language=requested_language(request.headers.get("accept-language")),
            # A raw body's own name (a Todoist project is named after its CSV): `filename` or `name`.
            filename=query.get("filename") or query.get("name") or None,
        )
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES:
            raise PayloadTooLarge(_too_large())
        if self.limiter.enabled:
            await run_sync(self.limiter.hit, principal.credential_id, "tool_call")
        try:
            if media_type(request.headers.get("content-type")) == "multipart/form-data":
                async with request.form(max_files=1, max_fields=5, max_part_size=64 * 1024) as form:
                    file = form.get("file")
                    if not isinstance(file, UploadFile):
                        raise ValidationError("multipart field 'file' (the export itself) is required")
                    if file.filename:
                        options = replace(options, filename=file.filename)
                    data = await run_sync(_imported, self.services, principal, kind, file.file, options)
            else:
                with tempfile.SpooledTemporaryFile(max_size=CHUNK_BYTES) as spool:
                    size = 0
                    async for chunk in request.stream():
                        size += len(chunk)
                        await run_sync(spool.write, chunk)
                    if size == 0:
                        raise ValidationError("the request body is empty: send the export's bytes")
                    spool.seek(0)
                    data = await run_sync(_imported, self.services, principal, kind, spool, options)
        except HTTPException as exc:  # the multipart parser's 400s
            raise ValidationError(f"multipart body: {multipart_problem(exc)}") from None
        except CutShort as error:  # partly written: the report (runId, counts) says what, to undo or complete
            log_refusal(error, trace_id, kind)
            raise ValidationError(error.refusal, details={"report": error.report.as_dict()}) from None
        except SourceError as error:
            log_refusal(error, trace_id, kind)
            raise ValidationError(error.refusal) from None
        return success(data, trace_id)


def _imported(
    services: Services, principal: Principal, kind: str, upload: IO[bytes], options: ImportOptions
) -> dict[str, Any]:
    return import_upload(services, principal, kind, upload, options, "api").as_dict()


def _too_large() -> str:
    return f"the file is over {MAX_UPLOAD_BYTES} bytes; import it with `mesq import USER --from KIND PATH`"


def import_routes(services: Services, spec: Spec) -> list[Route]:
    operation = spec.raw_operations[OPERATION]
    return [Route(operation.path, AppImport(services), methods=[operation.method])]
