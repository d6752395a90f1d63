"""A refresh token presented twice within the grace period (a host's two requests noticing an
expired token together, a retry after a lost response) answers the pair it answered first; a
replay after it still revokes the grant (OAuth 2.1 §4.3.1). docs/decisions.md, "refresh-token
grace"."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.auth.oauth import grants
from mesq.auth.oauth.authorization import list_grants
from mesq.auth.oauth.keys import REFRESH_GRACE_SECONDS, digest, refresh_key
from mesq.auth.oauth.sealing import seal, unseal
from mesq.auth.users import create_user
from mesq.kernel.ports.storage import ItemStore, WriteOp
from mesq.runtime.server import create_local_app
from mesq.wiring.services import Services, build_services
from tests.mcp.conftest import Mcp
from tests.oauth.conftest import INSTANCE, Flow
from tests.oauth.helpers import REDIRECT_URI
from tests.settings import inprocess_settings

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401


class RacingStore:
    """The real item store, whose next `parties` transactions wait for one another before they
    run: two refreshes both read the token active, then both write (the race, every time)."""

    def __init__(self, items: ItemStore) -> None:
        self._items = items
        self._barrier: threading.Barrier | None = None
        self._before: Callable[[], None] | None = None

    def race(self, parties: int) -> None:
        self._barrier = threading.Barrier(parties, timeout=10)

    def before_next_write(self, action: Callable[[], None]) -> None:
        """Run `action` just before the next transaction (a request's write, mid-request)."""
        self._before = action

    def transact(self, ops: Sequence[WriteOp]) -> None:
        action, self._before = self._before, None
        if action is not None:
            action()
        barrier = self._barrier
        if barrier is not None:
            barrier.wait()
            self._barrier = None
        self._items.transact(ops)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._items, name)


@pytest.fixture(params=["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)])
def store_flow(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flow]:
    settings = inprocess_settings(data_dir=tmp_path / "data")
    if request.param == "sqlite":
        services = build_services(settings)
    else:
        services = Services(settings=settings, items=request.getfixturevalue("dynamodb_local"),
                            blobs=LocalBlobStore(tmp_path / "blobs"))  # fmt: skip
    real = services.items
    services = dataclasses.replace(services, items=RacingStore(real))  # type: ignore[arg-type]
    with TestClient(create_local_app(services)) as client:
        registered = client.post(
            "/oauth/register", json={"client_name": "Grace Agent", "redirect_uris": [REDIRECT_URI]}
        )
        assert registered.status_code == 201, registered.text
        user = create_user(services.items, "graceuser", "correct horse battery")
        yield Flow(client=client, services=services, client_id=registered.json()["client_id"], user_id=user["id"])
    if request.param == "sqlite":
        real.close()


def _refresh(flow: Flow, token: str) -> Any:
    return flow.token(grant_type="refresh_token", refresh_token=token)


def _works(flow: Flow, access_token: str) -> bool:
    return Mcp(flow.client, access_token).post("tools/list").status_code == 200


def test_a_refresh_presented_again_within_the_grace_answers_the_same_pair(store_flow: Flow):
    flow = store_flow
    first = flow.tokens()
    answered = _refresh(flow, first["refresh_token"])
    assert answered.status_code == 200, answered.text
    again = _refresh(flow, first["refresh_token"])  # the host retries: the first answer was lost
    assert again.status_code == 200, again.text
    pair = answered.json()
    assert (again.json()["access_token"], again.json()["refresh_token"]) == (
        pair["access_token"],
        pair["refresh_token"],
    )
    assert again.json()["scope"] == pair["scope"] and 0 < again.json()["expires_in"] <= pair["expires_in"]
    assert _works(flow, pair["access_token"])
    assert len(list_grants(flow.services.items, flow.user_id)) == 1
    # The grant lives on: the new refresh token rotates as usual.
    assert _refresh(flow, pair["refresh_token"]).status_code == 200


def test_two_concurrent_refreshes_with_one_token_both_get_the_pair(store_flow: Flow):
    """Both requests read the token active before either writes; the one whose transaction
    loses answers what the winner wrote instead of revoking the grant as a reuse."""
    flow = store_flow
    first = flow.tokens()
    flow.services.items.race(2)  # type: ignore[attr-defined]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: _refresh(flow, first["refresh_token"]), range(2)))
    assert [answer.status_code for answer in answers] == [200, 200], [answer.text for answer in answers]
    pairs = {(answer.json()["access_token"], answer.json()["refresh_token"]) for answer in answers}
    assert len(pairs) == 1
    ((access, refresh),) = pairs
    assert _works(flow, access)
    assert len(list_grants(flow.services.items, flow.user_id)) == 1
    assert _refresh(flow, refresh).status_code == 200


def test_the_answer_is_kept_sealed(store_flow: Flow):
    """What the used token's item keeps opens only with the used token: no secret in the clear."""
    flow = store_flow
    first = flow.tokens()
    pair = _refresh(flow, first["refresh_token"]).json()
    record = flow.services.items.get(refresh_key(digest(first["refresh_token"])))
    assert record is not None and record["state"] == "used"
    stored = repr(record)
    for secret in (pair["access_token"], pair["refresh_token"], first["refresh_token"]):
        assert secret not in stored and secret.removeprefix("mesq_at_").removeprefix("mesq_rt_") not in stored


def _later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    start = time.time()
    monkeypatch.setattr(time, "time", lambda: start + seconds)


def test_reuse_after_the_grace_still_revokes_the_grant(store_flow: Flow, monkeypatch: pytest.MonkeyPatch):
    flow = store_flow
    first = flow.tokens()
    pair = _refresh(flow, first["refresh_token"]).json()
    _later(monkeypatch, REFRESH_GRACE_SECONDS + 1)
    replay = _refresh(flow, first["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert "revoked" in replay.json()["error_description"]
    assert not _works(flow, pair["access_token"])
    assert _refresh(flow, pair["refresh_token"]).json()["error"] == "invalid_grant"
    assert list_grants(flow.services.items, flow.user_id) == []


def test_within_the_grace_a_pair_already_rotated_is_a_clean_error(store_flow: Flow):
    """The host moved on (it refreshed with the new token too): the old token's answer is no
    longer live, so it gets invalid_grant; the grant and its current pair stay."""
    flow = store_flow
    first = flow.tokens()
    second = _refresh(flow, first["refresh_token"]).json()
    third = _refresh(flow, second["refresh_token"]).json()
    late = _refresh(flow, first["refresh_token"])
    assert late.status_code == 400 and late.json()["error"] == "invalid_grant"
    assert _works(flow, third["access_token"])
    assert _refresh(flow, third["refresh_token"]).status_code == 200


def test_the_grace_answer_is_for_the_same_client_only(store_flow: Flow):
    flow = store_flow
    first = flow.tokens()
    assert _refresh(flow, first["refresh_token"]).status_code == 200
    stranger = flow.client.post("/oauth/register", json={"client_name": "Other", "redirect_uris": [REDIRECT_URI]})
    other = flow.client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
              "client_id": stranger.json()["client_id"]},
    )  # fmt: skip
    assert other.status_code == 400 and "access_token" not in other.json()


def test_a_request_in_flight_when_its_access_token_is_refreshed_away_completes(store_flow: Flow):
    """The previous access token dies at the refresh (one live access token per grant), but a
    request it already authenticated completes: authentication is one read at the request's
    start. The host's next request with it gets 401 `invalid_token`, and its refresh within the
    grace period gets the live pair (docs/decisions.md, "refresh-token grace")."""
    flow = store_flow
    first = flow.tokens()
    mcp = Mcp(flow.client, first["access_token"])
    assert mcp.post("tools/list").status_code == 200  # its use is stamped: no write at the next one
    refreshed: list[grants.IssuedTokens] = []

    def refresh_meanwhile() -> None:
        refreshed.append(
            grants.refresh(
                flow.services.items,
                refresh_token=first["refresh_token"],
                client_id=flow.client_id,
                scope=None,
                resource=None,
                instance=INSTANCE,
            )
        )

    flow.services.items.before_next_write(refresh_meanwhile)  # type: ignore[attr-defined]
    created = mcp.call("create_memo", {"content": "written while the token was refreshed"})
    assert refreshed and not created.get("isError"), created
    late = mcp.post("tools/list")
    assert late.status_code == 401 and "invalid_token" in late.headers["www-authenticate"]
    again = _refresh(flow, first["refresh_token"])
    assert again.status_code == 200 and again.json()["access_token"] == refreshed[0].access_token
    found = Mcp(flow.client, again.json()["access_token"]).call("search_memos", {"query": "refreshed"})
    assert "written while the token was refreshed" in str(found)


def test_a_sealed_answer_opens_only_with_its_token_on_its_item():
    box = seal("mesq_rt_one", {"access": "mesq_at_x"}, "OAUTHRT#a")
    assert unseal("mesq_rt_one", box, "OAUTHRT#a") == {"access": "mesq_at_x"}
    assert unseal("mesq_rt_two", box, "OAUTHRT#a") is None
    assert unseal("mesq_rt_one", box, "OAUTHRT#b") is None
    assert unseal("mesq_rt_one", box[:-4], "OAUTHRT#a") is None
    assert unseal("mesq_rt_one", "not base64 at all!", "OAUTHRT#a") is None
