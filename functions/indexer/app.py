"""Indexer function: the table's stream -> the changed users' search indexes.

Wiring only until the search index lands: the search work replaces `index` with
`mesq.search.stream.handle_records(services, records)` (same signature, same answer). Until then
each memo change is logged, so the event source mapping, its partial-batch answer, bisecting
retries and DLQ (template.yaml IndexerFunction) are exercised end to end. Items that are not memos
(todos, tokens, rate-limit counters...) are skipped.
"""

from typing import Any

from aws_lambda_powertools import Logger

from mesq.lambda_entry import stream_handler
from mesq.memos.store import MEMO_PREFIX

logger = Logger(child=True)


def index(records: list[dict[str, Any]]) -> dict[str, Any]:
    for record in records:
        keys = record.get("dynamodb", {}).get("Keys", {})
        pk, sk = keys.get("pk", {}).get("S", ""), keys.get("sk", {}).get("S", "")
        if sk.startswith(MEMO_PREFIX):
            logger.info("memo changed", extra={"pk": pk, "sk": sk, "change": record.get("eventName")})
    return {"batchItemFailures": []}


handler = stream_handler(index, service="mesq-indexer")
