"""Scheduler function (EventBridge Scheduler): the schedule's input names the job.
- `sweep-upload-sessions` (every 15 minutes): removes expired attachment upload sessions and
  their staged objects;
- `reminder-tick` (every minute): `run_due_reminder_tick`, delivering due todo reminders once.
Same Powertools logging/metrics as the HTTP functions; no ASGI app, so a plain event handler."""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from mesq.attachments.uploads import sweep_expired_sessions
from mesq.jobs.reminder_tick import run_due_reminder_tick
from mesq.runtime.lambda_entry import scheduled_handler
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services, reminder_reach

logger = Logger(child=True)
settings = Settings.from_env()
services = build_services(settings)


def sweep(metrics: Metrics) -> dict[str, Any]:
    swept = sweep_expired_sessions(services.items, services.blobs)
    metrics.add_metric(name="UploadSessionsSwept", unit=MetricUnit.Count, value=swept)
    logger.info("swept expired upload sessions", extra={"swept": swept})
    return {"sweptUploadSessions": swept}


def reminder_tick(metrics: Metrics) -> dict[str, Any]:
    report = run_due_reminder_tick(services.items, services.sealer, datetime.now(UTC), reach=reminder_reach(settings))
    metrics.add_metric(name="RemindersDelivered", unit=MetricUnit.Count, value=report.delivered)
    metrics.add_metric(name="RemindersFailed", unit=MetricUnit.Count, value=report.failed)
    if report.due:
        logger.info("reminder tick", extra=report.as_dict())
    return {"reminders": report.as_dict()}


_sweep_handler = scheduled_handler(sweep, service="mesq-scheduler")
_tick_handler = scheduled_handler(reminder_tick, service="mesq-scheduler")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Routes by the schedule's input; an event without one is the upload sweep (the older schedule)."""
    if isinstance(event, dict) and event.get("job") == "reminder-tick":
        return _tick_handler(event, context)
    return _sweep_handler(event, context)
