"""Space operations: list_todo_spaces, create_todo_space, update_todo_space, delete_todo_space.

A space's slug is claimed by a `TODO#SLUG#<slug>` item written in the same transaction
(`exists=False`), so two spaces can never share a slug even under races. `isDefault` is derived
from the settings item (`defaultSpaceId`), so making another space the default is one conditional
write of the settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, RevisionConflict, ValidationError
from ...kernel.i18n import ForPrograms
from ...kernel.messages import quoted
from ...kernel.ports.storage import Condition, Delete, Item, ItemStore, Put, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..destinations import find_space
from ..state import TodoState
from ..writes import (
    Built,
    _free_slug,
    apply,
    board_language,
    bump,
    create_once,
    delete_revised,
    ensure_default_space,
    new_space_ops,
    put_revised,
    require_revision,
)
from .columns import live_task_words


def _space_data(state: TodoState, space: Item) -> dict[str, Any]:
    return {"space": model.public_space(space, state.default_space_id)}


def _conflict(space_id: str) -> Callable[[TodoState], RevisionConflict]:
    def make(state: TodoState) -> RevisionConflict:
        current = state.spaces.get(space_id)
        recover = _space_data(state, current) if current is not None else None
        revision = current["revision"] if current is not None else "gone"
        return RevisionConflict(
            "todo space %(space_id)s changed meanwhile (revision %(revision)s); merge your change into "
            "recoverData.space and retry with its revision",
            space_id=quoted(space_id),
            revision=revision,
            recover_data=recover,
        )

    return make


def has_board(items: ItemStore, user_id: str) -> bool:
    """Whether the user's board exists yet (the first todo call makes it, `ensure_default_space`):
    a page that only looks at a board, and must not make one, asks this first."""
    return items.get(keys.settings_key(user_id)) is not None


def list_todo_spaces(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    # Spaces and columns are the structure a partial state reads; no task is needed here.
    state = ensure_default_space(
        call.services.items, call.principal.user_id, partial=True, language=call.language, arguments=call.arguments
    )
    spaces = state.ordered_spaces()
    return {
        "spaces": [model.public_space(s, state.default_space_id) for s in spaces],
        "columns": [model.public_column(c) for s in spaces for c in state.columns_of(s["id"])],
        "defaultSpaceId": state.default_space_id,
    }


def slug_claim(user_id: str, slug: str, space_id: str) -> Put:
    pk, sk = keys.slug_key(user_id, slug)
    return Put({"pk": pk, "sk": sk, "spaceId": space_id}, Condition(exists=False))


def create_todo_space(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    name = model.check_name(args["name"])
    column_names = [model.check_name(c, f"columns[{i}]") for i, c in enumerate(args.get("columns", []))]
    default_columns = not column_names  # a new board in the person's language, its last column done
    if default_columns:
        language = board_language(call.services.items, user_id, call.language, call.arguments)
        column_names = list(model.default_board(language)[1])

    def build(state: TodoState) -> Built:
        if "slug" in args:
            slug = model.check_slug(args["slug"])
            if slug in state.slugs:
                raise Conflict("slug %(slug)s is already used by another space; choose another", slug=quoted(slug))
        else:
            slug = _free_slug(state, model.slugify(name))
        space, columns, ops = new_space_ops(user_id, state, name, slug, column_names, now_timestamp(),
                                            done_last=default_columns)  # fmt: skip
        data = {**_space_data(state, space), "columns": [model.public_column(c) for c in columns]}
        return data, ops

    def conflict(state: TodoState) -> Conflict:
        return Conflict("that slug was claimed by another space at the same moment; retry")

    return create_once(call, "create_todo_space", args, build, conflict)


def update_todo_space(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    changes = [name for name in ("name", "slug", "index", "makeDefault") if name in args]
    if not changes:
        raise ValidationError("give at least one of name, slug, index or makeDefault to change")
    space_id_holder: list[str] = []

    def build(state: TodoState) -> Built:
        before = find_space(state, args["spaceId"])
        space_id_holder.append(before["id"])
        require_revision(before, args["expectedRevision"], lambda: _conflict(before["id"])(state))
        after = {**before, **bump(before)}
        ops: list[WriteOp] = []
        if "name" in args:
            after["name"] = model.check_name(args["name"])
        if "slug" in args and args["slug"] != before["slug"]:
            slug = model.check_slug(args["slug"])
            if slug in state.slugs:
                raise Conflict("slug %(slug)s is already used by another space; choose another", slug=quoted(slug))
            after["slug"] = slug
            ops.append(slug_claim(user_id, slug, before["id"]))
            ops.append(Delete(keys.slug_key(user_id, before["slug"]), Condition(equals={"spaceId": before["id"]})))
        if "index" in args:
            siblings = [s["position"] for s in state.ordered_spaces() if s["id"] != before["id"]]
            after["position"] = model.position_for_index(siblings, args["index"])
        ops.insert(0, put_revised(user_id, "space", before, after))
        default_id = state.default_space_id
        if args.get("makeDefault") and default_id != before["id"]:
            settings = state.settings or {}
            pk, sk = keys.settings_key(user_id)
            revision = int(settings.get("revision", 1))
            new_settings = {**settings, "pk": pk, "sk": sk, "defaultSpaceId": before["id"], "revision": revision + 1}
            ops.append(Put(new_settings, Condition(equals={"revision": revision})))
            default_id = before["id"]
        return {"space": model.public_space(after, default_id)}, ops

    def conflict(state: TodoState) -> RevisionConflict:
        return _conflict(space_id_holder[-1] if space_id_holder else args["spaceId"])(state)

    return apply(call, build, conflict)


#: Columns removed in the transaction that removes their space. A column's removal is its delete,
#: its count's delete and the guard that it holds no task, so a space of MAX_COLUMNS_PER_SPACE
#: (50) columns needed 153 writes where one transaction takes 100: any past 32 could not be
#: deleted. The columns past these go first, this many a transaction, each with its change.
COLUMNS_PER_WRITE = 20


def delete_todo_space(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    space_id_holder: list[str] = []

    def deletable(state: TodoState) -> Item:
        """The space, when it may be deleted now (its revision as expected, not the default, no
        live task): the same checks before each of its writes."""
        before = find_space(state, args["spaceId"])
        space_id_holder.append(before["id"])
        require_revision(before, args["expectedRevision"], lambda: _conflict(before["id"])(state))
        if before["id"] == state.default_space_id:
            raise Conflict(
                "the default space cannot be deleted; make another space the default first%(how)s",
                how=ForPrograms(" (update_todo_space makeDefault)"),
            )
        live_tasks = state.live_root_count([c["id"] for c in state.columns_of(before["id"])])
        if live_tasks:
            raise Conflict(
                "space %(name)s still has %(tasks)s; move or delete them first",
                name=quoted(before["name"]),  # not its slug: a Chinese name's slug is "space"
                tasks=live_task_words(live_tasks),
            )
        return before

    def conflict(state: TodoState) -> RevisionConflict:
        return _conflict(space_id_holder[-1] if space_id_holder else args["spaceId"])(state)

    def build(state: TodoState) -> Built:
        """The space's last write, or while it has more than COLUMNS_PER_WRITE columns (never in
        an undo's removal: todos/revert.py keeps it one transaction, its change carrying the
        columns as members, which its redo brings back with the space) the next of them first
        (no `space` in the data: a write of columns only). One state read per write."""
        before = deletable(state)
        columns = state.columns_of(before["id"])
        if call.undoes is None and len(columns) > COLUMNS_PER_WRITE:
            extra = columns[: len(columns) - COLUMNS_PER_WRITE][:COLUMNS_PER_WRITE]
            return {}, [delete_revised(user_id, "column", c) for c in extra]
        ops: list[WriteOp] = [delete_revised(user_id, "space", before)]
        ops.append(Delete(keys.slug_key(user_id, before["slug"]), Condition(equals={"spaceId": before["id"]})))
        ops += [delete_revised(user_id, "column", c) for c in columns]
        return {"space": model.public_space(before, state.default_space_id)}, ops

    while True:  # each write of columns leaves fewer: at most MAX_COLUMNS_PER_SPACE / COLUMNS_PER_WRITE of them
        data = apply(call, build, conflict)
        if "space" in data:
            return data
