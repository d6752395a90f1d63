"""All of CalDAV again on the AWS shape: the official DynamoDB Local and S3 over HTTP (moto in
server mode), every request handed to the Lambda handlers the template deploys (the CalDAV
function behind its function URL, REST and MCP behind the HTTP API) by a loopback bridge, and
the real clients on the other side:

- python-caldav runs the same script as against `mesq serve` and MeSQ's side is checked the same
  (the issue's VTODO over REST, completion as REST's, an MCP task through sync-collection, stale
  ETag 412, delete), then the delete is undone (undo_changes, by the token's change) and comes back;
- vdirsyncer syncs a space with a folder both ways, twice, no duplicate, no change;
- the edit shows under the token's name; hostile input is refused with the store unchanged.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.keys import user_partition
from mesq.store.paging import walk
from mesq.wiring.config import Settings
from mesq.wiring.services import Services, build_services
from tests.conftest import REPO
from tests.dav import mesq_side, script
from tests.dav.driver import CaldavClient
from tests.dav.lambda_bridge import bridge
from tests.dav.test_hostile import BILLION_LAUGHS, VEVENT
from tests.dav.vdirsyncer_flow import round_trip

sys.path.insert(0, str(REPO / "infra"))
import dynamodb_local as ddb_runner

TOKEN_NAME = "Pixel with DAVx5"


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:  # type: ignore[override]
    """The deployed functions' environment, on DynamoDB Local and S3 over HTTP."""
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
        "MESQ_STORAGE": "dynamodb", "MESQ_TABLE": "mesq-dav", "MESQ_BUCKET": "mesq-dav",
        "MESQ_DYNAMODB_ENDPOINT": ddb.endpoint, "MESQ_S3_ENDPOINT": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": ddb_runner.ACCESS_KEY_ID, "AWS_SECRET_ACCESS_KEY": ddb_runner.SECRET_ACCESS_KEY,
        "AWS_DEFAULT_REGION": ddb_runner.REGION, "AWS_REGION": ddb_runner.REGION,
        "MESQ_SEARCH_INDEX_UPDATES": "stream", "MESQ_SEARCH_PROVIDER": "none",
        "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_NAMESPACE": "MeSQ",
    }  # fmt: skip
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        built = build_services(Settings.from_env())
        built.items.create_table_if_missing()  # type: ignore[attr-defined]
        boto3.client(
            "s3", endpoint_url=env["MESQ_S3_ENDPOINT"], region_name="us-east-1",
            aws_access_key_id="x", aws_secret_access_key="x",
        ).create_bucket(Bucket="mesq-dav")  # fmt: skip
        yield built
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        s3.stop()
        ddb.stop()


@pytest.fixture(scope="module")
def base_url(services: Services) -> Iterator[str]:
    with bridge() as url:
        yield url


def _account(services: Services, username: str) -> str:
    user = create_user(services.items, username, "correct horse battery")
    token, _ = create_token(services.items, user["id"], name=TOKEN_NAME, scopes="todo:read,todo:write")
    return token


def _partition(services: Services, token: str) -> list[dict[str, Any]]:
    from mesq.auth.tokens import authenticate_token

    owner = authenticate_token(services.items, token).user_id
    return sorted((dict(i) for i in walk(services.items, user_partition(owner))), key=lambda i: str(i["sk"]))


def test_python_caldav_through_the_lambda_handlers_on_dynamodb(services: Services, base_url: str) -> None:
    token = _account(services, "carol")
    rest = mesq_side.Rest(base_url, token)
    client = CaldavClient(f"{base_url}/dav/", "carol", token)
    try:
        space = rest.ok("GET", "/api/toolkit/todo/spaces")["spaces"][0]
        names = [c["name"] for c in client.ok("calendars")["calendars"]]
        assert names == ["Default", "Inbox"] and client.connected["principal"] == f"{base_url}/dav/carol/"
        calendar = f"{base_url}/dav/carol/{space['id']}/"
        seen = script.run(client, calendar, mesq_side.elsewhere(base_url, token, rest, space["id"]))
        mesq_side.check_created_as_over_rest(seen, rest)
        mesq_side.check_completion_as_over_rest(seen, rest, space["id"])
        mesq_side.check_sync_and_etags(seen)

        trash = next(c for c in rest.ok("GET", "/api/toolkit/changes?limit=20")["changes"] if c["action"] == "trash")
        assert trash["actor"]["name"] == TOKEN_NAME and trash["operation"] == "delete_todo_task"
        undone = rest.ok("POST", "/api/toolkit/changes/undo", changeIds=[trash["id"]])
        assert len(undone["undone"]) == 1 and undone["notUndone"] == []
        mesq_side.check_back_after_undo(seen, client.ok("sync", calendar=calendar, token=seen["last token"]))

        edits = [
            c
            for c in rest.ok("GET", "/api/toolkit/changes?limit=50")["changes"]
            if c["operation"] == "save_synced_todo"
        ]
        assert edits and {c["actor"]["name"] for c in edits} == {TOKEN_NAME}

        before = _partition(services, token)
        refused = client.run("add", calendar=calendar, ical=VEVENT)
        assert not refused["ok"]
        bomb = rest.http.request("PROPFIND", f"/dav/carol/{space['id']}/", content=BILLION_LAUGHS,
                                 headers={"Authorization": f"Basic {_basic('carol', token)}"})  # fmt: skip
        assert bomb.status_code == 400 and "DTD" in bomb.text
        assert _partition(services, token) == before
    finally:
        client.close()


def _basic(username: str, token: str) -> str:
    import base64

    return base64.b64encode(f"{username}:{token}".encode()).decode()


def test_vdirsyncer_through_the_lambda_handlers_on_dynamodb(services: Services, base_url: str, tmp_path: Path) -> None:
    round_trip(base_url, "dave", _account(services, "dave"), tmp_path)
