"""The history's two operations, `list_changes` and `undo_changes`, with every kind's reverter
(`REVERTERS`: record kind -> its domain's `revert.py`), which the undo engine (history/undo.py)
puts each change back through. A module of their own so the registry (registries.py) imports
the history, the undo engine and the domains' reverters on the first call of one of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..history import undo
from ..history.reads import list_changes
from ..kernel.context import Call
from ..memos.revert import REVERTERS as MEMO_REVERTERS
from ..todos.revert import REVERTERS as TODO_REVERTERS

REVERTERS: Mapping[str, undo.Reverter] = {
    **MEMO_REVERTERS,
    **TODO_REVERTERS,
}


def undo_changes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """The `undo_changes` operation: the undo engine with every kind's reverter."""
    return undo.undo_changes(call, args, REVERTERS)


OPERATIONS = {"list_changes": list_changes, "undo_changes": undo_changes}
