"""The sync operations' table (operationId -> function)."""

from __future__ import annotations

from .save import save_synced_todo

OPERATIONS = {fn.__name__: fn for fn in (save_synced_todo,)}
