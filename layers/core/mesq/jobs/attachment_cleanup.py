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

A discard is one transaction: the attachment record goes (conditioned on existing, so two
discards free its bytes once) and the usage counter gives the bytes and the count back. The
object is deleted after the commit; a crash in between leaves an unnamed object and never a
record without its file. Paths the permanent memo delete recorded as orphans (`ORPHANS#<memoId>`
items of memos/purge.py) are cleared from those items once discarded; an item whose paths are all
gone is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..attachments import store as attachment_store
from ..attachments.paths import NAMESPACES, Namespace, namespace_of
from ..kernel.errors import Conflict, NotFound, ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import BlobStore, Item, ItemStore
from ..memos.purge import ORPHANS_PREFIX
from ..memos.store import all_memos
from ..store.paging import walk
from ..todos.keys import PREFIX as TODO_PREFIX

#: At most this many attachments per namespace are listed (newest first).
LIST_LIMIT = 2000


def _todo_attachment_paths(record: Item) -> Iterator[str]:
    for attachment in record.get("attachments") or ():
        yield str(attachment.get("path"))
    for subtask in record.get("subtasks") or ():  # inbox items embed their subtasks
        for attachment in subtask.get("attachments") or ():
            yield str(attachment.get("path"))


def bound_paths(items: ItemStore, user_id: str) -> set[str]:
    """Every attachment path a memo or a todo record of the user refers to."""
    paths = {str(r.get("path")) for memo in all_memos(items, user_id) for r in memo.get("resources") or ()}
    for record in walk(items, user_partition(user_id), prefix=TODO_PREFIX):
        paths.update(_todo_attachment_paths(record))
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


def _registered(items: ItemStore, user_id: str, path: str) -> tuple[Namespace, Item]:
    kind = namespace_of(path)
    if kind is None or not path.startswith(f"users/{user_id}/"):
        raise ValidationError("%(path)s is not one of your attachment paths", path=quoted(path))
    record = attachment_store.read_attachment(items, user_id, path.rsplit("/", 1)[1], kind)
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


def discard(items: ItemStore, blobs: BlobStore, user_id: str, paths: Iterable[str]) -> dict[str, int]:
    """Discard these attachments if nothing refers to them: (count, bytes) freed.

    CONFLICT (and nothing changed) when one is bound now; NOT_FOUND when one is gone."""
    wanted = list(dict.fromkeys(paths))
    bound = bound_paths(items, user_id)
    still_bound = [p for p in wanted if p in bound]
    if still_bound:
        raise Conflict(
            "%(still_bound)s is attached to a memo or a todo now; remove it there first",
            still_bound=quoted(still_bound[0]),
        )
    freed, freed_bytes = 0, 0
    for path in wanted:
        kind, record = _registered(items, user_id, path)
        items.transact(attachment_store.unregister(user_id, record, kind))
        blobs.delete(path)
        freed, freed_bytes = freed + 1, freed_bytes + int(record["fileSize"])
    _forget_orphan_entries(items, user_id, set(wanted))
    return {"count": freed, "bytes": freed_bytes}


def discard_orphans(items: ItemStore, blobs: BlobStore, user_id: str) -> dict[str, int]:
    """Discard every attachment nothing refers to, and the files of purged memos' orphan lists
    that have no attachment record any more."""
    listing = inventory(items, user_id)
    orphans = [r["path"] for r in listing["attachments"] if not r["bound"]]
    result = discard(items, blobs, user_id, orphans) if orphans else {"count": 0, "bytes": 0}
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
