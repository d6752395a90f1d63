"""Typed domain errors. Adapters (REST, MCP) map them to the error envelope of docs/contract.md §3;
their `message` is written for the client, so it is safe to show. Anything else that escapes an
operation is an internal fault and is reported as `INTERNAL` without its text.

An error carries its code (the class's) and its message as a template with parameters
(`ValidationError("due: %(value)s is not a date", value=quoted(text))`, the template marked for
the catalog by its class name; docs/i18n.md): `message` is the English, what REST and MCP answer
(clients and agents read one stable language), and `text` the same message for a page or a
reminder to say in its reader's language (`Translator.text(error.text)`)."""

from __future__ import annotations

from typing import Any

from .i18n import N_, Text
from .messages import bounded_message


class MesqError(Exception):
    code = "INTERNAL"
    http_status = 500

    def __init__(
        self,
        message: str | Text,
        /,
        *,
        details: Any = None,
        recover_data: Any = None,
        retry_after_seconds: int | None = None,
        **params: Any,
    ) -> None:
        #: The message in words not yet in a language: its template and parameters.
        self.text = message if isinstance(message, Text) else Text(message, **params)
        message = bounded_message(str(self.text))  # a last resort: values are quoted by `excerpt`
        super().__init__(message)
        self.message = message
        self.details = details
        self.recover_data = recover_data
        self.retry_after_seconds = retry_after_seconds

    def envelope(self, trace_id: str) -> dict[str, Any]:
        """The failure envelope of docs/contract.md §3, the same for REST bodies and MCP tool results."""
        body: dict[str, Any] = {"error": self.to_error(), "traceId": trace_id}
        if self.recover_data is not None:
            body["recoverData"] = self.recover_data
        return body

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        if self.retry_after_seconds is not None:
            error["retryAfterSeconds"] = self.retry_after_seconds
        return error


class ValidationError(MesqError):
    code = "VALIDATION_ERROR"
    http_status = 400


class Unauthorized(MesqError):
    code = "UNAUTHORIZED"
    http_status = 401


class Forbidden(MesqError):
    code = "FORBIDDEN"
    http_status = 403


class NotFound(MesqError):
    code = "NOT_FOUND"
    http_status = 404


class MethodNotAllowed(MesqError):
    code = "METHOD_NOT_ALLOWED"
    http_status = 405


class RevisionConflict(MesqError):
    code = "REVISION_CONFLICT"
    http_status = 409


class Conflict(MesqError):
    """The request is well-formed, but the current state of a record forbids it: a name or slug
    already taken, a space or column not empty, a record not in the trash (or in it), the
    default space or last open column. Changing that state first makes the same request work."""

    code = "CONFLICT"
    http_status = 409


class IdempotencyConflict(MesqError):
    code = "IDEMPOTENCY_CONFLICT"
    http_status = 409


class PayloadTooLarge(MesqError):
    code = "PAYLOAD_TOO_LARGE"
    http_status = 413


class RequestTimeout(MesqError):
    """The request body did not arrive in time (`mesq serve`'s body deadline)."""

    code = "REQUEST_TIMEOUT"
    http_status = 408


class MisdirectedRequest(MesqError):
    """The `Host` header does not name this instance (DNS rebinding guard)."""

    code = "MISDIRECTED_REQUEST"
    http_status = 421


class RateLimited(MesqError):
    code = "RATE_LIMITED"
    http_status = 429


class ResponseTooLarge(MesqError):
    code = "RESPONSE_TOO_LARGE"
    http_status = 400


class ClientClosed(MesqError):
    """The client went away before the answer was complete (nginx's 499); logged, rarely seen."""

    code = "CLIENT_CLOSED"
    http_status = 499


class ServiceUnavailable(MesqError):
    code = "SERVICE_UNAVAILABLE"
    http_status = 503


class Internal(MesqError):
    code = "INTERNAL"
    http_status = 500

    @classmethod
    def for_trace(cls, trace_id: str) -> Internal:
        """The only thing a client learns of an unexpected fault: where to find it in the logs
        (marked for the catalog: a page and a CalDAV refusal say it in the reader's language)."""
        return cls(N_("internal error; quote traceId %(trace)s when reporting it"), trace=trace_id)
