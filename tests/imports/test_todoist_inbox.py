"""Todoist's Inbox project (`Inbox [<id>].csv`) goes into MeSQ's inbox, not a board space named
"Inbox": its tasks become inbox items with their subtasks inside; what an inbox item cannot hold
(a recurrence, a section, a subtask's date, labels or priority) is kept in the notes and listed;
a second run creates nothing; the undo takes back the items and leaves the inbox as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from mesq.auth.users import create_user
from mesq.imports.run import import_call
from mesq.imports.undo import undo_import
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services
from tests.conftest import Account

from .checks import call
from .exports import todoist_csv


def _row(kind: str, content: str, indent: str = "1", date: str = "", priority: str = "4") -> list[str]:
    return [kind, content, "", priority, indent, "", "", date, "", ""]


def _inbox(services: Services, user_id: str) -> dict[str, dict[str, Any]]:
    return {item["title"]: item for item in load_state(services.items, user_id).live_inbox()}


def test_todoists_inbox_goes_into_the_inbox(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "lin", "correct horse battery")
    call(services, user["id"], "create_todo_inbox_item", title="mine already")
    spaces_before = sorted(s["name"] for s in load_state(services.items, user["id"]).spaces.values())
    path = todoist_csv(
        tmp_path / "Inbox [2203306140].csv",
        [
            _row("task", "buy rice @home", priority="1"),
            _row("task", "rice cooker", indent="2", date="tomorrow", priority="2"),
            _row("task", "water plants", date="every friday"),
            _row("section", "Later"),
            _row("task", "read a book"),
        ],
    )

    report = import_file(services, user["id"], "todoist", path, options=ImportOptions(timezone="UTC"))

    state = load_state(services.items, user["id"])
    assert sorted(s["name"] for s in state.spaces.values()) == spaces_before  # no space "Inbox"
    assert not [t for t in state.every_task() if not t.get("deletedAt")], "nothing on the board"
    inbox = _inbox(services, user["id"])
    assert list(inbox) == ["mine already", "buy rice", "water plants", "read a book"], list(inbox)
    rice = inbox["buy rice"]
    assert rice["priority"] == "urgent" and rice["tags"] == ["home"]
    (cooker,) = rice["subtasks"]
    assert cooker["title"] == "rice cooker" and "Todoist date 'tomorrow'" in cooker["notes"], cooker
    plants = inbox["water plants"]
    assert plants["recurrence"] is None and plants["due"] is not None
    assert "Todoist date 'every friday'" in plants["notes"], plants["notes"]
    assert "Todoist section 'Later'" in inbox["read a book"]["notes"], inbox["read a book"]["notes"]
    said = report.as_dict()
    assert said["merged"] == [{"which": "Inbox", "what": "into your inbox"}], said["merged"]
    assert report.imported["tasks"] == 3 and report.imported["subtasks"] == 1, said
    assert not report.imported["spaces"] and not report.imported["columns"], said
    kept = " | ".join(entry["what"] for entry in said["kept"])
    assert "inbox items do not recur" in kept and "section 'Later'" in kept, kept

    again = import_file(services, user["id"], "todoist", path, options=ImportOptions(timezone="UTC"))
    assert not any(again.imported.values()) and again.existing["tasks"] == 3, again.as_dict()
    assert len(_inbox(services, user["id"])) == 4

    undone = undo_import(import_call(services, user["id"], "todoist"), report.run_id)
    assert not undone.not_undone, undone.not_undone
    assert list(_inbox(services, user["id"])) == ["mine already"]
    assert sorted(s["name"] for s in load_state(services.items, user["id"]).spaces.values()) == spaces_before


def test_a_project_named_inbox_in_a_folder_of_projects_goes_into_the_inbox(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "zhou", "correct horse battery")
    folder = tmp_path / "backup"
    folder.mkdir()
    todoist_csv(folder / "Inbox.csv", [_row("task", "收件箱里的事")])
    todoist_csv(folder / "Home.csv", [_row("task", "clean")])
    import_file(services, user["id"], "todoist", folder, options=ImportOptions(language="zh"))
    names = sorted(s["name"] for s in load_state(services.items, user["id"]).spaces.values())
    assert "Inbox" not in names and "Home" in names, names
    assert list(_inbox(services, user["id"])) == ["收件箱里的事"]


def test_over_rest_the_inbox_is_said_and_a_second_post_creates_nothing(
    client: TestClient, make_account: Callable[..., Account], services: Services
) -> None:
    account = make_account(scopes="todo:read,todo:write")
    body = b"TYPE,CONTENT,PRIORITY,INDENT\ntask,call mum,1,1\n"
    url = "/api/toolkit/import?kind=todoist&filename=Inbox%20%5B9%5D.csv"
    answer = client.post(url, content=body, headers=account.headers)
    assert answer.status_code == 200, answer.text
    report = answer.json()["data"]
    assert report["merged"] == [{"which": "Inbox", "what": "into your inbox"}], report
    assert report["imported"]["tasks"] == 1 and not report["imported"].get("spaces"), report
    again = client.post(url, content=body, headers=account.headers).json()["data"]
    assert not any(again["imported"].values()) and again["existing"] == {"tasks": 1}, again
    assert [item["title"] for item in load_state(services.items, account.user_id).live_inbox()] == ["call mum"]


def test_an_inbox_and_a_space_of_the_same_name_twice_then_undo_on_both_stores(
    both_stores: Services, tmp_path: Path
) -> None:
    """On SQLite and DynamoDB Local (GSI lists, conditions): Inbox.csv into the inbox and 工作.csv
    into the space 工作, a second run creating nothing, the undo leaving the account as it was."""
    from .checks import visible

    services = both_stores
    user = create_user(services.items, "both", "correct horse battery")
    made = call(services, user["id"], "create_todo_space", name="工作", columns=["待办"])
    call(services, user["id"], "create_todo_task", title="已有的", spaceId=made["space"]["id"])
    call(services, user["id"], "create_todo_inbox_item", title="mine already")
    before = visible(services, user["id"]), list(_inbox(services, user["id"]))
    folder = tmp_path / "backup"
    folder.mkdir()
    todoist_csv(folder / "Inbox [1].csv", [_row("task", "call mum"), _row("task", "ask about rice", indent="2")])
    todoist_csv(folder / "工作 [2].csv", [_row("task", "写周报"), _row("section", "下周"), _row("task", "改稿")])
    first = import_file(services, user["id"], "todoist", folder, options=ImportOptions(language="zh"))
    assert first.imported["tasks"] == 3 and first.imported["subtasks"] == 1, first.as_dict()
    assert first.imported["columns"] == 1 and not first.imported["spaces"], first.as_dict()
    again = import_file(services, user["id"], "todoist", folder, options=ImportOptions(language="zh"))
    assert not any(again.imported.values()) and again.existing["tasks"] == 3, again.as_dict()
    undone = undo_import(import_call(services, user["id"], "todoist"), first.run_id)
    assert not undone.not_undone and undone.removed_columns == 1, undone.as_dict()
    assert (visible(services, user["id"]), list(_inbox(services, user["id"]))) == before


def test_an_inbox_of_long_notes_is_written_whole(services: Services, tmp_path: Path) -> None:
    """Inbox items with their subtasks inside weigh up to 350 KB each, with a change record each:
    24 of long notes in one transaction were past what one atomic write takes (3.5 MB, DynamoDB's
    4 MB), so the import stopped part-way. Its batches are cut by bytes too."""
    user = create_user(services.items, "long-notes", "correct horse battery")
    rows = []
    for n in range(30):  # each some 270 KB: its notes and its two subtasks' of 30,000 characters
        rows += [["task", f"item {n}", "长" * 30_000, "4", "1"]]
        rows += [["task", f"part {k}", "长" * 30_000, "4", "2"] for k in range(2)]
    report = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "Inbox.csv", rows))
    assert report.imported["tasks"] == 30, report.as_dict()
    assert len(_inbox(services, user["id"])) == 30
