"""Undo one import as a whole: its run is one session (history/sessions.py: the run's id is the
session's), undone by the same engine as `undo_changes {sessionId}`, repeated here until nothing
of it is left.

`undo_changes` reverts at most MAX_UNDO changes a call: this repeats it for the run until nothing
of it is left to revert (each change undone once: a revert marks the change it reverts). Undoing
a create puts the record in the trash, as every undo does: the imported memos and tasks go to the
trash (restorable; the memo and tag counters follow), and a record the person changed since
the import is left as it is (REVISION_CONFLICT, listed).

What undo never reverts, creating a space or a column (they have no trash), the engine's
finisher removes at the end of a whole run's undo when the run made them and they hold no live
task any more (todos/revert.py `remove_created_spaces`, the same for an agent's session): the
space with its columns and slug. A column the run added to a space the account had (a project
that went into the space of its name, `todo_writes.write_space`) is removed here once it holds no
live task (`_remove_added_columns`): the space stays as it was before the import. A task
restored from the trash later lands in the default space. The todo tags the import registered
stay while trashed tasks carry them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..history.undo import MAX_UNDO, Kinds, undo_changes
from ..kernel.context import Call
from ..kernel.errors import MesqError, NotFound
from ..memos.revert import REVERTERS as MEMO_REVERTERS
from ..memos.revert import REVISIONS as MEMO_REVISIONS
from ..todos.board.columns import delete_todo_column
from ..todos.revert import FINISHERS as TODO_FINISHERS
from ..todos.revert import FORECASTS as TODO_FORECASTS
from ..todos.revert import LEFTOVERS as TODO_LEFTOVERS
from ..todos.revert import REVERTERS as TODO_REVERTERS
from ..todos.revert import REVISIONS as TODO_REVISIONS
from ..todos.state import load_partial

#: What the engine needs of the kinds an import writes (memos, todo records).
_KINDS = Kinds(
    reverters={**MEMO_REVERTERS, **TODO_REVERTERS},
    revisions={**MEMO_REVISIONS, **TODO_REVISIONS},
    finishers=TODO_FINISHERS,
    forecasts=TODO_FORECASTS,
    leftovers=TODO_LEFTOVERS,
)


@dataclass
class UndoReport:
    undone: Counter[str] = field(default_factory=Counter)
    not_undone: list[dict[str, Any]] = field(default_factory=list)
    removed_spaces: int = 0
    removed_columns: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"undone": dict(self.undone), "notUndone": self.not_undone[:100],
                "notUndoneCount": len(self.not_undone), "removedSpaces": self.removed_spaces,
                "removedColumns": self.removed_columns}  # fmt: skip


def undo_import(call: Call, run_id: str, *, most: int = 1_000_000) -> UndoReport:
    report = UndoReport()
    refused: dict[str, dict[str, Any]] = {}
    added_columns: dict[str, str] = {}  # column id: the change that created it (in a space that stays)
    made_spaces: set[str] = set()  # spaces the run created that stay (their columns stay with them)
    for _ in range(most // MAX_UNDO + 2):
        try:
            data = undo_changes(replace(call, operation_id="undo_changes"), {"runId": run_id}, _KINDS)
        except NotFound:  # an import that wrote nothing has nothing to undo
            break
        for entry in data["undone"]:
            kind = entry["record"]["kind"]
            refused.pop(entry["changeId"], None)  # listed by an earlier call, removed by the last
            if not entry.get("removed"):
                report.undone[kind] += 1
            elif kind == "space":
                report.removed_spaces += 1
        for entry in data["notUndone"]:
            record = entry["record"]
            if record["kind"] == "column" and entry.get("action") == "create":
                added_columns[record["id"]] = entry["changeId"]
            elif record["kind"] == "space" and entry.get("action") == "create":
                made_spaces.add(record["id"])
            if record["kind"] not in ("column", "tag") or entry.get("code") != "NOT_UNDOABLE":
                refused[entry["changeId"]] = entry
        if not data.get("more"):  # the last call: what is left cannot be undone (conflicts), or nothing is
            break
    report.not_undone = list(refused.values())
    report.removed_columns = _remove_added_columns(call, added_columns, made_spaces)
    return report


def _remove_added_columns(call: Call, added: dict[str, str], made_spaces: set[str]) -> int:
    """The columns the run added to a space the account had before the import (never one of the
    spaces the run made, kept whole when a task in it was changed since), each removed once it
    holds no live task, its removal a change that `undoes` its creation; how many were removed.
    One that holds a task now, or was changed since, stays."""
    removed = 0
    for column_id, change_id in added.items():
        state = load_partial(call.services.items, call.principal.user_id)
        column = state.columns.get(column_id)
        if column is None or column["spaceId"] in made_spaces:
            continue
        try:
            delete_todo_column(
                replace(call, operation_id="undo_changes", undoes=(change_id, column_id)),
                {"columnId": column_id, "expectedRevision": column["revision"]},
            )
        except MesqError:
            continue
        removed += 1
    return removed
