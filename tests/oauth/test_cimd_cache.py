"""Client ID Metadata Documents are kept between authorizations (auth/oauth/document_cache.py):
fresh for their Cache-Control max-age clamped to 5 min..24 h, then refetched; served stale for up
to 7 days when the metadata host fails (a real loopback metadata server, stopped); forgotten on
a definitive answer; one copy per process and one shared in the store (SQLite, DynamoDB Local:
two apps over one store are two Lambda containers); bounded in entries and bytes. The clock is
driven (`document_cache.wall_clock`), never slept on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.auth.oauth import document_cache
from mesq.auth.oauth.document_cache import (
    FRESH_DEFAULT,
    FRESH_MAX,
    FRESH_MIN,
    QUIET_SECONDS,
    STALE_SECONDS,
    DocumentCache,
    freshness,
)
from mesq.kernel.ports.storage import ItemStore
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services
from tests.oauth.helpers import REDIRECT_URI, Pkce, authorize_params
from tests.oauth.metadata_host import MetadataHost
from tests.settings import inprocess_settings

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

START = 1_900_000_000.0


@pytest.fixture
def host() -> Iterator[MetadataHost]:
    served = MetadataHost()
    yield served
    if served._httpd is not None:
        served.stop()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [START]
    monkeypatch.setattr(document_cache, "wall_clock", lambda: now[0])
    return now


@pytest.fixture
def items(tmp_path: Path) -> Iterator[ItemStore]:
    store = SQLiteItemStore(tmp_path / "items.db")
    yield store
    store.close()


@pytest.fixture(params=["items", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def store(request: pytest.FixtureRequest) -> ItemStore:
    items: ItemStore = request.getfixturevalue(request.param)
    return items


def _app(items: ItemStore, tmp_path: Path) -> TestClient:
    """One process of the OAuth app over `items` (each call: a new process with empty memory)."""
    settings = inprocess_settings(data_dir=tmp_path / "data", oauth_cimd_allow_loopback=True)
    services = Services(settings=settings, items=items, blobs=LocalBlobStore(tmp_path / "blobs"))
    return TestClient(create_local_app(services))


def _authorized(client: TestClient, url: str) -> bool:
    response = client.get("/oauth/authorize", params=authorize_params(url, Pkce.new()), follow_redirects=False)
    if response.status_code == 302:
        assert "/oauth/consent?request=" in response.headers["location"]
        return True
    assert response.status_code == 400 and response.json()["error"] == "invalid_client", response.text
    return False


def test_freshness_is_the_max_age_clamped_to_five_minutes_and_a_day():
    assert freshness(None) == FRESH_DEFAULT == 3600
    assert freshness(0) == freshness(10) == FRESH_MIN == 300
    assert freshness(7200) == 7200
    assert freshness(10**9) == FRESH_MAX == 86400


@pytest.mark.parametrize(
    ("cache_control", "fresh_for"),
    [
        ("public, max-age=600", 600),
        ("max-age=10", FRESH_MIN),
        ("no-store", FRESH_MIN),
        ("max-age=31536000, immutable", FRESH_MAX),
        ('s-maxage="900", max-age=60', 900),
        (None, FRESH_DEFAULT),
    ],
)
def test_a_document_is_refetched_only_after_its_max_age(items, tmp_path, host, clock, cache_control, fresh_for):
    url = host.serve(cache_control=cache_control)
    with _app(items, tmp_path) as client:
        assert _authorized(client, url) and host.requests == 1
        clock[0] = START + fresh_for - 1
        assert _authorized(client, url) and host.requests == 1  # fresh: no fetch
        clock[0] = START + fresh_for + 1
        assert _authorized(client, url) and host.requests == 2  # stale: fetched again


def test_the_age_header_counts_against_max_age(items, tmp_path, host, clock):
    url = host.serve()
    host.documents["/client.json"][1].update({"Cache-Control": "max-age=1000", "Age": "400"})
    with _app(items, tmp_path) as client:
        assert _authorized(client, url)
        clock[0] = START + 601
        assert _authorized(client, url) and host.requests == 2


def test_a_stale_document_answers_while_the_metadata_host_is_down(store, tmp_path, host, clock):
    url = host.serve(cache_control="max-age=600")
    with _app(store, tmp_path) as client:
        assert _authorized(client, url) and host.requests == 1
        host.stop()  # the port now refuses connections
        clock[0] = START + 601  # stale: a fetch is attempted, fails, the stale copy answers
        assert _authorized(client, url)
        clock[0] = START + 601 + QUIET_SECONDS - 1  # within the quiet minute: no new attempt
        assert _authorized(client, url)
    # Another process (a second Lambda container) has no memory of it: the store's copy answers.
    with _app(store, tmp_path) as other:
        clock[0] = START + 600 + STALE_SECONDS - 1
        assert _authorized(other, url)
        clock[0] = START + 600 + STALE_SECONDS + 1  # past its 7 stale days: refused
        assert not _authorized(other, url)
        host.start()  # the host is back: fetched and fresh again
        assert _authorized(other, url) and host.requests == 2


@pytest.mark.parametrize(
    ("status", "headers", "body"),
    [
        (503, {"Content-Type": "application/json"}, b"{}"),
        (200, {"Content-Type": "text/html"}, b"<html>We'll be right back</html>"),  # an outage page
        (200, {"Content-Type": "application/json"}, b'{"client_id": '),
        (200, {"Content-Type": "application/json"}, b'{"error": "down for maintenance"}'),  # not its document
        (429, {"Content-Type": "application/json", "Retry-After": "30"}, b"{}"),
    ],
)
def test_a_failing_host_is_covered_by_the_stale_copy(items, tmp_path, host, clock, status, headers, body):
    url = host.serve(cache_control="max-age=300")
    with _app(items, tmp_path) as client:
        assert _authorized(client, url)
        host.documents["/client.json"] = (status, headers, body)
        clock[0] = START + 301
        assert _authorized(client, url) and host.requests == 2


@pytest.mark.parametrize("gone", [404, 410])
def test_a_document_that_is_gone_is_forgotten(store, tmp_path, host, clock, gone):
    url = host.serve(cache_control="max-age=300")
    with _app(store, tmp_path) as client:
        assert _authorized(client, url)
        host.documents["/client.json"] = (gone, {}, b"")
        clock[0] = START + 301
        assert not _authorized(client, url)
    host.stop()
    with _app(store, tmp_path) as other:  # nothing left in the store either
        assert not _authorized(other, url)


def test_a_document_that_no_longer_describes_a_valid_client_is_forgotten(items, tmp_path, host, clock):
    url = host.serve(cache_control="max-age=300")
    with _app(items, tmp_path) as client:
        assert _authorized(client, url)
        host.serve(cache_control="max-age=300", redirect_uris=["http://evil.example/callback"])
        clock[0] = START + 301
        assert not _authorized(client, url)
        host.stop()
        assert not _authorized(client, url)  # no stale copy is left to fall back on


def test_an_invalid_first_document_is_never_remembered(items, tmp_path, host, clock):
    url = host.serve(client_secret="s3cret")
    with _app(items, tmp_path) as client:
        assert not _authorized(client, url)
        assert not _authorized(client, url) and host.requests == 2


def test_processes_share_the_store_copy(store, tmp_path, host, clock):
    """Two apps over one store: the second never fetches what the first fetched while it is fresh."""
    url = host.serve(cache_control="max-age=900")
    with _app(store, tmp_path) as first, _app(store, tmp_path) as second:
        assert _authorized(first, url) and host.requests == 1
        assert _authorized(second, url) and host.requests == 1
        clock[0] = START + 901
        assert _authorized(second, url) and host.requests == 2  # refetched by the second...
        assert _authorized(first, url) and host.requests == 2  # ...which the first reads from the store


def test_the_shared_copy_carries_a_ttl_at_the_end_of_its_stale_days(store, clock):
    cache = DocumentCache(store)
    url = "https://client.example/oauth/client.json"
    cache.remember(url, {"client_id": url, "redirect_uris": [REDIRECT_URI]}, 300)
    slot = cache._slot(url)
    item = store.get(slot)
    assert item is not None and item["url"] == url and item["ttl"] == int(START + 300 + STALE_SECONDS) + 1
    assert DocumentCache(store).lookup(url).document["client_id"] == url  # type: ignore[union-attr]
    cache.forget(url)
    assert store.get(slot) is None


def test_the_memory_copy_is_bounded_in_entries_and_bytes(items, clock):
    by_count = DocumentCache(items, max_entries=3)
    for index in range(10):
        url = f"https://client{index}.example/c.json"
        by_count.remember(url, {"client_id": url, "pad": "x" * 100}, None)
    assert len(by_count) == 3
    by_bytes = DocumentCache(items, max_bytes=2000)
    for index in range(10):
        url = f"https://client{index}.example/c.json"
        by_bytes.remember(url, {"client_id": url, "pad": "x" * 500}, None)
    assert by_bytes.bytes <= 2000 and len(by_bytes) == 3


def test_the_store_copy_is_bounded_by_its_slots(items, clock, monkeypatch):
    """Anonymous callers can name ever new URLs; the store keeps at most STORE_SLOTS copies."""
    monkeypatch.setattr(document_cache, "STORE_SLOTS", 4)
    cache = DocumentCache(items)
    urls = [f"https://client{index}.example/c.json" for index in range(40)]
    for url in urls:
        cache.remember(url, {"client_id": url}, None)
    kept = [items.get((f"CIMD#{slot}", "DOC")) for slot in range(4)]
    assert all(item is not None for item in kept)
    fresh_process = DocumentCache(items)
    found = [url for url in urls if fresh_process.lookup(url) is not None]
    assert sorted(found) == sorted(item["url"] for item in kept if item)  # the last writer of each slot


def test_slots_are_keyed_per_deployment(items, tmp_path, clock):
    """The slot of a URL comes from a random key the deployment keeps in its store: every process
    of one deployment agrees, and nobody outside can compute which URLs share a slot."""
    url = "https://claude.ai/oauth/mcp-oauth-client-metadata"
    first, second = DocumentCache(items), DocumentCache(items)
    assert first._slot(url) == second._slot(url)
    elsewhere = SQLiteItemStore(tmp_path / "other.db")
    try:
        others = [DocumentCache(elsewhere)._slot(f"https://client{index}.example/c.json") for index in range(8)]
        ours = [first._slot(f"https://client{index}.example/c.json") for index in range(8)]
        assert others != ours
    finally:
        elsewhere.close()
