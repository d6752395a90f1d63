"""Undo edges: a todo tag rename or delete records the records it rewrites and a rename undoes by
its runId; changes that cannot be undone are listed in `notUndone` (NOT_UNDOABLE), never
skipped; a cross-space move takes its subtasks back; an idempotent replay records nothing twice;
list_changes' since/until and actor filters."""

from __future__ import annotations

from typing import Any

from .test_atomicity import caller, changes


def _tag_names(call: Any) -> dict[str, Any]:
    return {tag["name"]: tag for tag in call("list_todo_tags")["tags"]}


def test_a_tag_rename_records_its_records_and_undoes_by_its_run(sqlite):
    call = caller(sqlite)
    call("create_todo_tag", name="old", color="#ff0000")
    tasks = [call("create_todo_task", title=f"t{n}", tags=["old", "keep"])["task"] for n in range(2)]
    item = call("create_todo_inbox_item", title="i", tags=["old"])["item"]
    tag = _tag_names(call)["old"]
    call("update_todo_tag", name="old", newName="new", expectedRevision=tag["revision"])
    [rename] = [c for c in changes(sqlite) if c["operation"] == "update_todo_tag" and c["record"]["kind"] == "tag"]
    assert rename["action"] == "update" and rename["before"]["name"] == "old" and rename["after"]["name"] == "new"
    run = [c for c in changes(sqlite) if c["runId"] == rename["runId"]]
    assert sorted(c["record"]["id"] for c in run if c["record"]["kind"] != "tag") == sorted(
        [t["id"] for t in tasks] + [item["id"]]
    )
    undone = call("undo_changes", runId=rename["runId"])
    assert undone["notUndone"] == [] and len(undone["undone"]) == 4
    names = _tag_names(call)
    assert "new" not in names and names["old"]["color"] == "#ff0000"
    assert all(call("get_todo_task", id=t["id"])["task"]["tags"] == ["old", "keep"] for t in tasks)
    assert call("get_todo_inbox_item", id=item["id"])["item"]["tags"] == ["old"]


def test_a_tag_rename_undone_alone_renames_its_records_back(sqlite):
    call = caller(sqlite)
    task = call("create_todo_task", title="t", tags=["old"])["task"]
    call("update_todo_tag", name="old", newName="new", expectedRevision=1)
    [rename] = [c for c in changes(sqlite) if c["operation"] == "update_todo_tag" and c["record"]["kind"] == "tag"]
    undone = call("undo_changes", changeIds=[rename["id"]])
    assert undone["notUndone"] == [] and undone["undone"][0]["undoChangeId"]
    assert set(_tag_names(call)) == {"old"}
    assert call("get_todo_task", id=task["id"])["task"]["tags"] == ["old"]


def test_a_tag_delete_records_the_records_it_rewrites(sqlite):
    call = caller(sqlite)
    task = call("create_todo_task", title="t", tags=["gone", "kept"])["task"]
    call("delete_todo_tag", name="gone", expectedRevision=1)
    [edit] = [c for c in changes(sqlite) if c["operation"] == "delete_todo_tag" and c["record"]["id"] == task["id"]]
    assert edit["before"]["tags"] == ["gone", "kept"] and edit["after"]["tags"] == ["kept"]
