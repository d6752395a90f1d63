"""Attachment test helpers: REST calls for the upload flow, and services over other stores."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from mesq.kernel.ports.storage import BlobStore
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_item_store
from tests.conftest import Account
from tests.settings import inprocess_settings

SESSION = "/api/toolkit/memo/resources/upload-session"
RELAY = "/api/toolkit/memo/resources/upload"
READ = "/api/toolkit/memo/resources/read"
RESOURCES = "/api/toolkit/memo/resources"
MEMO = "/api/toolkit/memo"
TODO_ATTACHMENTS = "/api/toolkit/todo/attachments"
TODO_RELAY = f"{TODO_ATTACHMENTS}/upload"
TODO_READ = f"{TODO_ATTACHMENTS}/read"

Client = TestClient | httpx.Client


def relay_upload(
    client: Client, account: Account, data: bytes, name: str = "note.txt", mime: str = "text/plain"
) -> httpx.Response:
    return client.post(RELAY, headers=account.headers, files={"file": (name, data, mime)})


def uploaded(
    client: Client, account: Account, data: bytes, name: str = "note.txt", mime: str = "text/plain"
) -> dict[str, Any]:
    response = relay_upload(client, account, data, name, mime)
    assert response.status_code == 201, response.text
    resource: dict[str, Any] = response.json()["data"]
    return resource


def read(client: Client, account: Account, path: str, method: str = "GET") -> httpx.Response:
    return client.request(method, READ, headers=account.headers, params={"path": path})


def memo_resource(resource: dict[str, Any]) -> dict[str, Any]:
    return {k: resource[k] for k in ("path", "displayName", "fileSize", "mimeType", "type")}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
def make_services(tmp_path: Path) -> Iterator[Callable[..., Services]]:
    """Services over SQLite with the given blob store and settings overrides."""
    built: list[Services] = []

    def make(blobs: BlobStore | None = None, **overrides: Any) -> Services:
        settings = inprocess_settings(data_dir=tmp_path / f"data{len(built)}").with_overrides(**overrides)
        from mesq.wiring.services import build_blob_store

        services = Services(settings, build_item_store(settings), blobs or build_blob_store(settings))
        built.append(services)
        return services

    yield make
    for services in built:
        services.items.close()


def app_client(services: Services) -> TestClient:
    return TestClient(create_local_app(services), raise_server_exceptions=False)


@pytest.fixture
def make_account_for():
    from mesq.auth.tokens import create_token as make_token
    from mesq.auth.users import create_user
    from tests.conftest import Account

    counter = iter(range(1, 1000))

    def make(services, scopes: str = "memo:read,memo:write") -> Account:
        name = f"acct{next(counter)}"
        user = create_user(services.items, name, "correct horse battery")
        token, _ = make_token(services.items, user["id"], name="t", scopes=scopes)
        return Account(user_id=user["id"], username=name, token=token)

    return make


from tests.contract.blob_fixtures import fake_aws, s3_store  # noqa: E402,F401
