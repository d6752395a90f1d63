"""The todo records' reverter for `undo_changes` (history/undo.py, the engine; application/
registries.py gathers the reverters): one change of a task, subtask, inbox item, space, column or
tag put back through the todo writes.

- a create or a restore: the record goes to the trash; a trash: it is restored;
- a space an undo removed (a run's or session's, with its columns: `remove_created_spaces`): put
  back with its id, name, order and columns, its slug too unless another space took it meanwhile
  (then the next free one, `-2`, `-3`, as create_todo_space names a space); its re-creation, undone
  in turn, removes it again (a redo, then its undo);
- a tag rename: renamed back (update_todo_tag, the records carrying it too); a space's slug: set
  back through update_todo_space (its slug claim moves with it);
- any other update or move, with the records that moved with it (`members`): their changed
  fields set back through the todo write pattern (list sizes, the reminder index, tag
  registrations and the change records in the revert's own transaction); a task taken back to
  another space takes its live subtasks that are not members (made or restored since) with it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from ..history.reads import changes
from ..history.records import change_key, expanded, is_moved_to_board, is_tag_an_undo_made, is_undo_of_space
from ..kernel.context import Call
from ..kernel.errors import Conflict, MesqError, NotFound, RevisionConflict
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item, WriteOp
from ..kernel.timestamps import now_timestamp
from . import keys, model
from .board.columns import delete_todo_column
from .board.spaces import delete_todo_space, slug_claim, update_todo_space
from .board.subtasks import delete_todo_subtask
from .board.tags import remove_unused_todo_tag, rename_back_todo_tag
from .board.tasks import delete_todo_task
from .board.trash import restore_todo_item
from .board.trash_follows import trash_follows
from .inbox.operations import delete_todo_inbox_item
from .keys import Kind
from .state import TodoState, load_partial
from .writes import Built, _free_slug, apply, bump, put_new, put_revised, tag_registrations


def revert_todo(call: Call, change: Item, expected: int) -> dict[str, Any]:
    kind, record_id = change["record"]["kind"], change["record"]["id"]
    action = change["action"]
    target = {"id": record_id, "expectedRevision": expected}
    if is_undo_of_space(change) and kind == "column":
        return _column_back(call, change) if action == "delete" else _column_removed_again(call, change, expected)
    if is_undo_of_space(change):
        return _space_back(call, change) if action == "delete" else _space_removed_again(call, change, expected)
    if is_tag_an_undo_made(change):
        return _renamed_again(call, change, expected) if action == "create" else _tag_back(call, change)
    if action in ("create", "restore"):
        trash = {"task": delete_todo_task, "subtask": delete_todo_subtask, "inbox": delete_todo_inbox_item}[kind]
        return trash(call, target)
    if action == "trash":
        return restore_todo_item(call, {**target, "kind": _TRASH_KIND[kind]})
    if is_moved_to_board(change):
        return _back_to_inbox(call, change)
    if change.get("members"):
        return _revert_fields(call, change, expected)
    if kind == "tag" and "name" in change["fields"]:
        return _rename_back(call, change, expected)
    if kind == "space" and "slug" in change["fields"]:
        names = {name: change["before"][name] for name in ("name", "slug") if name in change["fields"]}
        return update_todo_space(call, {"spaceId": record_id, "expectedRevision": expected, **names})
    return _revert_fields(call, change, expected)


_TRASH_KIND = {"task": "task", "subtask": "subtask", "inbox": "inboxItem"}


def _back_to_inbox(call: Call, change: Item) -> dict[str, Any]:
    """A move to the board undone: the inbox item back as it was (its subtasks inside), once the
    task it became is off the board (the undo of its creation, earlier in the same undo, put it
    in the trash: a session or run undoes both). A task still on the board is a conflict, so the
    item never exists twice."""
    user_id, item_id = call.principal.user_id, change["record"]["id"]

    def conflict(state: TodoState) -> MesqError:
        if state.inbox_item(item_id) is not None:
            return Conflict("inbox item %(record_id)s is already back in the inbox", record_id=quoted(item_id))
        return Conflict(
            "task %(record_id)s, which this inbox item became, is still on the board: undo its creation too "
            "(undo the whole session or run), or move it by hand",
            record_id=quoted(item_id),
        )

    def build(state: TodoState) -> Built:
        task = state.task(item_id)
        if state.inbox_item(item_id) is not None or (task is not None and keys.live(task)):
            raise conflict(state)
        now = now_timestamp()
        item = {**change["before"], "deletedAt": None, "revision": int(change["revisions"]["before"]) + 1}
        item["updatedAt"] = now
        ops: list[WriteOp] = [put_new(user_id, "inbox", item)]
        return {"inbox": {"revision": item["revision"]}}, ops + tag_registrations(
            state, user_id, item.get("tags") or [], now
        )

    return apply(call, build, conflict)


def _space_back(call: Call, change: Item) -> dict[str, Any]:
    """A space's removal by an undo undone (the redo of a session or run that made it): the space
    back with its id, name, order and columns (the change's `before` and its members'), each at
    the revision after the one it was removed at, in one transaction through the todo write
    pattern; its slug too, or, when another space took it meanwhile, the next free one (as
    create_todo_space names a space). Its change `undoes` the removal, the columns its members
    (todos/changes.py), so undoing it removes the space again. Its trashed tasks, restored by the
    same redo after it (newest first), find their own columns again."""
    user_id, space_id = call.principal.user_id, change["record"]["id"]
    columns = [m for m in change.get("members", []) if m["record"]["kind"] == "column"]

    def conflict(state: TodoState) -> MesqError:
        if space_id in state.spaces:
            return Conflict("todo space %(record_id)s is already back", record_id=quoted(space_id))
        return Conflict("the slug of space %(record_id)s was claimed meanwhile; retry", record_id=quoted(space_id))

    def build(state: TodoState) -> Built:
        if space_id in state.spaces or any(c["record"]["id"] in state.columns for c in columns):
            raise conflict(state)
        if len(columns) > model.MAX_COLUMNS_PER_SPACE:
            raise Conflict(
                "a space has at most %(max_columns_per_space)s columns",
                max_columns_per_space=model.MAX_COLUMNS_PER_SPACE,
            )
        now = now_timestamp()
        space = _as_it_was(change, now)
        space["slug"] = _free_slug(state, str(space["slug"]))
        ops: list[WriteOp] = [put_new(user_id, "space", space), slug_claim(user_id, str(space["slug"]), space_id)]
        back = [{**_as_it_was(column, now), "spaceId": space_id} for column in columns]
        ops += [put_new(user_id, "column", column) for column in back]
        data = {"space": model.public_space(space, state.default_space_id)}
        return {**data, "columns": [model.public_column(column) for column in back]}, ops

    return apply(call, build, conflict)


def _column_back(call: Call, change: Item) -> dict[str, Any]:
    """A column an undo removed before its space (`remove_created_spaces`, a wide space) put back
    by the redo, as it was, at the revision after the one it was removed at. The redo brings the
    space back first (its removal is newer), so the column finds it; a space that is not there, or
    that has its most columns meanwhile, is a conflict."""
    user_id, column_id = call.principal.user_id, change["record"]["id"]
    space_id = str((change["before"] or {}).get("spaceId"))

    def conflict(state: TodoState) -> MesqError:
        if column_id in state.columns:
            return Conflict("todo column %(record_id)s is already back", record_id=quoted(column_id))
        if space_id not in state.spaces:
            return Conflict("the space of todo column %(record_id)s is not there", record_id=quoted(column_id))
        return Conflict(
            "a space has at most %(max_columns_per_space)s columns", max_columns_per_space=model.MAX_COLUMNS_PER_SPACE
        )

    def build(state: TodoState) -> Built:
        full = len(state.columns_of(space_id)) >= model.MAX_COLUMNS_PER_SPACE
        if column_id in state.columns or space_id not in state.spaces or full:
            raise conflict(state)
        column = _as_it_was(change, now_timestamp())
        return {"column": model.public_column(column)}, [put_new(user_id, "column", column)]

    return apply(call, build, conflict)


def _column_removed_again(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """A column a redo brought back, removed again (one change that `undoes` the re-creation)."""
    return delete_todo_column(call, {"columnId": change["record"]["id"], "expectedRevision": expected})


def _as_it_was(entry: Item, now: str) -> Item:
    """A removed record as its removal's `before` kept it, at the next revision."""
    revision = int(entry["revisions"]["before"]) + 1
    return {**entry["before"], "id": entry["record"]["id"], "revision": revision, "updatedAt": now}


def _space_removed_again(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """A space's re-creation by a redo undone: removed again with its columns through
    delete_todo_space (one change that `undoes` the re-creation, the columns its members); a
    column changed since is a conflict, as for any change's members, and a space holding live
    tasks is refused (move or delete them first, or undo their restore too)."""
    state = load_partial(call.services.items, call.principal.user_id)
    for column in change.get("members", []):
        current = state.columns.get(column["record"]["id"])
        if current is not None and int(current["revision"]) != column["revisions"]["after"]:
            raise RevisionConflict(
                "todo column %(record_id)s changed since this change (revision %(revision)s)",
                record_id=quoted(column["record"]["id"]),
                revision=current["revision"],
                recover_data={"column": model.public_column(current)},
            )
    return delete_todo_space(call, {"spaceId": change["record"]["id"], "expectedRevision": expected})


def _rename_back(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """A tag rename undone: renamed back, with the colour it had (rename_back_todo_tag), and of
    the records carrying it only those the rename rewrote that are still as it left them; in an
    undo of the whole run or session they already were (their own changes are newer). A record
    changed since keeps the tag: its change of the rename is answered in `left` (the engine lists
    it as REVISION_CONFLICT, as the dry run does through `rename_leftovers`)."""
    name = change["record"]["id"]
    current = load_partial(call.services.items, call.principal.user_id).tags.get(name)
    if current is None:
        raise NotFound("todo tag %(name)s no longer exists", name=quoted(name))
    color = change["before"]["color"] if "color" in change["fields"] else current.get("color")
    args = {"name": name, "newName": change["before"]["name"], "color": color, "expectedRevision": expected}
    return _renamed(call, change, args, _rewritten_by(call, change, change["before"]["name"], change["after"]["name"]))


def _renamed(call: Call, change: Item, args: dict[str, Any], rewrites: dict[str, Item]) -> dict[str, Any]:
    rewritten = {record_id: int(item["revisions"]["after"]) for record_id, item in rewrites.items()}
    data = rename_back_todo_tag(call, args, rewritten)
    return {**data, "left": [(rewrites[record_id], revision) for record_id, revision in data["left"].items()]}


def _renamed_again(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """The redo of a rename's undo that registered the old name again: beside the new name a record
    changed since kept (its change `undoes` the rename), the old name is merged into the new one
    again, the records the undo took back (those still as it left them) with it, as the rename
    did; registered by the records the undo took back (no `undoes`; a whole undo's redo takes
    those records back first), it is removed once none carries it."""
    renaming = _renaming(call, change)
    if renaming is None:
        return remove_unused_todo_tag(call, {"name": change["record"]["id"], "expectedRevision": expected})
    new_name, old_name = renaming
    current = load_partial(call.services.items, call.principal.user_id).tags
    color = (current.get(new_name) or current.get(old_name) or {}).get("color")
    args = {"name": old_name, "newName": new_name, "color": color, "expectedRevision": expected}
    return _renamed(call, change, args, _rewritten_by(call, change, new_name, old_name))


def _tag_back(call: Call, change: Item) -> dict[str, Any]:
    """A tag an undo deleted (a rename's undo merging the new name into the old one its records
    registered again), counted back by the redo: the records' own redo, taken first, registers it
    again, so it is only marked (its revision bumped, the change `undoes` the deletion); else it
    is made again as it was, carried by no record."""
    user_id, name = call.principal.user_id, change["record"]["id"]

    def build(state: TodoState) -> Built:
        now = now_timestamp()
        current = state.tags.get(name)
        if current is not None:
            after = {**current, **bump(current, now)}
            return {"tag": model.public_tag(after)}, [put_revised(user_id, "tag", current, after)]
        tag = {**change["before"], "name": name, "revision": int(change["revisions"]["before"]) + 1, "updatedAt": now}
        return {"tag": model.public_tag(tag)}, [put_new(user_id, "tag", tag)]

    def conflict(state: TodoState) -> MesqError:
        return Conflict("todo tag %(name)s changed meanwhile; retry", name=quoted(name))

    return apply(call, build, conflict)


def _renaming(call: Call, change: Item) -> tuple[str, str] | None:
    """(the name the records had, the name the change gave them) of a tag's rename, or of an undo's
    re-registration of a rename's old name (read from the rename it `undoes`); None for a tag an
    undo registered by its records alone."""
    if change["action"] == "update":
        return str(change["before"]["name"]), str(change["after"]["name"])
    if change["action"] != "create":
        return None
    undone = change.get("undoes")
    stored = call.services.items.get(change_key(call.principal.user_id, str(undone))) if undone else None
    if stored is None:
        return None
    rename = expanded(stored)
    if rename["record"]["kind"] != "tag" or "name" not in rename.get("fields", []):
        return None
    return str(rename["after"]["name"]), str(rename["before"]["name"])


def rename_leftovers(call: Call, change: Item, undoing: Collection[str]) -> list[tuple[Item, int]]:
    """For a dry run: the changes of the records a tag rename's undo would leave as they are
    (changed since the rename, and their change of it not among `undoing`, the change ids the
    same undo reverts before), each with its record's current revision."""
    if change["record"]["kind"] != "tag" or change.get("members"):
        return []
    if change["action"] == "update" and "name" not in change["fields"]:
        return []  # a recolour: no record rewritten
    renaming = _renaming(call, change)
    if renaming is None:
        return []
    rewrites = {k: item for k, item in _rewritten_by(call, change, *renaming).items() if item["id"] not in undoing}
    current = todo_revisions(call, list(rewrites.values()))
    return [
        (item, int(now))
        for record_id, item in rewrites.items()
        if (now := current.get(record_id)) is not None and now != int(item["revisions"]["after"])
    ]


def _rewritten_by(call: Call, rename: Item, old: str, new: str) -> dict[str, Item]:
    """The records a tag rename rewrote and whose rewrite is not undone: record id -> its change
    of the rename. They are the rename's run's later changes of the same operation that took the
    old name off a record and put the new one on (an undo's: its run's, from the new name back)."""

    def of_the_rename(item: Item) -> bool:
        return bool(
            item.get("operation") == rename.get("operation")
            and _moment(item) >= _moment(rename)  # written after it (a driven clock may tie)
            and item["record"]["kind"] in ("task", "subtask", "inbox")
            and old in ((item.get("before") or {}).get("tags") or [])
            and new in ((item.get("after") or {}).get("tags") or [])
        )

    found: dict[str, Item] = {}
    cursor: str | None = None
    while True:
        page, cursor = changes(
            call, {"runId": rename["runId"], "limit": 100, **({"cursor": cursor} if cursor else {})}, of_the_rename
        )
        for item in page:
            if "undoneBy" not in item and item["revisions"]["after"] is not None:
                found.setdefault(str(item["record"]["id"]), item)
        if cursor is None:
            return found


def _moment(change: Item) -> str:
    """The time part of a change id (its tail is random)."""
    return str(change["id"]).split("-", 1)[0]


_STORED: dict[str, Kind] = {
    "task": "task", "subtask": "task", "inbox": "inbox", "space": "space", "column": "column", "tag": "tag",
}  # fmt: skip


def _current(state: TodoState, kind: str, record_id: str) -> Item | None:
    if kind in ("task", "subtask"):
        return state.task(record_id)
    if kind == "inbox":
        return state.inbox_item(record_id)
    return {"space": state.spaces, "column": state.columns, "tag": state.tags}[kind].get(record_id)


def _public(state: TodoState, kind: str, record: Item) -> dict[str, Any]:
    if kind in ("task", "subtask"):
        return model.public_task(record)
    if kind == "inbox":
        return model.public_inbox_item(record)
    if kind == "space":
        return model.public_space(record, (state.settings or {}).get("defaultSpaceId"))
    return model.public_column(record) if kind == "column" else model.public_tag(record)


def _revert_fields(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """An update or move of todo records undone (the change's record and its `members`): their
    changed fields set back, through the todo write pattern (list sizes, the reminder index, tag
    registrations and the change records in the revert's own transaction). A member the write
    created goes to the trash."""
    user_id = call.principal.user_id
    main = {**change, "revisions": {**change["revisions"], "after": expected}}
    entries = [main, *change.get("members", [])]

    def conflict(state: TodoState) -> MesqError:
        for entry in entries:
            kind, record_id = entry["record"]["kind"], entry["record"]["id"]
            current = _current(state, kind, record_id)
            if current is None:
                return NotFound("todo %(kind)s %(record_id)s no longer exists", kind=kind, record_id=quoted(record_id))
            if int(current["revision"]) != entry["revisions"]["after"]:
                return RevisionConflict(
                    "todo %(kind)s %(record_id)s changed since this change (revision %(revision)s)",
                    kind=kind,
                    record_id=quoted(record_id),
                    revision=current["revision"],
                    recover_data={kind: _public(state, kind, current)},
                )
        return RevisionConflict("a record of this change changed meanwhile; list its changes and retry")

    def build(state: TodoState) -> Built:
        now = now_timestamp()
        ops: list[WriteOp] = []
        tags: list[str] = []
        data: dict[str, Any] = {}
        if change.get("members"):
            state.prefetch_tasks(e["record"]["id"] for e in entries if e["record"]["kind"] in ("task", "subtask"))
        for entry in entries:
            kind, record_id = entry["record"]["kind"], entry["record"]["id"]
            current = _current(state, kind, record_id)
            if current is None or int(current["revision"]) != entry["revisions"]["after"]:
                raise conflict(state)
            after = dict(current)
            for name in entry["fields"]:
                if name in entry["before"]:
                    after[name] = entry["before"][name]
                else:
                    after.pop(name, None)
            if entry["revisions"]["before"] is None:  # created by the write: to the trash
                after = {**current, "deletedAt": now}
            if kind == "task" and after.get("columnId") not in state.columns:
                raise Conflict("the column this task was in no longer exists; move it by hand")
            after.update(bump(current, now))
            ops.append(put_revised(user_id, _STORED[kind], current, after))
            if "tags" in entry["fields"]:
                tags += after.get("tags") or []
            data.setdefault(kind, {"revision": after["revision"]})
            if kind == "task" and current.get("parentId") is None and after.get("spaceId") != current.get("spaceId"):
                ops += _subtasks_along(state, user_id, current, after, {e["record"]["id"] for e in entries}, now)
                other_space.append(record_id)
        return data, ops + tag_registrations(state, user_id, tags, now)

    other_space: list[str] = []
    data = apply(call, build, conflict)
    for task_id in dict.fromkeys(other_space):  # its trashed subtasks follow, as after a move
        trash_follows(call.services.items, user_id, task_id)
    return data


def _subtasks_along(
    state: TodoState, user_id: str, task: Item, after: Item, members: set[str], now: str
) -> list[WriteOp]:
    """A task an undo takes back to another space takes its live subtasks that are not the
    change's members (made, or restored from the trash, since the move: a move takes only the live
    ones, and a restore or a new subtask takes the task's space), as a move would. Without it they
    kept the space the task left (get_todo_task showed it there)."""
    space_id = after.get("spaceId")
    # live by their records (the subtask list's entries can lag a restore), as a move reads them
    listed = state.subtasks_of(str(task["id"]), include_deleted=True)
    along = [s for s in listed if keys.live(s) and s["id"] not in members and s.get("spaceId") != space_id]
    return [put_revised(user_id, "task", s, {**s, **bump(s, now), "spaceId": space_id}) for s in along]


def todo_revisions(call: Call, changes: Sequence[Item]) -> dict[str, int | None]:
    """The current revision of each todo record the changes name, their members' too (None: gone),
    for an undo's dry run: one partial state, the tasks in one batch."""
    state = load_partial(call.services.items, call.principal.user_id)
    entries = [entry for change in changes for entry in (change, *change.get("members", []))]
    state.prefetch_tasks(e["record"]["id"] for e in entries if e["record"]["kind"] in ("task", "subtask"))
    found: dict[str, int | None] = {}
    for entry in entries:
        current = _current(state, entry["record"]["kind"], entry["record"]["id"])
        if found.get(entry["record"]["id"]) is None:  # a task keeps the id of the inbox item it was
            found[entry["record"]["id"]] = None if current is None else int(current["revision"])
    return found


#: Columns the finisher removes with their space in its one transaction (a column's removal is
#: three writes: 32 filled a transaction of 100 with the space's): as many as create_todo_space
#: makes with a space. A wider space's columns that the run or session added one by one (a
#: Todoist import's sections past its first 20, create_todo_column) go first, each in a write of
#: its own that `undoes` its creation.
UNDO_REMOVES_COLUMNS = 30


def remove_created_spaces(call: Call, refused: list[dict[str, Any]]) -> set[str]:
    """After a whole run or session was undone: the spaces it created (a space has no trash, so
    their creation is NOT_UNDOABLE) removed, with their columns, once none holds a live task
    (`delete_todo_space` refuses one that does, and the default space); answers the change ids
    this resolved: each removed space's creation and its columns' creations. Each removal is one
    change that `undoes` the space's creation, its columns' removals its `members`
    (todos/changes.py), so it reads as part of the undo. A space of more than
    UNDO_REMOVES_COLUMNS columns first loses those the run or session added one by one (each
    removal a change that `undoes` that column's creation); one still too wide stays, its
    creation saying why (`_left_wide`)."""
    resolved: set[str] = set()
    created_columns = {entry["record"]["id"]: entry["changeId"] for entry in refused
                       if entry["record"]["kind"] == "column" and entry["action"] == "create"}  # fmt: skip
    for space_id, change_id in _created_spaces(refused).items():
        state = load_partial(call.services.items, call.principal.user_id)
        space = state.spaces.get(space_id)
        if space is None:
            continue
        columns = _space_columns(state, space_id)  # read before they go with the space
        if len(columns) > UNDO_REMOVES_COLUMNS and _removable(state, space_id):
            resolved |= _narrowed(call, state, space_id, created_columns)
            state = load_partial(call.services.items, call.principal.user_id)
            space = state.spaces.get(space_id)
            if space is None:
                continue
        try:
            delete_todo_space(
                replace(call, undoes=(change_id, space_id)),
                {"spaceId": space_id, "expectedRevision": space["revision"]},
            )
        except MesqError:
            wide = len(state.columns_of(space_id))
            if wide > UNDO_REMOVES_COLUMNS and _removable(state, space_id):
                _left_wide(refused, change_id, space, wide)
            continue  # still holds live tasks (or is the default, or too wide): its creation stays listed
        resolved |= _with_its_columns(change_id, columns, refused)
    return resolved


def _removable(state: TodoState, space_id: str) -> bool:
    """Whether the space may be removed now: not the default, no live task in its columns."""
    column_ids = [column["id"] for column in state.columns_of(space_id)]
    return space_id != state.default_space_id and state.live_root_count(column_ids) == 0


def _narrowed(call: Call, state: TodoState, space_id: str, created: dict[str, str]) -> set[str]:
    """The space's columns past UNDO_REMOVES_COLUMNS that the run or session created one by one,
    removed one a write, each change `undoes` the column's creation; answers those creations."""
    columns = state.columns_of(space_id)
    own = [column for column in reversed(columns) if column["id"] in created]  # the last added first
    resolved: set[str] = set()
    for column in own[: len(columns) - UNDO_REMOVES_COLUMNS]:
        try:
            delete_todo_column(
                replace(call, undoes=(created[column["id"]], column["id"])),
                {"columnId": column["id"], "expectedRevision": column["revision"]},
            )
        except MesqError:
            continue  # changed since, or holds a task now: it stays (the space then too)
        resolved.add(created[column["id"]])
    return resolved


def _left_wide(refused: list[dict[str, Any]], change_id: str, space: Item, wide: int) -> None:
    """The creation's entry of a space the undo left because it is too wide to remove with its
    columns in one write (columns added to it outside the run or session), saying so."""
    for entry in refused:
        if entry["changeId"] == change_id:
            entry["message"] = str(
                Text(
                    "space %(name)s was left on the board: it still has %(count)s columns, more than an undo "
                    "removes with its space (%(most)s); delete it from the board instead",
                    name=quoted(str(space["name"])),
                    count=wide,
                    most=UNDO_REMOVES_COLUMNS,
                )
            )


def _created_spaces(refused: list[dict[str, Any]]) -> dict[str, str]:
    """Space id -> the change id of its creation, among the NOT_UNDOABLE entries."""
    return {entry["record"]["id"]: entry["changeId"] for entry in refused if entry["record"]["kind"] == "space"}


def _space_columns(state: TodoState, space_id: str) -> set[str]:
    return {column["id"] for column in state.columns_of(space_id)}


def _with_its_columns(change_id: str, columns: set[str], refused: list[dict[str, Any]]) -> set[str]:
    """A removed space's creation and its columns' creations: what its removal resolves."""
    return {change_id} | {entry["changeId"] for entry in refused if entry["record"]["id"] in columns}


def foresee_removed_spaces(call: Call, refused: list[dict[str, Any]], undoing: list[Item]) -> set[str]:
    """`remove_created_spaces`' forecast for a dry run: a space the run or session created is
    removed when every live task in it is one the undo takes out of it (its creation or restore
    undone: to the trash; a move into it undone: back where it came from); answers the change ids
    it would resolve, as the finisher does (the space's creation and its columns')."""
    created = _created_spaces(refused)
    if not created:
        return set()
    state = load_partial(call.services.items, call.principal.user_id)
    leaving = {
        change["record"]["id"]
        for change in undoing
        if change["record"]["kind"] in ("task", "subtask")
        and (change["action"] in ("create", "restore") or "spaceId" in change.get("fields", ()))
    }
    resolved: set[str] = set()
    for space_id, change_id in created.items():
        if space_id not in state.spaces or space_id == state.default_space_id:
            continue
        staying = [
            task for task in state.every_task()
            if task.get("spaceId") == space_id and keys.live(task) and task["id"] not in leaving
        ]  # fmt: skip
        if not staying:
            resolved |= _with_its_columns(change_id, _space_columns(state, space_id), refused)
    return resolved


#: The reverter of each kind this package records (history/records.py KINDS), its revisions, and
#: what a whole undo removes at its end.
REVERTERS = {kind: revert_todo for kind in ("task", "subtask", "inbox", "space", "column", "tag")}
REVISIONS = {kind: todo_revisions for kind in REVERTERS}
FINISHERS = (remove_created_spaces,)
FORECASTS = (foresee_removed_spaces,)
LEFTOVERS = {"tag": rename_leftovers}
