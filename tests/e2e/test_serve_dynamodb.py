"""`mesq serve --storage dynamodb`: the same server on the official DynamoDB Local and S3 over
HTTP (moto in server mode), driven over real HTTP; the CLI manages users and tokens there too."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from moto.server import ThreadedMotoServer

from tests.conftest import REPO, run_cli, start_server, stop_server

sys.path.insert(0, str(REPO / "infra"))
import dynamodb_local as ddb_runner


@pytest.fixture
def aws_endpoints() -> Iterator[dict[str, str]]:
    try:
        ddb = ddb_runner.start_dynamodb_local()
    except ddb_runner.DynamoDBLocalUnavailable as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"DynamoDB Local unavailable: {exc}")
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    s3.start()
    host, port = s3.get_host_and_port()
    env = {
        "MESQ_STORAGE": "dynamodb",
        "MESQ_TABLE": "mesq-e2e",
        "MESQ_BUCKET": "mesq-e2e",
        "MESQ_DYNAMODB_ENDPOINT": ddb.endpoint,
        "MESQ_S3_ENDPOINT": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": ddb_runner.ACCESS_KEY_ID,
        "AWS_SECRET_ACCESS_KEY": ddb_runner.SECRET_ACCESS_KEY,
        "AWS_DEFAULT_REGION": ddb_runner.REGION,
        "AWS_REGION": ddb_runner.REGION,
    }
    boto3.client(
        "s3", endpoint_url=env["MESQ_S3_ENDPOINT"], region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="x",
    ).create_bucket(Bucket="mesq-e2e")  # fmt: skip
    try:
        yield env
    finally:
        s3.stop()
        ddb.stop()


def test_serve_on_dynamodb_local(aws_endpoints, tmp_path: Path):
    env = aws_endpoints
    created = run_cli("user", "create", "ddbuser", "--password-stdin", stdin="correct horse battery\n", env=env)
    assert created.returncode == 0, created.stderr
    token = run_cli("token", "create", "ddbuser", "--name", "e2e", "--scopes", "memo:read,memo:write", env=env)
    assert token.returncode == 0, token.stderr
    headers = {"Authorization": f"Bearer {token.stdout.strip().splitlines()[-1]}"}

    server = start_server(tmp_path / "unused", env)
    try:
        base = f"{server.base_url}/api/toolkit/memo"
        memo = httpx.post(base, headers={**headers, "Idempotency-Key": "a"}, json={"content": "on dynamodb #ddb"})
        assert memo.status_code == 201, memo.text
        memo_id = memo.json()["data"]["memo"]["id"]
        listed = httpx.get(base, headers=headers, params={"includeContext": "true"}).json()["data"]
        assert [m["id"] for m in listed["timelineItems"]] == [memo_id]
        assert listed["filters"]["tags"] == {"ddb": 1}
        updated = httpx.patch(f"{base}/{memo_id}", headers=headers, json={"pinned": True, "expectedRevision": 1})
        assert updated.json()["data"]["memo"]["revision"] == 2
        stale = httpx.patch(f"{base}/{memo_id}", headers=headers, json={"pinned": False, "expectedRevision": 1})
        assert stale.status_code == 409 and stale.json()["recoverData"]["memo"]["pinned"] is True
        found = httpx.get(f"{base}/search", headers=headers, params={"query": "DYNAMODB"}).json()["data"]
        assert [m["id"] for m in found["pinnedItems"]] == [memo_id]
    finally:
        stop_server(server)
    assert not (tmp_path / "unused" / "mesq.db").exists()  # nothing went to SQLite
