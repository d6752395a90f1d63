"""The operation registry: operationId -> the plain function that implements it.

Both adapters dispatch through this table; `check_registry` runs at construction so a spec
operation without an implementation (or the reverse) fails at start-up, not on first call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .attachments.operations import OPERATIONS as ATTACHMENT_OPERATIONS
from .context import Call
from .memos.operations import OPERATIONS as MEMO_OPERATIONS
from .reading.operations import OPERATIONS as READING_OPERATIONS
from .spec import Spec, SpecError
from .todos.inbox import OPERATIONS as TODO_INBOX_OPERATIONS
from .todos.operations import OPERATIONS as TODO_OPERATIONS
from .todos.views import OPERATIONS as TODO_VIEW_OPERATIONS

OperationFn = Callable[[Call, dict[str, Any]], dict[str, Any]]

REGISTRY: Mapping[str, OperationFn] = {
    **MEMO_OPERATIONS,
    **ATTACHMENT_OPERATIONS,
    **TODO_INBOX_OPERATIONS,
    **TODO_VIEW_OPERATIONS,
    **TODO_OPERATIONS,
    **READING_OPERATIONS,
}


def check_registry(spec: Spec, registry: Mapping[str, OperationFn] = REGISTRY) -> None:
    missing = sorted(set(spec.operations) - set(registry))
    if missing:
        raise SpecError(f"operations without an implementation: {', '.join(missing)}")
    unknown = sorted(set(registry) - set(spec.operations))
    if unknown:
        raise SpecError(f"implementations without an operation in openapi.yaml: {', '.join(unknown)}")
