"""Permanent delete of memos in the trash (docs/contract.md §1: a signed-in browser session only).

Deliberately NOT an operation: it has no operationId, so no REST route and no MCP tool can be
generated for it, and no PAT or OAuth token can ever reach it. Only the web pages
(`mesq/web/memos/trash.py`) call these functions, with the user id of a browser session.

One purge is one transaction: the memo's delete (conditioned on the revision the user saw, so
a memo restored or edited meanwhile is not destroyed) plus the counter deltas. Attachment
files are not deleted here: a memo with attachments leaves an `ORPHANS#<memoId>` item with
their paths, for a later sweep to remove the blobs (object deletes cannot join a store
transaction, and a crash between the two must not leave a memo pointing at missing files).
After the commit the memo's change history is deleted too (`history.forget`): a purged memo's
text survives nowhere. The purge itself writes no change record (it is never undoable).
"""

from __future__ import annotations

from typing import Any

from ..history.forget import forget_record
from ..history.records import links
from ..kernel.errors import Conflict, NotFound, RevisionConflict
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, ItemStore, Put, WriteOp
from ..kernel.timestamps import now_timestamp
from . import store
from .keys import MEMO_PREFIX, memo_key

ORPHANS_PREFIX = "ORPHANS#"


def purge_memo(items: ItemStore, user_id: str, memo_id: str, expected_revision: int) -> dict[str, Any]:
    """Delete one trashed memo for good; returns what was removed (id, revision, attachments)."""
    memo = store.read_memo(items, user_id, memo_id)
    if memo is None:
        raise NotFound("memo %(memo_id)s not found", memo_id=quoted(memo_id))
    if memo["status"] != "DELETED":
        raise Conflict("only memos in the trash can be deleted permanently; move it to the trash first")
    if memo["revision"] != expected_revision:
        raise RevisionConflict(
            "memo %(memo_id)s changed meanwhile (revision %(revision)s); reload the trash and try again",
            memo_id=quoted(memo_id),
            revision=memo["revision"],
        )
    ops: list[WriteOp] = [
        Delete(memo_key(user_id, memo_id), Condition(equals={"revision": expected_revision})),
        *store.counter_ops(user_id, memo, None),
    ]
    paths = [resource["path"] for resource in memo.get("resources", [])]
    if paths:
        orphans = {
            "pk": user_partition(user_id),
            "sk": f"{ORPHANS_PREFIX}{memo_id}",
            "paths": paths,
            "createdAt": now_timestamp(),
        }
        ops.append(Put(orphans))
    try:
        items.transact(ops)
    except ConditionFailed:
        raise RevisionConflict(
            "memo %(memo_id)s changed meanwhile; reload the trash and try again", memo_id=quoted(memo_id)
        ) from None
    forget_record(items, user_id, memo_id, links(memo.get("recentChanges")))
    return {"id": memo_id, "revision": memo["revision"], "orphanedAttachments": len(paths)}


def trashed_memo_ids(items: ItemStore, user_id: str, limit: int) -> list[tuple[str, int]]:
    """(id, revision) of up to `limit` memos in the trash, newest first (for emptying it)."""
    entries = list(store.timeline_entries(items, user_id, "DELETED", limit=limit))
    found = store.fetch_memos(items, user_id, [str(e["sk"]).removeprefix(MEMO_PREFIX) for e in entries])
    return [(memo["id"], memo["revision"]) for memo in found.values() if memo["status"] == "DELETED"]
