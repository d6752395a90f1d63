"""The reading-sync queue on SQS (an adapter): `{"userId": ...}` messages in batches of ten. The
client is made on first send, so a function that never queues a sync never pays for it."""

from __future__ import annotations

import json
import threading
from typing import Any


class SqsReadingSyncQueue:
    def __init__(self, queue_url: str, region: str, client: Any = None) -> None:
        self.queue_url = queue_url
        self.region = region
        self._client = client
        self._lock = threading.Lock()

    def _sqs(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3

                self._client = boto3.client("sqs", region_name=self.region)
            return self._client

    def send(self, user_ids: list[str]) -> int:
        client = self._sqs()
        for start in range(0, len(user_ids), 10):  # SendMessageBatch takes 10 entries
            entries = [
                {"Id": str(number), "MessageBody": json.dumps({"userId": user_id})}
                for number, user_id in enumerate(user_ids[start : start + 10])
            ]
            client.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
        return len(user_ids)
