"""A media type the blob stores would refuse (trailing space after `;`) is a VALIDATION_ERROR
on every upload path, before any byte is stored."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("mime", ["text/plain; ", "text/plain;\t", "text/plain; charset=utf-8 "])
def test_media_type_with_trailing_space_is_rejected(client, make_account, services, mime):
    account = make_account()
    base64_upload = client.post(
        "/api/toolkit/memo/resources",
        headers=account.headers,
        json={"displayName": "a.txt", "mimeType": mime, "content": "aGk="},
    )
    assert base64_upload.status_code == 400
    assert base64_upload.json()["error"]["code"] == "VALIDATION_ERROR"
    relay = client.post(
        "/api/toolkit/memo/resources/upload",
        headers=account.headers,
        files={"file": ("a.txt", b"hi", "text/plain")},
        data={"mimeType": mime},
    )
    assert relay.status_code == 400
    assert relay.json()["error"]["code"] == "VALIDATION_ERROR"
    listed = client.get("/api/toolkit/memo/resources", headers=account.headers)
    assert listed.json()["data"]["resources"] == []


def test_media_type_with_parameters_is_accepted(client, make_account):
    account = make_account()
    response = client.post(
        "/api/toolkit/memo/resources",
        headers=account.headers,
        json={"displayName": "a.txt", "mimeType": "text/plain; charset=utf-8", "content": "aGk="},
    )
    assert response.status_code == 201, response.text


EXTENSIONS = [("jpg", "image/jpeg"), ("HEIC", "image/heic"), (".png", "image/png"), ("pdf", "application/pdf")]


@pytest.mark.parametrize(("given", "meant"), EXTENSIONS)
def test_a_file_extension_given_as_the_media_type_is_named_with_the_type_it_means(client, make_account, given, meant):
    """A Shortcut fills mimeType from "Get Details of Files → File Extension" (`jpg`, `HEIC`):
    the refusal said only "'jpg' is not a media type like image/jpeg"; it now says it is a file
    extension and which media type to send."""
    account = make_account()
    session = client.post(
        "/api/toolkit/memo/resources/upload-session",
        headers=account.headers,
        json={"displayName": "IMG_0042." + given.lstrip("."), "mimeType": given, "size": 5},
    )
    assert session.status_code == 400, session.text
    said = session.json()["error"]["message"]
    assert "file extension" in said and f"send {meant}" in said, said
    unknown = client.post(
        "/api/toolkit/memo/resources/upload-session",
        headers=account.headers,
        json={"displayName": "a.zzz", "mimeType": "zzzq", "size": 5},
    )
    assert "is not a media type like image/jpeg" in unknown.json()["error"]["message"]
