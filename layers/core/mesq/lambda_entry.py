"""The one way every Lambda function is built: its parent Powertools Logger (the service name every
`Logger(child=True)` in mesq logs under, as POWERTOOLS_SERVICE_NAME in template.yaml says), Tracer
and Metrics around the handler; for the HTTP functions, Mangum around the ASGI app.

Correlation id: an HTTP function's log lines carry the request's `traceId` (set by the trace
middleware, see asgi/trace.py); lines before the app runs carry the API Gateway request id. The
scheduler's carry the EventBridge event id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit
from mangum import Mangum
from mangum.types import ASGI

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]

#: Libraries whose own log lines (Mangum's "Exception in ASGI application" after a fault, the MCP
#: SDK's warnings) should be JSON with the same keys instead of plain text.
LIBRARY_LOGGERS = frozenset({"mangum", "mcp"})


def lambda_handler(app: ASGI, service: str) -> LambdaHandler:
    logger = Logger(service=service)
    copy_config_to_registered_loggers(source_logger=logger, include=set(LIBRARY_LOGGERS))
    tracer = Tracer(service=service)
    metrics = Metrics(namespace="MeSQ", service=service)
    # lifespan="off": Mangum would enter the ASGI lifespan on every invocation otherwise.
    adapter = Mangum(app, lifespan="off")

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        response: dict[str, Any] = adapter(event, context)
        return response

    return handler  # type: ignore[no-any-return]  # Powertools' decorators are untyped


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
