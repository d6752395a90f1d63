"""The browser-only attachment clean-up (Settings -> Attachments): every attachment of a user
(memo and todo), whether anything still refers to it, and discarding the orphans.

Deliberately NOT an operation (no operationId, so no REST route and no MCP tool; `mesq/web/
attachments.py` is its only caller, with the user of a browser session), like the permanent
memo delete.

"Bound" means a memo (any status: a trashed memo can come back) lists the path in `resources`,
or a todo record (task, subtask, inbox item or inbox subtask, trashed included) lists it in
`attachments`. It is computed from the user's own memos and todo records at the time of the
listing and again right before each discard, so an attachment bound meanwhile is refused
(CONFLICT), never deleted under a record that names it.

A write can still attach the file between that check and the delete. So the discard first reads
each record's `links` count (every write that starts naming a file bumps it in its own
transaction: attachments/store.py, "Linking"), then checks, then deletes the record only at the
count it read: a write linked in between makes the delete fail and the file is kept (CONFLICT
for a chosen file; "discard every unattached file" skips it), and a write committing after the
delete is refused because the record is gone. Bytes go only after their record did.

A discard is one transaction: the attachment record goes (conditioned on that count, so two
discards free its bytes once) and the usage counter gives the bytes and the count back. The
object is deleted after the commit; a crash in between leaves an unnamed object and never a
record without its file. Paths the permanent memo delete recorded as orphans (`ORPHANS#<memoId>`
items of memos/purge.py) are cleared from those items once discarded; an item whose paths are all
gone is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..attachments import store as attachment_store
from ..attachments.paths import NAMESPACES, Namespace, namespace_of
from ..kernel.errors import Conflict, NotFound, ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import BlobStore, ConditionFailed, Item, ItemStore
from ..memos.purge import ORPHANS_PREFIX
from ..memos.store import all_memos
from ..store.paging import walk
from ..todos.attachments import attachment_paths
from ..todos.keys import PREFIX as TODO_PREFIX

#: At most this many attachments per namespace are listed (newest first).
LIST_LIMIT = 2000


def bound_paths(items: ItemStore, user_id: str) -> set[str]:
    """Every attachment path a memo or a todo record of the user refers to."""
    paths = {str(r.get("path")) for memo in all_memos(items, user_id) for r in memo.get("resources") or ()}
    for record in walk(items, user_partition(user_id), prefix=TODO_PREFIX):
        paths.update(attachment_paths(record))
    return paths


def _orphan_items(items: ItemStore, user_id: str) -> list[Item]:
    return list(walk(items, user_partition(user_id), prefix=ORPHANS_PREFIX))


def inventory(items: ItemStore, user_id: str) -> dict[str, Any]:
    """The user's attachments, newest first, each with `namespace` and `bound`; their totals."""
    bound = bound_paths(items, user_id)
    listed: list[dict[str, Any]] = []
    for kind in NAMESPACES:
        for record in attachment_store.list_attachments(items, user_id, LIST_LIMIT, kind):
            listed.append({**record, "namespace": kind.name, "bound": record["path"] in bound})
    listed.sort(key=lambda r: str(r["id"]), reverse=True)
    used, count = attachment_store.read_usage(items, user_id)
    orphans = [r for r in listed if not r["bound"]]
    return {
        "attachments": listed,
        "usedBytes": used,
        "count": count,
        "orphanCount": len(orphans),
        "orphanBytes": sum(int(r["fileSize"]) for r in orphans),
    }


def _counted(items: ItemStore, user_id: str, path: str) -> tuple[Namespace, Item]:
    """The registered record of `path` with its `links` count (read before the bound check)."""
    kind = namespace_of(path)
    if kind is None or not path.startswith(f"users/{user_id}/"):
        raise ValidationError("%(path)s is not one of your attachment paths", path=quoted(path))
    record = attachment_store.counted_links(items, user_id, path.rsplit("/", 1)[1], kind)
    if record is None:
        raise NotFound("no attachment at %(path)s (discarded already?)", path=quoted(path))
    return kind, record


def _forget_orphan_entries(items: ItemStore, user_id: str, gone: set[str]) -> None:
    for entry in _orphan_items(items, user_id):
        left = [p for p in entry.get("paths", []) if p not in gone]
        if len(left) == len(entry.get("paths", [])):
            continue
        key = (entry["pk"], entry["sk"])
        if left:
            items.put({**entry, "paths": left})
        else:
            items.delete(key)


def _bound_now(path: str) -> Conflict:
    return Conflict(
        "%(still_bound)s is attached to a memo or a todo now; remove it there first", still_bound=quoted(path)
    )


def _discard_unbound(
    items: ItemStore, blobs: BlobStore, user_id: str, wanted: list[str], *, refuse_bound: bool
) -> tuple[dict[str, int], list[str]]:
    """Discard these attachments: (count, bytes) freed, and the paths kept because a record names
    them (bound at the check, or attached between the check and the delete). `refuse_bound`:
    CONFLICT, and nothing changed, when one is bound at the check."""
    counted: list[tuple[str, Namespace, Item]] = []
    for path in wanted:  # each count read before the check: see above
        try:
            counted.append((path, *_counted(items, user_id, path)))
        except NotFound:
            if refuse_bound:
                raise
            # "every unattached file": another tab discarded this one since the listing
    wanted = [path for path, _kind, _record in counted]
    bound = bound_paths(items, user_id)
    still_bound = [p for p in wanted if p in bound]
    if still_bound and refuse_bound:
        raise _bound_now(still_bound[0])
    freed, freed_bytes = 0, 0
    kept: list[str] = still_bound
    for path, kind, record in counted:
        if path in bound:
            continue
        try:
            items.transact(attachment_store.unregister(user_id, record, kind))
        except ConditionFailed as failure:
            if failure.index not in (0, None):
                raise
            if attachment_store.read_attachment(items, user_id, record["id"], kind) is not None:
                kept.append(path)  # linked since its count was read: a record names it now
            continue  # or discarded by a concurrent discard, which freed it
        blobs.delete(path)
        freed, freed_bytes = freed + 1, freed_bytes + int(record["fileSize"])
    _forget_orphan_entries(items, user_id, set(wanted) - set(kept))
    return {"count": freed, "bytes": freed_bytes}, kept


def discard(items: ItemStore, blobs: BlobStore, user_id: str, paths: Iterable[str]) -> dict[str, int]:
    """Discard these attachments if nothing refers to them: (count, bytes) freed.

    CONFLICT when one is bound now (nothing changed), or was attached while being discarded (that
    one kept, the others discarded); NOT_FOUND when one is gone."""
    freed, kept = _discard_unbound(items, blobs, user_id, list(dict.fromkeys(paths)), refuse_bound=True)
    if kept:
        raise _bound_now(kept[0])
    return freed


def discard_orphans(items: ItemStore, blobs: BlobStore, user_id: str) -> dict[str, int]:
    """Discard every attachment nothing refers to (one attached since the listing is kept, one
    discarded elsewhere since the listing is skipped, not counted), and the
    files of purged memos' orphan lists that have no attachment record any more."""
    listing = inventory(items, user_id)
    orphans = [r["path"] for r in listing["attachments"] if not r["bound"]]
    result = {"count": 0, "bytes": 0}
    if orphans:
        result = _discard_unbound(items, blobs, user_id, orphans, refuse_bound=False)[0]
    bound = bound_paths(items, user_id)
    for entry in _orphan_items(items, user_id):
        for path in entry.get("paths", []):
            if path not in bound and _unregistered_own(items, user_id, path):
                blobs.delete(path)  # a file with no record: nothing to give back to the quota
        items.delete((entry["pk"], entry["sk"]))
    return result


def _unregistered_own(items: ItemStore, user_id: str, path: str) -> bool:
    """`path` is a well-formed attachment path of this user with no record (read now, so an
    attachment a concurrent memo purge just listed is never mistaken for a stray file)."""
    kind = namespace_of(path)
    if kind is None or not path.startswith(f"users/{user_id}/"):
        return False
    return attachment_store.read_attachment(items, user_id, path.rsplit("/", 1)[1], kind) is None


__all__ = ["bound_paths", "discard", "discard_orphans", "inventory"]
