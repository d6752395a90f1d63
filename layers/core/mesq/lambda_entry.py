"""The one way every Lambda function is built: Mangum around an ASGI app, wrapped in the
Powertools Logger / Tracer / Metrics decorators (structured logs with the API Gateway request
id as correlation id, X-Ray when enabled, EMF metrics)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from mangum import Mangum
from mangum.types import ASGI

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def lambda_handler(app: ASGI, service: str) -> LambdaHandler:
    logger = Logger(service=service)
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
