"""Credentials, scopes and tenant isolation for every memo operation."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.auth.tokens import create_token, revoke_token
from mesq.kernel.spec import load_spec

BASE = "/api/toolkit/memo"


def test_no_credential_is_401_with_challenge(client):
    response = client.get(BASE)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "UNAUTHORIZED" and response.json()["traceId"]


@pytest.mark.parametrize("header", ["Bearer mesq_pat_wrong", "Bearer ", "Basic abc", "Bearer x" * 3, "mesq_pat_x"])
def test_bad_credentials_are_401(client, header):
    response = client.get(BASE, headers={"Authorization": header})
    assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHORIZED"


def test_revoked_and_expired_tokens(client, services, make_account):
    account = make_account()
    assert client.get(BASE, headers=account.headers).status_code == 200
    token, record = create_token(services.items, account.user_id, name="short", scopes="memo:read", expires_days=1)
    assert client.get(BASE, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    revoke_token(services.items, account.user_id, record["id"])
    assert client.get(BASE, headers={"Authorization": f"Bearer {token}"}).status_code == 401
    # An expired lookup item is gone for the store (TTL) and for the expiry check alike.
    expired, _ = create_token(services.items, account.user_id, name="old", scopes="memo:read", expires_days=1)
    from mesq.auth.tokens import _lookup_key, secret_digest
    from mesq.kernel.ports.storage import Update

    lookup = _lookup_key(secret_digest(expired))
    services.items.update(Update(key=lookup, set={"expiresAt": "2020-01-01T00:00:00.000000Z"}))
    response = client.get(BASE, headers={"Authorization": f"Bearer {expired}"})
    assert response.status_code == 401 and "expired" in response.json()["error"]["message"]


def test_last_used_is_recorded(client, services, make_account):
    from mesq.auth.tokens import list_tokens

    account = make_account()
    assert "lastUsedAt" not in list_tokens(services.items, account.user_id)[0]
    client.get(BASE, headers=account.headers)
    assert "lastUsedAt" in list_tokens(services.items, account.user_id)[0]


def test_pat_secret_is_not_stored(services, make_account):
    account = make_account()
    from mesq.adapters.store.sqlite import SQLiteItemStore

    assert isinstance(services.items, SQLiteItemStore)
    dump = "\n".join(row[0] for row in services.items._conn.execute("SELECT data FROM items"))
    assert account.token not in dump and account.token[9:] not in dump
    assert "correct horse battery" not in dump


SCOPE_CASES = [
    ("memo:read", "GET", BASE, None, 200),
    ("memo:read", "POST", BASE, {"content": "x"}, 403),
    ("memo:write", "POST", BASE, {"content": "x"}, 201),
    ("memo:write", "GET", BASE, None, 403),
    ("memo:write", "PATCH", f"{BASE}/abc", {"content": "x", "expectedRevision": 1}, 403),
    ("memo:write", "DELETE", f"{BASE}/abc", {"expectedRevision": 1}, 403),
    ("memo:write", "POST", f"{BASE}/tags/rename", {"from": "a", "to": "b"}, 403),
    ("todo:read", "GET", BASE, None, 403),
    ("reading:read", "GET", f"{BASE}/tags", None, 403),
]


@pytest.mark.parametrize(("scopes", "method", "url", "body", "status"), SCOPE_CASES)
def test_scopes_are_checked(client, make_account, scopes, method, url, body, status):
    account = make_account(scopes=scopes)
    response = client.request(method, url, headers=account.headers, json=body)
    assert response.status_code == status, response.text
    if status == 403:
        assert response.json()["error"]["code"] == "FORBIDDEN" and "scope" in response.json()["error"]["message"]


# -- tenant isolation: user B never sees or touches user A's memos --------------------------


@pytest.fixture
def victim(client, make_account) -> dict[str, Any]:
    alice = make_account()
    memo = client.post(BASE, headers=alice.headers, json={"content": "secret #private needle"}).json()["data"]["memo"]
    return {"account": alice, "memo": memo}


def _isolation_requests(memo_id: str) -> dict[str, tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]]:
    return {
        "get_memo": ("GET", f"{BASE}/{memo_id}", None, None),
        "update_memo": ("PATCH", f"{BASE}/{memo_id}", None, {"content": "pwned", "expectedRevision": 1}),
        "delete_memo": ("DELETE", f"{BASE}/{memo_id}", None, {"expectedRevision": 1}),
        "restore_memo": ("POST", f"{BASE}/{memo_id}/restore", None, {"expectedRevision": 1}),
        "batch_get_memos": ("POST", f"{BASE}/batch-get", None, {"ids": [memo_id]}),
        "list_memos": ("GET", BASE, {"status": "ALL", "tags": "private"}, None),
        "search_memos": ("GET", f"{BASE}/search", {"query": "needle", "status": "ALL"}, None),
        "list_tags": ("GET", f"{BASE}/tags", None, None),
        "select_memos_for_insight": ("GET", f"{BASE}/insight-selection", {"memoIds": memo_id}, None),
        "rename_memo_tag": ("POST", f"{BASE}/tags/rename", None, {"from": "private", "to": "public"}),
        "create_memo": ("POST", BASE, None, {"content": "mine"}),
    }


def test_isolation_covers_every_operation():
    # Memo operations here; each other domain proves its own (tests/attachments/test_isolation.py).
    memo_ops = {name for name, op in load_spec().operations.items() if op.mcp.toolset == "memo"}
    assert set(_isolation_requests("x")) == memo_ops


@pytest.mark.parametrize("operation_id", sorted(_isolation_requests("x")))
def test_tenant_isolation(client, make_account, victim, operation_id):
    mallory = make_account()
    memo_id = victim["memo"]["id"]
    method, url, params, body = _isolation_requests(memo_id)[operation_id]
    response = client.request(method, url, headers=mallory.headers, params=params, json=body)
    text = response.text
    assert (
        "secret" not in text and "needle" not in text and "private" not in text
    ) or operation_id == "rename_memo_tag"
    if operation_id in ("get_memo", "update_memo", "delete_memo", "restore_memo"):
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    elif operation_id == "batch_get_memos":
        assert response.json()["data"] == {"memos": [], "missingIds": [memo_id]}
    elif operation_id in ("list_memos", "search_memos"):
        data = response.json()["data"]
        assert data["pinnedItems"] == data["timelineItems"] == [] and data["page"]["totalCount"] == 0
    elif operation_id == "list_tags":
        assert response.json()["data"] == {"tags": []}
    elif operation_id == "select_memos_for_insight":
        assert response.json()["data"]["memos"] == [] and response.json()["data"]["missingIds"] == [memo_id]
    elif operation_id == "rename_memo_tag":
        assert response.json()["data"]["updatedMemos"] == 0
    else:  # create_memo lands in mallory's own space
        assert response.status_code == 201
    # Alice's memo is untouched whatever mallory did.
    alice = victim["account"]
    after = client.get(f"{BASE}/{memo_id}", headers=alice.headers).json()["data"]["memo"]
    assert after == victim["memo"]
    mallory_list = client.get(BASE, headers=mallory.headers, params={"status": "ALL"}).json()["data"]
    assert memo_id not in [m["id"] for m in mallory_list["pinnedItems"] + mallory_list["timelineItems"]]


def test_every_response_has_a_trace_id(client, make_account):
    account = make_account()
    for method, url in (("GET", "/nowhere"), ("PUT", BASE), ("GET", f"{BASE}/missing"), ("GET", BASE)):
        response = client.request(method, url, headers=account.headers)
        assert response.json()["traceId"], (method, url)
    assert client.request("PUT", BASE, headers=account.headers).status_code == 405


def test_openapi_document_and_health(client):
    document = client.get("/api/openapi.json").json()
    assert document["openapi"].startswith("3.1") and "/api/toolkit/memo" in document["paths"]
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"


def test_internal_errors_do_not_leak(client, make_account, monkeypatch):
    from mesq.application import invocation as operations

    def explode(call, arguments):
        raise RuntimeError("database password is hunter2")

    monkeypatch.setitem(operations.REGISTRY, "list_tags", explode)  # type: ignore[arg-type]
    account = make_account()
    response = client.get(f"{BASE}/tags", headers=account.headers)
    assert response.status_code == 500
    body = response.json()
    assert body["error"]["code"] == "INTERNAL" and "hunter2" not in response.text
    assert body["traceId"] in body["error"]["message"]
