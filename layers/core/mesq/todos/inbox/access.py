"""Reading and conditionally rewriting one inbox item: what every inbox and inbox subtask
operation shares. Keys are always built from the caller's user id, so another user's item is
NOT_FOUND, never visible.

A write names the revision it read (`expectedRevision`, or `parentRevision` for inbox subtasks)
and goes through the todo write pattern (`writes.apply`): built against a fresh snapshot, then
committed as ONE transaction whose item Put is conditioned on that revision. A mismatch — seen
in the snapshot or by the condition — is REVISION_CONFLICT with `recoverData` = `recover(current
item)` (default `{"item": <the item as it is now>}`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...kernel.context import Call
from ...kernel.errors import MesqError, NotFound, RevisionConflict
from ...kernel.messages import quoted
from ...kernel.ports.storage import Item, WriteOp
from ...kernel.timestamps import now_timestamp
from .. import keys, model
from ..state import TodoState
from ..views.traversal import without_notes
from ..writes import Built, apply, bump, put_revised, tag_registrations

Recover = Callable[[Item], dict[str, Any]]


def _record(item: Item) -> Item:
    return {name: value for name, value in item.items() if name not in ("pk", "sk")}


def _missing(item_id: str) -> NotFound:
    return NotFound("inbox item %(item_id)s not found", item_id=quoted(item_id))


def read_item(call: Call, item_id: str) -> Item:
    """The caller's live inbox item (one key read), or NOT_FOUND (a trashed item counts as absent)."""
    found = call.services.items.get(keys.inbox_key(call.principal.user_id, item_id))
    if found is None or not keys.live(found):
        raise _missing(item_id)
    return _record(found)


def whole_item(call: Call, item_id: str) -> dict[str, Any]:
    """The caller's live inbox item in its public shape for a person's page, not a tool answer: one
    key read, its own notes whole (never paged), its subtasks without their notes (the page lists
    their titles), and no response budget, which is the agents' (an item whose subtasks' notes
    pass it still opens). NOT_FOUND as `read_item`."""
    item = read_item(call, item_id)
    shape = model.public_inbox_item(item)
    shape["subtasks"] = [without_notes(sub) for sub in shape["subtasks"]]
    return shape


def recover_item(current: Item) -> dict[str, Any]:
    return {"item": model.public_inbox_item(current)}


def conflict_for(item_id: str, recover: Recover = recover_item) -> Callable[[TodoState], MesqError]:
    """What a failed write condition means, judged from a fresh snapshot."""

    def make(state: TodoState) -> MesqError:
        current = state.inbox_item(item_id)
        if current is None:  # moved to the board or never there
            return _missing(item_id)
        return RevisionConflict(
            "inbox item %(item_id)s is at revision %(revision)s; merge your change into recoverData.item and retry "
            "with that revision",
            item_id=quoted(item_id),
            revision=current["revision"],
            recover_data=recover(current),
        )

    return make


def item_in(
    state: TodoState, item_id: str, revision: int, *, recover: Recover = recover_item, trashed_ok: bool = False
) -> Item:
    """The item from the snapshot, provided it is live (or `trashed_ok`) and at `revision`."""
    item = state.inbox_item(item_id)
    if item is None or (not trashed_ok and not keys.live(item)):
        raise _missing(item_id)
    if item["revision"] != revision:
        raise conflict_for(item_id, recover)(state)
    return item


Change = Callable[[TodoState, Item, str], tuple[Item, Any]]
Present = Callable[[Item, Any], dict[str, Any]]


def rewrite_build(
    call: Call,
    item_id: str,
    revision: int,
    change: Change,
    present: Present,
    *,
    recover: Recover = recover_item,
    trashed_ok: bool = False,
) -> Callable[[TodoState], Built]:
    """The `build` of a write that applies `change(state, item, now) -> (new item, extra)` to the
    item at `revision`: the item with the next revision (conditioned on `revision`) plus tag
    registrations, answered with `present(stored item, extra)`. An unchanged item is not written
    (no new revision)."""
    user_id = call.principal.user_id

    def build(state: TodoState) -> Built:
        before = item_in(state, item_id, revision, recover=recover, trashed_ok=trashed_ok)
        now = now_timestamp()
        after, extra = change(state, before, now)
        if after == before:
            return present(before, extra), []
        final = {**after, **bump(before, now)}
        ops: list[WriteOp] = [put_revised(user_id, "inbox", before, final)]
        ops += tag_registrations(state, user_id, final["tags"], now)
        return present(final, extra), ops

    return build


def rewrite(
    call: Call,
    item_id: str,
    revision: int,
    change: Change,
    present: Present,
    *,
    recover: Recover = recover_item,
    trashed_ok: bool = False,
) -> dict[str, Any]:
    """Run that write as one transaction (see `rewrite_build`) and return its answer."""
    build = rewrite_build(call, item_id, revision, change, present, recover=recover, trashed_ok=trashed_ok)
    return apply(call, build, conflict_for(item_id, recover))
