"""Scheduler function (EventBridge Scheduler, every 15 minutes): removes expired attachment
upload sessions and their staged objects. Same Powertools logging/metrics as the HTTP functions;
no ASGI app, so it is a plain event handler."""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from mesq.attachments.uploads import sweep_expired_sessions
from mesq.config import Settings
from mesq.lambda_entry import scheduled_handler
from mesq.services import build_services

logger = Logger(child=True)
services = build_services(Settings.from_env())


def sweep(metrics: Metrics) -> dict[str, Any]:
    swept = sweep_expired_sessions(services.items, services.blobs)
    metrics.add_metric(name="UploadSessionsSwept", unit=MetricUnit.Count, value=swept)
    logger.info("swept expired upload sessions", extra={"swept": swept})
    return {"sweptUploadSessions": swept}


handler = scheduled_handler(sweep, service="mesq-scheduler")
