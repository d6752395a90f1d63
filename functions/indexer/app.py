"""Search indexer function (docs/contract.md §9): DynamoDB Streams on the table -> the changed
users' search indexes in S3, and the index build queue (SQS) -> AI index builds run in steps for
the rest of each invocation (mesq/search/stream.py, search/build.py). Partial batch failures are
reported so bisect-on-error and the DLQs (template.yaml IndexerFunction) isolate a record that
keeps failing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mesq.runtime.lambda_entry import stream_handler
from mesq.search.stream import handle_records
from mesq.wiring.config import Settings
from mesq.wiring.services import build_services

services = build_services(Settings.from_env())


def index(records: list[dict[str, Any]], seconds_left: Callable[[], float]) -> dict[str, Any]:
    return handle_records(services, records, seconds_left)


handler = stream_handler(index, service="mesq-indexer")
