"""A PAT (or any bearer credential) can never permanently delete (docs/contract.md §1, seed 永久删除)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.testclient import TestClient

from mesq.application.invocation import REGISTRY
from mesq.kernel.spec import load_spec
from mesq.mcp.catalog import build_catalog
from mesq.memos import purge, store
from mesq.wiring.services import Services

from ...conftest import Account
from ..conftest import Browser, trashed_memo


def test_purge_is_no_operation_route_or_tool() -> None:
    spec = load_spec()
    purge_functions = {purge.purge_memo, purge.trashed_memo_ids}
    assert not purge_functions & set(REGISTRY.values())
    for operation in spec.operations.values():
        assert "purge" not in operation.operation_id and "permanent" not in operation.operation_id
        assert not ("/memo" in operation.path and ("trash" in operation.path or "purge" in operation.path))
    catalog = build_catalog(spec)
    names = set(catalog.names)
    assert not purge_functions & {tool.function for tool in catalog.tools.values()}
    assert not {name for name in names if "purge" in name or "permanent" in name or "empty_trash" in name}


def test_rest_delete_with_a_pat_only_moves_to_the_trash(
    services: Services, client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account()
    memo = trashed_memo(services, account.user_id)
    answer = client.request(
        "DELETE",
        f"/api/toolkit/memo/{memo['id']}",
        json={"expectedRevision": memo["revision"]},
        headers=account.headers,
    )
    assert answer.status_code == 200
    assert store.read_memo(services.items, account.user_id, memo["id"])["status"] == "DELETED"


def test_a_pat_bearer_is_refused_by_every_web_post(
    services: Services, make_account: Callable[..., Account], browser: Callable[..., Browser], new_client
) -> None:
    account = make_account()
    memo = trashed_memo(services, account.user_id)
    bare = new_client()
    for path in (f"/trash/{memo['id']}/delete", "/trash/empty", f"/trash/{memo['id']}/restore"):
        answer = bare.post(path, data={"revision": str(memo["revision"]), "confirm": "yes"}, headers=account.headers)
        assert answer.status_code == 403, path
        assert "access tokens" in answer.text
    # Even riding along a real signed-in session with its CSRF token, a bearer header is refused.
    person = browser()
    own = trashed_memo(services, person.user_id)
    ridden = person.post(f"/trash/{own['id']}/delete", {"revision": str(own["revision"])}, headers=account.headers)
    assert ridden.status_code == 403
    assert store.read_memo(services.items, account.user_id, memo["id"]) is not None
    assert store.read_memo(services.items, person.user_id, own["id"]) is not None
