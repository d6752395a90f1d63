"""Binding todo attachments: the `attachments` of a task, subtask or inbox item write.

Every write that takes `attachments` runs them through `bound` before anything else: each entry
must name (`path`) a registered todo attachment of the caller (`attachments.reads.
registered_entries` in the todo namespace; a memo path, another user's path or an unregistered
one is VALIDATION_ERROR), and is bound as the upload returned it (path, displayName, fileSize,
mimeType, type, url, mcp_uri: MeSQ's values, never the client's). The list replaces the record's
list; the model then stores it as given (`model.with_content`).
"""

from __future__ import annotations

from typing import Any

from ..attachments.paths import TODO
from ..attachments.reads import registered_entries
from ..kernel.context import Call


def bound(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with its `attachments` (if any) checked and completed."""
    if "attachments" not in args:
        return args
    return {**args, "attachments": registered_entries(call, args["attachments"], TODO, "attachments")}
