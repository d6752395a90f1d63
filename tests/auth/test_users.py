from __future__ import annotations

import pytest

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.auth.users import check_password, create_user
from mesq.kernel.errors import ValidationError


@pytest.fixture
def items():
    store = SQLiteItemStore(":memory:")
    yield store
    store.close()


def test_passwords_are_checked_against_the_argon2_hash(items):
    user = create_user(items, "alice", "correct horse battery")
    profile = items.get((f"U#{user['id']}", "PROFILE"))
    assert profile["passwordHash"].startswith("$argon2id$")
    assert check_password(items, "alice", "correct horse battery")["userId"] == user["id"]
    assert check_password(items, "alice", "wrong horse battery") is None
    assert check_password(items, "nobody", "correct horse battery") is None


@pytest.mark.parametrize(("name", "password"), [("A", "long enough"), ("x" * 40, "long enough"), ("ok", "short")])
def test_user_rules(items, name, password):
    with pytest.raises(ValidationError):
        create_user(items, name, password)


def test_usernames_are_unique(items):
    create_user(items, "bob", "correct horse battery")
    with pytest.raises(ValidationError, match="taken"):
        create_user(items, "bob", "another horse battery")
