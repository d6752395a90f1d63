"""Todo tag operations: list_todo_tags, create_todo_tag, update_todo_tag (recolour / rename /
merge), delete_todo_tag.

Every tag used on a task, subtask or inbox item is a `TODO#TAG#<name>` record (registered in the
same transaction as the record that first uses it), so the registry is the tag list. Renaming or
deleting a tag rewrites every record carrying it (through `writes.apply`, so each rewritten record
gets its change record): a bounded pass over the user's records in
transactions of CHUNK records, each record guarded by its revision; a chunk that conflicts is
re-read and retried, then its records are tried one by one, and a record that still conflicts is
reported in `skippedIds` (memos' rename rule), never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.messages import quoted
from ...kernel.ports.storage import Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..state import TodoState, load_state
from ..writes import (
    Built,
    apply,
    bump,
    create_once,
    delete_revised,
    put_new,
    put_revised,
    require_revision,
    tag_registrations,
)

CHUNK = 25
ATTEMPTS = 3


def _usage(state: TodoState) -> dict[str, int]:
    counts: dict[str, int] = {}
    records = [t for t in state.every_task() if keys.live(t)] + state.live_inbox()
    for record in records:
        parent = record.get("parentId")
        if parent is not None and not keys.live(state.task(parent) or {"deletedAt": "gone"}):
            continue
        for tag in record.get("tags", []):
            counts[tag] = counts.get(tag, 0) + 1
    return counts


def list_todo_tags(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    state = load_state(call.services.items, call.principal.user_id)
    counts = _usage(state)
    return {"tags": [{**model.public_tag(state.tags[n]), "count": counts.get(n, 0)} for n in sorted(state.tags)]}


def _find(state: TodoState, name: str) -> Item:
    tag = state.tags.get(name)
    if tag is None:
        raise NotFound("todo tag %(name)s not found", name=quoted(name))
    return tag


def _conflict(name: str) -> Callable[[TodoState], RevisionConflict]:
    def make(state: TodoState) -> RevisionConflict:
        current = state.tags.get(name)
        return RevisionConflict(
            "todo tag %(name)s changed meanwhile; retry with recoverData.tag's revision",
            name=quoted(name),
            recover_data={"tag": model.public_tag(current)} if current is not None else None,
        )

    return make


def create_todo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    name = model.check_tags([args["name"]], "name")[0]

    def build(state: TodoState) -> Built:
        if name in state.tags:
            raise Conflict("todo tag %(name)s already exists; use update_todo_tag to change it", name=quoted(name))
        now = now_timestamp()
        tag = {"name": name, "color": args.get("color"), "revision": 1, "createdAt": now, "updatedAt": now}
        return {"tag": model.public_tag(tag)}, [put_new(user_id, "tag", tag)]

    def conflict(state: TodoState) -> Conflict:
        return Conflict("todo tag %(name)s was created at the same moment by another request", name=quoted(name))

    return create_once(call, "create_todo_tag", args, build, conflict)


# -- rewriting records -------------------------------------------------------------------------


def _carriers(state: TodoState, name: str) -> list[tuple[keys.Kind, str]]:
    """Every task, subtask and inbox item (trash included) carrying the tag, as (kind, id)."""
    found: list[tuple[keys.Kind, str]] = [("task", t["id"]) for t in state.every_task() if name in t.get("tags", [])]
    found += [("inbox", i["id"]) for i in state.every_inbox_item() if name in i.get("tags", [])]
    return sorted(found)


#: Whether a record may be rewritten (a rename's undo: only one still as the rename left it).
Guard = Callable[[Item], bool]


def _rewrite(
    call: Call,
    targets: list[tuple[keys.Kind, str]],
    edit: Callable[[list[str]], list[str]],
    guard: Guard | None = None,
) -> tuple[int, list[str]]:
    """Apply `edit` to the tags of every target (that `guard` admits), CHUNK records per
    transaction: (updated, skipped)."""
    updated, skipped = 0, []
    for start in range(0, len(targets), CHUNK):
        chunk = targets[start : start + CHUNK]
        written = _rewrite_group(call, chunk, edit, guard)
        if written is not None:
            updated += written
            continue
        for target in chunk:  # the chunk kept conflicting: one by one, each with its own retries
            written = _rewrite_group(call, [target], edit, guard)
            if written is None:
                skipped.append(target[1])
            else:
                updated += written
    return updated, skipped


def _rewrite_group(
    call: Call, group: list[tuple[keys.Kind, str]], edit: Callable[[list[str]], list[str]], guard: Guard | None = None
) -> int | None:
    """Rewrite a group in one transaction through the todo write pattern (so each record gets its
    change record), re-reading it on every attempt; None when it kept conflicting."""
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        now = now_timestamp()
        state.prefetch_tasks(ident for kind, ident in group if kind == "task")
        ops: list[WriteOp] = []
        for kind, ident in group:
            before = state.task(ident) if kind == "task" else state.inbox_item(ident)
            if before is None or (guard is not None and not guard(before)):
                continue
            tags = edit(list(before.get("tags", [])))
            if tags != before.get("tags", []):
                ops.append(put_revised(user_id, kind, before, {**before, **bump(before, now), "tags": tags}))
        return {"updated": len(ops)}, ops

    for _attempt in range(ATTEMPTS):
        try:
            return int(apply(call, build, _group_conflict)["updated"])
        except RevisionConflict:
            continue
    return None


def _group_conflict(_state: TodoState) -> RevisionConflict:
    return RevisionConflict("a record carrying the tag changed meanwhile")


def _renamer(old: str, new: str) -> Callable[[list[str]], list[str]]:
    return lambda tags: list(dict.fromkeys(new if t == old else t for t in tags))


def update_todo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    name, new_name = args["name"], args.get("newName")
    if new_name is None and "color" not in args:
        raise ValidationError("give newName and/or color to change")
    if new_name == name:
        raise ValidationError("newName is the tag's current name")
    if new_name is not None:
        model.check_tags([new_name], "newName")
    result: dict[str, Any] = {}

    def build(state: TodoState) -> Built:
        before = _find(state, name)
        require_revision(before, args["expectedRevision"], lambda: _conflict(name)(state))
        now = now_timestamp()
        color = args.get("color", before["color"])
        if new_name is None:
            after = {**before, **bump(before, now), "color": color}
            return {"tag": model.public_tag(after)}, [put_revised(user_id, "tag", before, after)]
        ops: list[WriteOp] = [delete_revised(user_id, "tag", before)]
        target = state.tags.get(new_name)
        if target is None:  # a plain rename: the record moves to its new key
            after = {**before, **bump(before, now), "name": new_name, "color": color}
            ops.append(put_new(user_id, "tag", after))
        elif "color" in args:  # a merge that also recolours the surviving tag
            after = {**target, **bump(target, now), "color": color}
            ops.append(put_revised(user_id, "tag", target, after))
        else:
            after = target
        result["targets"] = _carriers(state, name)
        return {"tag": model.public_tag(after)}, ops

    data = apply(call, build, _conflict(name))
    if new_name is None:
        return data
    updated, skipped = _rewrite(call, result["targets"], _renamer(name, new_name))
    data["updatedRecords"] = updated
    if skipped:
        data["skippedIds"] = skipped
    return data


def rename_back_todo_tag(call: Call, args: dict[str, Any], rewritten: Mapping[str, int]) -> dict[str, Any]:
    """A rename undone (todos/revert.py): the tag `args["name"]` (at `expectedRevision`) named
    `newName` again with `color`, and of the records carrying it, only those the rename rewrote
    and that are still as it left them (`rewritten`: record id -> the revision the rename left it
    at) get the old name back. A record changed since (its own change's undo is REVISION_CONFLICT,
    "undo leaves it as it is") or tagged later by someone else keeps the tag, which then stays
    registered beside the renamed-back one: an undo never rewrites what was changed after it.

    The tag's own change `undoes` the rename: a rename back (the record moves to its old key, or
    is merged into the old name its records registered again) when nothing keeps the tag; else
    the old name's creation or update beside it (the undo's call names the old name)."""
    user_id = call.principal.user_id
    name, old_name = args["name"], args["newName"]

    def as_the_rename_left_it(record: Item) -> bool:
        return rewritten.get(str(record["id"])) == int(record["revision"])

    state = load_state(call.services.items, user_id)
    carried_on = _left(state, name, as_the_rename_left_it)
    kept = bool(carried_on)  # a record keeps the tag: it stays registered beside the old name
    left = {ident: revision for ident, revision in carried_on.items() if ident in rewritten}
    result: dict[str, Any] = {}

    def build(state: TodoState) -> Built:
        before = _find(state, name)
        require_revision(before, args["expectedRevision"], lambda: _conflict(name)(state))
        now = now_timestamp()
        result["targets"] = [target for target in _carriers(state, name) if target[1] in rewritten]
        target = state.tags.get(old_name)
        ops: list[WriteOp] = [] if kept else [delete_revised(user_id, "tag", before)]
        if target is None and not kept:  # the record moves back to its old key
            after = {**before, **bump(before, now), "name": old_name, "color": args["color"]}
            ops.append(put_new(user_id, "tag", after))
        elif target is None:  # the tag stays for the records that keep it: the old name beside it
            after = {"name": old_name, "color": args["color"], "revision": 1, "createdAt": now, "updatedAt": now}
            ops.append(put_new(user_id, "tag", after))
        else:  # the old name is back already (registered again by its records' undo): merged into
            after = {**target, **bump(target, now), "color": args["color"]}
            ops.append(put_revised(user_id, "tag", target, after))
        return {"tag": model.public_tag(after)}, ops

    writing = replace(call, undoes=(call.undoes[0], old_name)) if kept and call.undoes else call
    data = apply(writing, build, _conflict(name))
    updated, skipped = _rewrite(call, result["targets"], _renamer(name, old_name), as_the_rename_left_it)
    data["updatedRecords"] = updated
    if skipped:
        data["skippedIds"] = skipped
        left.update(_left(load_state(call.services.items, user_id), name, as_the_rename_left_it))
    data["left"] = {ident: revision for ident, revision in left.items() if ident in rewritten}
    _register_while_carried(replace(call, undoes=None), name)
    return data


def _left(state: TodoState, name: str, rewritten_back: Guard) -> dict[str, int]:
    """The records carrying the tag that a rename's undo does not rewrite back: id -> revision."""
    found: dict[str, int] = {}
    for kind, ident in _carriers(state, name):
        record = state.task(ident) if kind == "task" else state.inbox_item(ident)
        if record is not None and not rewritten_back(record):
            found[ident] = int(record["revision"])
    return found


def _register_while_carried(call: Call, name: str) -> None:
    """The tag registered again when records still carry it after its rename's undo (every tag in
    use is a tag record): one changed or tagged between the undo's read and its writes."""
    state = load_state(call.services.items, call.principal.user_id)
    if name in state.tags or not _carriers(state, name):
        return

    def build(fresh: TodoState) -> Built:
        return {}, tag_registrations(fresh, call.principal.user_id, [name], now_timestamp())

    apply(call, build, _conflict(name))


def remove_unused_todo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """A tag an undo registered again removed by its redo (todos/revert.py): only once no record
    carries it (the redo takes those records back first, newest first); a record still carrying
    it (changed since the undo, or in the trash) keeps it registered: a Conflict naming how many,
    nothing written."""
    user_id, name = call.principal.user_id, args["name"]

    def build(state: TodoState) -> Built:
        tag = _find(state, name)
        require_revision(tag, args["expectedRevision"], lambda: _conflict(name)(state))
        carriers = _carriers(state, name)
        if carriers:
            raise Conflict(
                "todo tag %(name)s stays listed: records still carry it (%(count)s, the trash included)",
                name=quoted(name),
                count=len(carriers),
            )
        return {"tag": model.public_tag(tag)}, [delete_revised(user_id, "tag", tag)]

    return apply(call, build, _conflict(name))


def delete_todo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id
    name = args["name"]
    state = load_state(items, user_id)
    tag = _find(state, name)
    require_revision(tag, args["expectedRevision"], lambda: _conflict(name)(state))
    updated, skipped = _rewrite(call, _carriers(state, name), lambda tags: [t for t in tags if t != name])
    data: dict[str, Any] = {"tag": model.public_tag(tag), "updatedRecords": updated}
    if skipped:
        data["skippedIds"] = skipped
        return data  # the tag stays listed while records still carry it

    def build(fresh: TodoState) -> Built:
        current = _find(fresh, name)
        require_revision(current, args["expectedRevision"], lambda: _conflict(name)(fresh))
        return data, [delete_revised(user_id, "tag", current)]

    return apply(call, build, _conflict(name))
