"""The memo's reverter for `undo_changes` (history/undo.py, the engine; application/registries.py
gathers the reverters): one memo change put back through the memo writes.

- a create or a restore: the memo goes to the trash; a trash: it is restored;
- an update: the fields a person sees (`content`, `pinned`, `status`, `resources`) get their
  `before` values back, a new revision; a change of derived fields only has nothing to put
  back (the memo is answered as it is, still at the revision the undo expects).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import NotFound, RevisionConflict
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from .reads import public_memo
from .store import fetch_memos, read_memo
from .writes import delete_memo, put_back_memo, restore_memo

_MEMO_FIELDS = ("content", "pinned", "status", "resources")


def revert_memo(call: Call, change: Item, expected: int) -> dict[str, Any]:
    target = {"id": change["record"]["id"], "expectedRevision": expected}
    action = change["action"]
    if action in ("create", "restore"):
        return delete_memo(call, target)
    if action == "trash":
        return restore_memo(call, target)
    current = read_memo(call.services.items, call.principal.user_id, target["id"])
    if current is None:
        raise NotFound("memo %(id)s no longer exists", id=quoted(target["id"]))
    restored = {name: change["before"][name] for name in _MEMO_FIELDS if name in change["fields"]}
    if not restored:  # only derived fields changed: nothing a person sees to put back
        if current["revision"] != expected:
            raise RevisionConflict("the memo changed since", recover_data={"memo": public_memo(current)})
        return {"memo": public_memo(current)}
    return put_back_memo(call, {**target, **restored})


def memo_revisions(call: Call, changes: Sequence[Item]) -> dict[str, int | None]:
    """The current revision of each memo the changes name (None: purged), for an undo's dry run."""
    ids = list(dict.fromkeys(str(change["record"]["id"]) for change in changes))
    found = fetch_memos(call.services.items, call.principal.user_id, ids)
    return {memo_id: int(found[memo_id]["revision"]) if memo_id in found else None for memo_id in ids}


#: The reverter of each kind this package records (history/records.py KINDS), and its revisions.
REVERTERS = {"memo": revert_memo}
REVISIONS = {"memo": memo_revisions}
