"""The memo operations of product §4, one function per operationId.

Each takes the Call (who, through which channel, with which services) and arguments already
validated against the operation's input schema, and returns the operation's `data` object or
raises a typed MesqError. Nothing here knows about HTTP or MCP.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .. import idempotency
from ..attachments import reads as attachment_reads
from ..attachments.paths import mcp_uri, read_url
from ..auth.users import get_user, user_partition
from ..context import Call
from ..errors import Conflict, MesqError, NotFound, RevisionConflict, ValidationError
from ..spec import load_spec
from ..store.ports import ConditionFailed, Item
from ..timestamps import normalize_timestamp, now_timestamp, parse_timestamp
from . import store
from .tags import expand_tag_paths, is_valid_tag, parse_tags, rename_tag

# A write touches the memo, the stats item, one counter per tag path that goes away and one per
# tag path that arrives, and (creates) an idempotency record: 2 * 48 + 3 <= 100, DynamoDB's
# transaction limit, even when every tag of a memo is replaced at once.
MAX_TAG_PATHS_PER_MEMO = 48
RENAME_ATTEMPTS = 3


def content_max_characters() -> int:
    """The content limit, read from the spec so the schema and the domain cannot disagree."""
    schemas = load_spec().document["components"]["schemas"]
    return int(schemas["MemoContent"]["maxLength"])


# -- shapes ------------------------------------------------------------------------------------

_PUBLIC_FIELDS = (
    "id", "content", "tags", "status", "pinned", "resources", "contentSource", "createdAt", "updatedAt",
    "revision",
)  # fmt: skip


def public_memo(item: Item) -> dict[str, Any]:
    return {name: item[name] for name in _PUBLIC_FIELDS}


def _page(offset: int, limit: int, returned: int, total: int, consumed: int | None = None) -> dict[str, Any]:
    """`consumed` = matches this page stepped over; more than `returned` when a match changed
    between the index read and the fetch (the index is eventually consistent on DynamoDB).

    Only a full page can have a successor: when the index ran out early (it may lag the counters
    that give `totalCount`), `hasMore` is false, so following nextOffset always ends."""
    step = returned if consumed is None else consumed
    page: dict[str, Any] = {
        "offset": offset,
        "limit": limit,
        "returned": returned,
        "totalCount": total,
        "hasMore": step == limit and offset + step < total,
    }
    if page["hasMore"]:
        page["nextOffset"] = offset + step
    return page


def _entry_id(entry: Item) -> str:
    return str(entry["sk"]).removeprefix(store.MEMO_PREFIX)


# -- filters -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoFilter:
    statuses: tuple[str, ...]
    tags: tuple[str, ...] = ()
    untagged: bool | None = None
    pinned: bool | None = None
    created_from: str | None = None
    created_to: str | None = None
    updated_after: str | None = None

    @property
    def is_plain(self) -> bool:
        """Only a status: counters answer totalCount and the index order is the answer order."""
        return not (
            self.tags
            or self.untagged is not None
            or self.pinned is not None
            or self.created_from
            or self.created_to
            or self.updated_after
        )

    @property
    def is_empty_range(self) -> bool:
        return bool(self.created_from and self.created_to and self.created_from >= self.created_to)

    def matches(self, item: Item) -> bool:
        """Works on index entries (projected attributes) as well as whole memos."""
        if item["status"] not in self.statuses:
            return False
        paths = item.get("tagPaths", [])
        if any(tag not in paths for tag in self.tags):
            return False
        if self.untagged is not None and self.untagged != (not paths):
            return False
        if self.pinned is not None and self.pinned != item["pinned"]:
            return False
        created = item["createdAt"]
        if self.created_from and created < self.created_from:
            return False
        if self.created_to and created >= self.created_to:
            return False
        return not (self.updated_after and item["updatedAt"] <= self.updated_after)


def _statuses(value: str | None) -> tuple[str, ...]:
    if value == "ALL":
        return ("NORMAL", "ARCHIVED")
    return (value or "NORMAL",)


def _time_arg(args: dict[str, Any], name: str) -> str | None:
    value = args.get(name)
    return normalize_timestamp(value, name) if value is not None else None


def _filter_from(args: dict[str, Any]) -> MemoFilter:
    created_from = _time_arg(args, "createdFrom")
    created_to = _time_arg(args, "createdTo")
    if created_from and created_to and created_from > created_to:
        raise ValidationError("createdFrom must not be after createdTo")
    return MemoFilter(
        statuses=_statuses(args.get("status")),
        tags=tuple(args.get("tags", ())),
        untagged=args.get("untagged"),
        pinned=args.get("pinned"),
        created_from=created_from,
        created_to=created_to,
        updated_after=_time_arg(args, "updatedAfter"),
    )


def _time_zone(args: dict[str, Any]) -> ZoneInfo | None:
    name = args.get("deviceTimeZone")
    if name is None:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(f"deviceTimeZone: {name!r} is not an IANA time zone name") from None


def _sort_key(entry: Item) -> tuple[bool, str, str]:
    return (bool(entry["pinned"]), entry["createdAt"], _entry_id(entry))


# -- context (sidebar) -------------------------------------------------------------------------


def _context(call: Call, zone: ZoneInfo | None) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id
    stats = store.read_stats(items, user_id)
    days: dict[str, int] = {}
    for entry in store.timeline_entries(items, user_id, "NORMAL"):
        moment = parse_timestamp(entry["createdAt"], "createdAt")
        day = (moment.astimezone(zone) if zone else moment).date().isoformat()
        days[day] = days.get(day, 0) + 1
    profile = get_user(items, user_id) or {}
    return {
        "filters": {
            "all": stats["normal"] + stats["archived"],
            "normal": stats["normal"],
            "archived": stats["archived"],
            "pinned": stats["pinned"],
            "untagged": stats["untagged"],
            "tags": store.read_tag_counts(items, user_id),
            "days": dict(sorted(days.items(), reverse=True)),
        },
        "contentMaxCharacters": content_max_characters(),
        "doubleClickEdit": bool(profile.get("settings", {}).get("doubleClickEdit", False)),
    }


# -- reads -------------------------------------------------------------------------------------


def _fetch_matching(call: Call, memo_filter: MemoFilter, entries: list[Item]) -> list[Item]:
    """Whole memos for index entries, in their order, re-checked against the filter: the index
    may lag the table for a moment, and a memo trashed meanwhile must not show as NORMAL."""
    wanted = [_entry_id(entry) for entry in entries]
    found = store.fetch_memos(call.services.items, call.principal.user_id, wanted)
    return [found[memo_id] for memo_id in wanted if memo_id in found and memo_filter.matches(found[memo_id])]


def _ordered_page(call: Call, memo_filter: MemoFilter, offset: int, limit: int) -> tuple[list[Item], int, int]:
    """The page's whole memos in list order, the number of matches and how many of them the
    page stepped over."""
    items, user_id = call.services.items, call.principal.user_id
    if memo_filter.is_empty_range:
        return [], 0, 0
    if memo_filter.is_plain:
        stats = store.read_stats(items, user_id)
        total = sum(stats[status.lower()] for status in memo_filter.statuses)
        entries = [
            entry
            for status in memo_filter.statuses
            for entry in store.timeline_entries(items, user_id, status, limit=offset + limit)
        ]
    else:
        entries = [
            entry
            for status in memo_filter.statuses
            for entry in store.timeline_entries(items, user_id, status)
            if memo_filter.matches(entry)
        ]
        total = len(entries)
    entries.sort(key=_sort_key, reverse=True)
    selected = entries[offset : offset + limit]
    return _fetch_matching(call, memo_filter, selected), total, len(selected)


def _list_result(call: Call, args: dict[str, Any], memos: list[Item], page: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "pinnedItems": [public_memo(m) for m in memos if m["pinned"]],
        "timelineItems": [public_memo(m) for m in memos if not m["pinned"]],
        "page": page,
    }
    if args.get("includeContext"):
        data.update(_context(call, _time_zone(args)))
    return data


def _list_arguments(args: dict[str, Any]) -> tuple[MemoFilter, int, int]:
    """Filter and page of list_memos / search_memos; the time zone is checked up front too."""
    _time_zone(args)
    return _filter_from(args), args.get("offset", 0), args.get("limit", 20)


def list_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memo_filter, offset, limit = _list_arguments(args)
    memos, total, consumed = _ordered_page(call, memo_filter, offset, limit)
    return _list_result(call, args, memos, _page(offset, limit, len(memos), total, consumed))


def search_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memo_filter, offset, limit = _list_arguments(args)
    needle = args["query"].casefold()
    matches: list[Item] = []
    if not memo_filter.is_empty_range:
        matches = [
            memo
            for memo in store.all_memos(call.services.items, call.principal.user_id)
            if memo_filter.matches(memo) and needle in memo["content"].casefold()
        ]
    matches.sort(key=_sort_key, reverse=True)
    page = matches[offset : offset + limit]
    return _list_result(call, args, page, _page(offset, limit, len(page), len(matches)))


def _require_memo(call: Call, memo_id: str) -> Item:
    memo = store.read_memo(call.services.items, call.principal.user_id, memo_id)
    if memo is None:
        raise NotFound(f"memo {memo_id!r} not found")
    return memo


def get_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    zone = _time_zone(args)
    data: dict[str, Any] = {"memo": public_memo(_require_memo(call, args["id"]))}
    if args.get("includeContext"):
        data.update(_context(call, zone))
    return data


def batch_get_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    ids = list(dict.fromkeys(args["ids"]))
    found = store.fetch_memos(call.services.items, call.principal.user_id, ids)
    return {
        "memos": [public_memo(found[i]) for i in ids if i in found],
        "missingIds": [i for i in ids if i not in found],
    }


def list_tags(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    counts = store.read_tag_counts(call.services.items, call.principal.user_id)
    roots: list[dict[str, Any]] = []
    nodes: dict[str, dict[str, Any]] = {}
    for path in sorted(counts):
        node = {"name": path.rsplit("/", 1)[-1], "path": path, "count": counts[path], "children": []}
        nodes[path] = node
        parent = path.rsplit("/", 1)[0] if "/" in path else None
        (nodes[parent]["children"] if parent in nodes else roots).append(node)
    return {"tags": roots}


def select_memos_for_insight(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    # memoIds excludes the scope fields: x-mesq-input-rules in openapi.yaml, checked before
    # any operation runs (and advertised in the tool's input schema).
    offset, limit = args.get("offset", 0), args.get("limit", 20)
    if "memoIds" in args:
        ids = list(dict.fromkeys(args["memoIds"]))
        found = store.fetch_memos(call.services.items, call.principal.user_id, ids)
        selected = [found[i] for i in ids if i in found and found[i]["status"] == "NORMAL"]
        data: dict[str, Any] = {
            "memos": [public_memo(m) for m in selected[offset : offset + limit]],
            "page": _page(offset, limit, len(selected[offset : offset + limit]), len(selected)),
            "scope": {"mode": "ids", "memoIds": ids},
            "missingIds": [i for i in ids if i not in found],
            "excludedIds": [i for i in ids if i in found and found[i]["status"] != "NORMAL"],
        }
        return data
    has_range = "from" in args or "to" in args
    mode = args.get("dateScopeMode", "range" if has_range else "all")
    if mode == "all" and has_range:
        raise ValidationError("dateScopeMode=all cannot be combined with from/to")
    if mode == "range" and not has_range:
        raise ValidationError("dateScopeMode=range needs from and/or to")
    memo_filter = _filter_from(
        {"tags": args.get("tags", []), "untagged": args.get("untagged"),
         "createdFrom": args.get("from"), "createdTo": args.get("to")}
    )  # fmt: skip
    entries: list[Item] = []
    if not memo_filter.is_empty_range:
        entries = [
            e
            for e in store.timeline_entries(call.services.items, call.principal.user_id, "NORMAL")
            if memo_filter.matches(e)
        ]
    entries.sort(key=lambda e: (e["createdAt"], _entry_id(e)), reverse=True)
    selected = entries[offset : offset + limit]
    memos = [public_memo(m) for m in _fetch_matching(call, memo_filter, selected)]
    scope: dict[str, Any] = {"mode": "scope", "dateScopeMode": mode}
    for name in ("tags", "untagged", "from", "to"):
        if name in args:
            scope[name] = args[name]
    page = _page(offset, limit, len(memos), len(entries), len(selected))
    return {"memos": memos, "page": page, "scope": scope}


# -- writes ------------------------------------------------------------------------------------


def _tags_of(content: str) -> tuple[list[str], list[str]]:
    tags = parse_tags(content)
    paths = expand_tag_paths(tags)
    if len(paths) > MAX_TAG_PATHS_PER_MEMO:
        raise ValidationError(
            f"content: at most {MAX_TAG_PATHS_PER_MEMO} distinct tags (counting parent tags) per memo"
        )
    return tags, paths


def _check_resources(call: Call, resources: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Attachments must be registered attachments of this user (an upload or a completed upload
    session), with the size they were registered with; url and mcp_uri are set by MeSQ."""
    checked = []
    for index, resource in enumerate(resources):
        where = f"resources[{index}].path"
        try:
            record = attachment_reads.registered(call, resource["path"])
        except MesqError as error:  # malformed, another user's, or not registered
            raise ValidationError(f"{where}: {error.message.removeprefix('path: ')}; upload it first") from None
        if record["fileSize"] != resource["fileSize"]:
            raise ValidationError(f"resources[{index}].fileSize: the attachment has {record['fileSize']} bytes")
        links = {"url": read_url(record["path"], call.services.settings.public_url), "mcp_uri": mcp_uri(record["path"])}
        checked.append({**resource, **links})
    return checked


def _conflict(call: Call, memo_id: str) -> RevisionConflict:
    current = _require_memo(call, memo_id)
    return RevisionConflict(
        f"memo {memo_id!r} is at revision {current['revision']}; merge your change into "
        "recoverData.memo and retry with its revision",
        recover_data={"memo": public_memo(current)},
    )


def create_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id
    key = args.get("idempotencyKey")
    request = {name: value for name, value in args.items() if name != "idempotencyKey"}
    request_fingerprint = idempotency.fingerprint(request)
    record_key = idempotency.record_key(user_partition(user_id), "create_memo", key) if key else None
    if record_key is not None:
        replayed = idempotency.replay(items, record_key, request_fingerprint)
        if replayed is not None:
            return replayed

    tags, paths = _tags_of(args["content"])
    now = now_timestamp()
    memo: Item = {
        "id": secrets.token_urlsafe(12),
        "content": args["content"],
        "tags": tags,
        "tagPaths": paths,
        "status": args.get("status", "NORMAL"),
        "pinned": args.get("pinned", False),
        "resources": _check_resources(call, args.get("resources", [])),
        "contentSource": args.get("contentSource", call.channel),
        "createdAt": _time_arg(args, "createdAt") or now,
        "updatedAt": now,
        "revision": 1,
    }
    data = {"memo": public_memo(memo)}
    extra = [idempotency.claim(record_key, request_fingerprint, data)] if record_key else []
    try:
        store.write_memo(items, user_id, None, memo, extra)
    except ConditionFailed:
        # Only the idempotency claim can fail here (ids are random): a concurrent twin won.
        if record_key is not None:
            replayed = idempotency.replay(items, record_key, request_fingerprint)
            if replayed is not None:
                return replayed
        raise
    return data


def _save(call: Call, before: Item, after: Item) -> dict[str, Any]:
    after["updatedAt"] = max(now_timestamp(), before["updatedAt"])
    after["revision"] = before["revision"] + 1
    try:
        store.write_memo(call.services.items, call.principal.user_id, before, after)
    except ConditionFailed as failure:
        if failure.index == 0:
            raise _conflict(call, before["id"]) from None
        raise
    return {"memo": public_memo(after)}


def _current_at(call: Call, memo_id: str, expected_revision: int) -> Item:
    memo = _require_memo(call, memo_id)
    if memo["revision"] != expected_revision:
        raise _conflict(call, memo_id)
    return memo


def update_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    changes = [name for name in ("content", "pinned", "status", "resources") if name in args]
    if not changes:
        raise ValidationError("give at least one of content, pinned, status or resources to change")
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] == "DELETED" and "status" in args:
        raise Conflict("this memo is in the trash; use restore_memo to bring it back first")
    after = dict(before)
    if "content" in args:
        after["content"] = args["content"]
        after["tags"], after["tagPaths"] = _tags_of(args["content"])
    for name in ("pinned", "status"):
        if name in args:
            after[name] = args[name]
    if "resources" in args:
        after["resources"] = _check_resources(call, args["resources"])
    return _save(call, before, after)


def delete_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] == "DELETED":
        return {"memo": public_memo(before)}  # already in the trash: nothing to do
    return _save(call, before, {**before, "status": "DELETED"})


def restore_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    before = _current_at(call, args["id"], args["expectedRevision"])
    if before["status"] != "DELETED":
        raise Conflict(f"memo {args['id']!r} is not in the trash (status {before['status']})")
    return _save(call, before, {**before, "status": "NORMAL"})


def _renamed(memo: Item, old: str, new: str) -> Item | None:
    """The memo with the tag renamed (None when its content does not change); ValidationError
    when the result would break a limit."""
    content = rename_tag(memo["content"], old, new)
    if content == memo["content"]:
        return None
    limit = content_max_characters()
    if len(content) > limit:
        raise ValidationError(f"renaming would make memo {memo['id']!r} longer than {limit} characters")
    try:
        tags, paths = _tags_of(content)
    except ValidationError as error:
        raise ValidationError(f"memo {memo['id']!r}: {error.message}") from None
    return dict(memo, content=content, tags=tags, tagPaths=paths)


def rename_memo_tag(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    old, new = args["from"], args["to"]
    for name, tag in (("from", old), ("to", new)):
        if not is_valid_tag(tag):
            raise ValidationError(f"{name}: {tag!r} is not a valid tag")
    if old == new:
        raise ValidationError("from and to are the same tag")
    if new.startswith(old + "/"):
        raise ValidationError("a tag cannot be renamed to one of its own children")
    items, user_id = call.services.items, call.principal.user_id
    candidates = [
        _entry_id(entry)
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
                raise ValidationError(f"{error.message}; {updated} memos were renamed before it") from None
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
    for fn in (
        list_memos, search_memos, get_memo, batch_get_memos, list_tags, select_memos_for_insight,
        create_memo, update_memo, delete_memo, restore_memo, rename_memo_tag,
    )
}  # fmt: skip

__all__ = ["OPERATIONS"]
