"""The relay transport (local storage, as `mesq serve` runs by default), over the real local app:
upload session -> multipart upload -> memo with the resource -> GET/HEAD, base64 reads, metadata
and lists; the per-file limit and the account quota, each leaving nothing behind."""

from __future__ import annotations

import base64

from mesq.attachments import uploads
from mesq.auth.tokens import create_token

from .conftest import (
    MEMO,
    RELAY,
    RESOURCES,
    SESSION,
    app_client,
    b64,
    memo_resource,
    read,
    relay_upload,
    uploaded,
)


def test_relay_flow_end_to_end(client, make_account):
    alice = make_account()
    session = client.post(
        SESSION, headers=alice.headers, json={"displayName": "报告.pdf", "mimeType": "application/pdf", "size": 5}
    )
    assert session.status_code == 201, session.text
    assert session.json()["data"] == {
        "transport": "relay", "uploadEndpoint": f"http://testserver{RELAY}", "maxBytes": 100 * 1024 * 1024
    }  # fmt: skip

    body = b"%PDF!"
    resource = uploaded(client, alice, body, "报告.pdf", "application/pdf")
    assert resource["fileSize"] == 5 and resource["type"] == "file" and resource["mimeType"] == "application/pdf"
    assert resource["displayName"] == "报告.pdf"
    assert resource["path"].startswith(f"users/{alice.user_id}/memo/")
    assert resource["mcp_uri"] == "memo://resource/" + resource["path"].replace("/", "%2F")
    # Absolute by the request's own base URL (no public URL here: decisions.md "URLs in answers").
    encoded = resource["path"].replace("/", "%2F")
    assert resource["url"] == f"http://testserver/api/toolkit/memo/resources/read?path={encoded}"

    # The completion/upload answer goes into create_memo.resources as it is.
    memo = client.post(MEMO, headers=alice.headers, json={"content": "with a file", "resources": [resource]})
    assert memo.status_code == 201, memo.text
    assert memo.json()["data"]["memo"]["resources"] == [resource]

    got = client.get(resource["url"], headers=alice.headers)
    assert got.status_code == 200 and got.content == body
    assert got.headers["content-type"] == "application/pdf" and got.headers["content-length"] == "5"
    assert (
        got.headers["content-disposition"].startswith("attachment;")
        and "filename*=UTF-8''%E6%8A%A5" in got.headers["content-disposition"]
    )
    assert got.headers["x-content-type-options"] == "nosniff" and "sandbox" in got.headers["content-security-policy"]
    head = read(client, alice, resource["path"], "HEAD")
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == "5"

    content = client.get(f"{RESOURCES}/content", headers=alice.headers, params={"path": resource["path"]}).json()[
        "data"
    ]
    assert base64.b64decode(content["content"]) == body and content["encoding"] == "base64"
    metadata = client.get(f"{RESOURCES}/metadata", headers=alice.headers, params={"path": resource["path"]}).json()[
        "data"
    ]
    assert metadata["resource"] == resource and metadata["storage"]["size"] == 5
    assert metadata["storage"]["contentType"] == "application/pdf"
    listed = client.get(RESOURCES, headers=alice.headers).json()["data"]
    assert listed["resources"] == [resource] and listed["page"]["totalCount"] == 1
    memo_id = memo.json()["data"]["memo"]["id"]
    of_memo = client.get(RESOURCES, headers=alice.headers, params={"memoId": memo_id}).json()["data"]
    assert of_memo["resources"] == [resource]


def test_base64_upload_over_rest_and_listing_order(client, make_account):
    alice = make_account()
    first = client.post(
        RESOURCES, headers=alice.headers, json={"displayName": "a.png", "mimeType": "image/png", "content": b64(b"one")}
    )
    assert first.status_code == 201 and first.json()["data"]["type"] == "image"
    second = uploaded(client, alice, b"two", "b.mp3", "audio/mpeg")
    assert second["type"] == "audio"
    listed = client.get(RESOURCES, headers=alice.headers, params={"limit": 1}).json()["data"]
    assert [r["path"] for r in listed["resources"]] == [second["path"]]  # newest first
    assert listed["page"] == {"offset": 0, "limit": 1, "returned": 1, "totalCount": 2, "hasMore": True, "nextOffset": 1}
    rest = client.get(RESOURCES, headers=alice.headers, params={"offset": 1}).json()["data"]
    assert [r["path"] for r in rest["resources"]] == [first.json()["data"]["path"]]
    bad = client.post(
        RESOURCES, headers=alice.headers, json={"displayName": "a", "mimeType": "text/plain", "content": "!!!!"}
    )
    assert bad.status_code == 400 and "base64" in bad.json()["error"]["message"]


def test_scopes_and_credentials(client, make_account, services):
    alice = make_account()
    reader = make_account(scopes="memo:read")
    assert relay_upload(client, reader, b"x").status_code == 403
    assert client.post(RELAY, files={"file": ("a", b"x", "text/plain")}).status_code == 401
    resource = uploaded(client, alice, b"x")
    assert client.get("/api/toolkit/memo/resources/read", params={"path": resource["path"]}).status_code == 401
    todo_only, _ = create_token(services.items, alice.user_id, name="t", scopes="todo:read")
    denied = client.get("/api/toolkit/memo/resources/read", params={"path": resource["path"]},
                        headers={"Authorization": f"Bearer {todo_only}"})  # fmt: skip
    assert denied.status_code == 403 and denied.content != b"x"


def test_bad_multipart_and_metadata(client, make_account):
    alice = make_account()
    not_form = client.post(RELAY, headers={**alice.headers, "Content-Type": "application/octet-stream"}, content=b"x")
    assert not_form.status_code == 400 and "multipart/form-data" in not_form.json()["error"]["message"]
    no_file = client.post(RELAY, headers=alice.headers, data={"displayName": "x"}, files={"other": ("a", b"x")})
    assert no_file.status_code == 400 and "'file'" in no_file.json()["error"]["message"]
    empty = relay_upload(client, alice, b"")
    assert empty.status_code == 400
    assert empty.json()["error"]["message"] == "file: the file is empty; choose a file that has content"
    bad_type = relay_upload(client, alice, b"x", mime="not a type")
    assert bad_type.status_code == 400 and "mimeType" in bad_type.json()["error"]["message"]
    named = client.post(RELAY, headers=alice.headers, data={"displayName": "Renamed.txt", "mimeType": "text/markdown"},
                        files={"file": ("orig.bin", b"# hi", "application/octet-stream")})  # fmt: skip
    assert named.status_code == 201
    assert (named.json()["data"]["displayName"], named.json()["data"]["mimeType"]) == ("Renamed.txt", "text/markdown")
    session = client.post(
        SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "text/plain", "size": 0}
    )
    assert session.status_code == 400


def _blob_files(services):
    return sorted(p for p in services.settings.blob_dir.rglob("*") if p.is_file())


def test_per_file_limit(monkeypatch, make_services, make_account_for):
    monkeypatch.setattr(uploads, "MAX_FILE_BYTES", 1000)
    services = make_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        session = client.post(
            SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "text/plain", "size": 1001}
        )
        assert session.status_code == 413 and session.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
        assert relay_upload(client, alice, b"x" * 1000).status_code == 201
        too_big = relay_upload(client, alice, b"x" * 1001)
        assert too_big.status_code == 413 and "100 MiB" in too_big.json()["error"]["message"]
        # Bodies beyond the file limit + form overhead are cut off while reading.
        huge = relay_upload(client, alice, b"x" * (1000 + 1024 * 1024 + 1))
        assert huge.status_code == 413
        b64_big = client.post(
            RESOURCES,
            headers=alice.headers,
            json={"displayName": "x", "mimeType": "text/plain", "content": b64(b"x" * 1001)},
        )
        assert b64_big.status_code == 413 and "create_memo_upload_session" in b64_big.json()["error"]["message"]
        assert client.get(RESOURCES, headers=alice.headers).json()["data"]["page"]["totalCount"] == 1
    assert len([p for p in _blob_files(services) if p.name.endswith("~blob")]) == 1


def test_account_quota(make_services, make_account_for):
    services = make_services(attachment_quota_bytes=10)
    alice = make_account_for(services)
    bob = make_account_for(services)
    with app_client(services) as client:
        assert relay_upload(client, alice, b"123456").status_code == 201
        session = client.post(
            SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "text/plain", "size": 5}
        )
        assert session.status_code == 413 and "quota" in session.json()["error"]["message"]
        over = relay_upload(client, alice, b"12345")
        assert over.status_code == 413 and "(6 bytes) of 0.1 KiB (10 bytes) are used" in over.json()["error"]["message"]
        assert relay_upload(client, alice, b"1234").status_code == 201  # exactly fills it
        assert relay_upload(client, bob, b"1234567890").status_code == 201  # per account
        listed = client.get(RESOURCES, headers=alice.headers).json()["data"]
        assert listed["page"]["totalCount"] == 2
    # The refused uploads left no bytes behind: 3 stored objects in all.
    assert len([p for p in _blob_files(services) if p.name.endswith("~blob")]) == 3


def test_memo_resources_must_be_registered_attachments(client, make_account, services):
    alice, bob = make_account(), make_account()
    mine = uploaded(client, alice, b"abc")
    theirs = uploaded(client, bob, b"abc")
    # Bytes put straight into storage under alice's prefix are not an attachment.
    services.blobs.put(f"users/{alice.user_id}/memo/{'0' * 28}", b"abc", "text/plain")
    cases = {
        "unregistered": dict(memo_resource(mine), path=f"users/{alice.user_id}/memo/{'0' * 28}"),
        "another user": memo_resource(theirs),
        "traversal": dict(memo_resource(mine), path=f"users/{alice.user_id}/memo/../../{bob.user_id}/x"),
        "wrong size": dict(memo_resource(mine), fileSize=4),
    }
    for case, resource in cases.items():
        response = client.post(MEMO, headers=alice.headers, json={"content": "x", "resources": [resource]})
        assert response.status_code == 400, case
        assert "resources[0]" in response.json()["error"]["message"], case
    ok = client.post(MEMO, headers=alice.headers, json={"content": "x", "resources": [memo_resource(mine)]})
    assert ok.status_code == 201
    memo = ok.json()["data"]["memo"]
    assert memo["resources"] == [mine]  # url and mcp_uri filled in
    updated = client.patch(
        f"{MEMO}/{memo['id']}",
        headers=alice.headers,
        json={"expectedRevision": 1, "resources": [memo_resource(theirs)]},
    )
    assert updated.status_code == 400
