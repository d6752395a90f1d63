"""Undo edges: a todo tag rename or delete records the records it rewrites and a rename undoes by
its runId; changes that cannot be undone are listed in `notUndone` (NOT_UNDOABLE), never
skipped; a cross-space move takes its subtasks back; an idempotent replay records nothing twice;
list_changes' since/until and actor filters."""

from __future__ import annotations

from typing import Any

from mesq.application.invocation import invoke_sync
from mesq.kernel.context import Principal
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.spec import load_spec
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from .test_atomicity import SCOPES, USER, caller, changes


def caller_as(items: ItemStore, credential: str, name: str) -> Any:
    """Like `caller`, as another credential of the same user."""
    services = Services(settings=inprocess_settings(), items=items, blobs=None)  # type: ignore[arg-type]
    principal = Principal(user_id=USER, scopes=SCOPES, credential_id=credential, kind="pat", name=name)
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        found: dict[str, Any] = invoke_sync(
            spec.operations[operation_id], arguments, principal=principal, services=services, trace_id="t",
            channel="api",
        )  # fmt: skip
        return found

    return call


def _tag_names(call: Any) -> dict[str, Any]:
    return {tag["name"]: tag for tag in call("list_todo_tags")["tags"]}


def test_a_tag_rename_records_its_records_and_undoes_by_its_run(store):
    call = caller(store)
    call("create_todo_tag", name="old", color="#ff0000")
    tasks = [call("create_todo_task", title=f"t{n}", tags=["old", "keep"])["task"] for n in range(2)]
    item = call("create_todo_inbox_item", title="i", tags=["old"])["item"]
    tag = _tag_names(call)["old"]
    call("update_todo_tag", name="old", newName="new", expectedRevision=tag["revision"])
    [rename] = [c for c in changes(store) if c["operation"] == "update_todo_tag" and c["record"]["kind"] == "tag"]
    assert rename["action"] == "update" and rename["before"]["name"] == "old" and rename["after"]["name"] == "new"
    run = [c for c in changes(store) if c["runId"] == rename["runId"]]
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


def test_undo_by_run_lists_what_cannot_be_undone(sqlite):
    call = caller(sqlite)
    space = call("create_todo_space", name="Work")["space"]
    [made] = [c for c in changes(sqlite) if c["operation"] == "create_todo_space" and c["record"]["kind"] == "space"]
    by_id = call("undo_changes", changeIds=[made["id"]])  # one change: a space has no trash
    assert [(e["changeId"], e["code"]) for e in by_id["notUndone"]] == [(made["id"], "NOT_UNDOABLE")]
    assert "space" in by_id["notUndone"][0]["message"]
    # The whole run (or session): the space it created holds nothing, so it is removed, not listed.
    undone = call("undo_changes", runId=made["runId"])
    assert made["id"] in {e["changeId"] for e in undone["undone"] if e.get("removed")}
    assert made["id"] not in {e["changeId"] for e in undone["notUndone"]}
    assert space["id"] not in {s["id"] for s in call("list_todo_spaces")["spaces"]}
    [gone] = [c for c in changes(sqlite) if c["action"] == "delete" and c["record"]["kind"] == "space"]
    assert gone["undoes"] == made["id"]
    # The removal an undo made is itself undone (a redo): the space is back, and only once.
    by_actor = call("undo_changes", actor="pat:t", since=gone["at"])
    assert gone["id"] in {e["changeId"] for e in by_actor["undone"]} and by_actor["notUndone"] == []
    assert space["id"] in {s["id"] for s in call("list_todo_spaces")["spaces"]}
    by_id = call("undo_changes", changeIds=[gone["id"]])
    assert by_id["notUndone"][0]["code"] == "CONFLICT"


def test_undoing_a_cross_space_move_takes_its_subtasks_back(store):
    call = caller(store)
    home = call("create_todo_space", name="Home")["space"]
    task = call("create_todo_task", title="t")["task"]
    subs = [call("create_todo_subtask", taskId=task["id"], title=f"s{n}")["subtask"] for n in range(3)]
    task = call("get_todo_task", id=task["id"])["task"]
    call("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=home["id"])
    assert all(call("get_todo_task", id=s["id"])["task"]["spaceId"] == home["id"] for s in subs)
    [move] = [c for c in changes(store) if c["operation"] == "move_todo_task"]  # one change, subtasks inside
    assert sorted(m["record"]["id"] for m in move["members"]) == sorted(s["id"] for s in subs)
    undone = call("undo_changes", changeIds=[move["id"]])
    assert undone["notUndone"] == []
    assert call("get_todo_task", id=task["id"])["task"]["spaceId"] == task["spaceId"]
    assert all(call("get_todo_task", id=s["id"])["task"]["spaceId"] == task["spaceId"] for s in subs)


def test_undoing_a_move_takes_the_subtasks_restored_or_made_since_with_the_task(store):
    """A move takes only the live subtasks (its members); one restored from the trash after it, or
    made after it, takes the task's new space. Undoing the move left those in that space while
    the task went back (get_todo_task showed them in a space their task was not in). They now go
    back with it, and the redo brings them along again."""
    call = caller(store)
    home = call("create_todo_space", name="Home")["space"]
    task = call("create_todo_task", title="t")["task"]
    subs = [call("create_todo_subtask", taskId=task["id"], title=f"s{n}")["subtask"] for n in range(2)]
    call("delete_todo_subtask", id=subs[1]["id"], expectedRevision=subs[1]["revision"])
    task = call("get_todo_task", id=task["id"])["task"]
    call("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=home["id"])
    [trashed] = [e for e in call("list_todo_trash")["items"] if e["id"] == subs[1]["id"]]
    assert trashed["spaceId"] == home["id"]
    call("restore_todo_item", id=subs[1]["id"], kind="subtask", expectedRevision=trashed["revision"])
    made = call("create_todo_subtask", taskId=task["id"], title="made")["subtask"]
    ids = [subs[0]["id"], subs[1]["id"], made["id"]]
    [move] = [c for c in changes(store) if c["operation"] == "move_todo_task"]
    assert call("undo_changes", changeIds=[move["id"]])["notUndone"] == []

    def spaces() -> set[str]:
        return {call("get_todo_task", id=i)["task"]["spaceId"] for i in [task["id"], *ids]}

    def listed(space_id: str) -> set[str]:
        return {t["id"] for t in call("query_todos", spaceId=space_id)["items"] if t["id"] in ids}

    assert spaces() == {task["spaceId"]}
    assert listed(home["id"]) == set() and listed(task["spaceId"]) == set(ids)
    [undo] = [c for c in changes(store) if c["operation"] == "undo_changes"]
    assert call("undo_changes", changeIds=[undo["id"]])["notUndone"] == []
    assert spaces() == {home["id"]}


def test_a_session_that_edits_subtasks_then_moves_their_task_undoes_as_one(store):
    """Undoing the move writes its subtasks (members); the session's earlier subtask changes then
    expect the revisions that undo made, as the dry run promised, instead of conflicting."""
    setup, agent = caller(store), caller_as(store, "pat:agent", "agent")
    other = setup("create_todo_space", name="Other")["space"]
    task = setup("create_todo_task", title="parent")["task"]
    one = setup("create_todo_subtask", taskId=task["id"], title="sub one")["subtask"]
    agent("update_todo_subtask", id=one["id"], expectedRevision=one["revision"], title="sub one edited")
    two = agent("create_todo_subtask", taskId=task["id"], title="sub two")["subtask"]
    task = agent("get_todo_task", id=task["id"])["task"]
    agent("move_todo_task", id=task["id"], expectedRevision=task["revision"], spaceId=other["id"])
    session = agent("get_context")["sessionId"]
    preview = agent("undo_changes", sessionId=session, dryRun=True)
    undone = agent("undo_changes", sessionId=session)
    assert preview["notUndone"] == [] and undone["notUndone"] == [], undone["notUndone"]
    assert len(undone["undone"]) == len(preview["undone"]) == 3
    detail = agent("get_todo_task", id=task["id"])
    assert detail["task"]["spaceId"] == task["spaceId"]
    assert [sub["title"] for sub in detail["subtasks"]] == ["sub one"]
    assert two["id"] in {item["id"] for item in agent("list_todo_trash")["items"]}  # the creation's undo


def test_undoing_a_move_to_the_board_puts_the_item_back_in_the_inbox(store):
    """move_todo_inbox_item_to_board records the task's creation and the item's removal; undoing
    the session takes the task off the board and puts the item back in the inbox, its subtask
    inside, instead of reporting a permanent delete. The removal alone, while the task is still on
    the board, is refused (the item would exist twice)."""
    setup, agent = caller(store), caller_as(store, "pat:agent", "agent")
    item = setup("create_todo_inbox_item", title="buy stamps", tags=["errands"])["item"]
    setup("create_todo_inbox_subtask", parentItemId=item["id"], parentRevision=item["revision"], title="small ones")
    item = setup("get_todo_inbox_item", id=item["id"])["item"]
    agent("move_todo_inbox_item_to_board", id=item["id"], expectedRevision=item["revision"])
    [removal] = [c for c in changes(store) if c["record"]["kind"] == "inbox" and c["action"] == "delete"]
    alone = agent("undo_changes", changeIds=[removal["id"]])
    assert alone["undone"] == [] and alone["notUndone"][0]["code"] == "CONFLICT", alone
    session = agent("get_context")["sessionId"]
    preview = agent("undo_changes", sessionId=session, dryRun=True)
    undone = agent("undo_changes", sessionId=session)
    assert preview["notUndone"] == [] and undone["notUndone"] == [], undone["notUndone"]
    assert len(undone["undone"]) == len(preview["undone"]) == 3  # the task, its subtask, the item
    back = agent("get_todo_inbox_item", id=item["id"])["item"]
    assert (back["title"], back["tags"], [s["title"] for s in back["subtasks"]]) == (
        "buy stamps",
        ["errands"],
        ["small ones"],
    )
    assert back["revision"] == item["revision"] + 1
    assert item["id"] in {entry["id"] for entry in agent("list_todo_trash")["items"]}  # the task it became


def test_the_dry_run_of_a_session_foresees_the_spaces_its_undo_removes(store):
    """A session that made a space (its columns come with it) and tasks in it: the undo trashes the
    tasks and then removes the emptied space; the dry run says so beforehand, entry for entry. A
    space that keeps a task someone else put in it stays, in both."""
    setup, agent = caller(store), caller_as(store, "pat:agent", "agent")
    trip = agent("create_todo_space", name="Trip")["space"]
    kept = agent("create_todo_space", name="Kept")["space"]
    agent("create_todo_task", title="pack", spaceId=trip["id"])
    agent("create_todo_task", title="book", spaceId=kept["id"])
    setup("create_todo_task", title="someone else's", spaceId=kept["id"])
    session = agent("get_context")["sessionId"]

    def outcome(answer: dict[str, Any]) -> tuple[list[tuple[str, bool]], list[str]]:
        undone = sorted((entry["changeId"], bool(entry.get("removed"))) for entry in answer["undone"])
        return undone, sorted(entry["changeId"] for entry in answer["notUndone"])

    preview = agent("undo_changes", sessionId=session, dryRun=True)
    undone = agent("undo_changes", sessionId=session)
    assert outcome(preview) == outcome(undone)
    removed = {entry["record"]["id"] for entry in undone["undone"] if entry.get("removed")}
    assert trip["id"] in removed and kept["id"] not in removed
    assert kept["id"] in {entry["record"]["id"] for entry in undone["notUndone"]}


def test_an_idempotent_replay_writes_no_second_record(sqlite):
    call = caller(sqlite)
    first = call("create_todo_task", title="t", idempotencyKey="k")["task"]
    again = call("create_todo_task", title="t", idempotencyKey="k")["task"]
    memo = call("create_memo", content="m", idempotencyKey="m")["memo"]
    call("create_memo", content="m", idempotencyKey="m")
    assert again["id"] == first["id"]
    assert sorted(c["record"]["id"] for c in changes(sqlite)) == sorted([first["id"], memo["id"]])


def test_list_changes_filters_by_time_and_actor(sqlite):
    mine, theirs = caller(sqlite), caller_as(sqlite, "pat:other", "other")
    memo = mine("create_memo", content="one")["memo"]
    theirs("update_memo", id=memo["id"], expectedRevision=1, content="two")
    mine("update_memo", id=memo["id"], expectedRevision=2, content="three")
    made, edited, again = sorted(changes(sqlite), key=lambda c: c["id"])
    listed = mine("list_changes", actor="pat:other")["changes"]
    assert [c["id"] for c in listed] == [edited["id"]] and listed[0]["actor"]["name"] == "other"
    assert [c["id"] for c in mine("list_changes", actor="t")["changes"]] == [again["id"], made["id"]]
    between = mine("list_changes", since=edited["at"], until=again["at"])["changes"]
    assert edited["id"] in [c["id"] for c in between] and again["id"] not in [c["id"] for c in between]
    assert [c["id"] for c in mine("list_changes", since=again["at"])["changes"]] == [again["id"]]
    assert mine("list_changes", until=made["at"])["changes"] == []


def test_undoing_a_session_removes_its_space_with_the_columns_in_one_change(store):
    """The emptied space the finisher removes takes its columns with it in one write; that write
    is one change of the undo: the space's removal, `undoes` its creation, the columns' removals
    its `members`. No removal of the undo stands apart from it (on /activity: a group of
    deletions of its own, not the undo's), in the stored records and in list_changes alike."""
    agent = caller_as(store, "pat:agent", "agent")
    trip = agent("create_todo_space", name="Trip")["space"]
    agent("create_todo_task", title="pack", spaceId=trip["id"])
    columns = {c["id"] for c in agent("list_todo_spaces")["columns"] if c["spaceId"] == trip["id"]}
    assert columns
    [made] = [c for c in changes(store) if c["record"]["id"] == trip["id"]]
    agent("undo_changes", sessionId=agent("get_context")["sessionId"])
    undo = [c for c in changes(store) if c["operation"] == "undo_changes"]
    assert [c for c in undo if "undoes" not in c] == []
    [removal] = [c for c in undo if c["record"]["kind"] == "space"]
    assert (removal["action"], removal["undoes"]) == ("delete", made["id"])
    assert {m["record"]["id"] for m in removal["members"]} == columns
    assert all(m["record"]["kind"] == "column" and m["revisions"]["after"] is None for m in removal["members"])
    listed = agent("list_changes", sessionId=removal["sessionId"], limit=100)["changes"]
    assert sorted(c["id"] for c in listed) == sorted(c["id"] for c in undo)
    assert [c["id"] for c in listed if "undoes" not in c] == []


def _trip_undone(store: ItemStore) -> tuple[Any, dict[str, Any], dict[str, Any], list[dict[str, Any]], list[str]]:
    """An agent's session made the space "Trip" (its default columns) and a task in it; a person
    undid the session: answers the person, the space, the task, its columns and the undo's
    change ids (what /activity's "Redo these changes" posts)."""
    agent = caller_as(store, "pat:agent", "agent")
    trip = agent("create_todo_space", name="Trip")["space"]
    task = agent("create_todo_task", title="pack", spaceId=trip["id"])["task"]
    columns = [c for c in agent("list_todo_spaces")["columns"] if c["spaceId"] == trip["id"]]
    person = caller_as(store, "pat:person", "person")
    undone = person("undo_changes", sessionId=agent("get_context")["sessionId"])
    assert undone["notUndone"] == []
    assert trip["id"] not in {s["id"] for s in person("list_todo_spaces")["spaces"]}
    undo = [c["id"] for c in changes(store) if c["operation"] == "undo_changes"]
    return person, trip, task, columns, undo


def _board(call: Any, space_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    listed = call("list_todo_spaces")
    space = next((s for s in listed["spaces"] if s["id"] == space_id), None)
    return space, [c for c in listed["columns"] if c["spaceId"] == space_id]


def test_redoing_an_undone_session_brings_its_space_back_with_the_columns_and_the_task(store):
    """Redo (undo_changes of the undo's changes): the space is back with its id, name, slug,
    order and columns before the task's restore, so the task is back in its own column, not in
    the default space; the re-creation is one change that `undoes` the removal, the columns its
    members."""
    person, trip, task, columns, undo = _trip_undone(store)
    redone = person("undo_changes", changeIds=undo)
    assert redone["notUndone"] == [] and len(redone["undone"]) == len(undo)
    space, back = _board(person, trip["id"])
    assert space is not None
    assert {k: space[k] for k in ("name", "slug", "position")} == {k: trip[k] for k in ("name", "slug", "position")}
    assert [_as_made(c) for c in back] == [_as_made(c) for c in columns]
    again = person("get_todo_task", id=task["id"])["task"]
    assert (again["spaceId"], again["columnId"], again["deletedAt"]) == (trip["id"], task["columnId"], None)
    [removal] = [c for c in changes(store) if c["id"] in undo and c["record"]["kind"] == "space"]
    [recreation] = [c for c in changes(store) if c.get("undoes") == removal["id"]]
    assert recreation["action"] == "create" and recreation["record"]["id"] == trip["id"]
    assert {m["record"]["id"] for m in recreation["members"]} == {c["id"] for c in columns}
    assert [c for c in changes(store) if c["operation"] == "undo_changes" and "undoes" not in c] == []


def test_undoing_the_redo_removes_the_space_again(store):
    """The redo's changes undone in turn: the task back in the trash, the space removed again
    with its columns (one change that `undoes` the re-creation); then redone once more."""
    person, trip, task, _columns, undo = _trip_undone(store)
    person("undo_changes", changeIds=undo)
    redo = [c["id"] for c in changes(store) if c.get("undoes") in undo]
    assert len(redo) == len(undo)
    again = person("undo_changes", changeIds=redo)
    assert again["notUndone"] == []
    assert _board(person, trip["id"]) == (None, [])
    assert task["id"] in {entry["id"] for entry in person("list_todo_trash")["items"]}
    [removal] = [c for c in changes(store) if c.get("undoes") in redo and c["record"]["kind"] == "space"]
    assert removal["action"] == "delete" and len(removal["members"]) == len(_columns)
    third = person("undo_changes", changeIds=[c["id"] for c in changes(store) if c.get("undoes") in redo])
    assert third["notUndone"] == []
    assert person("get_todo_task", id=task["id"])["task"]["spaceId"] == trip["id"]


def _as_made(column: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in column.items() if name not in ("revision", "updatedAt")}


def test_a_persons_own_delete_of_the_space_a_redo_brought_back_stays_not_undoable(store):
    """Only a removal an undo made comes back: the person's own delete_todo_space (no `undoes`)
    of the space a redo brought back is a permanent delete, in the dry run and the real one."""
    call, trip, task, _columns, undo = _trip_undone(store)
    assert call("undo_changes", changeIds=undo)["notUndone"] == []
    call("delete_todo_task", id=task["id"], expectedRevision=call("get_todo_task", id=task["id"])["task"]["revision"])
    space, _back = _board(call, trip["id"])
    assert space is not None
    call("delete_todo_space", spaceId=trip["id"], expectedRevision=space["revision"])
    [delete] = [c for c in changes(store) if c["operation"] == "delete_todo_space"]
    assert "undoes" not in delete
    for dry in (True, False):
        answer = call("undo_changes", changeIds=[delete["id"]], dryRun=dry)
        assert answer["undone"] == [] and [e["code"] for e in answer["notUndone"]] == ["NOT_UNDOABLE"]
        assert "permanent delete of a space" in answer["notUndone"][0]["message"]


def test_the_redos_dry_run_forecasts_the_real_run(store):
    person, trip, _task, _columns, undo = _trip_undone(store)
    preview = person("undo_changes", changeIds=undo, dryRun=True)
    assert _board(person, trip["id"]) == (None, [])
    redone = person("undo_changes", changeIds=undo)
    strip = lambda entries: sorted((e["changeId"], e["action"]) for e in entries)  # noqa: E731
    assert preview["notUndone"] == redone["notUndone"] == []
    assert strip(preview["undone"]) == strip(redone["undone"])
    redo = [c["id"] for c in changes(store) if c.get("undoes") in undo]
    preview = person("undo_changes", changeIds=redo, dryRun=True)
    again = person("undo_changes", changeIds=redo)
    assert preview["notUndone"] == again["notUndone"] == []
    assert strip(preview["undone"]) == strip(again["undone"])


def test_a_redo_takes_the_next_free_slug_when_another_space_took_it(store):
    """The slug was claimed meanwhile by another space: the space comes back under the next
    free one (`trip-2`), as create_todo_space names a space, rather than the redo failing."""
    person, trip, task, _columns, undo = _trip_undone(store)
    person("create_todo_space", name="Other trip", slug=trip["slug"])
    assert person("undo_changes", changeIds=undo)["notUndone"] == []
    space, _back = _board(person, trip["id"])
    assert space is not None and space["slug"] == f"{trip['slug']}-2"
    assert person("get_todo_task", id=task["id"])["task"]["spaceId"] == trip["id"]
