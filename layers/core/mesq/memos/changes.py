"""The memo's part of the change history: every memo write is one transaction holding the memo
(with its revision condition), the counter deltas, its change record (`history.change_op`) and
what the caller adds (a create's idempotency claim), and the call records the change it made
(`call.recorded`).

The change record's trim room (the oldest records of a long history it may drop in the same
transaction) is what DynamoDB's 100 items leave beside the memo, its counters, the attachment
links, the record itself and one more item: a create's idempotency claim, or an undo's mark on
the change it reverts.

Every attachment the memo starts naming is linked in the same transaction
(`attachments.store.link_ops`): one discarded since the registration check fails the write,
VALIDATION_ERROR naming it, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..attachments import store as attachment_store
from ..attachments.reads import discarded_meanwhile
from ..history.change_op import change_op
from ..history.timeline import register_record_key
from ..kernel.context import Call
from ..kernel.ports.storage import MAX_TRANSACTION_OPS, ConditionFailed, Item, WriteOp
from . import store
from .keys import memo_key

#: Beside the counters: the memo, its change record, and a claim or an undo's mark.
_BESIDE_COUNTERS = 3

register_record_key("memo", memo_key)  # the memo item heads its chain of changes (history/timeline.py)


def write_recorded(call: Call, before: Item | None, after: Item, extra: Sequence[WriteOp] = ()) -> None:
    """`store.write_memo` with the memo's change record; `after` is stamped with its history size.
    Raises ConditionFailed with index 0 when the memo changed (or exists) meanwhile."""
    user_id = call.principal.user_id
    counters = store.counter_ops(user_id, before, after)
    named = _resource_paths(after)
    links = attachment_store.link_ops(user_id, [path for path in named if path not in _resource_paths(before)])
    room = MAX_TRANSACTION_OPS - _BESIDE_COUNTERS - len(counters) - len(links)
    changes = change_op(call, "memo", str(after["id"]), before, after, stored=after, room=room)
    try:
        committed = store.write_memo(
            call.services.items, user_id, before, after, [*changes, *links, *extra], counters=counters
        )
    except ConditionFailed as failure:
        first = 1 + len(counters) + len(changes)  # the memo, its counters, its change ops, then the links
        lost = attachment_store.unlinked(call.services.items, user_id, links, failure, first)
        if lost is None:
            raise
        raise discarded_meanwhile(lost, f"resources[{named.index(lost)}].path") from None
    call.recorded.kept(committed)


def _resource_paths(memo: Item | None) -> list[str]:
    return [str(resource["path"]) for resource in (memo or {}).get("resources") or ()]
