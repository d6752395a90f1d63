"""Reading sync function (docs/contract.md §13). Two kinds of events:

- the EventBridge schedule: one Query of the sync index partition (users with a credential;
  never a scan) and one SQS message per user (SendMessageBatch);
- SQS messages `{"userId": ...}` (batch size 1; also what "sync now" sends): sync that user.

A provider failure is recorded in the user's sync status, not raised: the message is consumed.
"""

import json
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from mesq.jobs.reading_sync import fan_out, run_user_sync
from mesq.runtime.lambda_entry import event_handler
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services

logger = Logger(child=True)
services = build_services(Settings.from_env())


def sync(event: dict[str, Any], metrics: Metrics) -> dict[str, Any]:
    records = event.get("Records")
    if not records:
        queued = fan_out(services)
        metrics.add_metric(name="ReadingSyncsQueued", unit=MetricUnit.Count, value=queued)
        logger.info("queued reading syncs", extra={"queued": queued})
        return {"queued": queued}
    failed = 0
    for record in records:
        user_id = json.loads(record["body"])["userId"]
        status = run_user_sync(services, user_id)
        failed += "lastError" in status
    metrics.add_metric(name="ReadingSyncErrors", unit=MetricUnit.Count, value=failed)
    return {"synced": len(records), "failed": failed}


handler = event_handler(sync, service="mesq-reading-sync")
