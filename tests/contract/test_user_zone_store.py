"""The user's zone on every item store (SQLite, moto, DynamoDB Local): `set_zone` creates the todo
settings item when the user has none yet (an Update that adds `revision`), the lazy default space
is then still made (its conditional write on that revision) without losing the zone, and a
second zone replaces the first."""

from __future__ import annotations

from typing import Any

from mesq.auth.user_zone import configured_zone, set_zone
from mesq.todos.keys import settings_key
from mesq.todos.writes import ensure_default_space


def test_the_zone_before_and_after_the_first_todo_use(store: Any) -> None:
    user_id = "u-zone"
    assert configured_zone(store, user_id) is None
    set_zone(store, user_id, "Asia/Shanghai")
    first = store.get(settings_key(user_id))
    assert first is not None and first["timezone"] == "Asia/Shanghai" and int(first["revision"]) == 1
    state = ensure_default_space(store, user_id)
    assert state.default_space() is not None
    settled = store.get(settings_key(user_id))
    assert settled is not None and settled["timezone"] == "Asia/Shanghai" and settled["defaultSpaceId"]
    set_zone(store, user_id, "Europe/Berlin")
    again = store.get(settings_key(user_id))
    assert again is not None and int(again["revision"]) == int(settled["revision"]) + 1
    assert again["defaultSpaceId"] == settled["defaultSpaceId"]
    assert configured_zone(store, user_id) == "Europe/Berlin"
