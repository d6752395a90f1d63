"""Fixtures for the BlobStore contract suite (imported by test_blob_store.py, not a conftest).

`blob_store` runs every contract test against the local adapter (tmp_path) and the S3 adapter
(moto `mock_aws`, in-process). `served_blob_store` does the same, but its S3 store talks HTTP to a
loopback moto server, so presigned URLs can be exercised for real with httpx.

moto does not verify SigV4 *query* signatures (presigned URLs): it would accept a presigned PUT
with any Content-Type or length. `SigV4QueryVerifier` is a WSGI middleware, installed in front of
the moto server, that checks them the way S3 does (canonical request over the signed headers
actually received, HMAC chain, expiry) and answers 403 otherwise; everything else passes through.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import time
import uuid
from calendar import timegm
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote

import boto3
import pytest
from moto import mock_aws
from moto.server import ThreadedMotoServer

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.blobs_s3 import S3BlobStore, make_s3_client
from mesq.adapters.store.deferred_blobs import DeferredBlobStore
from mesq.kernel.ports.storage import BlobStore

REGION = "us-east-1"
FAKE_ACCESS_KEY = "testing"
FAKE_SECRET_KEY = "testing"
BUCKET = "mesq-contract-blobs"
STORE_KINDS = ["local", "s3"]

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def use_fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and region; nothing from the developer's AWS config can leak in."""
    for name in (
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_REGION",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", FAKE_ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAKE_SECRET_KEY)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)


@pytest.fixture
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake_aws(monkeypatch)


@functools.cache
def fake_session() -> boto3.session.Session:
    # mock_aws() resets boto3's default session, so clients built from it reload every service
    # model (~0.3 s each); one long-lived session with fake credentials keeps the suite fast.
    return boto3.session.Session(
        aws_access_key_id=FAKE_ACCESS_KEY, aws_secret_access_key=FAKE_SECRET_KEY, region_name=REGION
    )


@pytest.fixture
def s3_store(fake_aws: None) -> Iterator[S3BlobStore]:
    """S3BlobStore with the production client configuration, against in-process moto."""
    with mock_aws():
        store = S3BlobStore(BUCKET, client=make_s3_client(region=REGION, session=fake_session()))
        store.client.create_bucket(Bucket=BUCKET)
        yield store


@pytest.fixture(params=[*STORE_KINDS, "deferred-s3"])
def blob_store(request: pytest.FixtureRequest, tmp_path: Any) -> BlobStore:
    if request.param == "local":
        return LocalBlobStore(tmp_path / "blobs")
    store: S3BlobStore = request.getfixturevalue("s3_store")
    if request.param == "deferred-s3":  # what build_blob_store gives a Lambda function
        return DeferredBlobStore(lambda: store, S3BlobStore.transport)
    return store


# -- moto in server mode, with presigned-URL verification ---------------------------------------


def _uri_encode(value: str) -> str:
    return quote(value, safe="-_.~")


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


class SigV4QueryVerifier:
    """Reject presigned (X-Amz-Signature in the query) requests whose signature S3 would reject."""

    def __init__(self, app: WsgiApp, secret_key: str) -> None:
        self._app = app
        self._secret_key = secret_key

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        pairs = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        if any(name == "X-Amz-Signature" for name, _ in pairs):
            problem = self._problem(environ, pairs)
            if problem is not None:
                code, message = problem
                body = (
                    f'<?xml version="1.0" encoding="UTF-8"?>\n'
                    f"<Error><Code>{code}</Code><Message>{message}</Message></Error>"
                ).encode()
                start_response("403 Forbidden", [("Content-Type", "application/xml")])
                return [body]
        return self._app(environ, start_response)

    def _problem(self, environ: dict[str, Any], pairs: list[tuple[str, str]]) -> tuple[str, str] | None:
        params = dict(pairs)
        try:
            amz_date = params["X-Amz-Date"]
            _, day, region, service, terminator = params["X-Amz-Credential"].split("/")
            signed_headers = params["X-Amz-SignedHeaders"].split(";")
            expires = int(params["X-Amz-Expires"])
            provided = params["X-Amz-Signature"]
            signed_at = timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ"))
        except (KeyError, ValueError):
            return "AuthorizationQueryParametersError", "malformed presigned URL"
        if params.get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" or terminator != "aws4_request":
            return "AuthorizationQueryParametersError", "unsupported algorithm"
        if time.time() > signed_at + expires:
            return "AccessDenied", "Request has expired"
        canonical_headers = ""
        for name in signed_headers:
            value = self._header(environ, name)
            if value is None:
                return "SignatureDoesNotMatch", f"signed header {name} is missing"
            canonical_headers += f"{name}:{' '.join(value.split())}\n"
        raw_path = str(environ.get("RAW_URI") or quote(environ.get("PATH_INFO", "/"))).split("?")[0]
        canonical_query = "&".join(
            f"{k}={v}"
            for k, v in sorted(
                (_uri_encode(name), _uri_encode(value)) for name, value in pairs if name != "X-Amz-Signature"
            )
        )
        canonical_request = "\n".join(
            [
                environ["REQUEST_METHOD"],
                raw_path,
                canonical_query,
                canonical_headers,
                ";".join(signed_headers),
                "UNSIGNED-PAYLOAD",
            ]
        )
        scope = f"{day}/{region}/{service}/{terminator}"
        string_to_sign = "\n".join(
            ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
        )
        key = ("AWS4" + self._secret_key).encode()
        for part in (day, region, service, terminator):
            key = _hmac(key, part)
        expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, provided):
            return "SignatureDoesNotMatch", "The request signature we calculated does not match"
        return None

    @staticmethod
    def _header(environ: dict[str, Any], name: str) -> str | None:
        if name == "content-type":
            key = "CONTENT_TYPE"
        elif name == "content-length":
            key = "CONTENT_LENGTH"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
        value = environ.get(key)
        return None if value is None or (value == "" and key == "CONTENT_TYPE") else str(value)


class MotoS3Server:
    """moto in server mode on 127.0.0.1 (ephemeral port), with SigV4QueryVerifier in front."""

    def __init__(self) -> None:
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.url = ""

    def start(self) -> None:
        self._server.start()
        host, port = self._server.get_host_and_port()
        # ThreadedMotoServer has no hook for middleware; wrap the WSGI app of its werkzeug server.
        wsgi_server = getattr(self._server, "_server", None)
        if wsgi_server is None or not hasattr(wsgi_server, "app"):
            self._server.stop()
            raise RuntimeError("moto's ThreadedMotoServer changed: cannot install SigV4QueryVerifier")
        wsgi_server.app = SigV4QueryVerifier(wsgi_server.app, FAKE_SECRET_KEY)
        self.url = f"http://{host}:{port}"

    def stop(self) -> None:
        self._server.stop()


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoS3Server]:
    server = MotoS3Server()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def served_s3_store(moto_server: MotoS3Server, monkeypatch: pytest.MonkeyPatch) -> S3BlobStore:
    """S3BlobStore against moto's HTTP server: its presigned URLs answer over the network."""
    use_fake_aws(monkeypatch)
    bucket = f"mesq-contract-{uuid.uuid4().hex[:12]}"  # moto's state is global: never reuse
    store = S3BlobStore(bucket, client=make_s3_client(moto_server.url, REGION, fake_session()))
    store.client.create_bucket(Bucket=bucket)
    return store


@pytest.fixture(params=STORE_KINDS)
def served_blob_store(request: pytest.FixtureRequest, tmp_path: Any) -> BlobStore:
    if request.param == "local":
        return LocalBlobStore(tmp_path / "blobs")
    store: S3BlobStore = request.getfixturevalue("served_s3_store")
    return store
