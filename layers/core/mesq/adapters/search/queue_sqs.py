"""The AI index build queue on SQS (an adapter): `{"build": <user id>}` messages, consumed by
functions/indexer (search/stream.py `handle_build_requests`), which runs the build's steps for
the rest of its invocation and queues the rest. A search that finds an index missing sends one;
so do the indexer itself (to continue a build) and the stream path (a user's first write).

One message per user per `RESEND_SECONDS` from a process: searches of a user whose build runs
would otherwise send one each. The client is made on first send."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from aws_lambda_powertools import Logger

log = Logger(child=True)  # inherits the function's service (lambda_entry)
RESEND_SECONDS = 30.0


class SqsIndexBuildQueue:
    def __init__(self, queue_url: str, region: str, client: Any = None) -> None:
        self.queue_url = queue_url
        self.region = region
        self._client = client
        self._lock = threading.Lock()
        self._sent: dict[str, float] = {}

    def _sqs(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3

                self._client = boto3.client("sqs", region_name=self.region)
            return self._client

    def request(self, user_id: str, *, again: bool = False) -> None:
        """Queue a build run for `user_id` (`again`: a continuation, never held back). A failure
        is logged: the next search or write asks again."""
        now = time.monotonic()
        with self._lock:
            if not again and now - self._sent.get(user_id, -RESEND_SECONDS) < RESEND_SECONDS:
                return
            self._sent[user_id] = now
        try:
            self._sqs().send_message(QueueUrl=self.queue_url, MessageBody=json.dumps({"build": user_id}))
        except Exception:
            log.exception("search: could not queue an index build")
