"""`GET /api/toolkit/export` (the `x-mesq-raw` operation `export_account` in
mesq/archive/openapi.yaml): the caller's account as a `mesq export` archive, bounded by the
credential's read scopes (archive/format.py `covered_by`).

The archive itself, written to a temporary file and streamed, capped where one response is, and
the bound on how many run at once, is `asgi/account_archive.py`, shared with Settings → Export.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..application.ratelimit import RateLimiter
from ..asgi.account_archive import archive_download
from ..asgi.auth import require_scopes, rest_principal
from ..asgi.envelope import failure, internal_failure, storage_failure
from ..asgi.trace import trace_id_of
from ..auth.scopes import ALL_SCOPES
from ..kernel.concurrency import run_sync
from ..kernel.errors import MesqError, ValidationError
from ..kernel.ports.storage import StoreUnavailable
from ..kernel.spec import Spec
from ..wiring.services import Services
from .challenge import rest_challenge

OPERATION = "export_account"
READ_SCOPES = tuple(scope for scope in ALL_SCOPES if scope.endswith(":read"))


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
        except StoreUnavailable as exc:
            response = storage_failure("export", exc, trace_id)
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
        return await archive_download(self.services, principal.user_id, principal.scopes)


def export_routes(services: Services, spec: Spec) -> list[Route]:
    operation = spec.raw_operations[OPERATION]
    return [Route(operation.path, AccountExport(services), methods=[operation.method])]
