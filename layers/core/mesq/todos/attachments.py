"""Binding todo attachments: the `attachments` of a task, subtask or inbox item write.

Every write that takes `attachments` runs them through `bound` before anything else: each entry
must name (`path`) a registered todo attachment of the caller (`attachments.reads.
registered_entries` in the todo namespace; a memo path, another user's path or an unregistered
one is VALIDATION_ERROR), and is bound as the upload returned it (path, displayName, fileSize,
mimeType, type, url, mcp_uri: MeSQ's values, never the client's). The list replaces the record's
list; the model then stores it as given (`model.with_content`).

The commit (`writes.apply`) links every attachment a write's records start naming in the same
transaction (`link_ops`, `attachments.store.link_ops`), so one discarded since the check above
fails the write (VALIDATION_ERROR naming it, `refused`) instead of being named after its file
is gone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..attachments import store as attachment_store
from ..attachments.paths import TODO
from ..attachments.reads import discarded_meanwhile, registered_entries
from ..kernel.context import Call
from ..kernel.errors import ValidationError
from ..kernel.ports.storage import Delete, Item, Put, WriteOp
from .keys import KIND_PREFIX, record_of
from .state import TodoState


def bound(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with its `attachments` (if any) checked and completed."""
    if "attachments" not in args:
        return args
    return {**args, "attachments": registered_entries(call, args["attachments"], TODO, "attachments")}


def _named(record: Item) -> Iterator[tuple[str, str]]:
    """(where, path) of every attachment a todo record names: its own (`attachments[i].path`) and
    (inbox items) its embedded subtasks' (`subtasks[n].attachments[i].path`)."""
    for index, attachment in enumerate(record.get("attachments") or ()):
        yield f"attachments[{index}].path", str(attachment.get("path"))
    for number, subtask in enumerate(record.get("subtasks") or ()):
        for index, attachment in enumerate(subtask.get("attachments") or ()):
            yield f"subtasks[{number}].attachments[{index}].path", str(attachment.get("path"))


def attachment_paths(record: Item) -> Iterator[str]:
    """The attachment paths a todo record names: its own and (inbox items) its embedded subtasks'."""
    return (path for _where, path in _named(record))


def _written(sk: str) -> tuple[str, str] | None:
    for kind in ("task", "inbox"):
        if sk.startswith(KIND_PREFIX[kind]):
            return kind, sk.removeprefix(KIND_PREFIX[kind])
    return None


def link_ops(user_id: str, state: TodoState, ops: Sequence[WriteOp]) -> list[WriteOp]:
    """The links of the attachments the records `ops` write name and the records they replace or
    delete did not (a file moving from an inbox item to its task stays named throughout)."""
    named: list[str] = []
    before: set[str] = set()
    for op in ops:
        key = (op.item["pk"], op.item["sk"]) if isinstance(op, Put) else op.key if isinstance(op, Delete) else None
        target = _written(str(key[1])) if key is not None else None
        if target is None:
            continue
        kind, ident = target
        old = (state.tasks if kind == "task" else state.inbox).get(ident)
        if old is not None:
            before.update(attachment_paths(old))
        if isinstance(op, Put):
            named.extend(attachment_paths(record_of(op.item)))
    return attachment_store.link_ops(user_id, [path for path in named if path not in before])


def refused(path: str, ops: Sequence[WriteOp]) -> ValidationError:
    """The refusal of a write whose attachment `path` was discarded before it committed, naming
    where the write gave it (`attachments[i].path`, or an inbox subtask's)."""
    for op in ops:
        if not isinstance(op, Put) or _written(str(op.item["sk"])) is None:
            continue
        for where, named in _named(record_of(op.item)):
            if named == path:
                return discarded_meanwhile(path, where)
    return discarded_meanwhile(path, "attachments")
