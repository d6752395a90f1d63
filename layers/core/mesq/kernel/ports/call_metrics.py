"""One metric per operation call (an MCP tool call or a REST call): which operation, how it
ended, how long it took. `invocation.invoke` records every call through `Services.call_metrics`.

Cardinality is bounded by construction: the operation is the spec's operationId (the MCP tool
name comes from the same catalog), never a string a client sent, and the outcome is one of
`OUTCOMES`. On Lambda the sink writes CloudWatch EMF (mesq/adapters/call_metrics_emf.py); elsewhere
nothing is recorded (there is no CloudWatch to read it)."""

from __future__ import annotations

from typing import Literal, Protocol

from ..errors import MesqError, RateLimited

Outcome = Literal["ok", "client_error", "rate_limited", "server_error"]
OUTCOMES: tuple[Outcome, ...] = ("ok", "client_error", "rate_limited", "server_error")


def outcome_of(error: BaseException | None) -> Outcome:
    """`ok`; `rate_limited` (429); `client_error` (any other 4xx: validation, scope, not found,
    conflict); `server_error` (a 5xx MeSQ error or any unexpected exception)."""
    if error is None:
        return "ok"
    if isinstance(error, RateLimited):
        return "rate_limited"
    if isinstance(error, MesqError) and error.http_status < 500:
        return "client_error"
    return "server_error"


class CallMetrics(Protocol):
    def record(self, operation_id: str, outcome: Outcome, milliseconds: float) -> None: ...


class NoCallMetrics:
    def record(self, operation_id: str, outcome: Outcome, milliseconds: float) -> None:
        return None
