"""Indexer function: the table's stream (NEW_AND_OLD_IMAGES) -> the user's search index.

Wiring only, until the search index lands (it replaces `index_record`): each memo change is
logged and counted per kind of change, so the event source mapping, its partial-batch failures,
bisecting retries and DLQ (template.yaml IndexerFunction) are exercised end to end. Items that
are not memos (todos, tokens, rate-limit counters...) are skipped.
"""

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from mesq.lambda_entry import stream_handler
from mesq.memos.store import MEMO_PREFIX

logger = Logger(child=True)


def index_record(record: DynamoDBRecord) -> None:
    change = record.dynamodb
    keys = change.keys if change is not None else None
    if not keys or not str(keys.get("sk", "")).startswith(MEMO_PREFIX):
        return
    event_name = record.event_name.name if record.event_name is not None else "UNKNOWN"
    logger.info("memo changed", extra={"pk": keys["pk"], "sk": keys["sk"], "change": event_name})


handler = stream_handler(index_record, service="mesq-indexer")
