"""An undo of a session or an import that made a space of more columns than one transaction
removes with it, on SQLite and on DynamoDB Local. The finisher removed such a space with its
columns in one write (a column's removal is three writes): past 32 columns that write was refused
('one atomic change may have at most 100'), the refusal was swallowed, and the space stayed with
all its columns, its creation listed as 'creating a space cannot be undone'. The columns the run
or session added one by one now go first, each removal an undo of its creation; the space then
goes with the rest in one change, and the redo brings every column back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mesq.kernel.ports.storage import ItemStore
from mesq.todos.model import MAX_COLUMNS_PER_SPACE
from mesq.todos.revert import UNDO_REMOVES_COLUMNS
from mesq.wiring.imports import import_file
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from ..imports.exports import todoist_csv
from .test_atomicity import USER, changes
from .test_tags_and_moves import caller_as


def _columns(call: Any, space_id: str) -> list[dict[str, Any]]:
    return [c for c in call("list_todo_spaces")["columns"] if c["spaceId"] == space_id]


def _wide_session(store: ItemStore) -> tuple[Any, Any, dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """An agent's session: a space of MAX_COLUMNS_PER_SPACE columns (30 with the space, the rest
    one by one) and a task in its last column. Answers the agent, a person, the space, the task
    and the columns."""
    agent = caller_as(store, "pat:agent", "agent")
    wide = agent("create_todo_space", name="Wide", columns=[f"c{i}" for i in range(30)])["space"]
    for index in range(30, MAX_COLUMNS_PER_SPACE):
        agent("create_todo_column", spaceId=wide["id"], name=f"c{index}")
    columns = _columns(agent, wide["id"])
    task = agent("create_todo_task", title="pack", spaceId=wide["id"], columnId=columns[-1]["id"])["task"]
    return agent, caller_as(store, "pat:person", "person"), wide, task, columns


def test_undoing_a_session_removes_its_widest_space_whole_and_the_redo_brings_it_back(store: ItemStore) -> None:
    agent, person, wide, task, columns = _wide_session(store)
    assert len(columns) == MAX_COLUMNS_PER_SPACE > UNDO_REMOVES_COLUMNS
    session = agent("get_context")["sessionId"]
    foreseen = person("undo_changes", sessionId=session, dryRun=True)
    undone = person("undo_changes", sessionId=session)
    assert undone["notUndone"] == [] and foreseen["notUndone"] == [], undone["notUndone"][:2]
    assert len(undone["undone"]) == len(foreseen["undone"])
    assert wide["id"] not in {s["id"] for s in person("list_todo_spaces")["spaces"]}
    assert _columns(person, wide["id"]) == []
    undo = [c for c in changes(store) if c["operation"] == "undo_changes"]
    assert [c for c in undo if "undoes" not in c] == []  # every removal is part of the undo
    [removal] = [c for c in undo if c["record"]["kind"] == "space"]
    assert len(removal["members"]) <= UNDO_REMOVES_COLUMNS
    # the redo: the space, every column in its place, the task back in its own column
    redone = person("undo_changes", changeIds=[c["id"] for c in undo])
    assert redone["notUndone"] == [], redone["notUndone"][:2]
    back = _columns(person, wide["id"])
    assert [(c["id"], c["name"], c["position"]) for c in back] == [(c["id"], c["name"], c["position"]) for c in columns]
    again = person("get_todo_task", id=task["id"])["task"]
    assert (again["spaceId"], again["columnId"], again["deletedAt"]) == (wide["id"], columns[-1]["id"], None)
    # and the redo undone removes it whole again
    redo = [c["id"] for c in changes(store) if c.get("undoes") in {u["id"] for u in undo}]
    third = person("undo_changes", changeIds=redo)
    assert third["notUndone"] == [], third["notUndone"][:2]
    assert wide["id"] not in {s["id"] for s in person("list_todo_spaces")["spaces"]}
    assert _columns(person, wide["id"]) == []


def test_a_space_still_too_wide_stays_and_its_creation_says_why(store: ItemStore) -> None:
    """Columns a person added to the agent's space in a session of their own are not the agent's
    to undo one by one: a space of 30 of the agent's and 5 of the person's stays, and its creation
    says that it was left, how many columns it has and what to do, instead of the generic
    'creating a space cannot be undone'."""
    agent = caller_as(store, "pat:agent", "agent")
    wide = agent("create_todo_space", name="Wide", columns=[f"c{i}" for i in range(30)])["space"]
    person = caller_as(store, "pat:person", "person")
    for index in range(5):
        person("create_todo_column", spaceId=wide["id"], name=f"mine{index}")
    undone = person("undo_changes", sessionId=agent("get_context")["sessionId"])
    [left] = [entry for entry in undone["notUndone"] if entry["record"]["id"] == wide["id"]]
    assert "was left on the board" in left["message"] and "35 columns" in left["message"], left
    assert len(_columns(person, wide["id"])) == 35  # nothing half done


def test_undoing_an_import_of_fifty_sections_removes_its_space(store: ItemStore, tmp_path: Path) -> None:
    """A Todoist project of 50 sections (the space with its first 20, then 20 a write) undone by
    its runId, as the import's report says: the space goes with every column."""
    rows: list[list[str]] = []
    for i in range(MAX_COLUMNS_PER_SPACE):
        rows += [["section", f"阶段 {i}"] + [""] * 8, ["task", f"task {i}", "", "1", "1"] + [""] * 5]
    services = Services(settings=inprocess_settings(), items=store, blobs=None)  # type: ignore[arg-type]
    report = import_file(services, USER, "todoist", todoist_csv(tmp_path / "Stages.csv", rows))
    assert report.imported["columns"] == MAX_COLUMNS_PER_SPACE, report.as_dict()
    person = caller_as(store, "pat:person", "person")
    [space] = [s for s in person("list_todo_spaces")["spaces"] if s["name"] == "Stages"]
    undone = person("undo_changes", runId=report.run_id)
    while undone.get("more"):
        undone = person("undo_changes", runId=report.run_id)
    assert undone["notUndone"] == [], undone["notUndone"][:2]
    assert space["id"] not in {s["id"] for s in person("list_todo_spaces")["spaces"]}
    assert _columns(person, space["id"]) == []
