"""Board operations over REST: spaces and columns (success, validation, NOT_FOUND, REVISION_CONFLICT with
recoverData, destination disagreements, idempotent replay / conflict)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def me(rest, todo_account):
    return rest(todo_account)


def codes(result: tuple[int, dict[str, Any]]) -> tuple[int, str]:
    status, envelope = result
    return status, envelope["error"]["code"]


def test_default_space_is_created_lazily_once_with_default_columns(me):
    first = me.ok("list_todo_spaces")
    again = me.ok("list_todo_spaces")
    assert first == again
    (space,) = first["spaces"]
    assert space["isDefault"] and space["slug"] == "default" and first["defaultSpaceId"] == space["id"]
    assert [c["name"] for c in first["columns"]] == ["To do", "Doing", "Done"]
    assert all(c["spaceId"] == space["id"] and not c["archived"] for c in first["columns"])


def test_create_space_with_slug_columns_and_derived_slugs(me):
    work = me.ok("create_todo_space", name="Work 2026", columns=["Backlog", "Now"])
    assert work["space"]["slug"] == "work-2026" and not work["space"]["isDefault"]
    assert [c["name"] for c in work["columns"]] == ["Backlog", "Now"]
    twin = me.ok("create_todo_space", name="Work 2026")
    assert twin["space"]["slug"] == "work-2026-2"
    assert [c["name"] for c in twin["columns"]] == ["To do", "Doing", "Done"]
    cjk = me.ok("create_todo_space", name="工作")
    assert cjk["space"]["slug"] == "space"
    listed = me.ok("list_todo_spaces")
    assert [s["slug"] for s in listed["spaces"]] == ["default", "work-2026", "work-2026-2", "space"]


def test_explicit_taken_slug_is_a_conflict_and_bad_input_a_validation_error(me):
    me.ok("create_todo_space", name="A", slug="home")
    status, envelope = me.fails("create_todo_space", name="B", slug="home")
    assert (status, envelope["error"]["code"]) == (409, "CONFLICT") and "home" in envelope["error"]["message"]
    assert codes(me.fails("create_todo_space", name="B", slug="Bad Slug")) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_space", name="   ")) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_space", name="x" * 101)) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_space", name="B", columns=[])) == (400, "VALIDATION_ERROR")
    assert codes(me.fails("create_todo_space", name="B", extra=1)) == (400, "VALIDATION_ERROR")


def test_create_space_idempotency_replay_and_conflict(me):
    first = me.ok("create_todo_space", name="Trip", idempotencyKey="k-trip")
    again = me.ok("create_todo_space", name="Trip", idempotencyKey="k-trip")
    assert again == first
    assert len(me.ok("list_todo_spaces")["spaces"]) == 2
    assert codes(me.fails("create_todo_space", name="Other", idempotencyKey="k-trip")) == (409, "IDEMPOTENCY_CONFLICT")


def test_update_space_rename_reslug_reorder_and_make_default(me):
    default = me.ok("list_todo_spaces")["spaces"][0]
    work = me.ok("create_todo_space", name="Work")["space"]
    renamed = me.ok("update_todo_space", spaceId=work["id"], expectedRevision=1, name="Job", slug="job", index=0)
    assert renamed["space"]["name"] == "Job" and renamed["space"]["slug"] == "job" and renamed["space"]["revision"] == 2
    listed = me.ok("list_todo_spaces")
    assert [s["slug"] for s in listed["spaces"]] == ["job", "default"]
    # the old slug is free again, the new one is taken
    me.ok("create_todo_space", name="W", slug="work")
    assert codes(me.fails("update_todo_space", spaceId=default["id"], expectedRevision=1, slug="job")) == (
        409,
        "CONFLICT",
    )
    made = me.ok("update_todo_space", spaceId=work["id"], expectedRevision=2, makeDefault=True)
    assert made["space"]["isDefault"]
    listed = me.ok("list_todo_spaces")
    assert listed["defaultSpaceId"] == work["id"]
    assert [s["id"] for s in listed["spaces"] if s["isDefault"]] == [work["id"]]
    # `default` still means the space that really has slug `default` (the old default space);
    # once that slug is gone it means the (new) default space
    assert me.ok("create_todo_task", title="t", spaceId="default")["task"]["spaceId"] == default["id"]
    me.ok("update_todo_space", spaceId=default["id"], expectedRevision=1, slug="old")
    assert me.ok("create_todo_task", title="t", spaceId="default")["task"]["spaceId"] == work["id"]
    assert me.ok("create_todo_task", title="t", spaceSlug="default")["task"]["spaceId"] == work["id"]


def test_update_space_conflict_not_found_and_empty_change(me):
    work = me.ok("create_todo_space", name="Work")["space"]
    status, envelope = me.fails("update_todo_space", spaceId=work["id"], expectedRevision=7, name="X")
    assert (status, envelope["error"]["code"]) == (409, "REVISION_CONFLICT")
    assert envelope["recoverData"] == {"space": work}
    assert codes(me.fails("update_todo_space", spaceId="nope", expectedRevision=1, name="X")) == (404, "NOT_FOUND")
    assert codes(me.fails("update_todo_space", spaceId=work["id"], expectedRevision=1)) == (400, "VALIDATION_ERROR")


def test_delete_space_rules(me):
    default = me.ok("list_todo_spaces")["spaces"][0]
    work = me.ok("create_todo_space", name="Work")
    space = work["space"]
    task = me.ok("create_todo_task", title="busy", spaceId=space["id"])["task"]
    status, envelope = me.fails("delete_todo_space", spaceId=space["id"], expectedRevision=1)
    assert (status, envelope["error"]["code"]) == (409, "CONFLICT")
    assert "still has 1 live task;" in envelope["error"]["message"]  # never "1 live tasks"
    assert codes(me.fails("delete_todo_space", spaceId=default["id"], expectedRevision=1)) == (409, "CONFLICT")
    assert codes(me.fails("delete_todo_space", spaceId=space["id"], expectedRevision=5)) == (409, "REVISION_CONFLICT")
    me.ok("delete_todo_task", id=task["id"], expectedRevision=1)
    deleted = me.ok("delete_todo_space", spaceId=space["id"], expectedRevision=1)
    assert deleted["space"]["id"] == space["id"]
    listed = me.ok("list_todo_spaces")
    assert [s["id"] for s in listed["spaces"]] == [default["id"]]
    assert {c["spaceId"] for c in listed["columns"]} == {default["id"]}
    # the slug is free again and the trashed task is restored into the default space
    me.ok("create_todo_space", name="Work")
    restored = me.ok("restore_todo_task", id=task["id"], expectedRevision=2)["task"]
    assert restored["spaceId"] == default["id"] and restored["columnId"] == listed["columns"][0]["id"]
    assert codes(me.fails("delete_todo_space", spaceId=space["id"], expectedRevision=1)) == (404, "NOT_FOUND")


def test_columns_create_update_archive_delete(me):
    listed = me.ok("list_todo_spaces")
    todo, doing, done = listed["columns"]
    first = me.ok("create_todo_column", name="Inbox-ish", index=0)["column"]
    assert first["spaceId"] == listed["defaultSpaceId"]
    work = me.ok("create_todo_space", name="Work", slug="work", columns=["Only"])
    by_slug = me.ok("create_todo_column", spaceSlug="work", name="Later")["column"]
    assert by_slug["spaceId"] == work["space"]["id"]
    order = [c["id"] for c in me.ok("list_todo_spaces")["columns"] if c["spaceId"] == listed["defaultSpaceId"]]
    assert order == [first["id"], todo["id"], doing["id"], done["id"]]
    moved = me.ok("update_todo_column", columnId=first["id"], expectedRevision=1, index=3, name="Last")["column"]
    assert moved["name"] == "Last" and moved["revision"] == 2
    order = [c["id"] for c in me.ok("list_todo_spaces")["columns"] if c["spaceId"] == listed["defaultSpaceId"]]
    assert order == [todo["id"], doing["id"], done["id"], first["id"]]
    archived = me.ok("update_todo_column", columnId=todo["id"], expectedRevision=1, archived=True)["column"]
    assert archived["archived"]
    # a task without a column goes to the first NON-archived column
    assert me.ok("create_todo_task", title="t")["task"]["columnId"] == doing["id"]
    status, envelope = me.fails("create_todo_task", title="t", columnId=todo["id"])
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR") and "archived" in envelope["error"][
        "message"
    ]
    # the last open column of a space can be neither archived nor deleted
    only = work["columns"][0]
    me.ok("delete_todo_column", columnId=by_slug["id"], expectedRevision=1)
    assert codes(me.fails("update_todo_column", columnId=only["id"], expectedRevision=1, archived=True)) == (
        409,
        "CONFLICT",
    )
    assert codes(me.fails("delete_todo_column", columnId=only["id"], expectedRevision=1)) == (409, "CONFLICT")
    # a column with live tasks cannot be deleted; conflicts carry the current column
    assert codes(me.fails("delete_todo_column", columnId=doing["id"], expectedRevision=1)) == (409, "CONFLICT")
    status, envelope = me.fails("update_todo_column", columnId=done["id"], expectedRevision=3, name="x")
    assert (status, envelope["recoverData"]) == (409, {"column": done})
    assert codes(me.fails("update_todo_column", columnId="nope", expectedRevision=1, name="x")) == (404, "NOT_FOUND")
    assert codes(me.fails("update_todo_column", columnId=done["id"], expectedRevision=1)) == (400, "VALIDATION_ERROR")
    assert me.ok("delete_todo_column", columnId=done["id"], expectedRevision=1)["column"]["id"] == done["id"]


def test_column_destination_rules(me):
    me.ok("create_todo_space", name="Work", slug="work")
    other = me.ok("create_todo_space", name="Other", slug="other")["space"]
    assert codes(me.fails("create_todo_column", name="x", spaceSlug="missing")) == (404, "NOT_FOUND")
    assert codes(me.fails("create_todo_column", name="x", spaceId="missing")) == (404, "NOT_FOUND")
    status, envelope = me.fails("create_todo_column", name="x", spaceSlug="work", spaceId=other["id"])
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR") and "different spaces" in envelope["error"][
        "message"
    ]
    assert (
        me.ok("create_todo_column", name="x", spaceSlug="other", spaceId=other["id"])["column"]["spaceId"]
        == other["id"]
    )


def test_create_column_idempotency(me):
    first = me.ok("create_todo_column", name="Extra", idempotencyKey="col-1")
    assert me.ok("create_todo_column", name="Extra", idempotencyKey="col-1") == first
    assert codes(me.fails("create_todo_column", name="Other", idempotencyKey="col-1")) == (409, "IDEMPOTENCY_CONFLICT")
    assert [c["name"] for c in me.ok("list_todo_spaces")["columns"]].count("Extra") == 1


def test_default_alias_prefers_a_real_default_slug(me):
    listed = me.ok("list_todo_spaces")
    default_space = listed["spaces"][0]
    # free the slug `default` by re-slugging the default space, then give it to another space
    me.ok("update_todo_space", spaceId=default_space["id"], expectedRevision=1, slug="home")
    aliased = me.ok("create_todo_task", title="a", spaceSlug="default")["task"]
    assert aliased["spaceId"] == default_space["id"]
    real = me.ok("create_todo_space", name="Real", slug="default")["space"]
    routed = me.ok("create_todo_task", title="b", spaceSlug="default")["task"]
    assert routed["spaceId"] == real["id"]


def test_a_space_of_the_most_columns_can_be_deleted(me):
    """A space takes MAX_COLUMNS_PER_SPACE columns; deleting it removed them all in one transaction
    and was refused past 32 ('one atomic change may have at most 100'), so such a space (or an
    import of a Todoist project of 50 sections, undone) could not be deleted at all."""
    from mesq.todos.model import MAX_COLUMNS_PER_SPACE

    space = me.ok("create_todo_space", name="Sections", columns=["s0"])["space"]
    for index in range(1, MAX_COLUMNS_PER_SPACE):
        me.ok("create_todo_column", spaceId=space["id"], name=f"s{index}")
    last = [c for c in me.ok("list_todo_spaces")["columns"] if c["spaceId"] == space["id"]][-1]
    task = me.ok("create_todo_task", title="busy", spaceId=space["id"], columnId=last["id"])["task"]
    status, envelope = me.fails("delete_todo_space", spaceId=space["id"], expectedRevision=1)
    assert (status, envelope["error"]["code"]) == (409, "CONFLICT")  # refused before any column went
    listed = me.ok("list_todo_spaces")["columns"]
    assert sum(c["spaceId"] == space["id"] for c in listed) == MAX_COLUMNS_PER_SPACE
    me.ok("delete_todo_task", id=task["id"], expectedRevision=1)
    deleted = me.ok("delete_todo_space", spaceId=space["id"], expectedRevision=1)
    assert deleted["space"]["id"] == space["id"]
    listed = me.ok("list_todo_spaces")
    assert space["id"] not in {s["id"] for s in listed["spaces"]}
    assert space["id"] not in {c["spaceId"] for c in listed["columns"]}


def test_a_space_is_created_with_as_many_columns_as_its_schema_takes(me):
    """create_todo_space took up to 50 `columns` by its schema, but wrote the space with all of
    them in one transaction of three writes a column: 33 or more answered "this change needs 102
    writes; one atomic change may have at most 100". The schema now takes 30 (an idempotency
    claim beside them still fits); create_todo_column adds more, up to a space's 50."""
    from mesq.todos.model import MAX_COLUMNS_PER_SPACE

    names = [f"列{index}" for index in range(30)]
    made = me.ok("create_todo_space", name="Many", columns=names, idempotencyKey="many-columns-1")
    assert [c["name"] for c in made["columns"]] == names
    assert me.ok("create_todo_space", name="Many", columns=names, idempotencyKey="many-columns-1") == made
    status, envelope = me.fails("create_todo_space", name="More", columns=[*names, "列30"])
    assert (status, envelope["error"]["code"]) == (400, "VALIDATION_ERROR")
    assert "columns" in envelope["error"]["message"] and "needs" not in envelope["error"]["message"]
    for index in range(30, MAX_COLUMNS_PER_SPACE):
        me.ok("create_todo_column", spaceId=made["space"]["id"], name=f"列{index}")
    listed = me.ok("list_todo_spaces")["columns"]
    assert sum(c["spaceId"] == made["space"]["id"] for c in listed) == MAX_COLUMNS_PER_SPACE
