"""Every inbox route over REST (/api/toolkit/todo/inbox/...): status codes, the envelope,
validation, idempotency headers, revision conflicts with recoverData, scopes and tenant isolation."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

BASE = "/api/toolkit/todo/inbox"
TODO = "todo:read,todo:write"


@pytest.fixture
def alice(make_account):
    return make_account(TODO)


@pytest.fixture
def bob(make_account):
    return make_account(TODO)


def capture(client: TestClient, account: Any, title: str = "buy milk", **fields: Any) -> dict[str, Any]:
    response = client.post(BASE, headers=account.headers, json={"title": title, **fields})
    assert response.status_code == 201, response.text
    item: dict[str, Any] = response.json()["data"]["item"]
    return item


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"]["code"] == code and body["traceId"]
    return body


def test_item_routes_round_trip(client, alice):
    item = capture(client, alice, "call the plumber", notes="before friday", priority="high",
                   subtasks=[{"title": "find number"}])  # fmt: skip
    listed = client.get(BASE, headers=alice.headers).json()["data"]
    assert [i["id"] for i in listed["items"]] == [item["id"]] and "notes" not in listed["items"][0]
    noted = client.get(BASE, headers=alice.headers, params={"includeNotes": "true"}).json()["data"]
    assert noted["items"][0]["notes"] == "before friday"
    got = client.get(f"{BASE}/{item['id']}", headers=alice.headers)
    assert got.status_code == 200 and set(got.json()) == {"data", "traceId"}
    assert set(got.json()["data"]) == {"item", "timezone"}
    context = client.get(f"{BASE}/{item['id']}", headers=alice.headers, params={"includeContext": "true"})
    assert {"board", "inbox", "tagSuggestions"} <= set(context.json()["data"])

    patched = client.patch(f"{BASE}/{item['id']}", headers=alice.headers, json={"expectedRevision": 1, "title": "t2"})
    assert patched.status_code == 200 and patched.json()["data"]["item"]["revision"] == 2
    done = client.post(f"{BASE}/{item['id']}/complete", headers=alice.headers, json={"expectedRevision": 2})
    assert done.status_code == 200 and done.json()["data"]["item"]["done"] is True
    deleted = client.request("DELETE", f"{BASE}/{item['id']}", headers=alice.headers, json={"expectedRevision": 3})
    assert deleted.status_code == 200 and deleted.json()["data"]["item"]["deletedAt"]
    error_of(client.get(f"{BASE}/{item['id']}", headers=alice.headers), 404, "NOT_FOUND")


def test_capture_idempotency_header(client, alice):
    headers = {**alice.headers, "Idempotency-Key": "capture-1"}
    first = client.post(BASE, headers=headers, json={"title": "once"})
    again = client.post(BASE, headers=headers, json={"title": "once"})
    assert first.status_code == again.status_code == 201
    assert again.json()["data"] == first.json()["data"]
    error_of(client.post(BASE, headers=headers, json={"title": "twice"}), 409, "IDEMPOTENCY_CONFLICT")
    body = {"title": "x", "idempotencyKey": "in-body"}
    error_of(client.post(BASE, headers=alice.headers, json=body), 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"title": ""},
        {"title": "x", "priority": "asap"},
        {"title": "x", "due": {"type": "date", "date": "tomorrow"}},
        {"title": "x", "colour": "red"},
        {"title": "x", "subtasks": [{"title": "s", "done": True}]},
    ],
)
def test_capture_validation(client, alice, body):
    error_of(client.post(BASE, headers=alice.headers, json=body), 400, "VALIDATION_ERROR")


def test_revision_conflict_has_recover_data(client, alice):
    item = capture(client, alice)
    client.patch(f"{BASE}/{item['id']}", headers=alice.headers, json={"expectedRevision": 1, "notes": "n"})
    stale = client.patch(f"{BASE}/{item['id']}", headers=alice.headers, json={"expectedRevision": 1, "title": "x"})
    body = error_of(stale, 409, "REVISION_CONFLICT")
    assert body["recoverData"]["item"]["revision"] == 2 and body["recoverData"]["item"]["notes"] == "n"
    error_of(client.patch(f"{BASE}/{item['id']}", headers=alice.headers, json={"title": "x"}), 400, "VALIDATION_ERROR")


def test_move_to_board_route(client, alice):
    item = capture(client, alice, "plan", subtasks=[{"title": "a"}, {"title": "b", "isDone": True}])
    moved = client.post(f"{BASE}/{item['id']}/move-to-board", headers=alice.headers, json={"expectedRevision": 1})
    assert moved.status_code == 200, moved.text
    data = moved.json()["data"]
    assert data["movedItemId"] == item["id"] and [s["done"] for s in data["subtasks"]] == [False, True]
    task = client.get(f"/api/toolkit/todo/tasks/{data['task']['id']}", headers=alice.headers)
    assert task.status_code == 200 and task.json()["data"]["task"]["title"] == "plan"
    other = capture(client, alice)
    missing = client.post(f"{BASE}/{other['id']}/move-to-board", headers=alice.headers,
                          json={"expectedRevision": 1, "spaceSlug": "nope"})  # fmt: skip
    error_of(missing, 404, "NOT_FOUND")


def test_subtask_routes(client, alice):
    item = capture(client, alice, "p")
    base = f"{BASE}/{item['id']}/subtasks"
    created = client.post(base, headers=alice.headers, json={"parentRevision": 1, "title": "s", "notes": "n"})
    assert created.status_code == 201, created.text
    sub = created.json()["data"]["subtask"]
    assert sub["parentItemId"] == item["id"] and sub["parentRevision"] == 2
    listed = client.get(base, headers=alice.headers, params={"includeNotes": "false"}).json()["data"]
    assert listed["parentRevision"] == 2 and "notes" not in listed["subtasks"][0]
    got = client.get(f"{base}/{sub['id']}", headers=alice.headers).json()["data"]
    assert got["subtask"]["notes"] == "n" and got["timezone"] == "UTC"
    patched = client.patch(f"{base}/{sub['id']}", headers=alice.headers, json={"parentRevision": 2, "title": "s2"})
    assert patched.status_code == 200 and patched.json()["data"]["item"]["revision"] == 3
    done = client.post(f"{base}/{sub['id']}/done", headers=alice.headers, json={"parentRevision": 3, "isDone": True})
    assert done.status_code == 200 and done.json()["data"]["subtask"]["isDone"] is True
    stale = client.request("DELETE", f"{base}/{sub['id']}", headers=alice.headers, json={"parentRevision": 3})
    body = error_of(stale, 409, "REVISION_CONFLICT")
    assert body["recoverData"]["item"]["revision"] == 4 and body["recoverData"]["subtask"]["id"] == sub["id"]
    removed = client.request("DELETE", f"{base}/{sub['id']}", headers=alice.headers, json={"parentRevision": 4})
    assert removed.status_code == 200 and removed.json()["data"]["item"]["subtasks"] == []
    error_of(client.get(f"{base}/{sub['id']}", headers=alice.headers), 404, "NOT_FOUND")
    error_of(client.post(base, headers=alice.headers, json={"title": "no revision"}), 400, "VALIDATION_ERROR")


def test_scopes_and_authentication(client, make_account):
    reader = make_account("todo:read")
    memo_only = make_account("memo:read,memo:write")
    error_of(client.post(BASE, headers=reader.headers, json={"title": "x"}), 403, "FORBIDDEN")
    error_of(client.get(BASE, headers=memo_only.headers), 403, "FORBIDDEN")
    error_of(client.get(BASE), 401, "UNAUTHORIZED")
    assert client.get(BASE, headers=reader.headers).status_code == 200


def test_other_users_items_are_not_found(client, alice, bob):
    item = capture(client, alice, "private")
    sub = client.post(f"{BASE}/{item['id']}/subtasks", headers=alice.headers, json={"parentRevision": 1, "title": "s"})
    sub_id = sub.json()["data"]["subtask"]["id"]
    base = f"{BASE}/{item['id']}"
    attempts = [
        ("GET", base, None),
        ("PATCH", base, {"expectedRevision": 2, "title": "x"}),
        ("DELETE", base, {"expectedRevision": 2}),
        ("POST", f"{base}/complete", {"expectedRevision": 2}),
        ("POST", f"{base}/move-to-board", {"expectedRevision": 2}),
        ("GET", f"{base}/subtasks", None),
        ("POST", f"{base}/subtasks", {"parentRevision": 2, "title": "x"}),
        ("GET", f"{base}/subtasks/{sub_id}", None),
        ("PATCH", f"{base}/subtasks/{sub_id}", {"parentRevision": 2, "title": "x"}),
        ("DELETE", f"{base}/subtasks/{sub_id}", {"parentRevision": 2}),
        ("POST", f"{base}/subtasks/{sub_id}/done", {"parentRevision": 2, "isDone": True}),
    ]
    for method, path, body in attempts:
        error_of(client.request(method, path, headers=bob.headers, json=body), 404, "NOT_FOUND")
    assert client.get(BASE, headers=bob.headers).json()["data"]["items"] == []
    mine = client.get(base, headers=alice.headers).json()["data"]["item"]
    assert mine["revision"] == 2 and mine["title"] == "private"
