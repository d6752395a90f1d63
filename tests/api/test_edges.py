"""Edges: bad bodies on every write route, tag caps inside one transaction, HEAD, trace ids,
and a lagging index never leaking a memo into the wrong list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mesq.memos import store
from mesq.memos.writes import MAX_TAG_PATHS_PER_MEMO

BASE = "/api/toolkit/memo"


@pytest.fixture
def alice(make_account):
    return make_account()


def _create(client, account, content: str, **fields: Any) -> dict[str, Any]:
    response = client.post(BASE, headers=account.headers, json={"content": content, **fields})
    assert response.status_code == 201, response.text
    return response.json()["data"]["memo"]


BAD_BODIES = [
    ("text/plain", b'{"expectedRevision": 1}', "Content-Type"),
    ("application/json", b'{"expectedRevision": 1', "not valid JSON"),
    ("application/json", b'{"expectedRevision": 1, "x": "\xff"}', "UTF-8"),
    ("application/json", b"[1]", "JSON object"),
    ("application/json", json.dumps({"expectedRevision": 1, "pad": "x" * (1024 * 1024)}).encode(), "1 MiB"),
    ("application/json", b'{"expectedRevision": 1, "surprise": true}', "surprise"),
]


@pytest.mark.parametrize(("content_type", "body", "fragment"), BAD_BODIES)
@pytest.mark.parametrize(
    ("method", "suffix"),
    [("PATCH", "/{id}"), ("DELETE", "/{id}"), ("POST", "/{id}/restore"), ("POST", "/tags/rename"),
     ("POST", "/batch-get")],
)  # fmt: skip
def test_bad_bodies_on_every_write_route_change_nothing(client, alice, method, suffix, content_type, body, fragment):
    memo = _create(client, alice, "keep me #keep")
    url = BASE + suffix.format(id=memo["id"])
    headers = {**alice.headers, "Content-Type": content_type}
    response = client.request(method, url, headers=headers, content=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert fragment in response.json()["error"]["message"]
    assert client.get(f"{BASE}/{memo['id']}", headers=alice.headers).json()["data"]["memo"] == memo


def _tags(prefix: str, count: int) -> str:
    return " ".join(f"#{prefix}{i}" for i in range(count))


def test_replacing_every_tag_at_the_cap_fits_one_transaction(client, alice):
    memo = _create(client, alice, _tags("a", MAX_TAG_PATHS_PER_MEMO))
    response = client.patch(
        f"{BASE}/{memo['id']}",
        headers=alice.headers,
        json={"content": _tags("b", MAX_TAG_PATHS_PER_MEMO), "expectedRevision": 1},
    )
    assert response.status_code == 200, response.text
    counts = client.get(BASE, headers=alice.headers, params={"includeContext": "true"}).json()["data"]["filters"]
    assert counts["tags"] == {f"b{i}": 1 for i in range(MAX_TAG_PATHS_PER_MEMO)}
    over = client.patch(
        f"{BASE}/{memo['id']}",
        headers=alice.headers,
        json={"content": _tags("c", MAX_TAG_PATHS_PER_MEMO + 1), "expectedRevision": 2},
    )
    assert over.status_code == 400 and "tags" in over.json()["error"]["message"]


def test_rename_that_cannot_finish_changes_nothing(client, alice):
    # Renaming p -> x/y adds the parent x to each memo: the second memo then exceeds the cap.
    fits = _create(client, alice, "#p/one")
    full = _create(client, alice, "#p " + _tags("t", MAX_TAG_PATHS_PER_MEMO - 1))
    response = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "p", "to": "x/y"})
    assert response.status_code == 400 and full["id"] in response.json()["error"]["message"]
    for memo in (fits, full):
        assert client.get(f"{BASE}/{memo['id']}", headers=alice.headers).json()["data"]["memo"] == memo


def test_rename_at_the_cap_succeeds(client, alice):
    memo = _create(client, alice, "#p/c " + _tags("t", MAX_TAG_PATHS_PER_MEMO - 2))
    response = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "p", "to": "q"})
    assert response.status_code == 200 and response.json()["data"]["updatedMemos"] == 1
    assert "q/c" in client.get(f"{BASE}/{memo['id']}", headers=alice.headers).json()["data"]["memo"]["tags"]


def test_head_runs_the_get_without_a_body(client, alice):
    memo = _create(client, alice, "x")
    for url in (BASE, f"{BASE}/{memo['id']}", f"{BASE}/tags", "/healthz"):
        response = client.head(url, headers=alice.headers)
        assert response.status_code == 200 and response.content == b"", url
    assert client.head(BASE).status_code == 401
    assert client.head(f"{BASE}/nope", headers=alice.headers).status_code == 404


def test_every_response_carries_the_trace_id_header(client, alice):
    for method, url, headers in (
        ("GET", "/healthz", {}),
        ("GET", "/api/openapi.json", {}),
        ("GET", BASE, alice.headers),
        ("GET", BASE, {}),
        ("GET", "/nowhere", {}),
        ("PUT", BASE, alice.headers),
        ("GET", "/mcp", {}),
    ):
        response = client.request(method, url, headers=headers)
        trace_id = response.headers["x-trace-id"]
        assert len(trace_id) == 32, (method, url)
        if url != "/api/openapi.json":
            assert response.json()["traceId"] == trace_id, (method, url)


def test_a_lagging_index_never_shows_a_memo_in_the_wrong_list(client, alice, services):
    shown = _create(client, alice, "stays", createdAt="2026-01-02T00:00:00Z")
    lagging = _create(client, alice, "trashed meanwhile", createdAt="2026-01-01T00:00:00Z")
    # What an eventually consistent GSI can briefly show: the table says DELETED, the index
    # entry still sits in the NORMAL partition.
    stale = store.with_index_keys(alice.user_id, {**lagging, "tagPaths": [], "status": "NORMAL"})
    services.items.put({**stale, "status": "DELETED"})
    page = client.get(BASE, headers=alice.headers).json()["data"]
    assert [m["id"] for m in page["timelineItems"]] == [shown["id"]]
    first = client.get(BASE, headers=alice.headers, params={"limit": 1}).json()["data"]
    assert [m["id"] for m in first["timelineItems"]] == [shown["id"]] and first["page"]["nextOffset"] == 1
    # The next page steps over the lagging entry instead of repeating or skipping a memo.
    second = client.get(BASE, headers=alice.headers, params={"limit": 1, "offset": 1}).json()["data"]
    assert second["timelineItems"] == [] and second["page"]["hasMore"] is False
    assert second["page"]["returned"] == 0 and "nextOffset" not in second["page"]


def test_paging_ends_when_the_index_lags_the_counters(client, alice, services):
    memos = [_create(client, alice, f"m{i}", createdAt=f"2026-01-0{i + 1}T00:00:00Z") for i in range(3)]
    # The newest memo's index entry has not arrived yet (an eventually consistent GSI); the
    # counters, written in the memo's own transaction, already count it.
    newest = services.items.get(store.memo_key(alice.user_id, memos[2]["id"]))
    services.items.put({k: v for k, v in newest.items() if not k.startswith("gsi1")})
    seen, offset, pages = [], 0, 0
    while True:
        data = client.get(BASE, headers=alice.headers, params={"limit": 2, "offset": offset}).json()["data"]
        seen += [m["id"] for m in data["timelineItems"]]
        pages += 1
        assert pages < 5, "following nextOffset must end"
        if not data["page"]["hasMore"]:
            break
        offset = data["page"]["nextOffset"]
    assert seen == [memos[1]["id"], memos[0]["id"]] and data["page"]["totalCount"] == 3


def test_rename_reports_memos_it_could_not_change(client, alice, monkeypatch):
    memo = _create(client, alice, "#busy tag")
    from mesq.kernel.ports.storage import ConditionFailed

    def always_conflicting(*args, **kwargs):
        raise ConditionFailed("changed meanwhile", index=0)

    monkeypatch.setattr(store, "write_memo", always_conflicting)
    response = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "busy", "to": "calm"})
    assert response.status_code == 200
    assert response.json()["data"] == {"from": "busy", "to": "calm", "updatedMemos": 0, "skippedMemoIds": [memo["id"]]}
