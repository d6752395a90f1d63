"""The write pattern every todo operation shares.

Offers:
- `create_once(call, operation_id, args, build)`: a create with `idempotencyKey` handling
  (replay, IDEMPOTENCY_CONFLICT, the claim in the same transaction as the record) and one retry
  when a concurrent tag registration got in first;
- `apply(call, build, on_conflict)`: load the write's partial state (`store.load_partial`: the
  structure up front, the touched records by key, ordered lists from GSI2; never the whole
  board), build `(data, ops)`, commit them as ONE transaction, mapping a failed revision
  condition to the REVISION_CONFLICT `on_conflict` makes from a fresh state (so recoverData is
  the current record);
- `require_revision(record, expected, conflict)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import idempotency
from ..auth.users import user_partition
from ..context import Call
from ..errors import MesqError
from ..store.ports import ConditionFailed, Item, WriteOp
from . import store

Built = tuple[dict[str, Any], list[WriteOp]]
ATTEMPTS = 2  # one retry: a concurrent first use of the same new tag name


def apply(
    call: Call,
    build: Callable[[store.TodoState], Built],
    on_conflict: Callable[[store.TodoState], MesqError],
    *,
    extra: Callable[[dict[str, Any]], list[WriteOp]] | None = None,
) -> dict[str, Any]:
    """Build against a fresh (partial) state and commit in one transaction. A failed condition
    means a record changed since it was read: when a tag registration raced, rebuild once; otherwise
    raise `on_conflict(fresh state)` (build itself raises REVISION_CONFLICT for a stale
    `expectedRevision` it sees in the snapshot)."""
    items, user_id = call.services.items, call.principal.user_id
    state = store.ensure_default_space(items, user_id, partial=True)
    for attempt in range(ATTEMPTS):
        data, ops = build(state)
        if extra is not None:
            ops = ops + extra(data)
        try:
            store.commit(items, ops)
            return data
        except ConditionFailed as failure:
            state = store.load_partial(items, user_id)
            failed = ops[failure.index] if failure.index is not None and failure.index < len(ops) else None
            raced_tag = failed is not None and _is_tag_claim(failed)
            if not raced_tag or attempt == ATTEMPTS - 1:
                raise on_conflict(state) from None
    raise AssertionError("unreachable")


def _is_tag_claim(op: WriteOp) -> bool:
    item = getattr(op, "item", None)
    return isinstance(item, dict) and str(item.get("sk", "")).startswith("TODO#TAG#")


def create_once(
    call: Call,
    operation_id: str,
    args: dict[str, Any],
    build: Callable[[store.TodoState], Built],
    on_conflict: Callable[[store.TodoState], MesqError],
) -> dict[str, Any]:
    """A create honouring `idempotencyKey`: the first response is stored with the record in the
    same transaction; a replay returns it, a reuse with other arguments is IDEMPOTENCY_CONFLICT."""
    items, user_id = call.services.items, call.principal.user_id
    key = args.get("idempotencyKey")
    request = {name: value for name, value in args.items() if name != "idempotencyKey"}
    fingerprint = idempotency.fingerprint(request)
    record_key = idempotency.record_key(user_partition(user_id), operation_id, key) if key else None
    if record_key is not None:
        replayed = idempotency.replay(items, record_key, fingerprint)
        if replayed is not None:
            return replayed

    def claim(data: dict[str, Any]) -> list[WriteOp]:
        return [idempotency.claim(record_key, fingerprint, data)] if record_key is not None else []

    def conflict(state: store.TodoState) -> MesqError:
        # A concurrent twin with the same key won the claim: answer as it did.
        if record_key is not None:
            replayed = idempotency.replay(items, record_key, fingerprint)
            if replayed is not None:
                return _Replayed(replayed)
        return on_conflict(state)

    try:
        return apply(call, build, conflict, extra=claim)
    except _Replayed as replayed:
        return replayed.data


class _Replayed(MesqError):
    """Internal: carries a twin's stored response out of `apply` (never reaches a client)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__("replayed")
        self.data = data


def require_revision(record: Item, expected: int, conflict: Callable[[], MesqError]) -> None:
    if int(record["revision"]) != expected:
        raise conflict()
