"""Tenant isolation over EVERY reading operation of the spec: bob, with his own valid token and
reading:read, never sees alice's books or notes (her book id is NOT_FOUND, searches and lists
show only his own); and the sync worker's fan-out lists exactly the users with a credential
(one Query of the index partition) and syncs each from its SQS message."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from mesq.jobs.reading_sync import fan_out
from mesq.kernel.spec import load_spec
from mesq.reading.credentials import remove_credential, save_credential, users_to_sync
from mesq.reading.importer import import_snapshots, parse_document
from mesq.wiring.services import build_sealer

from .export_files import export

READING_OPERATIONS = sorted(n for n, op in load_spec().operations.items() if op.mcp.toolset == "reading")
SECRET_TEXT = "content 1 内容"


def _request(operation_id: str, book_id: str) -> tuple[str, dict[str, str]]:
    return {
        "list_reading_books": ("/api/toolkit/reading/books", {}),
        "list_reading_notes": (f"/api/toolkit/reading/books/{book_id}/notes", {}),
        "search_reading_notes": ("/api/toolkit/reading/notes/search", {"query": "content"}),
    }[operation_id]


def test_isolation_covers_every_reading_operation():
    assert READING_OPERATIONS == ["list_reading_books", "list_reading_notes", "search_reading_notes"]


@pytest.mark.parametrize("operation_id", READING_OPERATIONS)
def test_tenant_isolation(services, make_account, client, operation_id):
    alice, bob = make_account(scopes="reading:read"), make_account(scopes="reading:read")
    import_snapshots(
        services.items, alice.user_id, parse_document(export(books=2, notes=10)), "2026-01-01T00:00:00.000000Z"
    )
    alice_book = client.get("/api/toolkit/reading/books", headers=alice.headers).json()["data"]["books"][0]
    url, params = _request(operation_id, alice_book["id"])
    answer = client.get(url, headers=bob.headers, params=params)
    assert SECRET_TEXT.encode() not in answer.content and b"Book 0" not in answer.content
    if operation_id == "list_reading_notes":
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"
    else:
        assert answer.status_code == 200 and answer.json()["data"]["page"]["totalCount"] == 0
    mine = client.get(url, headers=alice.headers, params=params)
    assert mine.status_code == 200 and mine.json()["data"]["page"]["totalCount"] > 0


def test_fan_out_lists_only_users_with_a_credential(services, make_account):
    alice, bob, carol = (make_account(scopes="reading:read") for _ in range(3))
    sealer = build_sealer(services.settings)
    for account in (alice, bob):
        save_credential(
            services.items, sealer, account.user_id, "api_key", "wrk-key-of-someone-1", "2026-01-01T00:00:00Z"
        )
    remove_credential(services.items, bob.user_id)
    assert users_to_sync(services.items) == [alice.user_id]
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        queue = sqs.create_queue(QueueName="reading-sync")["QueueUrl"]
        settings = services.settings.with_overrides(reading_sync_queue_url=queue)
        assert fan_out(type(services)(settings, services.items, services.blobs)) == 1
        messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
        assert [json.loads(m["Body"]) for m in messages] == [{"userId": alice.user_id}]
    assert carol.user_id not in users_to_sync(services.items)
