"""The event-driven functions, invoked through their Lambda handlers with generated events
against moto: the scheduler (EventBridge), reading sync (EventBridge + SQS) and the indexer
(DynamoDB Streams). The HTTP functions have their own files (test_*_lambda.py)."""

from __future__ import annotations

import json
import time

import boto3
import pytest

from mesq.adapters.sealing.kms import KmsEnvelopeSealer
from mesq.attachments.paths import staging_path
from mesq.attachments.store import put_session, read_session, session_item
from mesq.reading.credentials import save_credential
from mesq.wiring.services import build_services
from tests.infra.apigw import REPO, LambdaContext, load_function
from tests.infra.events import scheduled_event, sqs_event, stream_record

#: Which test drives each event-driven function; every function directory must be listed here or
#: in an HTTP function test (test_every_function_is_exercised).
EXERCISED = {
    "api": "test_api_lambda.py",
    "mcp": "test_mcp_lambda.py",
    "oauth": "test_oauth_lambda.py",
    "dav": "test_dav_lambda.py",
    "scheduler": "test_scheduler_sweeps_expired_sessions_on_its_schedule",
    "reading_sync": "test_reading_sync_fans_out_then_syncs_each_user",
    "indexer": "test_indexer_consumes_a_stream_batch",
}


def test_every_function_is_exercised():
    found = {d.name for d in (REPO / "functions").iterdir() if (d / "app.py").is_file()}
    assert found == set(EXERCISED)


def test_scheduler_sweeps_expired_sessions_on_its_schedule(aws):
    services = build_services(aws)
    s3 = boto3.client("s3", region_name="us-east-1")
    a_minute_ago = time.time() - 60
    expires_at = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(a_minute_ago))
    expired = {"uploadId": "u1", "expiresAt": expires_at, "path": staging_path("alice", "u1")}
    put_session(services.items, session_item("alice", expired, int(a_minute_ago)))
    s3.put_object(Bucket=aws.bucket, Key=staging_path("alice", "u1"), Body=b"half an upload")
    module = load_function("scheduler")
    result = module.handler(scheduled_event("mesq-sweep-upload-sessions"), LambdaContext())
    assert result["sweptUploadSessions"] == 1
    assert read_session(services.items, "alice", "u1") is None
    assert s3.list_objects_v2(Bucket=aws.bucket).get("KeyCount") == 0


@pytest.fixture
def reading_aws(aws, monkeypatch):
    sqs = boto3.client("sqs", region_name="us-east-1")
    queue_url = sqs.create_queue(QueueName="mesq-reading-sync")["QueueUrl"]
    key_id = boto3.client("kms", region_name="us-east-1").create_key()["KeyMetadata"]["KeyId"]
    monkeypatch.setenv("MESQ_READING_SYNC_QUEUE_URL", queue_url)
    monkeypatch.setenv("MESQ_KMS_KEY_ID", key_id)
    # The upstream is a closed loopback port: every sync fails fast, and must be recorded, not raised.
    monkeypatch.setenv("MESQ_WECHAT_READING_GATEWAY_URL", "http://127.0.0.1:9/gateway")
    monkeypatch.setenv("MESQ_WECHAT_READING_WEB_URL", "http://127.0.0.1:9")
    return sqs, queue_url, key_id


def test_reading_sync_fans_out_then_syncs_each_user(aws, reading_aws):
    sqs, queue_url, key_id = reading_aws
    services = build_services(aws)
    sealer = KmsEnvelopeSealer(key_id, "us-east-1")
    for user in ("alice", "bob"):
        save_credential(services.items, sealer, user, "api_key", f"wrk-{user}0123456789", "2024-01-01T00:00:00.000Z")
    module = load_function("reading_sync")
    assert module.handler(scheduled_event("mesq-reading-sync"), LambdaContext()) == {"queued": 2}
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    bodies = sorted(json.loads(m["Body"])["userId"] for m in messages)
    assert bodies == ["alice", "bob"]
    result = module.handler(sqs_event("mesq-reading-sync", [{"userId": "alice"}]), LambdaContext())
    assert result == {"synced": 1, "failed": 1}


def test_indexer_consumes_a_stream_batch(aws, monkeypatch, capsys):
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "mesq-indexer")  # as template.yaml sets it
    memo = {"pk": "U#alice", "sk": "MEMO#m1", "content": "hello", "revision": 1}
    token = {"pk": "U#alice", "sk": "TOKEN#t1", "name": "laptop"}
    event = {
        "Records": [
            stream_record("INSERT", memo, None),
            stream_record("MODIFY", {**memo, "revision": 2}, memo),
            stream_record("REMOVE", None, {**memo, "revision": 2}),
            stream_record("INSERT", token, None),
        ]
    }
    module = load_function("indexer")
    capsys.readouterr()
    # The real indexer (mesq/search/stream.py) re-reads each changed key: the memo is gone from
    # the table by now, so alice's index simply holds nothing; the token item is not searchable.
    assert module.handler(event, LambdaContext()) == {"batchItemFailures": []}
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    logged = [line for line in lines if "level" in line]
    assert logged, lines  # the batch's INFO line: the check below must not hold over nothing
    assert all(line.get("service") == "mesq-indexer" for line in logged), logged
    emf = [line for line in lines if "_aws" in line]
    assert [(m["StreamRecords"], m["StreamRecordFailures"]) for m in emf] == [([4.0], [0.0])]


def test_a_failing_batch_is_reported_for_retry(aws):
    module = load_function("indexer")
    good = stream_record("INSERT", {"pk": "U#alice", "sk": "MEMO#m1"}, None)
    bad = stream_record("INSERT", {"pk": "U#bob", "sk": "MEMO#m2"}, None)

    def index(records, _seconds_left):
        failed = [r for r in records if r["dynamodb"]["Keys"]["pk"]["S"] == "U#bob"]
        return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in failed]}

    # The wrapper the module's handler uses, around a batch function that fails bob's record.
    handler = module.stream_handler(index, service="mesq-indexer")
    result = handler({"Records": [good, bad]}, LambdaContext())
    assert result == {"batchItemFailures": [{"itemIdentifier": bad["dynamodb"]["SequenceNumber"]}]}
