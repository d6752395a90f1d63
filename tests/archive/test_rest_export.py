"""REST `GET /api/toolkit/export` in-process: the archive of `mesq export`, bounded by the token's
read scopes. A memo-only token's archive holds no todo record and imports into a fresh instance
with the same memos; a todo-only one holds no memo; a token without a read scope, or none, is
refused; a deployment whose responses are capped refuses an archive over the cap instead of
cutting it. The route is REST only: never an MCP tool."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.application.ratelimit import PROFILES
from mesq.archive.exporter import export_account
from mesq.archive.format import MANIFEST, RECORDS
from mesq.archive.importer import import_account
from mesq.asgi import account_archive
from mesq.auth.tokens import create_token
from mesq.auth.user_zone import set_zone
from mesq.auth.users import create_user
from mesq.kernel.ports.storage import StoreUnavailable
from mesq.mcp.service import default_catalog
from mesq.runtime.app_factories import create_local_app
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .test_round_trip import PICTURE, populate, records

MEMO_KINDS = ("MEMO#", "STATS#MEMO", "MEMOTAG#", "MEMOATT#")
TODO_KINDS = ("TODO#", "TODOATT#", "REMIND#TASK#")


def _services(tmp_path: Path, **settings: Any) -> Services:
    return build_services(inprocess_settings(**{"data_dir": tmp_path, "rate_limit_profile": "off", **settings}))


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[tuple[Services, TestClient, str]]:
    services = _services(tmp_path / "source")
    user_id = populate(services.items, services.blobs, "alice")
    with TestClient(create_local_app(services), base_url="https://testserver") as client:
        yield services, client, user_id
    services.items.close()


def _export(client: TestClient, services: Services, user_id: str, scopes: str) -> Any:
    token = create_token(services.items, user_id, name=f"export {scopes}", scopes=scopes)[0]
    return client.get("/api/toolkit/export", headers={"Authorization": f"Bearer {token}"})


def _members(body: bytes) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        lines = [json.loads(line) for line in archive.read(RECORDS).splitlines()]
        return lines, json.loads(archive.read(MANIFEST)), archive.namelist()


def test_a_memo_only_export_holds_no_todo_and_imports_the_same_memos(
    instance: tuple[Services, TestClient, str], tmp_path: Path
) -> None:
    services, client, user_id = instance
    answer = _export(client, services, user_id, "memo:read")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/zip"
    assert answer.headers["content-disposition"].startswith('attachment; filename="mesq-export-')
    assert int(answer.headers["content-length"]) == len(answer.content)
    lines, manifest, names = _members(answer.content)
    kinds = {line["sk"] for line in lines}
    assert any(sk.startswith("MEMO#") for sk in kinds) and any(sk.startswith("MEMOATT#") for sk in kinds)
    assert not [sk for sk in kinds if sk.startswith((*TODO_KINDS, "READ#", "STATS#ATTACHMENTS"))]
    # History travels only for the kinds covered: memo changes, no task changes.
    changes = [line for line in lines if line["sk"].startswith("CHANGE#")]
    assert changes and {change["record"]["kind"] for change in changes} == {"memo"}
    assert manifest["scopes"] == ["memo:read"]
    [picture] = [line for line in lines if line["sk"].startswith("MEMOATT#")]
    assert [n for n in names if n.startswith("attachments/")] == [
        f"attachments/memo/{picture['id']}/{picture['displayName']}"
    ]
    assert any(n.startswith("memos/") for n in names)

    # Into a fresh instance: the same memos (and their attachment's bytes), nothing of the board.
    archive = tmp_path / "memo-only.zip"
    archive.write_bytes(answer.content)
    fresh_items, fresh_blobs = SQLiteItemStore(tmp_path / "fresh.db"), LocalBlobStore(tmp_path / "fresh-blobs")
    target = create_user(fresh_items, "bob", "correct horse battery")["id"]
    report = import_account(fresh_items, fresh_blobs, target, archive)
    assert report.created + report.derived == len(lines)
    source, imported = records(services.items, user_id), records(fresh_items, target)
    assert not [sk for sk in imported if sk.startswith(TODO_KINDS)]
    assert {sk: item for sk, item in imported.items() if sk.startswith(MEMO_KINDS)} == {
        sk: item for sk, item in source.items() if sk.startswith(MEMO_KINDS)
    }
    [attachment] = [item for sk, item in imported.items() if sk.startswith("MEMOATT#")]
    stored = attachment["path"].replace("~", target)
    assert b"".join(fresh_blobs.stream(stored)) == PICTURE
    fresh_items.close()


def test_a_todo_only_export_holds_no_memo(instance: tuple[Services, TestClient, str]) -> None:
    services, client, user_id = instance
    lines, manifest, names = _members(_export(client, services, user_id, "todo:read,todo:write").content)
    kinds = {line["sk"] for line in lines}
    assert any(sk.startswith("TODO#") for sk in kinds)
    assert not [sk for sk in kinds if sk.startswith((*MEMO_KINDS, "READ#"))]
    assert {line["record"]["kind"] for line in lines if line["sk"].startswith("CHANGE#")} <= {
        "task", "subtask", "inbox", "space", "column", "tag"
    }  # fmt: skip
    assert manifest["scopes"] == ["todo:read"] and not [n for n in names if n.startswith("memos/")]
    # Only the todo attachment's bytes travel, not the memo picture.
    assert [n for n in names if n.startswith("attachments/")] == [
        f"attachments/todo/{line['id']}/{line['displayName']}" for line in lines if line["sk"].startswith("TODOATT#")
    ]


def test_every_read_scope_exports_what_the_cli_exports(
    instance: tuple[Services, TestClient, str], tmp_path: Path
) -> None:
    services, client, user_id = instance
    lines, manifest, _ = _members(_export(client, services, user_id, "memo:read,todo:read,reading:read").content)
    cli = tmp_path / "cli.zip"
    export_account(services.items, services.blobs, user_id, cli, "2030-01-01T00:00:00Z")
    expected, cli_manifest, _ = _members(cli.read_bytes())
    assert lines == expected and "scopes" not in cli_manifest
    assert manifest["files"] == cli_manifest["files"]


def test_without_a_read_scope_or_a_token_nothing_leaves(instance: tuple[Services, TestClient, str]) -> None:
    services, client, user_id = instance
    refused = _export(client, services, user_id, "memo:write")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
    anonymous = client.get("/api/toolkit/export")
    assert anonymous.status_code == 401 and "www-authenticate" in anonymous.headers
    token = create_token(services.items, user_id, name="q", scopes="memo:read")[0]
    odd = client.get("/api/toolkit/export?kinds=memo", headers={"Authorization": f"Bearer {token}"})
    assert odd.status_code == 400 and odd.json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_capped_deployment_refuses_an_archive_over_its_cap(tmp_path: Path) -> None:
    services = _services(tmp_path, attachment_redirect_bytes=1000)
    user_id = populate(services.items, services.blobs, "carol")
    with TestClient(create_local_app(services), base_url="https://testserver") as client:
        answer = _export(client, services, user_id, "memo:read")
    assert answer.status_code == 413 and "mesq export" in answer.json()["error"]["message"]
    services.items.close()


def test_exports_count_in_the_attachment_read_bucket(tmp_path: Path) -> None:
    services = _services(tmp_path, rate_limit_profile="normal")
    user = create_user(services.items, "dave", "correct horse battery")
    token = create_token(services.items, user["id"], name="t", scopes="memo:read")[0]
    limit = PROFILES["normal"]["attachment_read"]
    with TestClient(create_local_app(services), base_url="https://testserver") as client:
        answers = [
            client.get("/api/toolkit/export", headers={"Authorization": f"Bearer {token}"}).status_code
            for _ in range(limit + 1)
        ]
    assert answers == [200] * limit + [429]
    services.items.close()


def test_export_is_rest_only() -> None:
    assert "export_account" not in default_catalog().names


def test_an_export_holds_only_the_callers_records(instance: tuple[Services, TestClient, str]) -> None:
    """Tenant isolation: mallory, with every read scope, exports her own (empty) account: none of
    alice's records, memo text or attachment bytes, whatever she asks for."""
    services, client, alice_id = instance
    mallory_id = create_user(services.items, "mallory", "correct horse battery")["id"]
    for query in ("", f"?user={alice_id}", f"?userId={alice_id}"):
        token = create_token(services.items, mallory_id, name="mine", scopes="memo:read,todo:read,reading:read")[0]
        answer = client.get("/api/toolkit/export" + query, headers={"Authorization": f"Bearer {token}"})
        if answer.status_code != 200:
            assert answer.status_code == 400, answer.text  # an unknown parameter, refused
            continue
        lines, _manifest, names = _members(answer.content)
        assert all(alice_id not in json.dumps(line) for line in lines)
        assert not [n for n in names if n.startswith(("attachments/", "memos/"))]
        assert PICTURE not in answer.content and alice_id.encode() not in answer.content


class _UnreachableBlobs:
    """The real blob store, except that reading a file's bytes fails as S3 does when it cannot be
    reached (past the client's retries)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        raise StoreUnavailable("S3 could not be reached: Read timeout on endpoint URL http://10.0.0.9/internal")


def test_storage_failure_during_an_export_is_a_500_to_retry_naming_nothing_internal(
    instance: tuple[Services, TestClient, str],
) -> None:
    services, _, user_id = instance
    unreachable = Services(services.settings, services.items, _UnreachableBlobs(services.blobs))  # type: ignore[arg-type]
    with TestClient(create_local_app(unreachable), base_url="https://testserver") as client:
        answer = _export(client, unreachable, user_id, "memo:read")
    assert answer.status_code == 500, answer.text
    error = answer.json()["error"]
    assert error["code"] == "INTERNAL"
    assert "export storage failed before the response started; retry" in error["message"]
    assert "10.0.0.9" not in answer.text and "Read timeout" not in answer.text


def test_the_download_is_named_by_the_users_own_day(
    instance: tuple[Services, TestClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 10:30 UTC on 6 December it is already 7 December in Kiritimati (+14): a person there
    downloads `mesq-export-2026-12-07.zip`, not the server's UTC day; without a zone, UTC's."""
    services, client, user_id = instance
    monkeypatch.setattr(account_archive, "now_timestamp", lambda: "2026-12-06T10:30:00.000000Z")
    answer = _export(client, services, user_id, "memo:read")
    assert 'filename="mesq-export-2026-12-06.zip"' in answer.headers["content-disposition"]
    set_zone(services.items, user_id, "Pacific/Kiritimati")
    answer = _export(client, services, user_id, "memo:read")
    assert 'filename="mesq-export-2026-12-07.zip"' in answer.headers["content-disposition"]
