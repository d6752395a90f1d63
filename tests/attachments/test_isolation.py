"""Tenant isolation for every attachment operation (JSON and raw routes, memo and todo
namespaces): mallory, with her own valid token and every scope, never reads, lists, completes or
cancels alice's attachments or sessions, and never sees her bytes or names."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.spec import load_spec

from .conftest import MEMO, READ, RELAY, RESOURCES, SESSION, TODO_ATTACHMENTS, TODO_READ, TODO_RELAY, uploaded

SECRET = b"alice private bytes"
TODO_SCOPES = "todo:read,todo:write"


def _requests(path: str, memo_id: str) -> dict[str, tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]]:
    ref = {"uploadId": "anything", "path": path}
    return {
        "read_memo_resource": ("GET", f"{RESOURCES}/content", {"path": path}, None),
        "get_memo_resource_metadata": ("GET", f"{RESOURCES}/metadata", {"path": path}, None),
        "list_memo_resources": ("GET", RESOURCES, {"memoId": memo_id}, None),
        "complete_memo_upload_session": ("PUT", SESSION, None, ref),
        "cancel_memo_upload_session": ("DELETE", SESSION, None, ref),
        "download_memo_resource": ("GET", READ, {"path": path}, None),
        "head_memo_resource": ("HEAD", READ, {"path": path}, None),
    }


def _todo_requests(path: str) -> dict[str, tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]]:
    ref = {"uploadId": "anything", "path": path}
    return {
        "read_todo_attachment": ("GET", f"{TODO_ATTACHMENTS}/content", {"path": path}, None),
        "get_todo_attachment_metadata": ("GET", f"{TODO_ATTACHMENTS}/metadata", {"path": path}, None),
        "complete_todo_upload_session": ("PUT", f"{TODO_ATTACHMENTS}/upload-session", None, ref),
        "cancel_todo_upload_session": ("DELETE", f"{TODO_ATTACHMENTS}/upload-session", None, ref),
        "download_todo_attachment": ("GET", TODO_READ, {"path": path}, None),
        "head_todo_attachment": ("HEAD", TODO_READ, {"path": path}, None),
    }


#: Creates only touch the caller's own partition and prefix (proved by their path checks).
CREATES = {
    "create_memo_upload_session", "upload_memo_resource", "relay_memo_resource_upload",
    "create_todo_upload_session", "upload_todo_attachment", "relay_todo_attachment_upload",
}  # fmt: skip


#: Raw (REST-only) operations that are not attachment operations, with the test of their isolation.
OTHER_RAW = {
    "export_account": "tests/archive/test_rest_export.py::test_an_export_holds_only_the_callers_records",
    "import_from_app": "tests/imports/test_rest_import.py::test_an_import_writes_only_the_callers_account",
}


def test_isolation_covers_every_attachment_operation():
    spec = load_spec()
    toolsets = ("memo_attachments", "todo_attachments")
    ops = {n for n, op in spec.operations.items() if op.mcp.toolset in toolsets} | set(spec.raw_operations)
    assert set(_requests("p", "m")) | set(_todo_requests("p")) | CREATES == ops - set(OTHER_RAW)
    assert set(OTHER_RAW) <= set(spec.raw_operations)


@pytest.mark.parametrize("operation_id", sorted(_requests("p", "m")))
def test_tenant_isolation(client, make_account, operation_id):
    alice, mallory = make_account(), make_account()
    resource = uploaded(client, alice, SECRET, "alice-diary.txt")
    memo = client.post(MEMO, headers=alice.headers, json={"content": "x", "resources": [resource]}).json()["data"][
        "memo"
    ]
    method, url, params, body = _requests(resource["path"], memo["id"])[operation_id]
    response = client.request(method, url, headers=mallory.headers, params=params, json=body)
    assert response.status_code in (403, 404), response.text
    assert SECRET not in response.content and b"alice-diary" not in response.content
    assert response.headers.get("content-length") != str(len(SECRET)) or method != "HEAD"
    # Alice's attachment is untouched.
    assert client.get(READ, headers=alice.headers, params={"path": resource["path"]}).content == SECRET
    mine = client.post(RELAY, headers=mallory.headers, files={"file": ("m", b"m", "text/plain")}).json()["data"]
    assert mine["path"].startswith(f"users/{mallory.user_id}/")


@pytest.mark.parametrize("operation_id", sorted(_todo_requests("p")))
def test_todo_tenant_isolation(client, make_account, operation_id):
    alice, mallory = make_account(TODO_SCOPES), make_account(TODO_SCOPES)
    response = client.post(TODO_RELAY, headers=alice.headers, files={"file": ("alice-plan.txt", SECRET, "text/plain")})
    resource = response.json()["data"]
    assert resource["path"].startswith(f"users/{alice.user_id}/todo/"), resource
    bound = {k: resource[k] for k in ("path", "displayName", "fileSize", "mimeType", "type")}
    created = client.post("/api/toolkit/todo/tasks", headers=alice.headers, json={"title": "t", "attachments": [bound]})
    assert created.status_code == 201, created.text
    method, url, params, body = _todo_requests(resource["path"])[operation_id]
    response = client.request(method, url, headers=mallory.headers, params=params, json=body)
    assert response.status_code in (403, 404), response.text
    assert SECRET not in response.content and b"alice-plan" not in response.content
    assert client.get(TODO_READ, headers=alice.headers, params={"path": resource["path"]}).content == SECRET
    # Mallory cannot bind alice's path to her own task either.
    stolen = client.post(
        "/api/toolkit/todo/tasks", headers=mallory.headers, json={"title": "t", "attachments": [bound]}
    )
    assert stolen.status_code == 400 and "another account" in stolen.text
