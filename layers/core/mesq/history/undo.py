"""undo_changes: revert change records, newest first, each record in its own transaction.

- an update or move: the record gets its `before` values back (a new revision); a tag rename is
  renamed back (update_todo_tag, its records too);
- a create: the record goes to the trash; a trash: it is restored; a restore: trashed again;
- never a permanent delete, nor creating a space, column or tag (`records.not_undoable`): such a
  change, asked for by id or matched by a runId or actor, is listed in `notUndone` as
  NOT_UNDOABLE with the reason, never skipped silently.

A record changed since the change (its revision is not the change's `after` revision) is left
as it is: REVISION_CONFLICT with the current record in `recoverData`; the others are still
undone. Changes of one record undone in the same call are a chain: after undoing the newer one,
the older one expects the revision that undo made. Each revert is itself a change (`undoes`
names the change it reverts, and the same transaction marks that change `undoneBy`), so it can
be undone in turn; a change already undone is reported, not reverted twice. Undo needs the
write scope of each record's kind.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import Conflict, Forbidden, MesqError, NotFound, RevisionConflict, ValidationError
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item, WriteOp
from ..kernel.timestamps import now_timestamp
from ..memos.reads import public_memo
from ..memos.store import read_memo
from ..memos.writes import delete_memo, restore_memo, update_memo
from ..todos import model
from ..todos.board.spaces import update_todo_space
from ..todos.board.subtasks import delete_todo_subtask
from ..todos.board.tags import update_todo_tag
from ..todos.board.tasks import delete_todo_task
from ..todos.board.trash import restore_todo_item
from ..todos.inbox.operations import delete_todo_inbox_item
from ..todos.keys import Kind
from ..todos.state import TodoState, load_partial
from ..todos.writes import Built, apply, bump, put_revised, tag_registrations
from .reads import changes, matcher, readable_kinds
from .records import FAMILY, change_key, not_undoable, undoable

#: Changes one call reverts; past it `more` says to call again (the undone ones are skipped then).
MAX_UNDO = 100
_MEMO_FIELDS = ("content", "pinned", "status", "resources")
#: The `notUndone` code of a change undo never reverts (a permanent delete, creating a space,
#: column or tag), with the reason in plain words.
NOT_UNDOABLE = "NOT_UNDOABLE"


def undo_changes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    if not readable_kinds(call, "write"):
        raise Forbidden("undo_changes needs memo:write or todo:write")
    targets, more = _targets(call, args)
    undone: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    chain: dict[str, tuple[int, int | None]] = {}  # record id -> (revision our undo made, the change's before revision)
    for change in sorted(targets, key=lambda item: item["id"], reverse=True):
        record = change["record"]
        entry = {"changeId": change["id"], "record": record}
        reason = not_undoable(change)
        if reason is not None:  # listed, never skipped: the caller asked for it by id, run or actor
            refused.append({**entry, "code": NOT_UNDOABLE, "message": reason})
            continue
        try:
            expected = _expected(change, chain.get(record["id"]))
            revision = _undo_one(call, change, expected)
        except MesqError as error:
            refused.append({**entry, **_reason(error)})
            continue
        chain[record["id"]] = (revision, change["revisions"]["before"])
        undone.append({**entry, "revision": revision})
    for entry in undone:
        marked = call.services.items.get(change_key(call.principal.user_id, entry["changeId"])) or {}
        if "undoneBy" in marked:
            entry["undoChangeId"] = marked["undoneBy"]
    data: dict[str, Any] = {"undone": undone, "notUndone": refused}
    if more:
        data["more"] = True
    return data


def _targets(call: Call, args: dict[str, Any]) -> tuple[list[Item], bool]:
    given = [name for name in ("changeIds", "runId", "actor") if name in args]
    if len(given) != 1:
        raise ValidationError("give exactly one of changeIds, runId or actor (with since)")
    if "actor" in args and "since" not in args:
        raise ValidationError("since: required with actor")
    if "changeIds" in args:
        keys = [change_key(call.principal.user_id, change_id) for change_id in dict.fromkeys(args["changeIds"])]
        found = {item["id"]: item for item in call.services.items.batch_get(keys)}
        missing = [change_id for change_id in args["changeIds"] if change_id not in found]
        visible = matcher(call, {})
        hidden = [item["id"] for item in found.values() if not visible(item)]
        if missing or hidden:
            raise NotFound("no change %(missing)s visible to this credential", missing=", ".join(missing + hidden))
        return list(found.values()), False
    query: dict[str, Any] = {name: args[name] for name in ("runId", "actor", "since") if name in args}
    wanted = matcher(call, query)
    pending: list[Item] = []
    refused: list[Item] = []  # not undoable: listed with the answer, not counted against MAX_UNDO
    cursor: str | None = None
    while len(pending) < MAX_UNDO:
        page, cursor = changes(call, {**query, "limit": MAX_UNDO, **({"cursor": cursor} if cursor else {})}, wanted)
        pending += [item for item in page if "undoneBy" not in item and undoable(item)]
        refused += [item for item in page if not undoable(item)]
        if cursor is None:
            return pending[:MAX_UNDO] + refused[:MAX_UNDO], len(pending) > MAX_UNDO
    return pending[:MAX_UNDO] + refused[:MAX_UNDO], True


def _expected(change: Item, ours: tuple[int, int | None] | None) -> int:
    """The revision the record must be at: the change's own `after`, or, when this call already
    undid the next change of the same record and that one followed this one directly, the
    revision that undo made."""
    after = change["revisions"]["after"]
    if ours is not None and ours[1] == after:
        return ours[0]
    return int(after)


def _reason(error: MesqError) -> dict[str, Any]:
    reason: dict[str, Any] = {"code": error.code, "message": error.message}
    recover = getattr(error, "recover_data", None)
    if recover is not None:
        reason["recoverData"] = recover
    return reason


def _undo_one(call: Call, change: Item, expected: int) -> int:
    record = change["record"]
    if "undoneBy" in change:
        raise Conflict("change %(id)s was already undone by %(undoneBy)s", id=change["id"], undoneBy=change["undoneBy"])
    if f"{FAMILY[record['kind']]}:write" not in call.principal.scopes:
        raise Forbidden(
            "undoing a %(kind)s change needs %(family)s:write", kind=record["kind"], family=FAMILY[record["kind"]]
        )
    reverting = replace(call, operation_id="undo_changes", undoes=(change["id"], record["id"]))
    data = (_undo_memo if record["kind"] == "memo" else _undo_todo)(reverting, change, expected)
    return _revision_in(data)


def _revision_in(data: dict[str, Any]) -> int:
    for value in data.values():
        if isinstance(value, dict) and "revision" in value:
            return int(value["revision"])
    raise AssertionError("an undo answered no record")


def _undo_memo(call: Call, change: Item, expected: int) -> dict[str, Any]:
    target = {"id": change["record"]["id"], "expectedRevision": expected}
    action = change["action"]
    if action in ("create", "restore"):
        return delete_memo(call, target)
    if action == "trash":
        return restore_memo(call, target)
    current = read_memo(call.services.items, call.principal.user_id, target["id"])
    if current is None:
        raise NotFound("memo %(id)s no longer exists", id=quoted(target["id"]))
    restored = {name: change["before"][name] for name in _MEMO_FIELDS if name in change["fields"]}
    if not restored:  # only derived fields changed: nothing a person sees to put back
        if current["revision"] != expected:
            raise RevisionConflict("the memo changed since", recover_data={"memo": public_memo(current)})
        return {"memo": public_memo(current)}
    return update_memo(call, {**target, **restored})


_TRASH_KIND = {"task": "task", "subtask": "subtask", "inbox": "inboxItem"}


def _undo_todo(call: Call, change: Item, expected: int) -> dict[str, Any]:
    kind, record_id = change["record"]["kind"], change["record"]["id"]
    action = change["action"]
    target = {"id": record_id, "expectedRevision": expected}
    if action in ("create", "restore"):
        trash = {"task": delete_todo_task, "subtask": delete_todo_subtask, "inbox": delete_todo_inbox_item}[kind]
        return trash(call, target)
    if action == "trash":
        return restore_todo_item(call, {**target, "kind": _TRASH_KIND[kind]})
    if change.get("members"):
        return _revert_fields(call, change, expected)
    if kind == "tag" and "name" in change["fields"]:
        return _rename_back(call, change, expected)
    if kind == "space" and "slug" in change["fields"]:
        names = {name: change["before"][name] for name in ("name", "slug") if name in change["fields"]}
        return update_todo_space(call, {"spaceId": record_id, "expectedRevision": expected, **names})
    return _revert_fields(call, change, expected)


def _rename_back(call: Call, change: Item, expected: int) -> dict[str, Any]:
    """A tag rename undone: renamed back, with the colour it had, through update_todo_tag (the
    records carrying it are rewritten back too; in an undo of the whole run they already were, and
    the tag they registered again is merged into)."""
    name = change["record"]["id"]
    current = load_partial(call.services.items, call.principal.user_id).tags.get(name)
    if current is None:
        raise NotFound("todo tag %(name)s no longer exists", name=quoted(name))
    color = change["before"]["color"] if "color" in change["fields"] else current.get("color")
    args = {"name": name, "newName": change["before"]["name"], "color": color, "expectedRevision": expected}
    return update_todo_tag(call, args)


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
        return data, ops + tag_registrations(state, user_id, tags, now)

    return apply(call, build, conflict)
