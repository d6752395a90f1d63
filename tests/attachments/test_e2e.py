"""End to end against a real `mesq serve`: relay (SQLite + local files) and direct (DynamoDB and S3
both served over HTTP by moto in server mode, with the SigV4 presigned-URL verifier): session ->
upload -> complete -> memo with the resource -> REST GET/HEAD -> `read_memo_resource` and
`resources/read` through the official MCP client (which validates every tool result against its
outputSchema)."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import boto3
import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.contract.blob_fixtures import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, REGION, moto_server  # noqa: F401
from tests.e2e.test_mcp_client import connect

from .conftest import MEMO, READ, SESSION

BODY = "照片 bytes ✓".encode() * 50


@pytest.fixture(params=["relay", "direct"])
def served(request, tmp_path: Path) -> Iterator[tuple[str, LiveServer]]:
    if request.param == "relay":
        server = start_server(tmp_path / "relay")
    else:
        moto = request.getfixturevalue("moto_server")
        name = f"mesq-e2e-{uuid.uuid4().hex[:10]}"
        env = {
            "MESQ_STORAGE": "dynamodb", "MESQ_TABLE": name, "MESQ_BUCKET": name,
            "MESQ_DYNAMODB_ENDPOINT": moto.url, "MESQ_S3_ENDPOINT": moto.url,
            "AWS_ACCESS_KEY_ID": FAKE_ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": FAKE_SECRET_KEY,
            "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION,
        }  # fmt: skip
        boto3.client("s3", endpoint_url=moto.url, region_name=REGION, aws_access_key_id=FAKE_ACCESS_KEY,
                     aws_secret_access_key=FAKE_SECRET_KEY).create_bucket(Bucket=name)  # fmt: skip
        server = start_server(tmp_path / "unused", env)
        server.cli_env = env  # type: ignore[attr-defined]
    yield request.param, server
    stop_server(server)


def _account(server: LiveServer, name: str) -> Any:
    from tests.conftest import run_cli

    env = getattr(server, "cli_env", None)
    if env is None:
        return server.account(name)
    created = run_cli("user", "create", name, "--password-stdin", stdin="correct horse battery\n", env=env)
    assert created.returncode == 0, created.stderr
    made = run_cli("token", "create", name, "--name", "e2e", "--scopes", "memo:read,memo:write", env=env)
    assert made.returncode == 0, made.stderr
    from tests.conftest import Account

    return Account(user_id="", username=name, token=made.stdout.strip().splitlines()[-1])


def test_attachment_round_trip(served):
    transport, server = served
    account = _account(server, f"att{transport}")
    with httpx.Client(base_url=server.base_url, headers=account.headers, timeout=30) as http:
        session = http.post(SESSION, json={"displayName": "照片.jpg", "mimeType": "image/jpeg", "size": len(BODY)})
        assert session.status_code == 201, session.text
        started = session.json()["data"]
        assert started["transport"] == transport
        if transport == "relay":
            upload = http.post(started["uploadEndpoint"], files={"file": ("照片.jpg", BODY, "image/jpeg")})
            assert upload.status_code == 201, upload.text
            resource = upload.json()["data"]
        else:
            wrong = httpx.put(started["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"})
            assert wrong.status_code == 403  # the signature covers the type
            put = httpx.put(started["uploadUrl"], content=BODY, headers={"Content-Type": started["contentType"]})
            assert put.status_code == 200, put.text
            done = http.put(SESSION, json={"uploadId": started["uploadId"], "path": started["path"]})
            assert done.status_code == 200, done.text
            resource = done.json()["data"]
        assert resource["fileSize"] == len(BODY) and resource["type"] == "image"
        # No public URL: the answer's read URL is absolute by the request's own base URL, on both
        # transports (decisions.md "URLs in answers"), and works as it is.
        assert resource["url"].startswith(f"{server.base_url}{READ}?path=")
        assert http.get(resource["url"]).content == BODY
        memo = http.post(MEMO, json={"content": "e2e attachment", "resources": [resource]})
        assert memo.status_code == 201, memo.text
        got = http.get(READ, params={"path": resource["path"]})
        assert got.status_code == 200 and got.content == BODY
        head = http.head(READ, params={"path": resource["path"]})
        assert head.status_code == 200 and head.headers["content-length"] == str(len(BODY)) and head.content == b""

    async def over_mcp() -> None:
        async with connect(server.base_url, account.token, "auto") as client:
            result = await client.call_tool("read_memo_resource", {"path": resource["path"]})
            assert not result.is_error, result
            assert base64.b64decode(result.structured_content["data"]["content"]) == BODY
            listed = await client.call_tool("list_memo_resources", {"memoId": memo.json()["data"]["memo"]["id"]})
            assert listed.structured_content["data"]["resources"] == [resource]
            contents = (await client.read_resource(resource["mcp_uri"])).contents
            assert len(contents) == 1 and base64.b64decode(contents[0].blob) == BODY  # type: ignore[union-attr]
            assert contents[0].mime_type == "image/jpeg"

    anyio.run(over_mcp)
