"""The memo write operations (docs/contract.md §4): create, update, trash, restore and the tag
rename, one function per operationId.

Every write of a memo is one store transaction (`changes.write_recorded`: the memo with its
revision condition, the counter deltas and its change record); a create adds its idempotency
claim (`idempotency.create_once`).
A stale revision is REVISION_CONFLICT with the current memo as recoverData.
"""

from __future__ import annotations

import secrets
from typing import Any

from ..attachments.reads import checked_resources
from ..kernel.context import Call
from ..kernel.errors import Conflict, RevisionConflict, ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import ConditionFailed, Item
from ..kernel.tags import MAX_TAG_LENGTH, expand_tag_paths, is_valid_tag, overlong_tags, parse_tags, rename_tag
from ..kernel.timestamps import now_timestamp
from ..store import idempotency
from . import store
from .changes import write_recorded
from .filters import entry_id, time_arg
from .reads import content_max_characters, public_memo, require_memo

# A write touches the memo, the stats item, one counter per tag path that goes away and one per
# tag path that arrives, its change record and (creates) an idempotency record: 2 * 48 + 4 <= 100, DynamoDB's
# transaction limit, even when every tag of a memo is replaced at once.
MAX_TAG_PATHS_PER_MEMO = 48
RENAME_ATTEMPTS = 3


# How much of an over-long tag an error shows.
OVERLONG_TAG_SHOWN = 24


def _tags_of(content: str, before: str = "") -> tuple[list[str], list[str]]:
    """The tags of `content` and their paths. VALIDATION_ERROR past the per-memo cap, or for a
    `#word` too long to be a tag that `before` (the content it replaces) did not hold already: the
    writer would otherwise never learn that it is no tag. One held already stays (a box ticked in
    a memo written before the limit was told must still save)."""
    overlong = overlong_tags(content)
    if overlong:
        held = set(overlong_tags(before)) if before else set()
        added = [name for name in overlong if name not in held]
        if added:
            raise ValidationError(
                "content: %(tag)s is longer than %(max_tag_length)s characters, the most a tag can have; shorten "
                "it, or end it with a space or punctuation",
                tag=quoted("#" + added[0], limit=OVERLONG_TAG_SHOWN),
                max_tag_length=MAX_TAG_LENGTH,
            )
    tags = parse_tags(content)
    paths = expand_tag_paths(tags)
    if len(paths) > MAX_TAG_PATHS_PER_MEMO:
        raise ValidationError(
            "content: at most %(max_tag_paths_per_memo)s distinct tags (counting parent tags) per memo",
            max_tag_paths_per_memo=MAX_TAG_PATHS_PER_MEMO,
        )
    return tags, paths


def _conflict(call: Call, memo_id: str) -> RevisionConflict:
    current = require_memo(call, memo_id)
    return RevisionConflict(
        "memo %(memo_id)s is at revision %(revision)s; merge your change into recoverData.memo and retry with its "
        "revision",
        memo_id=quoted(memo_id),
        revision=current["revision"],
        recover_data={"memo": public_memo(current)},
    )


def create_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id

    def create(claim: idempotency.Claim) -> dict[str, Any]:
        tags, paths = _tags_of(args["content"])
        now = now_timestamp()
        memo: Item = {
            "id": secrets.token_urlsafe(12),
            "content": args["content"],
            "tags": tags,
            "tagPaths": paths,
            "status": args.get("status", "NORMAL"),
            "pinned": args.get("pinned", False),
            "resources": checked_resources(call, args.get("resources", [])),
            "contentSource": args.get("contentSource", call.channel),
            "createdAt": time_arg(args, "createdAt") or now,
            "updatedAt": now,
            "revision": 1,
        }
        data = {"memo": public_memo(memo)}
        # Only the idempotency claim can fail here (ids are random): create_once answers a twin's.
        write_recorded(call, None, memo, claim.ops(data))
        return data

    return idempotency.create_once(items, user_partition(user_id), "create_memo", args, create)


def _save(call: Call, before: Item, after: Item) -> dict[str, Any]:
    after["updatedAt"] = max(now_timestamp(), before["updatedAt"])
    after["revision"] = before["revision"] + 1
    try:
        write_recorded(call, before, after)
    except ConditionFailed as failure:
        if failure.index == 0:
            raise _conflict(call, before["id"]) from None
        raise
    return {"memo": public_memo(after)}


def _current_at(call: Call, memo_id: str, expected_revision: int) -> Item:
    memo = require_memo(call, memo_id)
    if memo["revision"] != expected_revision:
        raise _conflict(call, memo_id)
    return memo


def update_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """A person's or an agent's edit: a memo in the trash is not written (CONFLICT, contract §3),
    so an edit never lands on a memo nobody sees; it is restored first."""
    _require_changes(args)
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] == "DELETED":
        if "status" in args:
            raise Conflict("this memo is in the trash; use restore_memo to bring it back first")
        raise Conflict(
            "memo %(id)s is in the trash; bring it back with restore_memo first, then change it", id=quoted(args["id"])
        )
    return _changed(call, before, args)


def put_back_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """update_memo for undo_changes (memos/revert.py): the fields an earlier change set, put back
    also on a memo now in the trash. An undo returns the memo to what it was and leaves it where
    it is (an edit recorded in the trash before edits there were refused stays undoable); its
    status still leaves the trash only through restore_memo."""
    _require_changes(args)
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] == "DELETED" and "status" in args:
        raise Conflict("this memo is in the trash; use restore_memo to bring it back first")
    return _changed(call, before, args)


def _require_changes(args: dict[str, Any]) -> None:
    if not any(name in args for name in ("content", "pinned", "status", "resources")):
        raise ValidationError("give at least one of content, pinned, status or resources to change")


def _changed(call: Call, before: Item, args: dict[str, Any]) -> dict[str, Any]:
    after = dict(before)
    if "content" in args:
        after["content"] = args["content"]
        after["tags"], after["tagPaths"] = _tags_of(args["content"], before["content"])
    for name in ("pinned", "status"):
        if name in args:
            after[name] = args[name]
    if "resources" in args:
        after["resources"] = checked_resources(call, args["resources"])
    return _save(call, before, after)


def delete_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] == "DELETED":
        return {"memo": public_memo(before)}  # already in the trash: nothing to do
    return _save(call, before, {**before, "status": "DELETED"})


def restore_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] != "DELETED":
        raise Conflict(
            "memo %(id)s is not in the trash (status %(status)s)", id=quoted(args["id"]), status=before["status"]
        )
    return _save(call, before, {**before, "status": "NORMAL"})


def _renamed(memo: Item, old: str, new: str) -> Item | None:
    """The memo with the tag renamed (None when its content does not change); ValidationError
    when the result would break a limit."""
    content = rename_tag(memo["content"], old, new)
    if content == memo["content"]:
        return None
    limit = content_max_characters()
    if len(content) > limit:
        raise ValidationError(
            "renaming would make memo %(id)s longer than %(limit)s characters", id=quoted(memo["id"]), limit=limit
        )
    try:
        tags, paths = _tags_of(content, memo["content"])
    except ValidationError as error:
        raise ValidationError("memo %(id)s: %(problem)s", id=quoted(memo["id"]), problem=error.text) from None
    return dict(memo, content=content, tags=tags, tagPaths=paths)


def rename_memo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    old, new = args["from"], args["to"]
    for name, tag in (("from", old), ("to", new)):
        if not is_valid_tag(tag):
            raise ValidationError("%(name)s: %(tag)s is not a valid tag", name=name, tag=quoted(tag))
    if old == new:
        raise ValidationError("from and to are the same tag")
    if new.startswith(old + "/"):
        raise ValidationError("a tag cannot be renamed to one of its own children")
    items, user_id = call.services.items, call.principal.user_id
    candidates = [
        entry_id(entry)
        for status in store.STATUSES
        for entry in store.timeline_entries(items, user_id, status)
        if old in entry.get("tagPaths", [])
    ]
    # Check every memo first: a rename that cannot complete changes nothing (barring an edit
    # between this check and the write, which the error below then reports).
    for memo in store.fetch_memos(items, user_id, candidates).values():
        _renamed(memo, old, new)
    updated = 0
    skipped: list[str] = []
    for memo_id in candidates:
        for _attempt in range(RENAME_ATTEMPTS):
            before = store.read_memo(items, user_id, memo_id)
            try:
                after = _renamed(before, old, new) if before is not None else None
            except ValidationError as error:
                raise ValidationError(
                    "%(problem)s; %(updated)s memos were renamed before it", problem=error.text, updated=updated
                ) from None
            if before is None or after is None:
                break
            try:
                _save(call, before, after)
            except RevisionConflict:
                continue  # edited meanwhile: re-read and rename the new content
            updated += 1
            break
        else:
            skipped.append(memo_id)  # edited on every attempt: left for the caller to retry
    data: dict[str, Any] = {"from": old, "to": new, "updatedMemos": updated}
    if skipped:
        data["skippedMemoIds"] = skipped
    return data


OPERATIONS = {
    fn.__name__: fn
    for fn in (create_memo, update_memo, delete_memo, restore_memo, rename_memo_tag)
}  # fmt: skip

__all__ = ["MAX_TAG_PATHS_PER_MEMO", "OPERATIONS", "put_back_memo"]
