"""The REST envelopes of docs/contract.md §3 and the one place errors become responses."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from starlette.responses import JSONResponse

from ..kernel.errors import Internal, MesqError

logger = Logger(child=True)

NO_STORE = {"Cache-Control": "private, no-store"}


def success(
    data: dict[str, Any], trace_id: str, status: int = 200, written: dict[str, Any] | None = None
) -> JSONResponse:
    """`{data, traceId}`; a write's also carries what it recorded (`written`: `changeIds`, `runId`,
    `sessionId`, from `Recorded.summary()`), the same fields in the same place as over MCP."""
    return JSONResponse({"data": data, "traceId": trace_id, **(written or {})}, status_code=status, headers=NO_STORE)


def failure(error: MesqError, trace_id: str, headers: dict[str, str] | None = None) -> JSONResponse:
    all_headers = {**NO_STORE, **(headers or {})}
    if error.retry_after_seconds is not None:
        all_headers["Retry-After"] = str(error.retry_after_seconds)
    return JSONResponse(error.envelope(trace_id), status_code=error.http_status, headers=all_headers)


def internal_failure(exc: BaseException, trace_id: str) -> JSONResponse:
    """An unexpected fault: logged with its traceback, answered without its text."""
    logger.exception("unhandled error", extra={"traceId": trace_id, "error_type": type(exc).__name__})
    return failure(Internal.for_trace(trace_id), trace_id)


def storage_failure(what: str, exc: BaseException, trace_id: str) -> JSONResponse:
    """docs/contract.md §8: the store or the blob store failing before a response started (past the
    adapter's retries) is a 500 the client may retry; logged as a warning with the store's message,
    which never reaches the client."""
    logger.warning(f"{what} storage failed", extra={"traceId": trace_id, "error": str(exc)})
    return failure(Internal(f"{what} storage failed before the response started; retry (traceId {trace_id})"), trace_id)
