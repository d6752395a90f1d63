"""The history operations' `OPERATIONS` table (operationId -> function)."""

from __future__ import annotations

from .reads import list_changes
from .undo import undo_changes

OPERATIONS = {fn.__name__: fn for fn in (list_changes, undo_changes)}
