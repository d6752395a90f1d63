"""Whether a record's later changes have all been undone since a change, so the change can still
be undone: pin a memo, trash it, undo the trash; the memo reads as right after the pin, at a newer
revision. Undoing the pin then expects that revision instead of refusing it as changed.

The later changes cancel out when each one nobody undid has been undone an odd number of times
(undone, not redone: a chain of `undoneBy`), and their revisions follow one another from the
change's own: the record then holds exactly what the change left, and its revision is the newest
of them.
"""

from __future__ import annotations

from ..kernel.context import Call
from ..kernel.ports.storage import Item
from .reads import SCAN_LIMIT, changes, matcher

#: Later changes of one record read to decide (more than this: not settled, the usual conflict).
#: The undo entries count too: a record's 120 changes undone 100 per call (the web's batches of
#: ids) leave the older 20 with 100 later changes and their 100 undos; at 100 they were refused
#: as changed since and the record stayed half undone. One page of `changes` reads at most
#: SCAN_LIMIT records.
LATER_LIMIT = SCAN_LIMIT - 1


def settled_revision(call: Call, change: Item) -> int | None:
    """The record's revision when every change of it after `change` was undone since (so
    `change` can be undone at that revision), else None."""
    record_id = str(change["record"]["id"])
    found, _cursor = changes(call, {"recordId": record_id, "limit": LATER_LIMIT + 1}, matcher(call, {}))
    later = sorted((item for item in found if str(item["id"]) > str(change["id"])), key=lambda item: str(item["id"]))
    if not later or len(later) > LATER_LIMIT:
        return None
    revision = change["revisions"]["after"]
    for item in later:  # oldest first: each follows the one before
        if item["revisions"]["before"] != revision:
            return None
        revision = item["revisions"]["after"]
    by_id = {str(item["id"]): item for item in later}
    for item in later:
        if item.get("undoes") in by_id:
            continue  # an undo (or a redo) of a later change: counted with the chain it belongs to
        undone, current = 0, item
        while current.get("undoneBy") in by_id:
            current, undone = by_id[str(current["undoneBy"])], undone + 1
        if undone % 2 == 0:
            return None  # still in effect (never undone, or undone and redone)
    return None if revision is None else int(revision)


__all__ = ["settled_revision"]
