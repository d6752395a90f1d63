"""Search indexer function (docs/contract.md §9): DynamoDB Streams on the table -> the changed
users' search indexes in S3 (mesq/search/stream.py). Partial batch failures are reported so
bisect-on-error and the DLQ isolate a record that keeps failing."""

from typing import Any

from aws_lambda_powertools import Logger

from mesq.config import Settings
from mesq.search.stream import handle_records
from mesq.services import build_services

logger = Logger(service="mesq-search-indexer")
services = build_services(Settings.from_env())


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    answer = handle_records(services, event.get("Records", []))
    logger.info("indexed", extra={"records": len(event.get("Records", [])), "failed": len(answer["batchItemFailures"])})
    return answer
