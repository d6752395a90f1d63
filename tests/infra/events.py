"""EventBridge Scheduler, SQS and DynamoDB Streams events, shaped like `sam local generate-event`
(`eventbridge`/`cloudwatch scheduled-event`, `sqs receive-message`, `dynamodb update`)."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from boto3.dynamodb.types import TypeSerializer

REGION = "us-east-1"
ACCOUNT = "123456789012"
_serialize = TypeSerializer().serialize


def scheduled_event(schedule: str) -> dict[str, Any]:
    return {
        "version": "0",
        "id": secrets.token_hex(16),
        "detail-type": "Scheduled Event",
        "source": "aws.scheduler",
        "account": ACCOUNT,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "region": REGION,
        "resources": [f"arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/default/{schedule}"],
        "detail": {},
    }


def sqs_event(queue_name: str, bodies: list[Any]) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": secrets.token_hex(16),
                "receiptHandle": secrets.token_hex(32),
                "body": json.dumps(body),
                "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": str(int(time.time() * 1000))},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue_name}",
                "awsRegion": REGION,
            }
            for body in bodies
        ]
    }


def stream_record(event_name: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> dict[str, Any]:
    image = new or old
    assert image is not None
    change: dict[str, Any] = {
        "ApproximateCreationDateTime": int(time.time()),
        "Keys": {"pk": _serialize(image["pk"]), "sk": _serialize(image["sk"])},
        "SequenceNumber": str(secrets.randbelow(10**20)),
        "SizeBytes": 100,
        "StreamViewType": "KEYS_ONLY",
    }
    if new is not None:
        change["NewImage"] = {k: _serialize(v) for k, v in new.items()}
    if old is not None:
        change["OldImage"] = {k: _serialize(v) for k, v in old.items()}
    return {
        "eventID": secrets.token_hex(16),
        "eventName": event_name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": REGION,
        "dynamodb": change,
        "eventSourceARN": f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/mesq-test/stream/2024-01-01T00:00:00.000",
    }
