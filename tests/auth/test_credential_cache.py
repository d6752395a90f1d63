"""PAT lookups are cached briefly per process: a burst of calls costs one GetItem, a revocation
in this process is honoured at once and one made elsewhere (the lookup item deleted behind the
cache's back, as another Lambda instance or the `mesq` CLI does) within TTL_SECONDS."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from mesq.asgi.auth import cached_bearer
from mesq.auth import lookup_cache, tokens
from mesq.auth.tokens import (
    LAST_USED_RESOLUTION,
    _lookup_key,
    authenticate_token,
    cached_principal,
    create_token,
    revoke_token,
    secret_digest,
)
from mesq.auth.users import create_user
from mesq.kernel.errors import Unauthorized
from mesq.kernel.timestamps import format_timestamp, utc_now
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    services = build_services(inprocess_settings(data_dir=tmp_path))
    clock = Clock()
    cache = lookup_cache.LookupCache(clock=clock)
    monkeypatch.setattr("mesq.auth.tokens.cache_for", lambda items: cache)
    user = create_user(services.items, "cached", "correct horse battery")
    token, record = create_token(services.items, user["id"], name="t", scopes="memo:read")
    gets: list[object] = []
    real_get = services.items.get

    def counting_get(key):
        gets.append(key)
        return real_get(key)

    monkeypatch.setattr(services.items, "get", counting_get)
    yield services, token, (user["id"], record["id"]), clock, gets
    services.items.close()


def test_a_burst_of_calls_reads_the_lookup_once(setup):
    services, token, _, clock, gets = setup
    for _ in range(5):
        assert authenticate_token(services.items, token).scopes == frozenset({"memo:read"})
        clock.now += 0.5
    assert len(gets) == 1
    clock.now += lookup_cache.TTL_SECONDS
    authenticate_token(services.items, token)
    assert len(gets) == 2  # read again once the entry is older than the TTL


def test_revocation_here_is_immediate(setup):
    services, token, (user_id, token_id), _, _ = setup
    authenticate_token(services.items, token)
    revoke_token(services.items, user_id, token_id)
    with pytest.raises(Unauthorized):
        authenticate_token(services.items, token)


def test_revocation_elsewhere_is_honoured_within_the_ttl(setup):
    services, token, _, clock, _ = setup
    authenticate_token(services.items, token)
    services.items.delete(_lookup_key(secret_digest(token)))  # another process revoked it
    clock.now += lookup_cache.TTL_SECONDS - 0.1
    authenticate_token(services.items, token)  # still cached: the documented bound
    clock.now += 0.2
    with pytest.raises(Unauthorized):
        authenticate_token(services.items, token)


def test_unknown_tokens_are_never_cached(setup):
    services, _, _, _, gets = setup
    for _ in range(3):
        with pytest.raises(Unauthorized):
            authenticate_token(services.items, "mesq_pat_" + "x" * 43)
    assert len(gets) == 3


def test_a_warm_token_is_known_without_a_storage_call(setup):
    """`cached_principal` (what the MCP and REST edges try on the event loop before a worker
    thread) answers from the cache alone, and only what `authenticate_token` would answer."""
    services, token, (user_id, token_id), clock, gets = setup
    assert cached_principal(services.items, token) is None  # never seen: the store decides
    principal = authenticate_token(services.items, token)
    reads = len(gets)
    assert cached_principal(services.items, token) == principal
    assert cached_bearer(services.items, token) == principal
    assert len(gets) == reads
    clock.now += lookup_cache.TTL_SECONDS
    assert cached_principal(services.items, token) is None  # the entry aged out: read again
    authenticate_token(services.items, token)
    revoke_token(services.items, user_id, token_id)
    assert cached_principal(services.items, token) is None
    assert cached_principal(services.items, "mesq_pat_" + "x" * 43) is None
    assert cached_bearer(services.items, "mesq_at_" + "x" * 43) is None  # OAuth tokens: always the store


def test_a_use_due_to_be_recorded_goes_to_the_store(setup, monkeypatch: pytest.MonkeyPatch):
    """A lookup whose last use is older than LAST_USED_RESOLUTION needs a write, and an expired
    one an error: neither is answered from the cache."""
    services, token, _, _, _ = setup
    authenticate_token(services.items, token)
    later = utc_now() + LAST_USED_RESOLUTION + timedelta(seconds=1)
    monkeypatch.setattr("mesq.auth.tokens.utc_now", lambda: later)
    assert cached_principal(services.items, token) is None
    authenticate_token(services.items, token)  # records the use
    assert cached_principal(services.items, token) is not None
    digest = secret_digest(token)
    tokens.cache_for(services.items).update(digest, {"expiresAt": format_timestamp(later - timedelta(seconds=1))})
    assert cached_principal(services.items, token) is None
    with pytest.raises(Unauthorized):
        authenticate_token(services.items, token)
