"""The read route's status codes (docs/contract.md §8) and the path rules: 404 missing object, 500 storage
failure before the response or a response-header timeout, 499 client cancelled (driven through
ASGI with a receive() that reports the disconnect); traversal, another user's path, a deleted
object's path and unregistered objects never return bytes; REST reads count in the
attachment-read bucket."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mesq.adapters.store.blobs_s3 import S3BlobStore
from mesq.attachments import reads
from mesq.attachments.paths import staging_path
from mesq.kernel.ports.storage import StoreUnavailable
from mesq.runtime.server import create_local_app

from .conftest import READ, app_client, read, uploaded

SECRET = b"top secret bytes"


def test_path_rules_never_return_bytes(client, make_account, services):
    alice, bob = make_account(), make_account()
    mine = uploaded(client, alice, SECRET)
    theirs = uploaded(client, bob, SECRET)
    services.blobs.put(staging_path(alice.user_id, "abc"), SECRET, "text/plain")  # not registered
    attempts = {
        "another user": (theirs["path"], 403),
        "traversal": (f"users/{alice.user_id}/memo/../../{bob.user_id}/memo/{theirs['path'][-28:]}", 400),
        "encoded traversal": (f"users/{alice.user_id}/memo/%2e%2e/x", 400),
        "absolute": ("/etc/passwd", 400),
        "staging object": (staging_path(alice.user_id, "abc"), 400),
        "unregistered": (f"users/{alice.user_id}/memo/{'0' * 28}", 404),
    }
    for case, (path, status) in attempts.items():
        for method in ("GET", "HEAD"):
            response = read(client, alice, path, method)
            assert response.status_code == status, (case, method, response.text)
            assert SECRET not in response.content
        content = client.get("/api/toolkit/memo/resources/content", headers=alice.headers, params={"path": path})
        assert content.status_code == status and SECRET.hex() not in content.text
    assert read(client, alice, mine["path"]).content == SECRET


def test_deleted_object_is_404(client, make_account, services):
    alice = make_account()
    resource = uploaded(client, alice, SECRET)
    services.blobs.delete(resource["path"])
    for method in ("GET", "HEAD"):
        response = read(client, alice, resource["path"], method)
        assert response.status_code == 404 and SECRET not in response.content
    assert read(client, alice, resource["path"]).json()["error"]["code"] == "NOT_FOUND"
    meta = client.get("/api/toolkit/memo/resources/metadata", headers=alice.headers, params={"path": resource["path"]})
    assert meta.status_code == 404


def test_query_must_be_one_path(client, make_account):
    alice = make_account()
    assert client.get(READ, headers=alice.headers).status_code == 400
    assert client.get(READ, headers=alice.headers, params={"path": "a", "x": "1"}).status_code == 400


class FlakyBlobs:
    """Wraps a real store; fails where told (the kinds of faults S3 raises as StoreUnavailable)."""

    def __init__(self, inner: Any, fail: str) -> None:
        self.inner, self.fail = inner, fail
        self.transport = inner.transport
        self.closed = threading.Event()
        self.release = threading.Event()
        self.entered = threading.Event()
        self.chunks_read = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def head(self, path: str) -> Any:
        if self.fail == "head":
            raise StoreUnavailable("S3 could not be reached: Read timeout on endpoint URL")
        return self.inner.head(path)

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        if self.fail == "open":
            raise StoreUnavailable("S3 is unavailable (503)")
        self.entered.set()
        if self.fail == "slow-open":
            self.release.wait(10)

        def chunks() -> Iterator[bytes]:
            try:
                for chunk in self.inner.stream(path, 4):
                    self.chunks_read += 1
                    yield chunk
            finally:
                self.closed.set()

        return chunks()


@pytest.mark.parametrize("fail", ["head", "open"])
def test_storage_failure_before_the_response_is_500(make_services, make_account_for, fail):
    services = make_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        resource = uploaded(client, alice, SECRET)
    flaky = make_services(FlakyBlobs(services.blobs, fail))
    flaky_items = flaky.items
    flaky = type(flaky)(services.settings, services.items, flaky.blobs)
    with app_client(flaky) as client:
        response = read(client, alice, resource["path"])
        assert response.status_code == 500 and response.json()["error"]["code"] == "INTERNAL"
        assert "storage failed before the response" in response.json()["error"]["message"]
    flaky_items.close()


def test_s3_response_header_timeout_is_500(make_services, make_account_for, fake_aws_env):
    """A real S3 client (short read timeout, one attempt) against a server that accepts the
    connection and never answers: the header timeout maps to 500 before any byte is sent."""
    import boto3
    from botocore.config import Config

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    client = boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="x", region_name="us-east-1").client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{listener.getsockname()[1]}",
        config=Config(connect_timeout=1, read_timeout=0.5, retries={"total_max_attempts": 1}),
    )
    local = make_services()
    alice = make_account_for(local)
    with app_client(local) as app:
        resource = uploaded(app, alice, SECRET)
    stalled = type(local)(local.settings, local.items, S3BlobStore("bucket", client=client))
    try:
        with app_client(stalled) as app:
            response = read(app, alice, resource["path"])
            assert response.status_code == 500 and response.json()["error"]["code"] == "INTERNAL"
    finally:
        stop.set()
        listener.close()
        for conn in accepted:
            conn.close()


def test_s3_client_timeouts_are_5s_connect_30s_headers():
    from mesq.adapters.store.blobs_s3 import make_s3_client

    config = make_s3_client(region="us-east-1").meta.config
    assert (config.connect_timeout, config.read_timeout) == (5, 30)


async def _drive(app: Any, path: str, token: str, receive: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": READ, "raw_path": READ.encode(), "query_string": f"path={path}".encode(), "root_path": "",
        "headers": [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode())],
        "client": ("127.0.0.1", 1), "server": ("test", 80),
    }  # fmt: skip

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def test_client_cancel_before_the_response_is_499(make_services, make_account_for):
    services = make_services()
    alice = make_account_for(services)
    with app_client(services) as client:
        resource = uploaded(client, alice, SECRET)
    slow = FlakyBlobs(services.blobs, "slow-open")
    app = create_local_app(type(services)(services.settings, services.items, slow))

    async def gone() -> dict[str, Any]:
        while not slow.entered.is_set():  # storage is being asked (and hangs) when the client leaves
            await asyncio.sleep(0.01)
        return {"type": "http.disconnect"}

    sent = asyncio.run(_drive(app, resource["path"], alice.token, gone))
    slow.release.set()
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 499
    assert all(SECRET not in m.get("body", b"") for m in sent)
    assert slow.closed.wait(5)  # the object opened late is still closed


def test_client_cancel_while_streaming_stops_reading(make_services, make_account_for):
    services = make_services()
    alice = make_account_for(services)
    body = b"0123456789" * 100
    with app_client(services) as client:
        resource = uploaded(client, alice, body)
    watched = FlakyBlobs(services.blobs, "none")
    app = create_local_app(type(services)(services.settings, services.items, watched))

    async def scenario() -> list[dict[str, Any]]:
        first_body = asyncio.Event()
        sent: list[dict[str, Any]] = []
        requested = False

        async def receive() -> dict[str, Any]:
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await first_body.wait()
            return {"type": "http.disconnect"}

        scope_sent = await _drive_with(app, resource["path"], alice.token, receive, sent, first_body)
        return scope_sent

    sent = asyncio.run(scenario())
    assert sent[0]["status"] == 200
    streamed = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert 0 < len(streamed) < len(body)
    assert watched.closed.is_set() and watched.chunks_read < len(body) // 4


async def _drive_with(
    app: Any, path: str, token: str, receive: Any, sent: list[dict[str, Any]], first_body: asyncio.Event
) -> list[dict[str, Any]]:
    async def record(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and message.get("body"):
            first_body.set()
            await asyncio.sleep(0.05)  # the disconnect arrives while the next chunk is read

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": READ, "raw_path": READ.encode(), "query_string": f"path={path}".encode(), "root_path": "",
        "headers": [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode())],
        "client": ("127.0.0.1", 1), "server": ("test", 80),
    }  # fmt: skip
    await app(scope, receive, record)
    return sent


def test_rest_reads_count_in_the_attachment_read_bucket(client, make_account):
    alice = make_account()
    resource = uploaded(client, alice, SECRET)
    statuses = [read(client, alice, resource["path"]).status_code for _ in range(30)]
    assert statuses == [200] * 30
    limited = read(client, alice, resource["path"])
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "RATE_LIMITED"
    assert int(limited.headers["retry-after"]) >= 1
    # The base64 read over REST shares the bucket; other routes do not.
    content = client.get(
        "/api/toolkit/memo/resources/content", headers=alice.headers, params={"path": resource["path"]}
    )
    assert content.status_code == 429
    assert client.get("/api/toolkit/memo/resources", headers=alice.headers).status_code == 200


def test_capped_read_checks_stored_size_then_reading(make_services, make_account_for):
    services = make_services(mcp_read_cap_bytes=8)
    alice = make_account_for(services)
    with app_client(services) as client:
        small = uploaded(client, alice, b"12345678")
        large = uploaded(client, alice, b"123456789")
        ok = client.get("/api/toolkit/memo/resources/content", headers=alice.headers, params={"path": small["path"]})
        assert ok.status_code == 200
        over = client.get("/api/toolkit/memo/resources/content", headers=alice.headers, params={"path": large["path"]})
        assert over.status_code == 400 and over.json()["error"]["code"] == "RESPONSE_TOO_LARGE"
        assert "/api/toolkit/memo/resources/read?path=" in over.json()["error"]["message"]
        # The object grew behind the record's back: the read itself stops at the cap.
        services.blobs.put(small["path"], b"x" * 1000, "text/plain")
        grown = client.get("/api/toolkit/memo/resources/content", headers=alice.headers, params={"path": small["path"]})
        assert grown.status_code == 400 and grown.json()["error"]["code"] == "RESPONSE_TOO_LARGE"
        # REST download has no cap (it streams), but never more than the recorded Content-Length... of storage.
        assert len(read(client, alice, small["path"]).content) == 1000
    assert reads  # the module under test


@pytest.fixture
def fake_aws_env(monkeypatch):
    from tests.contract.blob_fixtures import use_fake_aws

    use_fake_aws(monkeypatch)
