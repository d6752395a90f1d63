"""The web state (first-user claim, sessions, login counters) and purge on both item stores:
SQLite and DynamoDB (moto), since both adapters must honour the same conditions and TTLs."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.auth.users import SetupAlreadyDone, any_user_exists, create_user
from mesq.kernel.ports.storage import ItemStore
from mesq.memos import store as memo_store
from mesq.memos.purge import purge_memo
from mesq.web.kit.sessions import create_session, end_session, load_session
from mesq.web.kit.throttle import LoginThrottle, ThrottlePolicy
from mesq.wiring.services import Services, build_blob_store
from tests.settings import inprocess_settings

from ..conftest import FakeClock, trashed_memo


@pytest.fixture(params=["sqlite", "dynamodb"])
def items(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ItemStore]:
    if request.param == "sqlite":
        sqlite = SQLiteItemStore(tmp_path / "items.db")
        yield sqlite
        sqlite.close()
        return
    from moto import mock_aws

    from mesq.adapters.store.dynamodb import DynamoDBItemStore

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    with mock_aws():
        dynamo = DynamoDBItemStore(f"web-{secrets.token_hex(4)}", region="us-east-1")
        dynamo.create_table_if_missing()
        yield dynamo
        dynamo.close()


def test_first_user_claim(items: ItemStore) -> None:
    assert not any_user_exists(items)
    create_user(items, "root", "correct horse battery", admin=True, first_user=True)
    assert any_user_exists(items)
    with pytest.raises(SetupAlreadyDone):
        create_user(items, "late", "correct horse battery", admin=True, first_user=True)


def test_session_lifecycle(items: ItemStore) -> None:
    clock = FakeClock()
    session = create_session(items, "u1", "root", clock)
    assert load_session(items, session.session_id, clock) == session
    clock.advance(120)  # touched: the idle limit moves
    assert load_session(items, session.session_id, clock) == session
    assert load_session(items, session.session_id + "x", clock) is None
    end_session(items, session.session_id)
    assert load_session(items, session.session_id, clock) is None


def test_login_counters(items: ItemStore) -> None:
    clock = FakeClock()
    policy = ThrottlePolicy(free_per_account_ip=2, free_per_ip=100, first_delay_seconds=60)
    throttle = LoginThrottle(items, policy, clock)
    assert throttle.blocked_for("root", "10.0.0.1") is None
    throttle.failed("root", "10.0.0.1")
    assert throttle.blocked_for("root", "10.0.0.1") is None
    throttle.failed("root", "10.0.0.1")
    wait = throttle.blocked_for("root", "10.0.0.1")
    assert wait is not None and 1 <= wait <= 60
    assert throttle.blocked_for("root", "10.0.0.2") is None  # another address is not held back
    clock.advance(60)
    assert throttle.blocked_for("root", "10.0.0.1") is None
    throttle.failed("root", "10.0.0.1")
    assert throttle.blocked_for("root", "10.0.0.1") == 120
    throttle.succeeded("root", "10.0.0.1")
    assert throttle.blocked_for("root", "10.0.0.1") is None


def test_purge(items: ItemStore, tmp_path: Path) -> None:
    settings = inprocess_settings(data_dir=tmp_path / "blobs")
    services = Services(settings=settings, items=items, blobs=build_blob_store(settings))
    memo = trashed_memo(services, "u1", "gone #t")
    purge_memo(items, "u1", memo["id"], memo["revision"])
    assert memo_store.read_memo(items, "u1", memo["id"]) is None
    assert memo_store.read_stats(items, "u1")["deleted"] == 0
    assert memo_store.read_tag_counts(items, "u1") == {}
