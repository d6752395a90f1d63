"""`change_op`: the change record a write adds to its own transaction (so there is no change
without its record and no record without its change), the engine each domain's `changes.py`
calls with its kind and its records (memos/changes.py, todos/changes.py).

Every record of one call shares the call's runId (a run_code run's, or one per call) and its
session (`sessions.session_of`: the actor's run of writes, or the run's own), and is staged on
the call (`call.recorded`, kernel/recorded.py): the write's commit keeps it, so a write returns
what it recorded and nobody reads it back. An idempotent replay never reaches the write,
so it adds none.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from ..kernel.context import Call
from ..kernel.ports.storage import Condition, Delete, Item, Update, WriteOp
from ..kernel.timestamps import format_timestamp, utc_now
from .actor import actor_of
from .records import HISTORY_CAP, LINKS, TRIM_TO, change_item, change_key, change_put, epoch, links, new_change_id
from .sessions import session_of
from .timeline import record_history


def change_op(
    call: Call,
    kind: str,
    record_id: str,
    before: Item | None,
    after: Item | None,
    members: list[Item] | None = None,
    *,
    stored: Item | None = None,
    room: int = 0,
    earlier: Sequence[str] = (),
) -> list[WriteOp]:
    """The change record of one record's change; under an undo, for the record being reverted,
    also the mark on the change it reverts (`undoneBy`), in the same transaction.

    `stored`: the record item the write puts; it gets the record's kept history size
    (`historyBytes`) and the newest links of its chain (`recentChanges`: this change first, then its
    `priors`, the record's newest changes before it: `earlier`, then the newest one this call
    committed, then the ones its item named),
    and when the size would pass HISTORY_CAP, up to `room` of the record's oldest change records
    are deleted in the same transaction (the change then says `olderDropped`). `earlier`: the
    record's changes made just before this one in the same write, or its newest when `before` is
    not the item that names them (a write that ends a record under one kind and starts it under
    another, todos/changes.py). Never ordered by id: two changes of one write can share a
    microsecond, and then their ids' random tails decide."""
    now = utc_now()
    names = {record_id, str((before or {}).get("name"))} if kind == "tag" else {record_id}
    undoes = call.undoes[0] if call.undoes is not None and call.undoes[1] in names else None
    item = change_item(
        user_id=call.principal.user_id,
        change_id=new_change_id(now),
        at=format_timestamp(now),
        actor=actor_of(call),
        run_id=call.run_id,
        session_id=session_of(call, now),
        operation=call.operation_id,
        kind=kind,
        record_id=record_id,
        before=before,
        after=after,
        expires=epoch(now + timedelta(days=call.services.deployment.history_days)),
        undoes=undoes,
        members=members,
        priors=_joined(earlier, [call.recorded.newest_of(record_id) or ""], recent_changes(kind, record_id, before)),
    )
    ops: list[WriteOp] = []
    if stored is not None:
        total = int((before or {}).get("historyBytes", 0)) + int(item["size"])
        if total > HISTORY_CAP:
            total, drops = _trim(call, record_id, links(item.get("priors")), int(item["size"]), room, undoes)
            if drops:
                item["olderDropped"] = True
                ops += drops
        stored["historyBytes"] = total
        stored["recentChanges"] = [item["id"], *item.get("priors", [])][:LINKS]
    ops.insert(0, change_put(item))
    call.recorded.stage(item)  # kept when the write's transaction commits (kernel/recorded.py)
    if undoes is not None:
        mark = {"undoneBy": item["id"]}
        ops.append(Update(key=change_key(call.principal.user_id, undoes), set=mark, condition=Condition(exists=True)))
    return ops


def _joined(*groups: Sequence[str]) -> list[str]:
    """The ids of `groups`, newest group first, each once, at most LINKS."""
    return list(dict.fromkeys(ident for group in groups for ident in group if ident))[:LINKS]


def recent_changes(kind: str, record_id: str, before: Item | None) -> list[str]:
    """The newest changes of the record `before` was (a renamed tag's old name heads another
    record's chain: the new name's starts afresh, as an account import links it)."""
    if before is None or (kind == "tag" and before.get("name") != record_id):
        return []
    return links(before.get("recentChanges"))


def _trim(
    call: Call, record_id: str, priors: list[str], new_size: int, room: int, keep: str | None
) -> tuple[int, list[WriteOp]]:
    """The record's history recounted (change records the TTL removed no longer count) and
    Deletes of its oldest records down to TRIM_TO, at most `room` of them (the rest go at a
    later write); never `keep`, the change an undo marks in the same transaction."""
    entries = record_history(call.services.items, call.principal.user_id, record_id, priors)
    total = new_size + sum(int(entry.get("size", 0)) for entry in entries)
    drops: list[WriteOp] = []
    for entry in entries:  # oldest first
        if total <= TRIM_TO or len(drops) >= room:
            break
        if entry["id"] == keep:
            continue
        drops.append(Delete((str(entry["pk"]), str(entry["sk"]))))
        total -= int(entry.get("size", 0))
    return total, drops
