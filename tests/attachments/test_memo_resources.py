"""What `create_memo` / `update_memo` store for `resources`: the registered upload, rebuilt from
its record (name, MIME type, kind, url, mcp_uri), whatever else the client sends beside `path`
and `fileSize`; a repeated path is stored once."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import MEMO, RESOURCES, TODO_ATTACHMENTS, uploaded

LIES = [
    {"displayName": "a\u0000b"},
    {"displayName": "n" * 255},
    {"displayName": "cv\u202efdp.exe"},
    {"displayName": "photo.jpg", "mimeType": "image/jpeg", "type": "image", "url": "https://evil.example/x"},
    {"mimeType": "garbage"},
    {"type": "video"},
    {"type": "image", "mcp_uri": "memo://resource/users/someone/memo/x"},
]


def _memo(client, account, resources: list[dict[str, Any]]) -> Any:
    return client.post(MEMO, headers=account.headers, json={"content": "files", "resources": resources})


@pytest.mark.parametrize("lie", LIES, ids=range(len(LIES)))
def test_create_and_update_store_the_registered_upload(client, make_account, lie):
    alice = make_account()
    real = uploaded(client, alice, b"MZ\x90\x00", name="real.exe", mime="application/x-msdownload")
    sent = {"path": real["path"], "fileSize": real["fileSize"], "displayName": "real.exe",
            "mimeType": "application/x-msdownload", "type": "file", **lie}  # fmt: skip
    created = _memo(client, alice, [sent])
    assert created.status_code == 201, created.text
    memo = created.json()["data"]["memo"]
    assert memo["resources"] == [real]
    stored = client.get(f"{MEMO}/{memo['id']}", headers=alice.headers).json()["data"]["memo"]
    assert stored["resources"] == [real]
    updated = client.patch(
        f"{MEMO}/{memo['id']}", headers=alice.headers, json={"resources": [sent], "expectedRevision": memo["revision"]}
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["data"]["memo"]["resources"] == [real]
    listed = client.get(RESOURCES, headers=alice.headers).json()["data"]["resources"]
    assert listed == [real]


def test_a_repeated_path_is_stored_once_with_its_size(client, make_account):
    alice = make_account()
    first = uploaded(client, alice, b"one", name="one.txt")
    second = uploaded(client, alice, b"two!", name="two.txt")
    renamed = {**first, "displayName": "other name.txt"}
    created = _memo(client, alice, [first, second, renamed, first])
    assert created.status_code == 201, created.text
    assert created.json()["data"]["memo"]["resources"] == [first, second]
    refused = _memo(client, alice, [first, {**second, "fileSize": 3}])  # the size is still checked
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "resources[1].fileSize: the attachment has 4 bytes"


def test_the_memo_listing_counts_only_memo_attachments(client, make_account):
    """Memo and todo attachments share one usage counter (one quota); the memo listing's
    `totalCount` is the memos' own, on a full page and on the last one."""
    bob = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    memo_files = [uploaded(client, bob, f"m{i}".encode(), name=f"m{i}.txt") for i in range(3)]
    for i in range(4):
        todo = client.post(
            TODO_ATTACHMENTS,
            headers=bob.headers,
            json={"displayName": f"t{i}", "mimeType": "text/plain", "content": "dA=="},
        )
        assert todo.status_code == 201, todo.text
    for limit in (1, 2, 3, 10):
        page = client.get(RESOURCES, headers=bob.headers, params={"limit": limit}).json()["data"]
        assert page["resources"] == memo_files[::-1][:limit]
        assert page["page"]["totalCount"] == 3, (limit, page["page"])
        assert page["page"]["hasMore"] is (limit < 3)
    last = client.get(RESOURCES, headers=bob.headers, params={"limit": 2, "offset": 2}).json()["data"]
    assert last["page"]["totalCount"] == 3 and last["page"]["returned"] == 1
