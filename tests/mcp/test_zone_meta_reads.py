"""What the account's zone in list_todos' and list_changes' `_meta` (mcp/mcp_apps.py zone_meta,
docs/MCP/apps.md) costs in store reads: list_todos already reads the user's settings item with its
board structure (todos/state.load_partial), so its `_meta` reuses that zone (`Call.noted`) and
reads nothing more; list_changes reads no settings, so its `_meta` reads the item once. On
DynamoDB each avoided read is a GetItem (a round trip and half a read unit) per board view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mesq.auth.user_zone import settings_key
from mesq.kernel.ports.storage import Key
from mesq.wiring.services import Services

from .conftest import ERAS, Mcp

SCOPES = "memo:read,memo:write,todo:read,todo:write"


def _counting_settings_reads(monkeypatch: pytest.MonkeyPatch, services: Services, user_id: str) -> list[Key]:
    """Every read by key of the user's settings item, from now on (the store's own `get`, counted)."""
    reads: list[Key] = []
    store, wanted = services.items, settings_key(user_id)
    real = store.get

    def get(key: Key, *args: Any, **kwargs: Any) -> Any:
        if tuple(key) == wanted:
            reads.append(key)
        return real(key, *args, **kwargs)

    monkeypatch.setattr(store, "get", get)
    return reads


@pytest.mark.parametrize("era", ERAS)
def test_list_todos_meta_zone_costs_no_read_of_its_own(
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
    reads = _counting_settings_reads(monkeypatch, mcp_services, user["id"])

    board = client.call("list_todos", {})
    assert not board.get("isError") and board["_meta"]["mesq/timeZone"] == "Asia/Shanghai"
    assert reads == [], "list_todos read its settings item with the board: the zone is not read again"

    changes = client.call("list_changes", {})
    assert not changes.get("isError") and changes["_meta"]["mesq/timeZone"] == "Asia/Shanghai"
    assert len(reads) == 1, "list_changes reads no settings of its own: one read for its view's zone"


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
