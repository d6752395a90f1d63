"""The memo read operations (docs/contract.md §4): list, search, get, batch get, the tag tree,
the insight selection and the listing of attachments (of a memo or of the account), one function
per operationId. Plain functions of (Call, validated arguments); nothing here knows HTTP or MCP.

Lists read the sparse GSI1 (`store.timeline_entries`: only the projected attributes), filter and
order its entries, and fetch the whole memos of the page by key.
"""

from __future__ import annotations

import json
from datetime import UTC, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from ..attachments import store as attachment_store
from ..attachments.paths import TODO
from ..attachments.uploads import public_resource
from ..auth.user_zone import configured_zone
from ..auth.users import get_user
from ..kernel.context import Call
from ..kernel.errors import NotFound, ResponseTooLarge, ValidationError
from ..kernel.messages import quoted
from ..kernel.pages import behind, full_and_behind, page
from ..kernel.ports.storage import Item
from ..kernel.spec import load_spec
from ..kernel.timestamps import in_zone, parse_timestamp, parse_zone
from ..search.literal_kind import fold
from ..search.literal_kind import needle as literal_needle
from . import store
from .filters import MemoFilter, entry_id, filter_from, literal_match, literal_matcher, sort_key
from .literal import LITERAL


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


#: A list page stops before its memos pass this many bytes of JSON (UTF-8), the first memo
#: always kept: 100 memos at the content limit are 5 to 20 MB, and Lambda answers at most 6 MB
#: (past it no answer at all: API Gateway's 500). An MCP answer carries the data twice (the
#: structured content and its text, whose quotes are escaped again), so three times this fits.
PAGE_JSON_BYTES = 3 * 512 * 1024


def _json_bytes(memo: Item) -> int:
    return len(json.dumps(public_memo(memo), ensure_ascii=False, separators=(",", ":")).encode())


def _within_budget(memos: list[Item], ids: list[str]) -> tuple[list[Item], int | None]:
    """The page's first memos that fit PAGE_JSON_BYTES, and, when some were left out, how many
    of `ids` (the entries the page read, in order) precede the first one left out: where the next
    page starts. None: every memo fits."""
    used = 0
    for kept, memo in enumerate(memos):
        used += _json_bytes(memo)
        if kept and used > PAGE_JSON_BYTES:
            return memos[:kept], ids.index(memo["id"])
    return memos, None


def _page(
    offset: int, limit: int, returned: int, total: int, consumed: int | None = None, *, cut: bool = False
) -> dict[str, Any]:
    """`consumed` = matches this page stepped over; more than `returned` when a match changed
    between the index read and the fetch (the index is eventually consistent on DynamoDB).
    Only a full page can have a successor (`pages.full_and_behind`), or one `cut` at
    PAGE_JSON_BYTES (its step is short of the limit, never nothing)."""
    return page(offset, limit, returned, total, has_more=behind if cut else full_and_behind, step=consumed)


def _time_zone(args: dict[str, Any]) -> ZoneInfo | None:
    """The caller's `deviceTimeZone` (checked), None when not given."""
    name = args.get("deviceTimeZone")
    return None if name is None else parse_zone(name, "deviceTimeZone")


# -- context (sidebar) -------------------------------------------------------------------------


def _day_zone(call: Call, given: ZoneInfo | None) -> tzinfo:
    """The zone the per-day counts are in: the caller's `deviceTimeZone`, else the user's own
    (auth/user_zone.py: the one the todo views' "today" uses too), else UTC."""
    if given is not None:
        return given
    configured = configured_zone(call.services.items, call.principal.user_id)
    return UTC if configured is None else ZoneInfo(configured)


def _context(call: Call, given_zone: ZoneInfo | None) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id
    stats = store.read_stats(items, user_id)
    zone = _day_zone(call, given_zone)
    days: dict[str, int] = {}
    for entry in store.timeline_entries(items, user_id, "NORMAL"):
        day = in_zone(parse_timestamp(entry["createdAt"], "createdAt"), zone).date().isoformat()
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
    wanted = [entry_id(entry) for entry in entries]
    found = store.fetch_memos(call.services.items, call.principal.user_id, wanted)
    return [found[memo_id] for memo_id in wanted if memo_id in found and memo_filter.matches(found[memo_id])]


def _ordered_page(
    call: Call, memo_filter: MemoFilter, offset: int, limit: int
) -> tuple[list[Item], list[str], int, int]:
    """The page's whole memos in list order, the ids of the entries it read, the number of
    matches and how many of them the page stepped over."""
    items, user_id = call.services.items, call.principal.user_id
    if memo_filter.is_empty_range:
        return [], [], 0, 0
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
    entries.sort(key=sort_key, reverse=True)
    selected = entries[offset : offset + limit]
    return _fetch_matching(call, memo_filter, selected), [entry_id(e) for e in selected], total, len(selected)


def _budgeted_page(
    offset: int, limit: int, memos: list[Item], ids: list[str], total: int, consumed: int | None = None
) -> tuple[list[Item], dict[str, Any]]:
    """`memos` (read from the entries `ids`, in order) cut to PAGE_JSON_BYTES, and their page."""
    kept, step = _within_budget(memos, ids)
    if step is None:
        return memos, _page(offset, limit, len(memos), total, consumed)
    return kept, _page(offset, limit, len(kept), total, step, cut=True)


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
    return filter_from(args), args.get("offset", 0), args.get("limit", 20)


def list_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memo_filter, offset, limit = _list_arguments(args)
    memos, ids, total, consumed = _ordered_page(call, memo_filter, offset, limit)
    return _list_result(call, args, *_budgeted_page(offset, limit, memos, ids, total, consumed))


def _literal_matches(call: Call, memo_filter: MemoFilter, needle: str) -> list[Item] | None:
    """The matches' fields (`literal.MEMO_FIELDS` of each), in list order, through the
    literal index; None when it cannot answer exactly (none, out of step, nothing keeps it in step
    with the writes): the caller scans."""
    services, user_id = call.services, call.principal.user_id
    if not services.search.follows_writes:
        return None
    from ..search.literal_store import current  # numpy: loaded with the first literal search

    stats = store.read_stats(services.items, user_id)
    index = current(services, user_id, stats["normal"] + stats["archived"] + stats["deleted"], LITERAL)
    if index is None:
        return None
    rows = index.matching(needle, literal_matcher(memo_filter, needle))
    return [row.fields for row in rows]


def search_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    memo_filter, offset, limit = _list_arguments(args)
    needle = literal_needle(args["query"])
    if memo_filter.is_empty_range:
        return _list_result(call, args, [], _page(offset, limit, 0, 0))
    indexed = _literal_matches(call, memo_filter, needle)  # already in list order
    if indexed is None:
        matches = [
            memo
            for memo in store.all_memos(call.services.items, call.principal.user_id)
            if literal_match(memo_filter, needle, memo, fold(memo["content"]))
        ]
        matches.sort(key=sort_key, reverse=True)
        selected = matches[offset : offset + limit]
        ids = [memo["id"] for memo in selected]
        return _list_result(call, args, *_budgeted_page(offset, limit, selected, ids, len(matches)))
    # The page's whole memos, checked again as they are now (on DynamoDB the index follows the
    # stream: a memo edited a moment ago is dropped from the page rather than shown unmatched).
    selected = indexed[offset : offset + limit]
    found = store.fetch_memos(call.services.items, call.principal.user_id, [entry_id(e) for e in selected])
    memos = [
        memo
        for memo in (found.get(entry_id(entry)) for entry in selected)
        if memo is not None and literal_match(memo_filter, needle, memo, fold(memo["content"]))
    ]
    ids = [entry_id(entry) for entry in selected]
    return _list_result(call, args, *_budgeted_page(offset, limit, memos, ids, len(indexed), len(selected)))


def require_memo(call: Call, memo_id: str) -> Item:
    memo = store.read_memo(call.services.items, call.principal.user_id, memo_id)
    if memo is None:
        raise NotFound("memo %(memo_id)s not found", memo_id=quoted(memo_id))
    return memo


def get_memo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    zone = _time_zone(args)
    data: dict[str, Any] = {"memo": public_memo(require_memo(call, args["id"]))}
    if args.get("includeContext"):
        data.update(_context(call, zone))
    return data


def batch_get_memos(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """A batch whose memos pass PAGE_JSON_BYTES is refused, naming how many of its first ids fit:
    it has no page to continue on, and a cut answer would say nothing of the ids left out."""
    ids = list(dict.fromkeys(args["ids"]))
    found = store.fetch_memos(call.services.items, call.principal.user_id, ids)
    memos = [found[i] for i in ids if i in found]
    _, step = _within_budget(memos, ids)
    if step is not None:
        raise ResponseTooLarge(
            "these %(count)s memos are over the %(budget)s-byte answer budget; ask for fewer ids at a time "
            "(the first %(fit)s fit)",
            count=len(memos),
            budget=PAGE_JSON_BYTES,
            fit=step,
            details={"hints": {"ids": ids[:step]}},
        )
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
    # memoIds excludes the scope fields: x-mesq-input-rules in the memo fragment, checked before
    # any operation runs (and advertised in the tool's input schema).
    offset, limit = args.get("offset", 0), args.get("limit", 20)
    if "memoIds" in args:
        ids = list(dict.fromkeys(args["memoIds"]))
        found = store.fetch_memos(call.services.items, call.principal.user_id, ids)
        selected = [found[i] for i in ids if i in found and found[i]["status"] == "NORMAL"]
        shown = selected[offset : offset + limit]
        kept, paged = _budgeted_page(offset, limit, shown, [memo["id"] for memo in shown], len(selected))
        data: dict[str, Any] = {
            "memos": [public_memo(m) for m in kept],
            "page": paged,
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
    memo_filter = filter_from(
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
    entries.sort(key=lambda e: (e["createdAt"], entry_id(e)), reverse=True)
    selected = entries[offset : offset + limit]
    fetched = _fetch_matching(call, memo_filter, selected)
    kept, page = _budgeted_page(offset, limit, fetched, [entry_id(e) for e in selected], len(entries), len(selected))
    scope: dict[str, Any] = {"mode": "scope", "dateScopeMode": mode}
    for name in ("tags", "untagged", "from", "to"):
        if name in args:
            scope[name] = args[name]
    return {"memos": [public_memo(m) for m in kept], "page": page, "scope": scope}


def list_memo_resources(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """The attachments of one memo (`memoId`, in the memo's order) or of the account (newest
    first). Here and not in attachments/: a memo's attachments are memo data, and attachments
    never reads memos."""
    offset, limit = args.get("offset", 0), args.get("limit", 20)
    items, user_id = call.services.items, call.principal.user_id
    if "memoId" in args:
        attached = require_memo(call, args["memoId"])["resources"]
        selected = attached[offset : offset + limit]
        resources = [public_resource(call, r) for r in selected]
        paged = page(offset, limit, len(resources), len(attached), has_more=full_and_behind)
        return {"resources": resources, "page": paged}
    walked = list(attachment_store.list_attachments(items, user_id, offset + limit))
    if len(walked) < offset + limit:  # the listing reached its end: that is the total
        total = len(walked)
    else:
        # The usage counter counts memo and todo attachments together (one quota): take the
        # todo ones away (counted by key; an account has few) so the total is the memos' own.
        _bytes, both = attachment_store.read_usage(items, user_id)
        total = max(both - attachment_store.count_attachments(items, user_id, TODO), len(walked))
    records = walked[offset:]
    resources = [public_resource(call, r) for r in records]
    paged = page(offset, limit, len(resources), total, has_more=full_and_behind)
    return {"resources": resources, "page": paged}


OPERATIONS = {
    fn.__name__: fn
    for fn in (
        list_memos, search_memos, get_memo, batch_get_memos, list_tags, select_memos_for_insight,
        list_memo_resources,
    )
}  # fmt: skip

__all__ = ["OPERATIONS", "content_max_characters", "public_memo", "require_memo"]
