"""A Todoist project whose name is a space the account already has goes into that space (its
sections into the columns of the same names, else added), the report saying so; a second run
creates nothing, and the undo takes back what the import added and nothing that was there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.testclient import TestClient

from mesq.auth.users import create_user
from mesq.imports.run import import_call
from mesq.imports.undo import undo_import
from mesq.todos.state import load_state
from mesq.wiring.imports import ImportOptions, import_file
from mesq.wiring.services import Services
from tests.conftest import Account

from .checks import call, visible
from .exports import todoist_csv


def _task(title: str) -> list[str]:
    return ["task", title, "", "1", "1", "", "", "", "", ""]


def _section(name: str) -> list[str]:
    return ["section", name, "", "", "", "", "", "", "", ""]


def test_a_project_named_as_a_space_goes_into_it_and_its_undo_takes_back_only_the_import(
    services: Services, tmp_path: Path
) -> None:
    user = create_user(services.items, "wang", "correct horse battery")
    space = call(services, user["id"], "create_todo_space", name=" 工作 ", columns=["待办", "Doing"])
    space_id = space["space"]["id"] if "space" in space else space["id"]
    state = load_state(services.items, user["id"])
    columns = {c["name"]: c["id"] for c in state.columns_of(space_id)}
    call(services, user["id"], "create_todo_task", title="已有的", columnId=columns["待办"])
    before = visible(services, user["id"])
    path = todoist_csv(
        tmp_path / "工作 [2203306141].csv",
        [_task("写周报"), _section("doing "), _task("改稿"), _section("新的"), _task("新事")],
    )

    report = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))

    state = load_state(services.items, user["id"])
    assert [s["name"] for s in state.spaces.values()].count("工作") == 1, [s["name"] for s in state.spaces.values()]
    assert report.imported["spaces"] == 0 and report.imported["columns"] == 1, report.as_dict()
    where = {t["title"]: state.columns[t["columnId"]] for t in state.every_task() if not t.get("deletedAt")}
    assert where["写周报"]["id"] == columns["待办"]  # the first column: 待办 on a Chinese account
    assert where["改稿"]["id"] == columns["Doing"]  # "doing " is the column Doing
    assert where["新事"]["spaceId"] == space_id and where["新事"]["name"] == "新的"
    # the imported tasks come after the ones already there
    todo = sorted((t for t in state.every_task() if t.get("columnId") == columns["待办"]), key=lambda t: t["position"])
    assert [t["title"] for t in todo] == ["已有的", "写周报"]
    merged = report.as_dict()["merged"]
    assert merged == [{"which": "工作", "what": "into the existing space 工作"}], merged

    again = import_file(services, user["id"], "todoist", path, options=ImportOptions(language="zh"))
    assert not any(again.imported.values()), again.as_dict()
    assert again.existing["tasks"] == 3, again.as_dict()

    undone = undo_import(import_call(services, user["id"], "todoist"), report.run_id)
    assert not undone.not_undone, undone.not_undone
    assert visible(services, user["id"]) == before


def test_latin_names_match_whatever_their_case(services: Services, tmp_path: Path) -> None:
    user = create_user(services.items, "ann", "correct horse battery")
    call(services, user["id"], "create_todo_space", name="Work")
    report = import_file(services, user["id"], "todoist", todoist_csv(tmp_path / "work.csv", [_task("one")]))
    names = sorted(s["name"] for s in load_state(services.items, user["id"]).spaces.values())
    assert names.count("Work") == 1 and "work" not in names, names
    assert report.as_dict()["merged"] == [{"which": "work", "what": "into the existing space Work"}]


def test_over_rest_the_report_says_where_the_project_went(
    client: TestClient, make_account: Callable[..., Account], services: Services
) -> None:
    account = make_account(scopes="todo:read,todo:write")
    call(services, account.user_id, "create_todo_space", name="Work")
    body = b"TYPE,CONTENT,PRIORITY,INDENT\ntask,ship it,1,1\n"
    url = "/api/toolkit/import?kind=todoist&filename=work%20%5B7%5D.csv"
    answer = client.post(url, content=body, headers=account.headers)
    assert answer.status_code == 200, answer.text
    report = answer.json()["data"]
    assert report["merged"] == [{"which": "work", "what": "into the existing space Work"}], report
    got = report["imported"]
    assert got["tasks"] == 1 and not got.get("spaces") and not got.get("columns"), report  # into its To do
    again = client.post(url, content=body, headers=account.headers).json()["data"]
    assert not any(again["imported"].values()) and again["existing"] == {"tasks": 1}, again
    names = [space["name"] for space in load_state(services.items, account.user_id).spaces.values()]
    assert names.count("Work") == 1 and "work" not in names, names


def test_a_space_the_import_made_and_that_stays_keeps_all_its_columns(services: Services, tmp_path: Path) -> None:
    """A space the import made stays when a task in it was changed since (the undo leaves that
    task); its other columns, empty once undone, stay with it: only columns added to a space the
    account had are removed."""
    user = create_user(services.items, "kim", "correct horse battery")
    path = todoist_csv(tmp_path / "Chores.csv", [_section("A"), _task("one"), _section("B"), _task("two")])
    report = import_file(services, user["id"], "todoist", path)
    state = load_state(services.items, user["id"])
    one = next(t for t in state.every_task() if t["title"] == "one")
    call(services, user["id"], "update_todo_task", id=one["id"], title="one, mine now", expectedRevision=1)

    undone = undo_import(import_call(services, user["id"], "todoist"), report.run_id)

    assert sorted(e["record"]["kind"] for e in undone.not_undone) == ["space", "task"], undone.as_dict()
    assert undone.removed_columns == 0, undone.as_dict()
    state = load_state(services.items, user["id"])
    space = next(s for s in state.spaces.values() if s["name"] == "Chores")
    assert sorted(c["name"] for c in state.columns_of(space["id"])) == ["A", "B"]
