"""An inbox item too big for the inbox (with its subtasks over `MAX_STORED_BYTES`) says what the
person can do from where they are: a capture over REST (a Shortcut's, an agent's: the item does
not exist yet, so there is nothing to move) says to create it as a board task; an existing item
over REST may still be moved to the board (move_todo_inbox_item_to_board, same toolset); an
import (Todoist's Inbox project) says what to change in the export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.auth.users import create_user
from mesq.imports.plan import SourceError
from mesq.todos.state import load_state
from mesq.wiring.imports import import_file
from mesq.wiring.services import Services
from tests.conftest import Account
from tests.imports.exports import todoist_csv

#: 50,000 characters of three bytes each: three such notes are over one inbox item's 350,000 bytes.
LONG_NOTES = "字" * 50_000


def test_a_capture_too_big_says_to_create_it_on_the_board(client: TestClient, make_account) -> None:
    account: Account = make_account(scopes="todo:read,todo:write")
    subtasks = [{"title": f"step {n}", "notes": LONG_NOTES} for n in range(3)]
    answer = client.post("/api/toolkit/todo/inbox", headers=account.headers, json={"title": "x", "subtasks": subtasks})
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]["message"]
    assert "create it as a board task instead" in message and "move it" not in message, message
    assert client.get("/api/toolkit/todo/inbox", headers=account.headers).json()["data"]["items"] == []


def test_an_existing_item_over_rest_may_still_be_moved(client: TestClient, make_account) -> None:
    account: Account = make_account(scopes="todo:read,todo:write")
    subtasks = [{"title": f"step {n}", "notes": LONG_NOTES} for n in range(2)]
    made = client.post("/api/toolkit/todo/inbox", headers=account.headers, json={"title": "x", "subtasks": subtasks})
    item: dict[str, Any] = made.json()["data"]["item"]
    body = {"expectedRevision": item["revision"], "notes": LONG_NOTES}
    answer = client.patch(f"/api/toolkit/todo/inbox/{item['id']}", headers=account.headers, json=body)
    assert answer.status_code == 400, answer.text
    assert "move it to the board" in answer.json()["error"]["message"]


def test_an_import_says_what_to_change_in_the_export(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "big-inbox", "correct horse battery")
    rows = [["task", "整理资料", LONG_NOTES, "4", "1"]] + [["task", f"第{k}步", LONG_NOTES, "4", "2"] for k in range(2)]
    with pytest.raises(SourceError) as refused:
        import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Inbox.csv", rows))
    message = refused.value.message
    assert message.startswith("Inbox line 2: ") and "export" in message, message
    assert "move it to the board" not in message and "create it as a board task" not in message, message
    assert load_state(services.items, user["id"]).live_inbox() == []
