"""Undo one import as a whole, by its runId.

`undo_changes` reverts at most MAX_UNDO changes a call: this repeats it for the run until nothing
of it is left to revert (each change undone once: a revert marks the change it reverts). Undoing
a create puts the record in the trash, as every undo does: the imported memos and tasks go to the
trash (restorable; the memo and tag counters follow), and a record the person changed since
the import is left as it is (REVISION_CONFLICT, listed).

What undo never reverts, creating a space or a column (they have no trash), this removes when the
import made them and they hold no live task any more: the space with its columns and slug
(`delete_todo_space`, which refuses a space with live tasks). A task restored from the trash later
lands in the default space. The todo tags the import registered stay while trashed tasks carry
them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..history.undo import MAX_UNDO, undo_changes
from ..kernel.context import Call
from ..kernel.errors import MesqError
from ..memos.revert import REVERTERS as MEMO_REVERTERS
from ..todos.board.spaces import delete_todo_space
from ..todos.revert import REVERTERS as TODO_REVERTERS
from ..todos.state import load_partial

#: The reverters of the kinds an import writes (memos, todo records).
_REVERTERS = {**MEMO_REVERTERS, **TODO_REVERTERS}


@dataclass
class UndoReport:
    undone: Counter[str] = field(default_factory=Counter)
    not_undone: list[dict[str, Any]] = field(default_factory=list)
    removed_spaces: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"undone": dict(self.undone), "notUndone": self.not_undone[:100],
                "notUndoneCount": len(self.not_undone), "removedSpaces": self.removed_spaces}  # fmt: skip


def undo_import(call: Call, run_id: str, *, most: int = 1_000_000) -> UndoReport:
    report = UndoReport()
    spaces: list[str] = []
    refused: dict[str, dict[str, Any]] = {}
    for _ in range(most // MAX_UNDO + 2):
        data = undo_changes(replace(call, operation_id="undo_changes"), {"runId": run_id}, _REVERTERS)
        for entry in data["undone"]:
            report.undone[entry["record"]["kind"]] += 1
        for entry in data["notUndone"]:
            record = entry["record"]
            if record["kind"] == "space" and entry.get("code") == "NOT_UNDOABLE":
                spaces.append(record["id"])
            elif record["kind"] not in ("column", "tag") or entry.get("code") != "NOT_UNDOABLE":
                refused[entry["changeId"]] = entry
        if not data["undone"]:  # what is left cannot be undone (conflicts), or nothing is left
            break
    report.not_undone = list(refused.values())
    for space_id in dict.fromkeys(spaces):
        space = load_partial(call.services.items, call.principal.user_id).spaces.get(space_id)
        if space is None:
            continue
        try:
            delete_todo_space(
                replace(call, operation_id="undo_changes"), {"spaceId": space_id, "expectedRevision": space["revision"]}
            )
        except MesqError as error:
            report.not_undone.append(
                {"record": {"kind": "space", "id": space_id}, "code": error.code, "message": error.message}
            )
            continue
        report.removed_spaces += 1
    return report
