"""Attachment items in the single table (see docs/data-model.md):

- attachment:     pk `U#<user>`  sk `MEMOATT#<attachmentId>` / `TODOATT#<attachmentId>` (by namespace;
                  ids sort by creation time)
- usage counter:  pk `U#<user>`  sk `STATS#ATTACHMENTS` (`bytes`, `count`): the quota's source,
                  one for both namespaces
- upload session: pk `U#<user>`  sk `UPLOAD#<uploadId>`; gsi2 `UPLOADS` / `<expiresAt>#<user>#<uploadId>`
                  (the sweep finds expired sessions of every user with one index query);
                  `ttl` a day after expiry, so a missed sweep still ends with the item gone.

Registration is one transaction: the attachment (must be new), the usage counter with a
condition on the bytes it was read with (optimistic: a concurrent registration makes it retry,
so two uploads can never both fit into the last free bytes) and any extra op (the session delete).

Linking: a memo or todo write that starts naming an attachment adds `link_ops` to its own
transaction: each bumps the record's `links` counter, conditioned on the record existing. The
clean-up (jobs/attachment_cleanup.py) reads that counter BEFORE it checks that nothing names the
file and deletes the record only at the counter it read (`unregister`). So a link committed
before that check is seen by it, one committed between the check and the delete makes the delete
fail (the file is kept), and one committed after the delete fails itself (the record is gone):
no write can ever name a file whose record and bytes the clean-up removes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..kernel.errors import PayloadTooLarge, ServiceUnavailable
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, Item, ItemStore, Key, Put, Update, WriteOp
from ..store.paging import walk
from .paths import MEMO, NAMESPACES, Namespace, attachment_path, namespace_of

USAGE_SK = "STATS#ATTACHMENTS"
#: The record's count of writes that started naming it (see "Linking" above).
LINKS = "links"
SESSION_PREFIX = "UPLOAD#"
SESSION_INDEX_PARTITION = "UPLOADS"
SESSION_GRACE_SECONDS = 24 * 3600
REGISTER_ATTEMPTS = 5
_PUBLIC = ("id", "path", "displayName", "fileSize", "mimeType", "type", "createdAt", "source", "uploadId")


def attachment_key(user_id: str, attachment_id: str, kind: Namespace = MEMO) -> Key:
    return (user_partition(user_id), f"{kind.record_prefix}{attachment_id}")


def usage_key(user_id: str) -> Key:
    return (user_partition(user_id), USAGE_SK)


def session_key(user_id: str, upload_id: str) -> Key:
    return (user_partition(user_id), f"{SESSION_PREFIX}{upload_id}")


def read_attachment(items: ItemStore, user_id: str, attachment_id: str, kind: Namespace = MEMO) -> Item | None:
    return items.get(attachment_key(user_id, attachment_id, kind))


def read_usage(items: ItemStore, user_id: str) -> tuple[int, int]:
    """(bytes, count) of the user's registered attachments."""
    usage = items.get(usage_key(user_id)) or {}
    return int(usage.get("bytes", 0)), int(usage.get("count", 0))


def mebibytes(size: int) -> str:
    """A byte count as people read it in a message: `101 MiB`, `100.5 MiB`, and under a MiB
    `900 KiB`, `0.9 KiB` (the same in both languages; the exact bytes are said beside it: a
    small quota read "0.1 MiB (900 bytes)"). Rounded up to the tenth: a file a byte over the
    100 MiB limit reads 100.1 MiB, never the limit itself."""
    unit, name = (1024**2, "MiB") if size >= 1024**2 else (1024, "KiB")
    tenths = -(-size * 10 // unit)  # ceiling division, in whole numbers
    return f"{tenths / 10:.1f}".removesuffix(".0") + " " + name


def check_quota(used: int, size: int, quota: int) -> None:
    """PayloadTooLarge when `size` more bytes do not fit: said in MiB with the exact bytes (people
    do not read "1073741000 of 1073741824"), and where room is made (only a browser can discard)."""
    if used + size > quota:
        raise PayloadTooLarge(
            "the attachment quota is full: %(used)s (%(used_bytes)s bytes) of %(quota)s (%(quota_bytes)s bytes) are "
            "used and this file needs %(size)s (%(size_bytes)s bytes); nothing was stored. Discard unattached files "
            "in Settings → Attachments, or choose a smaller file",
            used=mebibytes(used),
            used_bytes=used,
            quota=mebibytes(quota),
            quota_bytes=quota,
            size=mebibytes(size),
            size_bytes=size,
        )


def register(
    items: ItemStore,
    user_id: str,
    record: Item,
    quota: int,
    extra: Sequence[WriteOp] = (),
    kind: Namespace = MEMO,
) -> None:
    """Store the attachment record and count it against the quota, all or nothing.

    PayloadTooLarge when it does not fit; ConditionFailed (index 0 = the attachment exists,
    index >= 2 = an extra op's condition) is passed on."""
    pk, sk = attachment_key(user_id, record["id"], kind)
    stored = {**{name: record[name] for name in _PUBLIC if name in record}, "pk": pk, "sk": sk}
    for _attempt in range(REGISTER_ATTEMPTS):
        usage = items.get(usage_key(user_id))
        used = int(usage.get("bytes", 0)) if usage else 0
        check_quota(used, record["fileSize"], quota)
        counted = Condition(equals={"bytes": used}) if usage else Condition(exists=False)
        ops: list[WriteOp] = [
            Put(stored, Condition(exists=False)),
            Update(key=usage_key(user_id), add={"bytes": record["fileSize"], "count": 1}, condition=counted),
            *extra,
        ]
        try:
            items.transact(ops)
            return
        except ConditionFailed as failure:
            if failure.index == 1:
                continue  # another registration changed the usage meanwhile: re-check the quota
            raise
    raise ServiceUnavailable("too many concurrent uploads on this account; retry in a moment")


def list_attachments(items: ItemStore, user_id: str, limit: int, kind: Namespace = MEMO) -> Iterator[Item]:
    """The user's attachments of one namespace, newest first, reading no more than `limit` items."""
    return walk(items, user_partition(user_id), prefix=kind.record_prefix, descending=True, limit=limit)


def count_attachments(items: ItemStore, user_id: str, kind: Namespace) -> int:
    """How many attachments of one namespace the user has (their keys read, nothing else)."""
    return sum(1 for _ in walk(items, user_partition(user_id), prefix=kind.record_prefix, keys_only=True))


def unregister(user_id: str, record: Item, kind: Namespace) -> list[WriteOp]:
    """The transaction ops that forget a registered attachment and give its bytes back to the
    quota; the record delete fails if it was discarded meanwhile (so bytes are freed once), and,
    when `record` carries its `links` count (`counted_links`), if a write linked it since."""
    unchanged = Condition(equals={LINKS: record[LINKS]}) if LINKS in record else Condition(exists=True)
    return [
        Delete(attachment_key(user_id, record["id"], kind), unchanged),
        Update(key=usage_key(user_id), add={"bytes": -int(record["fileSize"]), "count": -1}),
    ]


def counted_links(items: ItemStore, user_id: str, attachment_id: str, kind: Namespace) -> Item | None:
    """The record with its `links` count (0 stored on a record never linked, so the clean-up's
    delete can be conditioned on it), or None when there is no such attachment."""
    update = Update(key=attachment_key(user_id, attachment_id, kind), add={LINKS: 0}, condition=Condition(exists=True))
    try:
        return items.update(update)
    except ConditionFailed:
        return None


def link_ops(user_id: str, paths: Iterable[str]) -> list[WriteOp]:
    """For a write's own transaction: one op per attachment path it starts naming, which fails
    (ConditionFailed) when that attachment was discarded meanwhile. Only paths the write's records
    did not name before need one: a file already named is never discarded."""
    ops: list[WriteOp] = []
    for path in dict.fromkeys(paths):
        kind = namespace_of(path)
        if kind is None:  # the registration check refuses such a path before any write
            raise ValueError(f"not an attachment path: {quoted(path)}")
        key = attachment_key(user_id, path.rsplit("/", 1)[1], kind)
        ops.append(Update(key=key, add={LINKS: 1}, condition=Condition(exists=True)))
    return ops


def linked_path(user_id: str, op: WriteOp | None) -> str | None:
    """The attachment path a `link_ops` op links, None for any other op."""
    if not isinstance(op, Update) or set(op.add) != {LINKS} or op.key[0] != user_partition(user_id):
        return None
    for kind in NAMESPACES:
        if op.key[1].startswith(kind.record_prefix):
            return attachment_path(user_id, op.key[1].removeprefix(kind.record_prefix), kind)
    return None


def unlinked(
    items: ItemStore, user_id: str, links: Sequence[WriteOp], failure: ConditionFailed, first: int = 0
) -> str | None:
    """The attachment path whose link failed a transaction in which `links` sat from position
    `first` on (its record is gone: discarded between the write's registration check and its
    commit); None when another op's condition failed."""
    if failure.index is not None:
        position = failure.index - first
        return linked_path(user_id, links[position]) if 0 <= position < len(links) else None
    for op in links:  # a store that did not say which op failed: the first link whose record is gone
        path = linked_path(user_id, op)
        if path is not None and isinstance(op, Update) and items.get(op.key) is None:
            return path
    return None


# -- upload sessions ---------------------------------------------------------------------------


def session_item(user_id: str, session: Item, expires_epoch: int) -> Item:
    pk, sk = session_key(user_id, session["uploadId"])
    return {
        **session,
        "pk": pk,
        "sk": sk,
        "userId": user_id,
        "gsi2pk": SESSION_INDEX_PARTITION,
        "gsi2sk": f"{session['expiresAt']}#{user_id}#{session['uploadId']}",
        "ttl": expires_epoch + SESSION_GRACE_SECONDS,
    }


def put_session(items: ItemStore, item: Item) -> None:
    items.put(item, Condition(exists=False))


def read_session(items: ItemStore, user_id: str, upload_id: str) -> Item | None:
    return items.get(session_key(user_id, upload_id))


def delete_session(items: ItemStore, user_id: str, upload_id: str) -> None:
    items.delete(session_key(user_id, upload_id))


def consume_session(user_id: str, upload_id: str) -> Delete:
    """The transaction op that ends a session: fails if it was completed or cancelled meanwhile."""
    return Delete(session_key(user_id, upload_id), Condition(exists=True))


def session_of(entry: Item) -> tuple[str, str] | None:
    """(user id, upload id) of an upload-session index entry that is one (its key is the
    session key of the user and upload it names), else None."""
    user_id, upload_id = entry.get("userId"), entry.get("uploadId")
    if not isinstance(user_id, str) or not isinstance(upload_id, str) or not user_id or not upload_id:
        return None
    if (entry.get("pk"), entry.get("sk")) != session_key(user_id, upload_id):
        return None
    return user_id, upload_id
