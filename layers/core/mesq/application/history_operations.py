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
from ..memos.revert import REVISIONS as MEMO_REVISIONS
from ..todos.revert import FINISHERS as TODO_FINISHERS
from ..todos.revert import FORECASTS as TODO_FORECASTS
from ..todos.revert import LEFTOVERS as TODO_LEFTOVERS
from ..todos.revert import REVERTERS as TODO_REVERTERS
from ..todos.revert import REVISIONS as TODO_REVISIONS

REVERTERS: Mapping[str, undo.Reverter] = {
    **MEMO_REVERTERS,
    **TODO_REVERTERS,
}
#: What the undo engine needs of every kind: its reverter, its current revisions (a dry run) and
#: what a whole run's or session's undo removes at its end (the spaces it created, once empty).
UNDO_KINDS = undo.Kinds(
    reverters=REVERTERS,
    revisions={**MEMO_REVISIONS, **TODO_REVISIONS},
    finishers=TODO_FINISHERS,
    forecasts=TODO_FORECASTS,
    leftovers=TODO_LEFTOVERS,
)


def undo_changes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """The `undo_changes` operation: the undo engine with every kind's reverter."""
    return undo.undo_changes(call, args, UNDO_KINDS)


OPERATIONS = {"list_changes": list_changes, "undo_changes": undo_changes}
