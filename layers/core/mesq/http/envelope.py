"""The REST envelopes of product §3 and the one place errors become responses."""

from __future__ import annotations

import secrets
from typing import Any

from aws_lambda_powertools import Logger
from starlette.responses import JSONResponse

from ..errors import MesqError

logger = Logger(service="mesq", child=True)

NO_STORE = {"Cache-Control": "private, no-store"}


def new_trace_id() -> str:
    return secrets.token_hex(16)


def success(data: dict[str, Any], trace_id: str, status: int = 200) -> JSONResponse:
    return JSONResponse({"data": data, "traceId": trace_id}, status_code=status, headers=NO_STORE)


def error_body(error: MesqError, trace_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {"error": error.to_error(), "traceId": trace_id}
    if error.recover_data is not None:
        body["recoverData"] = error.recover_data
    return body


def failure(error: MesqError, trace_id: str, headers: dict[str, str] | None = None) -> JSONResponse:
    all_headers = {**NO_STORE, **(headers or {})}
    if error.retry_after_seconds is not None:
        all_headers["Retry-After"] = str(error.retry_after_seconds)
    return JSONResponse(error_body(error, trace_id), status_code=error.http_status, headers=all_headers)


def internal_failure(exc: BaseException, trace_id: str) -> JSONResponse:
    """An unexpected fault: logged with its traceback, answered without its text."""
    logger.exception("unhandled error", extra={"traceId": trace_id, "error_type": type(exc).__name__})
    from ..errors import Internal

    return failure(Internal(f"internal error; quote traceId {trace_id} when reporting it"), trace_id)
