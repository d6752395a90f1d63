"""PAT lookups are cached briefly per process: a burst of calls costs one GetItem, a revocation
in this process is honoured at once and one made elsewhere (the lookup item deleted behind the
cache's back, as another Lambda instance or the `mesq` CLI does) within TTL_SECONDS."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesq.auth import lookup_cache
from mesq.auth.tokens import _lookup_key, authenticate_token, create_token, revoke_token, secret_digest
from mesq.auth.users import create_user
from mesq.kernel.errors import Unauthorized
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
