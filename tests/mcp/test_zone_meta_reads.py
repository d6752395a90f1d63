"""What the account's zone and language in list_todos' and list_changes' `_meta` (mcp/mcp_apps.py
account_meta, docs/MCP/apps.md) cost in store reads: list_todos already reads the user's settings
item with its board structure (todos/state.load_partial), so its `_meta` reuses that zone
(`Call.noted`) and reads only the profile, where the chosen language is; list_changes reads no
settings, so its `_meta` reads the settings item and the profile in one batch. On DynamoDB that is
one GetItem, or one BatchGetItem, per view's result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from mesq.auth.user_zone import settings_key
from mesq.auth.users import profile_key, set_setting
from mesq.kernel.ports.storage import Key
from mesq.wiring.services import Services

from .conftest import ERAS, Mcp

SCOPES = "memo:read,memo:write,todo:read,todo:write"


def _counting_account_reads(monkeypatch: pytest.MonkeyPatch, services: Services, user_id: str) -> list[list[Key]]:
    """Every store call from now on that reads the user's settings item or profile by key (the
    store's own `get` and `batch_get`, counted), each as the list of those keys it read."""
    calls: list[list[Key]] = []
    store, wanted = services.items, {settings_key(user_id), profile_key(user_id)}
    real_get, real_batch = store.get, store.batch_get

    def get(key: Key, *args: Any, **kwargs: Any) -> Any:
        if tuple(key) in wanted:
            calls.append([tuple(key)])
        return real_get(key, *args, **kwargs)

    def batch_get(keys: Sequence[Key], *args: Any, **kwargs: Any) -> Any:
        if read := [tuple(key) for key in keys if tuple(key) in wanted]:
            calls.append(read)
        return real_batch(keys, *args, **kwargs)

    monkeypatch.setattr(store, "get", get)
    monkeypatch.setattr(store, "batch_get", batch_get)
    return calls


@pytest.mark.parametrize("era", ERAS)
def test_the_meta_zone_and_language_cost_one_read_of_the_account(
    mcp: Callable[..., Mcp],
    mcp_services: Services,
    fresh_user: Callable[[], dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    era: str,
) -> None:
    user = fresh_user()
    client = mcp(scopes=SCOPES, era=era, user=user)
    client.connect()
    client.ok("list_todos", {})  # the board made on first use
    client.ok("set_time_zone", {"timeZone": "Asia/Shanghai"})
    set_setting(mcp_services.items, user["id"], "language", "zh")  # Settings → Language: 中文
    calls = _counting_account_reads(monkeypatch, mcp_services, user["id"])

    board = client.call("list_todos", {})
    assert not board.get("isError")
    assert board["_meta"]["mesq/timeZone"] == "Asia/Shanghai" and board["_meta"]["mesq/language"] == "zh-Hans"
    assert calls == [[profile_key(user["id"])]], "list_todos read its settings item with the board: the profile only"

    calls.clear()
    changes = client.call("list_changes", {})
    assert not changes.get("isError")
    assert changes["_meta"]["mesq/timeZone"] == "Asia/Shanghai" and changes["_meta"]["mesq/language"] == "zh-Hans"
    assert len(calls) == 1 and set(calls[0]) == {settings_key(user["id"]), profile_key(user["id"])}, (
        "list_changes reads no settings of its own: one batch read of the settings item and the profile"
    )


def test_the_language_is_the_accounts_choice_and_absent_without_one(
    mcp: Callable[..., Mcp], mcp_services: Services, fresh_user: Callable[[], dict[str, Any]]
) -> None:
    """English chosen is named too (a Chinese host then shows English); "as the browser says" (the
    default) names none, so the view keeps the host's language; the zone stays absent until set."""
    user = fresh_user()
    client = mcp(scopes=SCOPES, user=user)
    for name in ("list_todos", "list_changes"):
        assert "mesq/language" not in client.call(name, {}).get("_meta", {}), name
    set_setting(mcp_services.items, user["id"], "language", "en")
    for name in ("list_todos", "list_changes"):
        meta = client.call(name, {}).get("_meta", {})
        assert meta.get("mesq/language") == "en" and "mesq/timeZone" not in meta, (name, meta)
    set_setting(mcp_services.items, user["id"], "language", "")
    assert "mesq/language" not in client.call("list_todos", {}).get("_meta", {})


def test_a_board_made_by_its_first_list_todos_answers_the_zone_set_before(
    mcp: Callable[..., Mcp],
    mcp_services: Services,
    fresh_user: Callable[[], dict[str, Any]],
) -> None:
    """The zone set before the board exists (the settings item holds it, no space yet): the
    first list_todos makes the board, repairing that item, and its noted zone is the one set."""
    user = fresh_user()
    client = mcp(scopes=SCOPES, user=user)
    client.ok("set_time_zone", {"timeZone": "Europe/Berlin"})
    board = client.call("list_todos", {})
    assert not board.get("isError") and board["_meta"]["mesq/timeZone"] == "Europe/Berlin"
    none_set = mcp(scopes=SCOPES, user=fresh_user()).call("list_todos", {})
    assert "mesq/timeZone" not in none_set.get("_meta", {})
