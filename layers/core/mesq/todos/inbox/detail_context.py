"""What inbox detail reads add around the record: the `timezone` they always keep and the
`board` / `inbox` / `tagSuggestions` context they add only with `includeContext: true`.

The context has the shape of get_todo_task's (mesq/todos/views/details.py), so an agent reads one
shape: `board` = every space (move targets), the columns of the space an inbox item would land in
when moved without a destination (the default space; archived ones included and flagged) and that
`space`; `inbox` = the live inbox items without notes or subtasks and their count;
`tagSuggestions` = the user's tag registry by name.
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.ports.storage import Item
from .. import keys, model
from ..state import TodoState

#: The zone a date-only due is read in when neither the record nor the user's todo settings name
#: one (the same fallback as get_todo_task).
DEFAULT_TIMEZONE = "UTC"


def effective_timezone(call: Call, own: str | None, state: TodoState | None = None) -> str:
    """The record's own zone, else the user's todo default (settings `timezone`), else UTC."""
    if own:
        return own
    settings = state.settings if state is not None else _settings(call)
    configured = (settings or {}).get("timezone")
    return str(configured) if configured else DEFAULT_TIMEZONE


def _settings(call: Call) -> Item | None:
    return call.services.items.get(keys.settings_key(call.principal.user_id))


def detail_context(state: TodoState) -> dict[str, Any]:
    default_id = state.default_space_id
    spaces = [model.public_space(space, default_id) for space in state.ordered_spaces()]
    default = state.default_space()
    columns = [model.public_column(column) for column in state.columns_of(default["id"])] if default else []
    inbox = [
        {key: value for key, value in model.public_inbox_item(item, include_notes=False).items() if key != "subtasks"}
        for item in state.live_inbox()
    ]
    board: dict[str, Any] = {"spaces": spaces, "columns": columns}
    if default is not None:
        board["space"] = model.public_space(default, default_id)
    return {
        "board": board,
        "inbox": {"items": inbox, "totalCount": len(inbox)},
        "tagSuggestions": [model.public_tag(tag) for tag in sorted(state.tags.values(), key=lambda t: str(t["name"]))],
    }
