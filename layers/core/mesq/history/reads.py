"""list_changes: a user's change records, newest first, filtered, limited to the kinds the
caller's scopes can read (a memo-only token never sees a todo change).

A change record has no index entry (records.py); each filter that narrows what is read has its
own way there (history/timeline.py): `recordId` walks the record's chain, `runId` and `sessionId`
read the user's timeline within the run's or session's window (their ids start with the
microsecond they began, the session log says when they last wrote), `actor` within the actor's
sessions' windows; else the user's `CHANGE#` range bounded by `since` / `until`. Records written
before carry index keys (GSI2 by record, GSI1 by run, GSI4 by session, GSI3 by actor): a record's
and an actor's reads merge what those hold, and a run or session id without a time prefix (made
before) is read through its index. `actor` reads the whole range while a user's older records
are still being given their GSI3 keys (`actor_index.py`). The other filters apply to what those
read. `actor: "me"` is the calling credential. A `runId` or `sessionId` with no change at all is
NOT_FOUND, naming where the ids come from (never an empty success for a mistyped id).
`groupBy: "session"` adds `sessions`: the page's changes grouped by session, newest first.
The cursor is the id of the last change returned: the next page starts below it, so writes made
meanwhile (newer ids) never shift a page. A page reads at most `SCAN_LIMIT` records; when
filters leave it short, `nextCursor` lets the caller go on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import Forbidden, NotFound, ValidationError
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item, ItemStore, Key
from ..kernel.timestamps import parse_timestamp
from .actor_index import ensure_indexed
from .records import (
    CHANGE_PREFIX,
    FAMILY,
    KINDS,
    actor_partition,
    bare_credential,
    expanded,
    public_change,
    run_partition,
    session_partition,
    started,
    time_prefix,
)
from .sessions import pointer_key
from .timeline import (
    CHUNK,
    actor_changes,
    actor_windows,
    between,
    merged,
    newest_first,
    record_changes,
    window_changes,
)

DEFAULT_LIMIT = 20
#: Records one page may read before it answers (a narrow filter over a long history).
SCAN_LIMIT = 500
#: A page stops before its changes pass this many bytes of JSON (UTF-8), the first always kept:
#: a change to a memo at the content limit answers 300 KB of before and after (stored packed),
#: so 100 of them are 30 MB, and a Lambda answer is at most 6 MB (past it no answer at all, API
#: Gateway's 500); an MCP answer carries the data twice, so three times this fits.
PAGE_JSON_BYTES = 3 * 512 * 1024


def readable_kinds(call: Call, action: str = "read") -> set[str]:
    scopes = call.principal.scopes
    return {kind for kind in KINDS if f"{FAMILY[kind]}:{action}" in scopes}


def _bounds(args: dict[str, Any]) -> tuple[str | None, str | None]:
    """Change-id bounds [low, high) from since / until (inclusive / exclusive) and the cursor."""
    low = time_prefix(parse_timestamp(args["since"], "since")) if "since" in args else None
    high = time_prefix(parse_timestamp(args["until"], "until")) if "until" in args else None
    cursor = args.get("cursor")
    if cursor is not None:
        if not isinstance(cursor, str) or not cursor[:17].isdigit():
            raise ValidationError("cursor: not a cursor of list_changes; pass nextCursor unchanged")
        high = cursor if high is None else min(high, cursor)
    return low, high


ME = "me"
#: Where a runId or sessionId comes from, for the error that names the fix.
_WHERE_IDS = Text(
    'runId and sessionId come from a write result, get_context (your current sessionId) or list_changes {actor: "me"}'
)  # a Text: said in the reader's language inside the error that names it


def with_me(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with `actor: "me"` read as the calling credential's id."""
    if args.get("actor") == ME:
        return {**args, "actor": call.principal.credential_id}
    return args


def _index_of(user_id: str, args: dict[str, Any]) -> tuple[str, str, str] | None:
    """(argument, index, partition) of the run or session `args` names, if any: the index
    answers an id made before ids carried their start (`records.started`)."""
    if "runId" in args:
        return "runId", "gsi1", run_partition(user_id, args["runId"])
    if "sessionId" in args:
        return "sessionId", "gsi4", session_partition(user_id, args["sessionId"])
    return None


def _window_of(args: dict[str, Any]) -> tuple[str, str] | None:
    """(argument, id) of the run or session `args` names when its id carries its start."""
    for name in ("runId", "sessionId"):
        if name in args and started(str(args[name])) is not None:
            return name, str(args[name])
    return None


def kept_words(days: int) -> Text:
    """How long change records are kept (MESQ_HISTORY_DAYS), a parameter of the errors that say
    why a change may be missing: "changes are kept 1 day", never "1 days". A `Text` has no plural
    of its own, so the count picks the template, as `application/ratelimit.wait_words` does;
    Chinese says both the same way (改动只保留 N 天)."""
    if days == 1:
        return Text("changes are kept 1 day")
    return Text("changes are kept %(days)s days", days=days)


def require_known(call: Call, args: dict[str, Any]) -> None:
    """NOT_FOUND for a runId or sessionId no change record carries (a typo, another user's, or
    one whose changes have expired), naming where such ids come from."""
    items, user_id = call.services.items, call.principal.user_id
    for name in ("runId", "sessionId"):
        named = _index_of(user_id, {name: args[name]}) if name in args else None
        if named is None:
            continue
        if started(str(args[name])) is not None:
            known = next(window_changes(items, user_id, name, str(args[name]), None, None), None) is not None
        else:
            page = items.query(named[2], index=named[1], limit=1, keys_only=True)
            known = bool(page.items) or page.next_key is not None
        if not known:
            raise NotFound(
                "%(name)s: no change has %(name)s %(value)s (%(kept)s, and a memo "
                "deleted for good takes its history with it); %(where)s",
                name=name,
                value=quoted(args[name]),
                kept=kept_words(call.services.deployment.history_days),
                where=_WHERE_IDS,
            )


def require_known_actor(call: Call, args: dict[str, Any]) -> None:
    """NOT_FOUND for an `undo_changes` actor with no change in this user's history (a typo, or a
    credential of another account: only the user's own index is read, so the two read the same),
    the caller's own credential aside (it has written nothing yet). `list_changes {actor}` stays
    a list, empty for such an actor: a token that never wrote is linked from Settings to its
    empty /activity; both match the actor the same way (GSI3, with or without its kind)."""
    actor = args.get("actor")
    if actor is None or bare_credential(str(actor)) == bare_credential(call.principal.credential_id):
        return
    items, user_id = call.services.items, call.principal.user_id
    if not ensure_indexed(items, user_id):
        return  # the index is still being backfilled: no verdict from it
    page = items.query(actor_partition(user_id, str(actor)), index="gsi3", limit=1, keys_only=True)
    if not page.items and page.next_key is None and next(_by_actor(call, str(actor), None, None), None) is None:
        raise NotFound(
            "actor: no change of this account was made by %(actor)s (%(kept)s); "
            'list_changes names each change\'s actor.id, and actor "me" is the calling credential',
            actor=quoted(str(actor)),
            kept=kept_words(call.services.deployment.history_days),
        )


def changes(
    call: Call, args: dict[str, Any], wanted: Callable[[Item], bool], *, json_bytes: int | None = None
) -> tuple[list[Item], str | None]:
    """Up to `limit` change records matching `args` and `wanted`, newest first, and the cursor of
    the next page (None when the history is exhausted); with `json_bytes`, fewer when their
    answer would pass that many bytes (an answer's page; readers that need the whole run leave
    it out)."""
    items, user_id = call.services.items, call.principal.user_id
    limit = int(args.get("limit", DEFAULT_LIMIT))
    low, high = _bounds(args)
    by_index = _index_of(user_id, args)
    window = _window_of(args)
    found: Iterator[Item]
    if "recordId" in args:
        found = record_changes(items, user_id, str(args["recordId"]), args.get("kind"), low, high)
    elif window is not None:
        found = window_changes(items, user_id, *window, low, high)
    elif by_index is not None:
        entries = newest_first(items, by_index[2], by_index[1], "", low, high)
        found = _fetched(items, user_id, entries)
    elif "actor" in args and ensure_indexed(items, user_id):
        entries = newest_first(items, actor_partition(user_id, args["actor"]), "gsi3", "", low, high)
        found = merged([_fetched(items, user_id, entries), _by_actor(call, str(args["actor"]), low, high)])
    else:
        found = between(items, user_id, low, high)
    kept: list[Item] = []
    used = 0
    for scanned, stored in enumerate(found, start=1):
        item = expanded(stored)
        if wanted(item):
            if json_bytes is not None:
                used += len(json.dumps(public_change(item), ensure_ascii=False, separators=(",", ":")).encode())
                if kept and used > json_bytes:
                    return kept, kept[-1]["id"]
            kept.append(item)
            if len(kept) == limit:
                return kept, item["id"]
        if scanned >= SCAN_LIMIT:
            return kept, item["id"]
    return kept, None


def _by_actor(call: Call, actor: str, low: str | None, high: str | None) -> Iterator[Item]:
    """The actor's changes within its sessions' windows of the timeline (the log's, and the one
    its pointer names now); other actors' changes in those windows are left out here, since
    `require_known_actor` reads this without `matcher`."""
    items, user_id = call.services.items, call.principal.user_id
    pointer = items.get(pointer_key(user_id, actor))
    current = None if pointer is None else str(pointer.get("sessionId", ""))
    credential = bare_credential(actor)
    spans = actor_windows(items, user_id, credential, current)
    return (
        item
        for item in actor_changes(items, user_id, spans, low, high)
        if bare_credential(str((item.get("actor") or {}).get("id", ""))) == credential
    )


def _fetched(items: ItemStore, user_id: str, entries: Iterator[Item]) -> Iterator[Item]:
    """Whole records for index entries that project only some attributes, in entry order (an
    entry whose record is gone meanwhile is skipped). Only the caller's own change records are
    read, whatever an index entry names: an item of another partition carrying this user's
    index keys (a planted import record) is never fetched."""
    partition = user_partition(user_id)
    batch: list[Key] = []
    for entry in entries:
        if entry["pk"] != partition or not str(entry["sk"]).startswith(CHANGE_PREFIX):
            continue
        batch.append((str(entry["pk"]), str(entry["sk"])))
        if len(batch) == CHUNK:
            yield from _by_key(items, batch)
            batch = []
    yield from _by_key(items, batch)


def _by_key(items: ItemStore, keys: list[Key]) -> list[Item]:
    if not keys:
        return []
    found = {(item["pk"], item["sk"]): item for item in items.batch_get(keys)}
    return [found[key] for key in keys if key in found]


def matcher(call: Call, args: dict[str, Any], action: str = "read") -> Callable[[Item], bool]:
    kinds = readable_kinds(call, action)
    if "kind" in args:
        kinds &= {args["kind"]}
    actor = args.get("actor")
    exact = {name: args[name] for name in ("runId", "sessionId") if name in args}

    def wanted(item: Item) -> bool:
        if item["record"]["kind"] not in kinds:
            return False
        if any(item.get(name) != value for name, value in exact.items()):
            return False
        return actor is None or actor in (item["actor"]["id"], item["actor"]["id"].partition(":")[2])

    return wanted


def list_changes(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    if not readable_kinds(call):
        raise Forbidden("list_changes needs memo:read or todo:read")
    args = with_me(call, args)
    found, cursor = changes(call, args, matcher(call, args), json_bytes=PAGE_JSON_BYTES)
    if not found and "cursor" not in args:
        require_known(call, args)
    data: dict[str, Any] = {"changes": [public_change(item) for item in found]}
    if args.get("groupBy") == "session":
        data["sessions"] = sessions_of(found)
    if cursor is not None:
        data["nextCursor"] = cursor
    return data


def sessions_of(found: list[Item]) -> list[dict[str, Any]]:
    """The changes of a page grouped by session, in page order (newest first): each group's
    `sessionId` (a change written before sessions groups by its `runId`), actor, first and last
    `at`, and its changes' ids. A session the page cuts goes on in the next page's first group."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for item in found:
        name = "sessionId" if item.get("sessionId") else "runId"
        group = groups.get((name, str(item[name])))
        if group is None:
            group = groups[(name, str(item[name]))] = {
                name: item[name], "actor": item["actor"], "firstAt": item["at"], "lastAt": item["at"], "changeIds": [],
            }  # fmt: skip
        group["firstAt"] = min(group["firstAt"], item["at"])
        group["lastAt"] = max(group["lastAt"], item["at"])
        group["changeIds"].append(item["id"])
    return [{**group, "count": len(group["changeIds"])} for group in groups.values()]


#: Change records `recent_changes` reads (newest first): an older credential shows no recent session.
ACTIVITY_SCAN = 500


def recent_changes(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    """The user's newest ACTIVITY_SCAN changes, newest first, as `list_changes` shows them
    (Settings: each token's and connected app's last session)."""
    found = between(items, user_id, None, None)
    return [public_change(item) for _scanned, item in zip(range(ACTIVITY_SCAN), found, strict=False)]
