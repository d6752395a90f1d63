"""The one way every Lambda function is built: its parent Powertools Logger (the service name every
`Logger(child=True)` in mesq logs under, as POWERTOOLS_SERVICE_NAME in template.yaml says), Tracer
and Metrics around the handler; for the HTTP functions, Mangum around the ASGI app.

Correlation id: an HTTP function's log lines carry the request's `traceId` (set by the trace
middleware, see asgi/trace.py); lines before the app runs carry the API Gateway request id. The
scheduler's carry the EventBridge event id."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit
from mangum import Mangum
from mangum.types import ASGI

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]

#: Libraries whose own log lines (Mangum's "Exception in ASGI application" after a fault, the MCP
#: SDK's warnings) should be JSON with the same keys instead of plain text.
LIBRARY_LOGGERS = frozenset({"mangum", "mcp"})


def tracing_enabled() -> bool:
    """Powertools' own rule for a Tracer that records: in Lambda (not SAM local) and not switched
    off with POWERTOOLS_TRACE_DISABLED. When it would not record, the X-Ray SDK it wraps (about a
    fifth of a cold start) is never imported."""
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in {"1", "true", "yes", "on"}
    in_lambda = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME")) and not os.environ.get("AWS_SAM_LOCAL")
    return in_lambda and not disabled


def _traced(handler: LambdaHandler, service: str) -> LambdaHandler:
    if not tracing_enabled():
        return handler
    from aws_lambda_powertools import Tracer

    traced: LambdaHandler = Tracer(service=service).capture_lambda_handler(handler, capture_response=False)
    return traced


def lambda_handler(app: ASGI, service: str) -> LambdaHandler:
    logger = Logger(service=service)
    copy_config_to_registered_loggers(source_logger=logger, include=set(LIBRARY_LOGGERS))
    metrics = Metrics(namespace="MeSQ", service=service)
    # lifespan="off": Mangum would enter the ASGI lifespan on every invocation otherwise.
    adapter = Mangum(app, lifespan="off")

    @metrics.log_metrics
    def measured(event: dict[str, Any], context: Any) -> dict[str, Any]:
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        response: dict[str, Any] = adapter(event, context)
        return response

    inject = logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
    handler: LambdaHandler = inject(_traced(measured, service))
    return handler


def scheduled_handler(job: Callable[[Metrics], dict[str, Any]], service: str) -> LambdaHandler:
    """A handler for an EventBridge-scheduled job: `job(metrics)` returns the handler's result.
    A failure is logged (JSON, with the event id) and re-raised, so the invocation fails and the
    scheduler's retry policy applies."""
    logger = Logger(service=service)
    metrics = Metrics(namespace="MeSQ", service=service)

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.EVENT_BRIDGE, clear_state=True)
    @metrics.log_metrics
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            return job(metrics)
        except Exception:
            logger.exception("scheduled job failed")
            raise

    return handler
