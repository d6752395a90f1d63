"""The registries above the domains: what each domain plugs into the engines below it, gathered
in one place (docs/architecture.md, "Adding a searchable, undoable kind").

- `OPERATIONS`: operationId -> the plain function that implements it (application/invocation.py
  dispatches through it; `check_registry` ties it to the OpenAPI document);
- `REVERTERS`: record kind -> its domain's reverter (`revert.py`), the undo engine's
  (history/undo.py) way back for each kind of change record;
- `SEARCHABLES`: what the search indexes hold of each domain (`literal.py`: its literal index
  kind and its AI-index documents), set on the process's search runtime by the composition root.

A domain's change records come from its `changes.py` (through history/change_op.py), so a new
searchable, undoable kind is its package's `changes.py`, `revert.py` and `literal.py`, and its
line in each table here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..attachments.operations import OPERATIONS as ATTACHMENT_OPERATIONS
from ..history import undo
from ..history.reads import list_changes
from ..kernel.context import Call
from ..memos import literal as memo_literal
from ..memos.reads import OPERATIONS as MEMO_READ_OPERATIONS
from ..memos.revert import REVERTERS as MEMO_REVERTERS
from ..memos.writes import OPERATIONS as MEMO_WRITE_OPERATIONS
from ..reading import literal as reading_literal
from ..reading.operations import OPERATIONS as READING_OPERATIONS
from ..search.searchables import Searchables
from ..todos import literal as todo_literal
from ..todos.board.operation_table import OPERATIONS as TODO_OPERATIONS
from ..todos.inbox.operations import OPERATIONS as TODO_INBOX_OPERATIONS
from ..todos.revert import REVERTERS as TODO_REVERTERS
from ..todos.sync.operations import OPERATIONS as TODO_SYNC_OPERATIONS
from ..todos.views.operations import OPERATIONS as TODO_VIEW_OPERATIONS
from .search_operations import OPERATIONS as SEARCH_OPERATIONS

OperationFn = Callable[[Call, dict[str, Any]], dict[str, Any]]

REVERTERS: Mapping[str, undo.Reverter] = {
    **MEMO_REVERTERS,
    **TODO_REVERTERS,
}

SEARCHABLES = Searchables(
    documents=(*memo_literal.DOCUMENTS, *todo_literal.DOCUMENTS, *reading_literal.DOCUMENTS),
    literal=(memo_literal.LITERAL, reading_literal.LITERAL, todo_literal.LITERAL),
)


def undo_changes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """The `undo_changes` operation: the undo engine with every kind's reverter."""
    return undo.undo_changes(call, args, REVERTERS)


OPERATIONS: dict[str, OperationFn] = {
    **MEMO_READ_OPERATIONS,
    **MEMO_WRITE_OPERATIONS,
    **ATTACHMENT_OPERATIONS,
    **TODO_INBOX_OPERATIONS,
    **TODO_VIEW_OPERATIONS,
    **TODO_OPERATIONS,
    **TODO_SYNC_OPERATIONS,
    **READING_OPERATIONS,
    **SEARCH_OPERATIONS,
    "list_changes": list_changes,
    "undo_changes": undo_changes,
}
