"""The one way every Lambda function is built: its parent Powertools Logger (the service name every
`Logger(child=True)` in mesq logs under, as POWERTOOLS_SERVICE_NAME in template.yaml says), Tracer
and Metrics around the handler, in the same order for every kind of event:

- `lambda_handler`: an HTTP function (API Gateway v2 -> Mangum -> the ASGI app); an answer past
  the 6 MB a synchronous invocation may return becomes a 400 `RESPONSE_TOO_LARGE` (`payload_bytes`);
- `scheduled_handler`: an EventBridge-scheduled job;
- `event_handler`: a function fed by a schedule and a queue (reading sync);
- `stream_handler`: a DynamoDB Streams consumer that reports partial batch failures.

Correlation id: an HTTP function's log lines carry the request's `traceId` (set by the trace
middleware, see asgi/trace.py; the same id the response carries); lines before the app runs carry
the API Gateway request id. A scheduled job's carry the EventBridge event id; a queue-fed
function's the SQS message id (batches of one) or, on its schedule, the event id; a stream
consumer's the first record's event id."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit
from mangum import Mangum
from mangum.types import ASGI

from ..kernel.concurrency import finish_within, invocation_clock, one_request_at_a_time
from ..kernel.errors import ResponseTooLarge

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]
#: What an instrumented function body receives: the event, the Lambda context, the metrics to add to.
Body = Callable[[dict[str, Any], Any, Metrics], dict[str, Any]]

NAMESPACE = "MeSQ"
#: JMESPath to the correlation id of a function fed by SQS (batch size 1) and EventBridge.
QUEUE_OR_SCHEDULE = "Records[0].messageId || id"
#: What an invocation keeps of its timeout after long work (an import's writes) stops: for the
#: step under way (a transaction of 25 tasks, a memo's attachments copied), its report and the
#: answer. Past the timeout Lambda ends the process, and the person gets API Gateway's 503.
_ANSWER_MARGIN_SECONDS = 4.0
#: ... and of a DynamoDB Streams consumer: the batch's first record.
STREAM_BATCH = "Records[0].eventID"
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


def instrumented(body: Body, service: str, correlation_id_path: str | None = None) -> LambdaHandler:
    """`body` with the Logger (Lambda context, correlation id), the Tracer (only when it records)
    and Metrics (flushed as EMF at the end of the invocation) every MeSQ function has."""
    logger = Logger(service=service)
    copy_config_to_registered_loggers(source_logger=logger, include=set(LIBRARY_LOGGERS))
    metrics = Metrics(namespace=NAMESPACE, service=service)

    @metrics.log_metrics
    def measured(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return body(event, context, metrics)

    inject = logger.inject_lambda_context(correlation_id_path=correlation_id_path, clear_state=True)
    handler: LambdaHandler = inject(_traced(measured, service))
    return handler


#: What a synchronous invocation may return: the serialized response object, 6 MB. Past it there
#: is no answer at all (the invocation fails and API Gateway or the function URL says 500). The
#: python3.12 runtime (template.yaml) writes it with `ensure_ascii=False`: 中 is 3 bytes, not \u4e2d.
RESPONSE_PAYLOAD_BYTES = 6 * 1024 * 1024
#: The runtime's own framing of the payload, kept free.
_PAYLOAD_MARGIN = 16 * 1024
#: A body shorter than this cannot reach the cap, even with every character written \uXXXX.
_SURELY_FITS_CHARS = (RESPONSE_PAYLOAD_BYTES - _PAYLOAD_MARGIN) // 6 - 4096


def payload_bytes(response: dict[str, Any]) -> int | None:
    """The response's size as the runtime sends it, when it may be near the cap; None: it fits."""
    body = response.get("body")
    if not isinstance(body, str) or len(body) < _SURELY_FITS_CHARS:
        return None
    return len(json.dumps(response, ensure_ascii=False).encode())


def _too_large(response: dict[str, Any], size: int, event: dict[str, Any], logger: Logger) -> dict[str, Any]:
    """A clear 400 in place of an answer Lambda cannot send. Each read pages itself under the cap
    (memo lists, list_changes; CalDAV answers are cut with a 507 at dav/budget.py's budget); this
    is what is left for any other that grows past it: the client is told to ask for less, the log
    says what was cut."""
    headers = response.get("headers") or {}
    trace_id = str(headers.get("x-trace-id", ""))
    logger.warning(
        "answer over the Lambda response cap", extra={"bytes": size, "path": event.get("rawPath"), "traceId": trace_id}
    )
    error = ResponseTooLarge(
        "the answer is %(size)s MB, over the 6 MB a serverless function can return: ask for fewer records "
        "(a smaller limit, a narrower filter or time range)",
        size=f"{size / 1024 / 1024:.1f}",
    )
    return {
        "statusCode": error.http_status,
        "headers": {"content-type": "application/json", "cache-control": "private, no-store", "x-trace-id": trace_id},
        "body": json.dumps(error.envelope(trace_id)),
        "isBase64Encoded": False,
    }


def lambda_handler(app: ASGI, service: str) -> LambdaHandler:
    # lifespan="off": Mangum would enter the ASGI lifespan on every invocation otherwise.
    adapter = Mangum(app, lifespan="off")
    logger = Logger(child=True)

    def serve(event: dict[str, Any], context: Any, metrics: Metrics) -> dict[str, Any]:
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        clock = invocation_clock(context)
        work_seconds = float(clock()) / 1000 - _ANSWER_MARGIN_SECONDS if clock is not None else None
        # one invocation per execution environment: no worker hop; long work stops in time to answer
        with one_request_at_a_time(), finish_within(work_seconds):
            response: dict[str, Any] = adapter(event, context)
        size = payload_bytes(response)
        if size is not None and size > RESPONSE_PAYLOAD_BYTES - _PAYLOAD_MARGIN:
            return _too_large(response, size, event, logger)
        return response

    return instrumented(serve, service, correlation_paths.API_GATEWAY_HTTP)


def scheduled_handler(job: Callable[[Metrics], dict[str, Any]], service: str) -> LambdaHandler:
    """A handler for an EventBridge-scheduled job: `job(metrics)` returns the handler's result.
    A failure is logged (JSON, with the event id) and re-raised, so the invocation fails and the
    scheduler's retry policy applies."""
    logger = Logger(child=True)

    def run(event: dict[str, Any], context: Any, metrics: Metrics) -> dict[str, Any]:
        try:
            return job(metrics)
        except Exception:
            logger.exception("scheduled job failed")
            raise

    return instrumented(run, service, correlation_paths.EVENT_BRIDGE)


def event_handler(handle: Callable[[dict[str, Any], Metrics], dict[str, Any]], service: str) -> LambdaHandler:
    """A handler for a function fed by several event sources (a schedule and a queue). A failure
    is logged (JSON, with the message or event id) and re-raised, so the queue redelivers it."""
    logger = Logger(child=True)

    def run(event: dict[str, Any], context: Any, metrics: Metrics) -> dict[str, Any]:
        try:
            return handle(event, metrics)
        except Exception:
            logger.exception("event handler failed")
            raise

    return instrumented(run, service, QUEUE_OR_SCHEDULE)


def stream_handler(
    handle_batch: Callable[[list[dict[str, Any]], Callable[[], float]], dict[str, Any]], service: str
) -> LambdaHandler:
    """A DynamoDB Streams (or SQS) consumer: `handle_batch(records, seconds_left)` answers the
    partial-batch response `{"batchItemFailures": [{"itemIdentifier": <sequence number>}, ...]}`
    (the event source mapping has ReportBatchItemFailures), so the stream retries from the first
    failed record, bisecting, until the retry limit parks it in the DLQ. An exception fails the
    whole batch the same way. `seconds_left()`: what remains of the invocation's timeout."""
    logger = Logger(child=True)

    def consume(event: dict[str, Any], context: Any, metrics: Metrics) -> dict[str, Any]:
        records = list(event.get("Records", []))
        clock = invocation_clock(context)

        def seconds_left() -> float:
            return float(clock()) / 1000 if clock is not None else 60.0

        try:
            result = handle_batch(records, seconds_left)
        except Exception:
            logger.exception("stream batch failed")
            raise
        failed = len(result["batchItemFailures"])
        metrics.add_metric(name="StreamRecords", unit=MetricUnit.Count, value=len(records))
        metrics.add_metric(name="StreamRecordFailures", unit=MetricUnit.Count, value=failed)
        if failed:
            logger.warning("stream records failed", extra={"records": len(records), "failed": failed})
        else:
            logger.info("stream batch consumed", extra={"records": len(records)})
        return result

    return instrumented(consume, service, STREAM_BATCH)
