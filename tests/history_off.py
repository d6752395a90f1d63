"""The write paths without their change records, in this process only: what history costs a
write is measured against them (tests/history/test_write_cost.py, bench/history_cost.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def history_off() -> Iterator[None]:
    """The memo and todo writes with `change_op` / `todo_changes` adding nothing (the names the
    writes imported)."""
    import mesq.memos.changes as memo_changes
    import mesq.todos.writes as todo_writes

    saved = memo_changes.change_op, todo_writes.todo_changes
    memo_changes.change_op = lambda *_args, **_kw: []  # type: ignore[assignment]
    todo_writes.todo_changes = lambda *_args, **_kw: []  # type: ignore[assignment]
    try:
        yield
    finally:
        memo_changes.change_op, todo_writes.todo_changes = saved
