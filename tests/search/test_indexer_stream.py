"""The indexer function on DynamoDB Streams events against moto's table and bucket: the stream records after
200 mixed writes (creates, edits, trash moves, restores, todo tasks) go through
functions/indexer's handler, and then the index and the store agree exactly."""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mesq.adapters.store.blobs_s3 import S3BlobStore
from mesq.adapters.store.dynamodb import DynamoDBItemStore, _default_config
from mesq.application.registries import SEARCHABLES
from mesq.search.follow import FollowingStore
from mesq.search.indexer import repository
from mesq.store.paging import walk
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from .conftest import run

REPO = Path(__file__).resolve().parents[2]
TABLE, BUCKET, USER = "mesq-search-test", "mesq-search-test", "alice0000001"


@dataclass
class _Context:
    function_name: str = "mesq-search-indexer"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:mesq-search-indexer"
    aws_request_id: str = "req-1"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    env = {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
        "MESQ_STORAGE": "dynamodb", "MESQ_TABLE": TABLE, "MESQ_BUCKET": BUCKET,
        "MESQ_SEARCH_PROVIDER": "none", "MESQ_SEARCH_INDEX_UPDATES": "stream",
    }  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1", config=_default_config())
        items = DynamoDBItemStore(TABLE, client=client)
        items.create_table_if_missing()
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket=BUCKET)
        settings = inprocess_settings(search_provider="none", search_index_updates="stream")
        yield Services(settings=settings, items=_StreamRecorder(items), blobs=S3BlobStore(BUCKET, region="us-east-1"))
        items.close()


class _StreamRecorder(FollowingStore):
    """The table's change stream as Lambda delivers it (moto does not serve DynamoDB Streams'
    DescribeStream): one record per written key, in commit order, with a sequence number."""

    def __init__(self, inner: DynamoDBItemStore) -> None:
        super().__init__(inner)
        self.records: list[dict[str, Any]] = []

    def _changed(self, keys: Any) -> None:
        for pk, sk in keys:
            self.records.append({
                "eventName": "MODIFY", "eventSource": "aws:dynamodb",
                "dynamodb": {"Keys": {"pk": {"S": pk}, "sk": {"S": sk}},
                             "SequenceNumber": f"{len(self.records) + 1:021d}", "StreamViewType": "KEYS_ONLY"},
            })  # fmt: skip


def _stream_records(services: Services) -> list[dict[str, Any]]:
    assert isinstance(services.items, _StreamRecorder)
    return services.items.records


def _handler() -> Any:
    spec = importlib.util.spec_from_file_location("mesq_indexer_app", REPO / "functions/indexer/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mesq_indexer_app"] = module
    spec.loader.exec_module(module)
    return module


def _mixed_writes(services: Services, count: int) -> None:
    rng = random.Random(16)
    live: dict[str, int] = {}
    trashed: dict[str, int] = {}
    writes = 0
    while writes < count:
        choice = rng.random()
        if choice < 0.35 or not live:
            memo = run(services, "create_memo", {"content": f"memo {writes} 关于 topic{rng.randint(0, 9)}"}, user=USER)[
                "memo"
            ]
            live[memo["id"]] = memo["revision"]
        elif choice < 0.6:
            memo_id = rng.choice(sorted(live))
            edit = {"id": memo_id, "expectedRevision": live[memo_id], "content": f"edited {writes}"}
            memo = run(services, "update_memo", edit, user=USER)["memo"]
            live[memo_id] = memo["revision"]
        elif choice < 0.8:
            memo_id = rng.choice(sorted(live))
            memo = run(services, "delete_memo", {"id": memo_id, "expectedRevision": live.pop(memo_id)}, user=USER)[
                "memo"
            ]
            trashed[memo_id] = memo["revision"]
        elif choice < 0.9 and trashed:
            memo_id = rng.choice(sorted(trashed))
            memo = run(services, "restore_memo", {"id": memo_id, "expectedRevision": trashed.pop(memo_id)}, user=USER)[
                "memo"
            ]
            live[memo_id] = memo["revision"]
        else:
            run(services, "create_todo_task", {"title": f"task {writes}", "notes": "call the plumber"}, user=USER)
        writes += 1


def _store_docs(services: Services) -> set[tuple[str, str, str]]:
    docs = (SEARCHABLES.doc_of(item) for item in walk(services.items, f"U#{USER}"))
    return {(doc.kind, doc.id, doc.text) for doc in docs if doc is not None}


def test_index_and_store_agree_after_200_writes_through_the_stream(aws: Services) -> None:
    _mixed_writes(aws, 200)
    records = _stream_records(aws)
    assert len(records) >= 200
    module = _handler()
    for start in range(0, len(records), 100):  # Lambda's batch size
        assert module.handler({"Records": records[start : start + 100]}, _Context()) == {"batchItemFailures": []}
    loaded = repository(module.services).load(USER)
    assert loaded is not None
    indexed = {(e.doc.kind, e.doc.id, e.doc.text) for e in loaded[0].entries()}
    assert indexed == _store_docs(aws)
    assert any(kind == "todo_task" for kind, _, _ in indexed)
    # replaying the whole stream (Lambda retries, duplicates) changes nothing
    module.handler({"Records": records[:100]}, _Context())
    reloaded = repository(module.services).load(USER)
    assert reloaded is not None
    assert {(e.doc.kind, e.doc.id, e.doc.text) for e in reloaded[0].entries()} == indexed


def test_a_failing_user_reports_its_records_only(aws: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    from mesq.search import stream

    run(aws, "create_memo", {"content": "one"}, user=USER)
    run(aws, "create_memo", {"content": "two"}, user="bob000000001")
    records = _stream_records(aws)

    def refresh(services: Services, user_id: str, keys: Any) -> None:
        if user_id == "bob000000001":
            raise RuntimeError("boom")

    monkeypatch.setattr(stream, "refresh", refresh)
    answer = stream.handle_records(aws, records)
    bob = {r["dynamodb"]["SequenceNumber"] for r in records if r["dynamodb"]["Keys"]["pk"]["S"] == "U#bob000000001"
           and r["dynamodb"]["Keys"]["sk"]["S"].startswith("MEMO#")}  # fmt: skip
    assert {f["itemIdentifier"] for f in answer["batchItemFailures"]} == bob and bob


def test_on_aws_a_search_queues_the_build_and_the_indexer_runs_it(aws: Services) -> None:
    """No index, and memos the stream has not delivered: the search answers at once, degraded,
    from the literal index's matches (none yet either: an empty degraded answer), and sends one
    build request to the queue; functions/indexer, given that message, builds the index; the
    next search is complete. Through moto's SQS, table and bucket."""
    import json

    sqs = boto3.client("sqs", region_name="us-east-1")
    queue = sqs.create_queue(QueueName="mesq-index-builds")["QueueUrl"]
    settings = aws.settings.with_overrides(index_build_queue_url=queue)
    services = Services(settings=settings, items=aws.items, blobs=aws.blobs)
    for note in ("the plumber fixes the kitchen faucet", "a walk along the river at dusk"):
        run(services, "create_memo", {"content": note}, user=USER)
    first = run(services, "search_ai_memos", {"query": "kitchen faucet"}, user=USER)
    assert first["degraded"] is True and "being built" in first["reason"]
    messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(message["Body"]) for message in messages] == [{"build": USER}]
    module = _handler()
    event = {"Records": [{"eventSource": "aws:sqs", "messageId": "m1", "body": messages[0]["Body"]}]}
    assert module.handler(event, _Context()) == {"batchItemFailures": []}
    second = run(services, "search_ai_memos", {"query": "kitchen faucet"}, user=USER)
    assert second["degraded"] is True and "reason" not in second  # BM25 alone (no model here), not the index
    assert [item["matchedBy"] for item in second["items"]][:1] == [["bm25"]]


def test_a_failing_build_after_the_refresh_neither_fails_the_batch_nor_skips_other_users(
    aws: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records' refreshes succeeded; a user's AI build then failing (a model throttled) is
    that build's to retry, through the build queue: the stream's batch is not failed (Lambda
    would replay it, the whole batch every time, until the retry limit parks every user's records
    in the DLQ), and the other user's build still runs."""
    from mesq.search import stream

    run(aws, "create_memo", {"content": "one"}, user="bob000000001")
    run(aws, "create_memo", {"content": "two"}, user=USER)
    records = _stream_records(aws)
    ran: list[str] = []
    queued: list[str] = []

    def run_build(services: Services, user_id: str, seconds_left: Any) -> None:
        ran.append(user_id)
        if user_id == "bob000000001":
            raise RuntimeError("model throttled")

    from types import SimpleNamespace

    monkeypatch.setattr(stream, "build", SimpleNamespace(state=lambda services, user_id: {"step": 1}))
    monkeypatch.setattr(stream, "run_build", run_build)
    monkeypatch.setattr(aws.search, "request_build", lambda user_id, again=False: queued.append(user_id))
    assert stream.handle_records(aws, records) == {"batchItemFailures": []}
    assert sorted(ran) == sorted(["bob000000001", USER]) and queued == ["bob000000001"]
