"""What an upload refusal says to an API client, the same on every route (sweep of the attachment
refusals): an empty file is one sentence, VALIDATION_ERROR, naming the route's own field (the
session's `size`, the JSON and MCP upload's `content`, the relay's `file`); a name left out or blank
says it is missing; a file over the limit says its size in MiB (tests/web/memos/
test_upload_refusal_words.py: the same refusals on the pages, in the reader's language)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mcp.conftest import ERAS, Mcp, mcp, mcp_http, mcp_services, shared_user  # noqa: F401

from .conftest import RESOURCES, SESSION, TODO_ATTACHMENTS, relay_upload

EMPTY = "the file is empty; choose a file that has content"
MISSING = "missing; give the file a name"


def _error(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    return error


def test_an_empty_file_is_one_sentence_on_every_rest_route(client, make_account):
    alice = make_account(scopes="memo:read,memo:write,todo:read,todo:write")
    said = {
        "session": _error(client.post(SESSION, headers=alice.headers,
                                      json={"displayName": "e.txt", "mimeType": "text/plain", "size": 0})),
        "todo session": _error(client.post(f"{TODO_ATTACHMENTS}/upload-session", headers=alice.headers,
                                           json={"displayName": "e.txt", "mimeType": "text/plain", "size": 0})),
        "json": _error(client.post(RESOURCES, headers=alice.headers,
                                   json={"displayName": "e.txt", "mimeType": "text/plain", "content": ""})),
        "todo json": _error(client.post(TODO_ATTACHMENTS, headers=alice.headers,
                                        json={"displayName": "e.txt", "mimeType": "text/plain", "content": ""})),
        "relay": _error(relay_upload(client, alice, b"", name="e.txt")),
    }  # fmt: skip
    assert {route: error["message"] for route, error in said.items()} == {
        "session": f"size: {EMPTY}",
        "todo session": f"size: {EMPTY}",
        "json": f"content: {EMPTY}",
        "todo json": f"content: {EMPTY}",
        "relay": f"file: {EMPTY}",
    }


def test_a_short_content_is_not_called_empty(client, make_account):
    alice = make_account()
    cut = _error(client.post(RESOURCES, headers=alice.headers,
                             json={"displayName": "a.txt", "mimeType": "text/plain", "content": "QQ"}))  # fmt: skip
    assert cut["message"] == "content: not valid base64 (standard alphabet, with padding)"
    padding = _error(client.post(RESOURCES, headers=alice.headers,
                                 json={"displayName": "a.txt", "mimeType": "text/plain",
                                       "content": "===="}))  # fmt: skip
    assert padding["message"] == "content: not valid base64 (standard alphabet, with padding)"


@pytest.mark.parametrize("name", ["", " ", "\t "])
def test_a_missing_or_blank_name_says_it_is_missing(client, make_account, name):
    alice = make_account()
    session = _error(client.post(SESSION, headers=alice.headers,
                                 json={"displayName": name, "mimeType": "text/plain", "size": 3}))  # fmt: skip
    upload = _error(client.post(RESOURCES, headers=alice.headers,
                                json={"displayName": name, "mimeType": "text/plain", "content": "aGk="}))  # fmt: skip
    assert session["message"] == upload["message"] == f"displayName: {MISSING}"


def test_a_bad_name_and_a_large_file_say_what_to_do(client, make_account):
    alice = make_account()
    control = _error(client.post(SESSION, headers=alice.headers,
                                 json={"displayName": "a\u0001b", "mimeType": "text/plain", "size": 3}))  # fmt: skip
    assert control["message"].startswith("displayName: has a control character")
    assert "rename the file without it" in control["message"]
    big = {"displayName": "big.bin", "mimeType": "text/plain", "size": 101 * 1024 * 1024}
    large = client.post(SESSION, headers=alice.headers, json=big)
    assert large.status_code == 413 and large.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert large.json()["error"]["message"] == (
        "size: the file is 101 MiB (105906176 bytes), over the limit of 100 MiB (104857600 bytes) per file; "
        "choose a smaller file"
    )


def test_a_file_a_byte_over_the_limit_is_not_said_to_be_the_limits_size(client, make_account):
    """104857601 bytes was "the file is 100 MiB (...), over the limit of 100 MiB": a size over
    the limit is rounded up, so the two numbers a person compares never read the same."""
    alice = make_account()
    big = {"displayName": "big.bin", "mimeType": "text/plain", "size": 100 * 1024 * 1024 + 1}
    refused = client.post(SESSION, headers=alice.headers, json=big)
    message = refused.json()["error"]["message"]
    assert refused.status_code == 413, message
    assert message.startswith("size: the file is 100.1 MiB (104857601 bytes), over the limit of 100 MiB"), message


@pytest.mark.parametrize("era", ERAS)
def test_mcp_says_the_same_sentence(mcp, era):  # noqa: F811
    client = mcp(era=era)
    empty = client.fails("upload_memo_resource", {"displayName": "e.txt", "mimeType": "text/plain", "content": ""})
    assert empty["error"] == {"code": "VALIDATION_ERROR", "message": f"content: {EMPTY}"}
    session = client.fails("create_memo_upload_session", {"displayName": "e.txt", "mimeType": "text/plain", "size": 0})
    assert session["error"] == {"code": "VALIDATION_ERROR", "message": f"size: {EMPTY}"}
    blank = client.fails("create_memo_upload_session", {"displayName": " ", "mimeType": "text/plain", "size": 3})
    assert blank["error"] == {"code": "VALIDATION_ERROR", "message": f"displayName: {MISSING}"}


def test_a_size_under_a_mib_is_said_in_kib() -> None:
    """A 900-byte quota read "0.1 MiB (900 bytes)": under a MiB, sizes are said in KiB."""
    from mesq.attachments.store import mebibytes

    assert [mebibytes(size) for size in (0, 10, 900, 1024, 900 * 1024, 1024**2 - 1, 1024**2, 1024**2 + 1)] == [
        "0 KiB", "0.1 KiB", "0.9 KiB", "1 KiB", "900 KiB", "1024 KiB", "1 MiB", "1.1 MiB",
    ]  # fmt: skip
