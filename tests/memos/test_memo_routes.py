"""Every memo route over REST, success and failure, on the embedded store."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.user_zone import set_zone
from mesq.memos import store

BASE = "/api/toolkit/memo"


def create(client: TestClient, account: Any, content: str, **fields: Any) -> dict[str, Any]:
    response = client.post(BASE, headers=account.headers, json={"content": content, **fields})
    assert response.status_code == 201, response.text
    return response.json()["data"]["memo"]


def ids(data: dict[str, Any]) -> list[str]:
    return [m["id"] for m in data["pinnedItems"] + data["timelineItems"]]


@pytest.fixture
def alice(make_account):
    return make_account()


def test_create_get_and_envelope(client, alice):
    memo = create(client, alice, "First #work/meetings note", contentSource="shortcut")
    assert memo["tags"] == ["work/meetings"]
    assert memo["revision"] == 1 and memo["status"] == "NORMAL" and memo["pinned"] is False
    assert memo["contentSource"] == "shortcut"
    response = client.get(f"{BASE}/{memo['id']}", headers=alice.headers)
    body = response.json()
    assert response.status_code == 200
    assert set(body) == {"data", "traceId"} and len(body["traceId"]) == 32
    assert body["data"] == {"memo": memo}
    assert response.headers["cache-control"] == "private, no-store"


def test_default_content_source_is_api(client, alice):
    assert create(client, alice, "plain")["contentSource"] == "api"


def test_list_order_pinned_split_and_paging(client, alice):
    made = [create(client, alice, f"memo {i}", createdAt=f"2026-01-0{i + 1}T00:00:00Z") for i in range(5)]
    pinned = create(client, alice, "pinned one", pinned=True, createdAt="2025-01-01T00:00:00Z")
    first = client.get(BASE, headers=alice.headers, params={"limit": 2}).json()["data"]
    assert [m["id"] for m in first["pinnedItems"]] == [pinned["id"]]
    assert [m["id"] for m in first["timelineItems"]] == [made[4]["id"]]
    assert first["page"] == {"offset": 0, "limit": 2, "returned": 2, "totalCount": 6, "nextOffset": 2, "hasMore": True}
    seen = ids(first)
    offset = first["page"]["nextOffset"]
    while True:
        data = client.get(BASE, headers=alice.headers, params={"limit": 2, "offset": offset}).json()["data"]
        seen += ids(data)
        if not data["page"]["hasMore"]:
            assert "nextOffset" not in data["page"]
            break
        offset = data["page"]["nextOffset"]
    assert seen == [pinned["id"]] + [m["id"] for m in reversed(made)]
    beyond = client.get(BASE, headers=alice.headers, params={"offset": 50}).json()["data"]
    assert ids(beyond) == [] and beyond["page"]["totalCount"] == 6 and beyond["page"]["hasMore"] is False


def test_list_filters(client, alice):
    a = create(client, alice, "#a/b one", createdAt="2026-03-01T00:00:00+08:00")
    b = create(client, alice, "#a two #c", createdAt="2026-03-02T00:00:00Z")
    c = create(client, alice, "untagged", pinned=True, createdAt="2026-03-03T00:00:00Z")
    arch = create(client, alice, "#a archived", status="ARCHIVED")

    def listed(**params: Any) -> list[str]:
        response = client.get(BASE, headers=alice.headers, params=params)
        assert response.status_code == 200, response.text
        return ids(response.json()["data"])

    assert set(listed(tags="a")) == {a["id"], b["id"]}
    assert listed(tags="a,c") == [b["id"]]
    assert listed(tags=["a", "c"]) == [b["id"]]
    assert listed(tags="a/b") == [a["id"]]
    assert listed(untagged="true") == [c["id"]]
    assert set(listed(untagged="false")) == {a["id"], b["id"]}
    assert listed(pinned="true") == [c["id"]]
    assert listed(status="ARCHIVED") == [arch["id"]]
    assert set(listed(status="ALL", tags="a")) == {a["id"], b["id"], arch["id"]}
    assert listed(createdFrom="2026-03-02T00:00:00Z", createdTo="2026-03-03T00:00:00Z") == [b["id"]]
    # 2026-03-01T00:00+08:00 is the instant 2026-02-28T16:00Z: filters compare instants.
    assert listed(createdTo="2026-02-28T16:00:00.000001Z") == [a["id"]]
    assert listed(createdFrom="2026-03-02T00:00:00Z", createdTo="2026-03-02T00:00:00Z") == []
    assert listed(updatedAfter=b["updatedAt"]) == [c["id"]]
    assert listed(updatedAfter=c["updatedAt"]) == []


def test_include_context_counts(client, alice):
    create(client, alice, "#x/y one", createdAt="2026-05-01T20:00:00Z")
    create(client, alice, "two", pinned=True, createdAt="2026-05-01T10:00:00Z")
    create(client, alice, "#x three", status="ARCHIVED")
    plain = client.get(BASE, headers=alice.headers).json()["data"]
    assert "filters" not in plain and "contentMaxCharacters" not in plain
    data = client.get(
        BASE, headers=alice.headers, params={"includeContext": "true", "deviceTimeZone": "Asia/Shanghai"}
    ).json()["data"]
    filters = data["filters"]
    assert filters["all"] == 3 and filters["normal"] == 2 and filters["archived"] == 1
    assert filters["pinned"] == 1 and filters["untagged"] == 1
    assert filters["tags"] == {"x": 1, "x/y": 1}
    assert filters["days"] == {"2026-05-02": 1, "2026-05-01": 1}  # 20:00Z is the next day in Shanghai
    assert data["contentMaxCharacters"] == 50000 and data["doubleClickEdit"] is False
    utc = client.get(BASE, headers=alice.headers, params={"includeContext": "true"}).json()["data"]
    assert utc["filters"]["days"] == {"2026-05-01": 2}
    got = client.get(f"{BASE}/{ids(data)[0]}", headers=alice.headers, params={"includeContext": "true"}).json()["data"]
    assert got["filters"]["all"] == 3


def test_day_counts_default_to_the_users_own_zone(client, alice, services):
    """Without deviceTimeZone the days are the user's zone (an agent or a script of a Shanghai
    user): 23:30Z on 1 March is 07:30 on 2 March there. deviceTimeZone still wins; unset is UTC."""
    create(client, alice, "morning in Shanghai", createdAt="2026-03-01T23:30:00Z")
    create(client, alice, "afternoon", createdAt="2026-03-01T05:00:00Z")

    def days(path: str = BASE, **params: str) -> dict[str, int]:
        answer = client.get(path, headers=alice.headers, params={"includeContext": "true", **params})
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]["filters"]["days"]

    assert days() == {"2026-03-01": 2}  # no zone set: UTC
    set_zone(services.items, alice.user_id, "Asia/Shanghai")
    assert days() == {"2026-03-02": 1, "2026-03-01": 1}
    assert days(f"{BASE}/search", query="a") == {"2026-03-02": 1, "2026-03-01": 1}
    memo_id = ids(client.get(BASE, headers=alice.headers).json()["data"])[0]
    assert days(f"{BASE}/{memo_id}") == {"2026-03-02": 1, "2026-03-01": 1}
    assert days(deviceTimeZone="UTC") == {"2026-03-01": 2}
    assert days(deviceTimeZone="America/Los_Angeles") == {"2026-03-01": 1, "2026-02-28": 1}


def test_unknown_time_zone(client, alice):
    response = client.get(BASE, headers=alice.headers, params={"deviceTimeZone": "Mars/Olympus"})
    assert response.status_code == 400 and "deviceTimeZone" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"createdFrom": "2026-01-01"}, "createdFrom"),
        ({"createdFrom": "2026-01-01T00:00:00"}, "createdFrom"),
        ({"createdTo": "2026-01-01T00:00:00.1234567Z"}, "6 fractional"),
        ({"createdTo": "2026-01-01T00:00:00+16:00"}, "±15:59"),
        ({"createdTo": "2026-01-01T00:00:00+15:60"}, "±15:59"),
        ({"updatedAfter": "0000-01-01T00:00:00Z"}, "0001"),
        ({"createdFrom": "2026-02-30T00:00:00Z"}, "createdFrom"),
        ({"createdFrom": "2026-03-02T00:00:00Z", "createdTo": "2026-03-01T00:00:00Z"}, "after createdTo"),
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"pinned": "yes"}, "pinned"),
        ({"status": "DONE"}, "status"),
        ({"bogus": "1"}, "bogus"),
        ({"tags": "#a"}, "tags"),
    ],
)
def test_bad_list_parameters(client, alice, params, fragment):
    response = client.get(BASE, headers=alice.headers, params=params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and fragment in error["message"]


def test_accepted_time_forms(client, alice):
    for value in (
        "0001-01-01T00:00:00Z",
        "9999-12-31T08:00:59.999999-15:59",
        "2026-01-01T00:00+15:59",
        "2026-01-01t00:00:00z",
    ):
        assert client.get(BASE, headers=alice.headers, params={"createdFrom": value}).status_code == 200, value
    for value in ("0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59.999999-15:59"):  # leave 0001..9999 in UTC
        response = client.get(BASE, headers=alice.headers, params={"createdFrom": value})
        assert response.status_code == 400 and "outside" in response.json()["error"]["message"]


def test_idempotent_create(client, alice):
    headers = {**alice.headers, "Idempotency-Key": "key-1"}
    first = client.post(BASE, headers=headers, json={"content": "once"})
    again = client.post(BASE, headers=headers, json={"content": "once"})
    assert first.status_code == again.status_code == 201
    assert first.json()["data"] == again.json()["data"]
    other = client.post(BASE, headers=headers, json={"content": "different"})
    assert other.status_code == 409 and other.json()["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    listed = client.get(BASE, headers=alice.headers).json()["data"]
    assert ids(listed) == [first.json()["data"]["memo"]["id"]]


def test_a_placeholder_idempotency_key_is_refused_in_words(client, alice):
    """Issue 41: `<unique-key>` copied from an example is no key: 400, saying so, nothing written."""
    for value in ("<unique-key>", " <your key> ", "<>"):
        refused = client.post(BASE, headers={**alice.headers, "Idempotency-Key": value}, json={"content": "x"})
        error = refused.json()["error"]
        assert refused.status_code == 400 and error["code"] == "VALIDATION_ERROR", refused.text
        assert "placeholder" in error["message"] and "uuid" in error["message"].lower()
    assert ids(client.get(BASE, headers=alice.headers).json()["data"]) == []
    kept = client.post(BASE, headers={**alice.headers, "Idempotency-Key": "a<b>c"}, json={"content": "x"})
    assert kept.status_code == 201  # brackets inside a real key are fine


def test_idempotency_keys_are_per_user(client, make_account):
    one, two = make_account(), make_account()
    a = client.post(BASE, headers={**one.headers, "Idempotency-Key": "k"}, json={"content": "x"})
    b = client.post(BASE, headers={**two.headers, "Idempotency-Key": "k"}, json={"content": "x"})
    assert a.json()["data"]["memo"]["id"] != b.json()["data"]["memo"]["id"]


def test_update_revision_conflict_and_recover_data(client, alice):
    memo = create(client, alice, "v1 #old")
    url = f"{BASE}/{memo['id']}"
    ok = client.patch(url, headers=alice.headers, json={"content": "v2 #new", "expectedRevision": 1})
    assert ok.status_code == 200
    updated = ok.json()["data"]["memo"]
    assert updated["revision"] == 2 and updated["tags"] == ["new"] and updated["createdAt"] == memo["createdAt"]
    stale = client.patch(url, headers=alice.headers, json={"content": "v3", "expectedRevision": 1})
    assert stale.status_code == 409
    body = stale.json()
    assert body["error"]["code"] == "REVISION_CONFLICT"
    assert body["recoverData"]["memo"] == updated
    tags = client.get(f"{BASE}/tags", headers=alice.headers).json()["data"]["tags"]
    assert [t["path"] for t in tags] == ["new"]


def test_update_rules(client, alice):
    memo = create(client, alice, "x")
    url = f"{BASE}/{memo['id']}"
    deleted = client.patch(url, headers=alice.headers, json={"status": "DELETED", "expectedRevision": 1})
    assert deleted.status_code == 400 and "delete_memo" in deleted.json()["error"]["message"]
    nothing = client.patch(url, headers=alice.headers, json={"expectedRevision": 1})
    assert nothing.status_code == 400 and "at least one" in nothing.json()["error"]["message"]
    missing_rev = client.patch(url, headers=alice.headers, json={"content": "y"})
    assert missing_rev.status_code == 400 and "expectedRevision" in missing_rev.json()["error"]["message"]
    archived = client.patch(
        url, headers=alice.headers, json={"status": "ARCHIVED", "pinned": True, "expectedRevision": 1}
    )
    assert archived.json()["data"]["memo"]["status"] == "ARCHIVED"
    assert client.get(f"{BASE}/{memo['id']}", headers=alice.headers).json()["data"]["memo"]["revision"] == 2
    gone = client.patch(f"{BASE}/nope", headers=alice.headers, json={"content": "y", "expectedRevision": 1})
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "NOT_FOUND"


def test_trash_and_restore(client, alice):
    memo = create(client, alice, "to trash #t")
    url = f"{BASE}/{memo['id']}"
    conflict = client.request("DELETE", url, headers=alice.headers, json={"expectedRevision": 7})
    assert conflict.status_code == 409 and conflict.json()["recoverData"]["memo"]["revision"] == 1
    trashed = client.request("DELETE", url, headers=alice.headers, json={"expectedRevision": 1})
    assert trashed.status_code == 200 and trashed.json()["data"]["memo"]["status"] == "DELETED"
    assert ids(client.get(BASE, headers=alice.headers).json()["data"]) == []
    assert ids(client.get(BASE, headers=alice.headers, params={"status": "DELETED"}).json()["data"]) == [memo["id"]]
    assert client.get(f"{BASE}/tags", headers=alice.headers).json()["data"]["tags"] == []
    restored = client.post(f"{url}/restore", headers=alice.headers, json={"expectedRevision": 2})
    assert restored.status_code == 200 and restored.json()["data"]["memo"]["status"] == "NORMAL"
    again = client.post(f"{url}/restore", headers=alice.headers, json={"expectedRevision": 3})
    assert again.status_code == 409 and "not in the trash" in again.json()["error"]["message"]
    no_body = client.request("DELETE", url, headers=alice.headers)
    assert no_body.status_code == 400


def test_a_memo_in_the_trash_is_not_written_until_restored(client, alice):
    """Contract §3: a write to a record in the trash is CONFLICT. An edit never lands on a memo
    nobody sees (the history page's "restore this version" once did, leaving it in the trash)."""
    memo = create(client, alice, "第一版 #版本")
    url = f"{BASE}/{memo['id']}"
    client.request("DELETE", url, headers=alice.headers, json={"expectedRevision": 1})
    for change in ({"content": "第二版 #版本"}, {"pinned": True}, {"resources": []}):
        refused = client.patch(url, headers=alice.headers, json={"expectedRevision": 2, **change})
        error = refused.json()["error"]
        assert (refused.status_code, error["code"]) == (409, "CONFLICT"), change
        assert "in the trash" in error["message"] and "restore_memo" in error["message"]
    stale = client.patch(url, headers=alice.headers, json={"expectedRevision": 1, "content": "x"})
    assert stale.json()["error"]["code"] == "REVISION_CONFLICT"  # a stale revision says so first
    kept = client.get(url, headers=alice.headers).json()["data"]["memo"]
    assert (kept["revision"], kept["content"], kept["status"]) == (2, "第一版 #版本", "DELETED")
    client.post(f"{url}/restore", headers=alice.headers, json={"expectedRevision": 2})
    edited = client.patch(url, headers=alice.headers, json={"expectedRevision": 3, "content": "第二版 #版本"})
    assert edited.status_code == 200 and edited.json()["data"]["memo"]["content"] == "第二版 #版本"


def test_search_is_literal_and_case_insensitive(client, alice):
    hit = create(client, alice, "Learning Python 3.11 (a+b)*")
    create(client, alice, "Nothing here")
    arch = create(client, alice, "python archived", status="ARCHIVED")

    def found(query: str, **params: Any) -> list[str]:
        response = client.get(f"{BASE}/search", headers=alice.headers, params={"query": query, **params})
        assert response.status_code == 200, response.text
        return ids(response.json()["data"])

    assert found("PYTHON") == [hit["id"]]
    assert found("(a+b)*") == [hit["id"]]
    assert found("a.b") == []
    assert set(found("python", status="ALL")) == {hit["id"], arch["id"]}
    assert client.get(f"{BASE}/search", headers=alice.headers).status_code == 400


def test_batch_get(client, alice):
    one, two = create(client, alice, "1"), create(client, alice, "2")
    response = client.post(
        f"{BASE}/batch-get", headers=alice.headers, json={"ids": [two["id"], "missing", one["id"], two["id"]]}
    )
    data = response.json()["data"]
    assert [m["id"] for m in data["memos"]] == [two["id"], one["id"]] and data["missingIds"] == ["missing"]
    too_many = client.post(f"{BASE}/batch-get", headers=alice.headers, json={"ids": [f"m{i}" for i in range(101)]})
    assert too_many.status_code == 400


def test_tag_tree_and_rename(client, alice):
    a = create(client, alice, "#proj/alpha and #proj/beta `#proj/code`")
    b = create(client, alice, "#proj in text")
    trashed = create(client, alice, "#proj/gamma")
    client.request("DELETE", f"{BASE}/{trashed['id']}", headers=alice.headers, json={"expectedRevision": 1})
    tree = client.get(f"{BASE}/tags", headers=alice.headers).json()["data"]["tags"]
    assert tree == [
        {
            "name": "proj",
            "path": "proj",
            "count": 2,
            "children": [
                {"name": "alpha", "path": "proj/alpha", "count": 1, "children": []},
                {"name": "beta", "path": "proj/beta", "count": 1, "children": []},
            ],
        }
    ]
    renamed = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "proj", "to": "work/p"})
    assert renamed.json()["data"] == {"from": "proj", "to": "work/p", "updatedMemos": 3}
    memo = client.get(f"{BASE}/{a['id']}", headers=alice.headers).json()["data"]["memo"]
    assert memo["content"] == "#work/p/alpha and #work/p/beta `#proj/code`" and memo["revision"] == 2
    assert client.get(f"{BASE}/{b['id']}", headers=alice.headers).json()["data"]["memo"]["tags"] == ["work/p"]
    tree = client.get(f"{BASE}/tags", headers=alice.headers).json()["data"]["tags"]
    assert [t["path"] for t in tree] == ["work"] and tree[0]["children"][0]["count"] == 2
    bad = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "a", "to": "a"})
    assert bad.status_code == 400
    child = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "a", "to": "a/b"})
    assert child.status_code == 400


def test_select_memos_for_insight(client, alice):
    a = create(client, alice, "#topic one", createdAt="2026-04-01T00:00:00Z")
    b = create(client, alice, "#topic two", createdAt="2026-04-02T00:00:00Z")
    arch = create(client, alice, "#topic archived", status="ARCHIVED")
    url = f"{BASE}/insight-selection"
    explicit = client.get(url, headers=alice.headers, params={"memoIds": f"{a['id']},{arch['id']},nope"}).json()["data"]
    assert [m["id"] for m in explicit["memos"]] == [a["id"]]
    assert explicit["excludedIds"] == [arch["id"]] and explicit["missingIds"] == ["nope"]
    assert explicit["scope"]["mode"] == "ids"
    scoped = client.get(url, headers=alice.headers, params={"tags": "topic"}).json()["data"]
    assert [m["id"] for m in scoped["memos"]] == [b["id"], a["id"]] and scoped["scope"]["dateScopeMode"] == "all"
    ranged = client.get(url, headers=alice.headers, params={"from": "2026-04-02T00:00:00Z"}).json()["data"]
    assert [m["id"] for m in ranged["memos"]] == [b["id"]] and ranged["scope"]["dateScopeMode"] == "range"
    for params in (
        {"memoIds": a["id"], "tags": "topic"},
        {"dateScopeMode": "all", "from": "2026-04-02T00:00:00Z"},
        {"dateScopeMode": "range"},
    ):
        response = client.get(url, headers=alice.headers, params=params)
        assert response.status_code == 400, params


# -- bad bodies: always 400 VALIDATION_ERROR and nothing written ------------------------------


def _post_raw(client: TestClient, account: Any, body: bytes, content_type: str | None = "application/json"):
    headers = dict(account.headers)
    if content_type is not None:
        headers["Content-Type"] = content_type
    return client.post(BASE, headers=headers, content=body)


@pytest.mark.parametrize(
    ("body", "content_type", "fragment"),
    [
        (b'{"content": "x"}', "text/plain", "Content-Type"),
        (b'{"content": "x"}', None, "Content-Type"),
        (b'{"content": "x"}', "application/json; charset=latin-1", "Content-Type"),
        (b'{"content": "x"', "application/json", "not valid JSON"),
        (b'{"content": "\xff\xfe"}', "application/json", "UTF-8"),
        (b'["content"]', "application/json", "JSON object"),
        (b'{"content": "x", "content": "y"}', "application/json", "duplicate"),
        (b'{"content": NaN}', "application/json", "NaN"),
        (b'{"content": "x", "colour": "red"}', "application/json", "colour"),
        (b'{"content": ""}', "application/json", "content"),
        (b'{"content": 5}', "application/json", "content"),
        (b'{"content": "x", "createdAt": "yesterday"}', "application/json", "createdAt"),
        (b'{"content": "x", "status": "DELETED"}', "application/json", "delete_memo"),
        (b'{"content": "x", "idempotencyKey": "k"}', "application/json", "idempotencyKey"),
        (json.dumps({"content": "x" * 50001}).encode(), "application/json", "content"),
        (json.dumps({"content": "x", "pad": " " * (1024 * 1024)}).encode(), "application/json", "1 MiB"),
    ],
)
def test_bad_bodies_write_nothing(client, alice, body, content_type, fragment):
    response = _post_raw(client, alice, body, content_type)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert fragment in error["message"], error["message"]
    assert client.get(BASE, headers=alice.headers, params={"status": "ALL"}).json()["data"]["page"]["totalCount"] == 0


def test_json_suffix_media_type_and_exact_limit(client, alice):
    assert _post_raw(client, alice, b'{"content":"x"}', "application/vnd.mesq+json").status_code == 201
    # exactly 1 MiB of body is accepted by the transport rules (and then rejected by length rules)
    filler = 1024 * 1024 - len(b'{"content":""}')
    exact = b'{"content":"' + b"x" * filler + b'"}'
    assert len(exact) == 1024 * 1024
    response = _post_raw(client, alice, exact)
    assert response.status_code == 400 and "content" in response.json()["error"]["message"]
    assert "1 MiB" not in response.json()["error"]["message"]


def test_too_many_tags_is_rejected(client, alice):
    content = " ".join(f"#t{i}" for i in range(61))
    response = client.post(BASE, headers=alice.headers, json={"content": content})
    assert response.status_code == 400 and "tags" in response.json()["error"]["message"]


def test_a_tag_over_the_length_limit_is_refused_naming_it(client, alice, services):
    # Sweep F12: `#` and 101 characters was silently no tag (201, tags []).
    long = "长" * 101
    response = client.post(BASE, headers=alice.headers, json={"content": f"今天的想法 #{long}"})
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == "VALIDATION_ERROR", response.text
    assert "'#长长长" in error["message"] and "100" in error["message"], error
    assert create(client, alice, f"今天的想法 #{'长' * 100}")["tags"] == ["长" * 100]
    assert create(client, alice, f"`#{long}` 代码里的不算")["tags"] == []  # code: no tag, nothing refused
    memo = create(client, alice, "短的 #短")
    edit = client.patch(
        f"{BASE}/{memo['id']}", headers=alice.headers, json={"expectedRevision": 1, "content": f"#{long}"}
    )
    assert edit.status_code == 400 and "'#长长长" in edit.json()["error"]["message"], edit.text
    create(client, alice, "#短/子")
    rename = client.post(f"{BASE}/tags/rename", headers=alice.headers, json={"from": "短", "to": "名" * 99})
    assert rename.status_code == 400 and "'#名名名" in rename.json()["error"]["message"], rename.text
    # One the memo held already (stored before the limit was told) does not block its edits.
    memo = create(client, alice, "- [ ] 买菜")
    held = store.read_memo(services.items, alice.user_id, memo["id"])
    assert held is not None
    store.write_memo(services.items, alice.user_id, held, {**held, "content": f"- [ ] 买菜 #{long}"})
    ticked = client.patch(
        f"{BASE}/{memo['id']}", headers=alice.headers, json={"expectedRevision": 1, "content": f"- [x] 买菜 #{long}"}
    )
    assert ticked.status_code == 200 and ticked.json()["data"]["memo"]["tags"] == [], ticked.text


def test_resources_must_be_own_registered_attachments(client, alice, services):
    # Bytes in storage are not enough: only a registered attachment (an upload) can be attached.
    path = f"users/{alice.user_id}/memo/{'0' * 28}"
    resource = {"path": path, "displayName": "a.txt", "fileSize": 3, "mimeType": "text/plain", "type": "file"}
    services.blobs.put(path, b"abc", "text/plain")
    missing = client.post(BASE, headers=alice.headers, json={"content": "x", "resources": [resource]})
    assert missing.status_code == 400 and "resources[0].path" in missing.json()["error"]["message"]
    upload = client.post(
        "/api/toolkit/memo/resources/upload", headers=alice.headers, files={"file": ("a.txt", b"abc", "text/plain")}
    )
    assert upload.status_code == 201
    resource = {k: upload.json()["data"][k] for k in resource}
    ok = client.post(BASE, headers=alice.headers, json={"content": "x", "resources": [resource]})
    assert ok.status_code == 201 and ok.json()["data"]["memo"]["resources"] == [upload.json()["data"]]
    foreign = dict(resource, path=f"users/someone-else/memo/{'0' * 28}")
    stolen = client.post(BASE, headers=alice.headers, json={"content": "x", "resources": [foreign]})
    assert stolen.status_code == 400
    traversal = dict(resource, path=f"users/{alice.user_id}/../x/a.txt")
    assert client.post(BASE, headers=alice.headers, json={"content": "x", "resources": [traversal]}).status_code == 400


def test_an_idempotency_key_in_chinese_is_read_as_utf8(client, alice):
    """A Shortcut on a Chinese iPhone sends "the current date as text" (docs/shortcuts.md) as the
    key: its UTF-8 bytes are the key's characters, counted and quoted as such, not as Latin-1."""
    key = "2026年12月6日 下午5:08".encode()
    headers = [(b"authorization", alice.headers["Authorization"].encode()), (b"idempotency-key", key)]
    first = client.post(BASE, headers=headers, json={"content": "receipt"})
    again = client.post(BASE, headers=headers, json={"content": "receipt"})
    assert first.status_code == again.status_code == 201
    assert first.json()["data"]["memo"]["id"] == again.json()["data"]["memo"]["id"]
    long_key = [
        (b"authorization", alice.headers["Authorization"].encode()),
        (b"idempotency-key", ("键" * 150).encode()),
    ]
    assert client.post(BASE, headers=long_key, json={"content": "x"}).status_code == 201  # 150 characters, not 450
    too_long = [
        (b"authorization", alice.headers["Authorization"].encode()),
        (b"idempotency-key", ("键" * 201).encode()),
    ]
    refused = client.post(BASE, headers=too_long, json={"content": "x"})
    message = refused.json()["error"]["message"]
    assert refused.status_code == 400 and "(201 characters, at most 200)" in message and "键键" in message, message


def test_a_query_string_that_is_not_utf8_is_refused(client, alice):
    """`?query=%FF` was read as U+FFFD and answered 200 with no hits: a search for a character
    nobody typed. Percent-escapes that are not UTF-8 are a 400 naming the fix; UTF-8 ones are read."""
    client.post(BASE, headers=alice.headers, json={"content": "中文笔记"})
    refused = client.get(f"{BASE}/search?query=%FF", headers=alice.headers)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "not UTF-8" in refused.json()["error"]["message"]
    latin1 = client.get(f"{BASE}/search?query=caf%E9", headers=alice.headers)  # é as Latin-1
    assert latin1.status_code == 400
    found = client.get(f"{BASE}/search?query=%E4%B8%AD", headers=alice.headers)
    assert found.status_code == 200 and found.json()["data"]["page"]["totalCount"] == 1
