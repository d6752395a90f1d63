"""Column operations: create_todo_column, update_todo_column (rename, reorder, archive, mark as
the space's done column: at most one, completed tasks move there), delete_todo_column. A space
always keeps at least one open (non-archived) column, so "a task without a column goes to the
first open column" always has an answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, RevisionConflict, ValidationError
from ...kernel.i18n import Text
from ...kernel.messages import quoted
from ...kernel.ports.storage import Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import model
from ..destinations import find_column, resolve_space
from ..state import TodoState
from ..writes import Built, apply, bump, create_once, delete_revised, put_new, put_revised, require_revision


def _conflict(column_id: str) -> Callable[[TodoState], RevisionConflict]:
    def make(state: TodoState) -> RevisionConflict:
        current = state.columns.get(column_id)
        return RevisionConflict(
            "todo column %(column_id)s changed meanwhile; merge your change into recoverData.column and retry with "
            "its revision",
            column_id=quoted(column_id),
            recover_data={"column": model.public_column(current)} if current is not None else None,
        )

    return make


def create_todo_column(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    name = model.check_name(args["name"])

    def build(state: TodoState) -> Built:
        space = resolve_space(state, args.get("spaceId"), args.get("spaceSlug")) or state.default_space()
        assert space is not None  # ensured by apply
        siblings = state.columns_of(space["id"])
        if len(siblings) >= model.MAX_COLUMNS_PER_SPACE:
            raise ValidationError(
                "a space has at most %(max_columns_per_space)s columns",
                max_columns_per_space=model.MAX_COLUMNS_PER_SPACE,
            )
        now = now_timestamp()
        column: Item = {
            "id": model.new_id(),
            "spaceId": space["id"],
            "name": name,
            "position": model.position_for_index([c["position"] for c in siblings], args.get("index")),
            "archived": False,
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
        }
        ops = [put_new(user_id, "column", column)]
        return {"column": model.public_column(column)}, list(ops)

    def conflict(state: TodoState) -> ValidationError:
        return ValidationError("the column could not be created because the space changed meanwhile; retry")

    return create_once(call, "create_todo_column", args, build, conflict)


def _other_open_columns(state: TodoState, column: Item) -> list[Item]:
    return [c for c in state.columns_of(column["spaceId"], include_archived=False) if c["id"] != column["id"]]


def _unmarked_others(state: TodoState, user_id: str, column: Item) -> list[WriteOp]:
    """A space has at most one done column: marking one unmarks the one marked before."""
    marked = [c for c in state.columns_of(column["spaceId"]) if c.get("done") and c["id"] != column["id"]]
    return [put_revised(user_id, "column", c, {**c, **bump(c), "done": False}) for c in marked]


def update_todo_column(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id
    if not any(name in args for name in ("name", "index", "archived", "done")):
        raise ValidationError("give at least one of name, index, archived or done to change")

    def build(state: TodoState) -> Built:
        before = find_column(state, args["columnId"])
        require_revision(before, args["expectedRevision"], lambda: _conflict(before["id"])(state))
        after = {**before, **bump(before)}
        if "name" in args:
            after["name"] = model.check_name(args["name"])
        if "index" in args:
            siblings = [c["position"] for c in state.columns_of(before["spaceId"]) if c["id"] != before["id"]]
            after["position"] = model.position_for_index(siblings, args["index"])
        if args.get("archived") is True and not before.get("archived") and not _other_open_columns(state, before):
            raise Conflict("this is the space's last open column; a space keeps at least one (add another first)")
        if "archived" in args:
            after["archived"] = args["archived"]
        if "done" in args:
            after["done"] = args["done"]
        ops: list[WriteOp] = [put_revised(user_id, "column", before, after)]
        if args.get("done"):
            ops += _unmarked_others(state, user_id, before)
        return {"column": model.public_column(after)}, ops

    return apply(call, build, _conflict(args["columnId"]))


def live_task_words(count: int) -> Text:
    """How many live tasks hold a column or space back: "1 live task", never "1 live tasks" (a
    `Text` has no plural forms; English needs its two, Chinese says one)."""
    if count == 1:
        return Text("1 live task")
    return Text("%(count)s live tasks", count=count)


def delete_todo_column(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        before = find_column(state, args["columnId"])
        require_revision(before, args["expectedRevision"], lambda: _conflict(before["id"])(state))
        live_tasks = state.live_root_count([before["id"]])  # the size item (a table read), not the index
        if live_tasks:
            raise Conflict(
                "column %(name)s still has %(tasks)s; move or delete them first",
                name=quoted(before["name"]),
                tasks=live_task_words(live_tasks),
            )
        if not before.get("archived") and not _other_open_columns(state, before):
            raise Conflict("this is the space's last open column; a space keeps at least one (add another first)")
        return {"column": model.public_column(before)}, [delete_revised(user_id, "column", before)]

    return apply(call, build, _conflict(args["columnId"]))
