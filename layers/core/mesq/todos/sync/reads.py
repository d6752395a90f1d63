"""What a sync client reads: the records of one collection, records by name, and what changed
since its sync point (the change history, so a task created over MCP or trashed in the browser
reaches the client without it reading everything again).

- `listing(items, user_id, collection, after)`: the live records of a space (root tasks, and
  subtasks whose task is live) or of the inbox, in one paginated pass over the user's tasks or
  inbox items consumed page by page, each kept as what a listing needs of it (`listed`: its
  name, UID, ETag and Last-Modified inputs and parent link), never the whole records;
- `whole(items, user_id, collection, listed)`: the whole records of listed members, read by key
  when an answer writes them (a batch at a time: the caller's), None for one that is no longer
  the member it was listed as;
- `sync_point(items, user_id)`: where a client reading everything now stands (`SyncPoint`);
- `changed_since(items, user_id, since, history_days)`: the records touched by the changes after
  `since`, with every collection and name each was in, so a record moved, trashed or removed
  is reported gone from where the client saw it. A root task brings its subtasks (trashing a
  task hides them without writing them). None when `since` is too old (older than the kept
  history, or more changes than one answer reads): the client starts over;
- `answer(items, user_id, collection, changes)`: of those, the collection's members now as a
  `Listing` (read by key a batch at a time, each kept as `listed`), and the names that left it;
- `newest_change(items, user_id)`: the newest change id (a collection's CTag).

A point is 17 digits of epoch microseconds (the leading part of change ids), at most MARGIN
before the read: a write's change id is taken just before its transaction commits, so a change
committed after a read may carry an earlier id than one the read saw. The changes after the point
that the read did see travel with it (`seen`): the next read starts at the point and skips them,
so nothing is missed and nothing reported twice.

When nothing changed in the last MARGIN, the point is steady instead: just after the newest
change, or the start of the hour before the read when that is later (so a point is never older
than an hour plus MARGIN when given out, and the kept history always covers it). A client polling
an unchanged account then reads the same `DAV:sync-token` every time, as RFC 6578 expects, and
skips its sync-collection; the token moves when a change is made, and at most once an hour else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ...history.records import CHANGE_PREFIX, expanded, time_prefix
from ...kernel.keys import user_partition
from ...kernel.ports.storage import Item, ItemStore
from ...kernel.timestamps import utc_now
from ...store.paging import walk
from .. import keys
from .links import INBOX, SYNC_FIELD, RecordKind, by_name, default_name, name_of, uid_of

MARGIN = timedelta(seconds=30)
#: Change records one sync answer reads; past it the client re-reads the collection instead.
MAX_CHANGES = 5000
ZERO_POINT = "0" * 17
_KIND_OF_CHANGE: dict[str, RecordKind] = {"task": "task", "subtask": "task", "inbox": "inbox"}


def _records(items: ItemStore, user_id: str, kind: RecordKind) -> Iterator[Item]:
    for item in walk(items, user_partition(user_id), prefix=keys.KIND_PREFIX[kind]):
        yield keys.record_of(item)


#: What a listing keeps of a record besides its name and UID (`links.SYNC_FIELD`): the inputs of
#: its ETag and Last-Modified (ical_out.etag, properties.object_properties) and its parent link.
#: A few hundred bytes where the record is KiB (notes, the client's own iCalendar).
LISTED_FIELDS = ("id", "revision", "updatedAt", "parentId")


#: What a caller derives from a whole record for its listing, kept beside LISTED_FIELDS (the
#: CalDAV edge: whether the body it writes depends on the user's zone, which its ETag names).
Derived = Callable[[Item], dict[str, Any]]


def listed(record: Item, derive: Derived | None = None) -> Item:
    """What a listing keeps of `record` (LISTED_FIELDS, the client's name and UID, and what
    `derive` makes of the whole record)."""
    kept = {name: record.get(name) for name in LISTED_FIELDS}
    if derive is not None:
        kept.update(derive(record))
    link = record.get(SYNC_FIELD) or {}
    if link.get("name") or link.get("uid"):
        kept[SYNC_FIELD] = {"name": link.get("name"), "uid": link.get("uid")}
    return kept


@dataclass
class Listing:
    #: the members as `listed` records, in the store's order
    members: list[tuple[RecordKind, Item]]
    #: the UID of each listed subtask's task (id -> UID)
    parent_uids: dict[str, str]


def listing(
    items: ItemStore, user_id: str, collection: str, after: str | None = None, derive: Derived | None = None
) -> Listing:
    """The live records of a collection as `listed` records: the inbox's items, or a space's root
    tasks and the subtasks of its live root tasks; only those named after `after` when given (a
    cut sync's continuation). Read page by page, each page dropped once its members are listed:
    the whole records of a large collection are never held together."""

    def wanted(record: Item) -> bool:
        return keys.live(record) and (after is None or name_of(record) > after)

    if collection == INBOX:
        inbox = _records(items, user_id, "inbox")
        return Listing([("inbox", listed(record, derive)) for record in inbox if wanted(record)], {})
    tasks: list[Item] = []
    roots: dict[str, str] = {}
    for task in _records(items, user_id, "task"):
        if task.get("spaceId") != collection or not keys.live(task):
            continue
        if task.get("parentId") is None:
            roots[str(task["id"])] = uid_of(task)
        if wanted(task):
            tasks.append(listed(task, derive))
    kept = [t for t in tasks if t.get("parentId") is None or t.get("parentId") in roots]
    parents = {str(t["parentId"]) for t in kept if t.get("parentId") is not None}
    return Listing([("task", t) for t in kept], {parent: roots[parent] for parent in parents})


def whole(items: ItemStore, user_id: str, collection: str, members: list[tuple[RecordKind, Item]]) -> list[Item | None]:
    """The whole records of `members` (`listed` records of `collection`), read by key, in order;
    None for one that is gone, trashed, moved, renamed or re-parented since it was listed, or a
    subtask whose task was trashed since (which hides it without writing it; the change that did
    it reaches a sync client in its next answer). A subtask's task is read with it for that."""
    # One call: the store adapters drop repeated keys (a task listed with its subtask) and cut the
    # request to what one round trip takes; callers hand over one answer's batch at a time.
    wanted = [(kind, str(record["id"])) for kind, record in members]
    wanted += [("task", str(record["parentId"])) for _, record in members if record.get("parentId")]
    found: dict[tuple[RecordKind, str], Item] = {}
    for item in items.batch_get([keys.key(user_id, kind, record_id) for kind, record_id in wanted]):
        kind: RecordKind = "inbox" if str(item["sk"]).startswith(keys.KIND_PREFIX["inbox"]) else "task"
        found[(kind, str(item["id"]))] = keys.record_of(item)
    result: list[Item | None] = []
    for kind, record in members:
        current = found.get((kind, str(record["id"])))
        parent = found.get(("task", str(record["parentId"]))) if record.get("parentId") else None
        same = (
            current is not None
            and is_member(kind, current, collection, parent)
            and current.get("parentId") == record.get("parentId")
            and name_of(current) == name_of(record)
        )
        result.append(current if same else None)
    return result


def is_member(kind: RecordKind, record: Item, collection: str, parent: Item | None) -> bool:
    """`record` belongs to `collection` now (`parent`: a subtask's task, as read)."""
    if not keys.live(record):
        return False
    if kind == "inbox":
        return collection == INBOX
    if record.get("spaceId") != collection:
        return False
    return record.get("parentId") is None or (parent is not None and keys.live(parent))


def by_names(items: ItemStore, user_id: str, collection: str, names: list[str]) -> dict[str, tuple[RecordKind, Item]]:
    """The members of a collection named in `names`, one by one (a lookup and a read each: for a
    few names; many are found through `listing`)."""
    wanted = set(names)
    found: dict[str, tuple[RecordKind, Item]] = {}
    for name in wanted:
        pair = by_name(items, user_id, name)
        if pair is None:
            continue
        kind, record = pair
        parent = task_record(items, user_id, str(record["parentId"])) if record.get("parentId") else None
        if is_member(kind, record, collection, parent):
            found[name] = pair
    return found


def task_record(items: ItemStore, user_id: str, task_id: str) -> Item | None:
    found = items.get(keys.task_key(user_id, task_id))
    return None if found is None else keys.record_of(found)


@dataclass(frozen=True)
class SyncPoint:
    """Where a client's copy stands: every change before `point` is in it, and of the later ones
    those in `seen` (the last MARGIN of changes, which a write still committing may join)."""

    point: str
    seen: frozenset[str] = frozenset()


def newest_change(items: ItemStore, user_id: str) -> str:
    """The newest change's id (a collection's CTag), or ZERO_POINT."""
    page = items.query(user_partition(user_id), prefix=CHANGE_PREFIX, descending=True, limit=1, keys_only=True)
    return str(page.items[0]["sk"]).removeprefix(CHANGE_PREFIX) if page.items else ZERO_POINT


def _recent(items: ItemStore, user_id: str, start: str) -> Iterator[Item]:
    for change in walk(items, user_partition(user_id), prefix=CHANGE_PREFIX, start=CHANGE_PREFIX + start):
        yield expanded(change)


def _point_at(now: datetime, newest: str | None) -> str:
    """The point a read at `now` stands at, given the newest change it saw (its id, or None):
    MARGIN before now while that change is younger, else steady (see the docstring)."""
    latest = now - MARGIN
    if newest is not None and newest[:17] >= time_prefix(latest):
        return time_prefix(latest)
    hour = time_prefix(latest.replace(minute=0, second=0, microsecond=0))
    return hour if newest is None else max(hour, f"{int(newest[:17]) + 1:017d}")


def sync_point(items: ItemStore, user_id: str, newest: str | None = None) -> SyncPoint:
    """The point a client reading everything now stands at (read it before reading the records);
    `newest`: the newest change's id when the caller has just read it (`newest_change`)."""
    newest = newest_change(items, user_id) if newest is None else newest
    point = _point_at(utc_now(), None if newest == ZERO_POINT else newest)
    return SyncPoint(point, frozenset(str(change["id"]) for change in _recent(items, user_id, point)))


def from_the_future(since: SyncPoint) -> bool:
    """A point after now was never given out here (points are MARGIN before their read): a
    forged token, or one from a clock running ahead. Trusting it would skip every change made
    before it."""
    return since.point > time_prefix(utc_now())


@dataclass
class Changes:
    point: SyncPoint
    #: (kind, record id) -> every collection the changes saw the record in (before and after)
    touched: dict[tuple[RecordKind, str], set[str]]


def _remember(touched: dict[tuple[RecordKind, str], set[str]], entry: Item) -> None:
    record = entry.get("record") or {}
    kind = _KIND_OF_CHANGE.get(str(record.get("kind")))
    if kind is None:
        return
    collections = touched.setdefault((kind, str(record["id"])), set())
    if kind == "inbox":
        collections.add(INBOX)
        return
    for side in ("before", "after"):
        space = (entry.get(side) or {}).get("spaceId")
        if space:
            collections.add(str(space))


def changed_since(items: ItemStore, user_id: str, since: SyncPoint, history_days: int) -> Changes | None:
    """The records the changes after `since` touched (not those it has seen), and the new point:
    MARGIN before now, with the changes after it that this answer reported."""
    now = utc_now()
    if not (len(since.point) == 17 and since.point.isdigit()):
        return None
    if since.point < time_prefix(now - timedelta(days=history_days) + timedelta(hours=1)):
        return None
    touched: dict[tuple[RecordKind, str], set[str]] = {}
    read: list[str] = []
    for count, change in enumerate(_recent(items, user_id, since.point), start=1):
        if count > MAX_CHANGES:
            return None
        change_id = str(change["id"])
        read.append(change_id)
        if change_id in since.seen:
            continue
        for entry in [change, *(change.get("members") or [])]:
            _remember(touched, entry)
    _add_subtasks(items, user_id, touched)
    new_point = max(since.point, _point_at(now, max(read, default=None)))
    seen = frozenset(change_id for change_id in read if change_id[:17] >= new_point)
    return Changes(point=SyncPoint(new_point, seen), touched=touched)


def _add_subtasks(items: ItemStore, user_id: str, touched: dict[tuple[RecordKind, str], set[str]]) -> None:
    """A touched root task's subtasks are touched with it (its trash hides them, its move takes
    them along, undoing it brings them back)."""
    for (kind, record_id), collections in list(touched.items()):
        if kind != "task":
            continue
        for subtask in walk(items, keys.subtask_list(user_id, record_id), index=keys.INDEX, keys_only=True):
            sub_id = str(subtask["sk"]).removeprefix(keys.KIND_PREFIX["task"])
            touched.setdefault(("task", sub_id), set()).update(collections)


def _current(
    items: ItemStore, user_id: str, wanted: list[tuple[RecordKind, str]]
) -> dict[tuple[RecordKind, str], Item]:
    found: dict[tuple[RecordKind, str], Item] = {}
    for start in range(0, len(wanted), 100):
        batch = wanted[start : start + 100]
        for item in items.batch_get([keys.key(user_id, kind, record_id) for kind, record_id in batch]):
            record = keys.record_of(item)
            kind: RecordKind = "inbox" if str(item["sk"]).startswith(keys.KIND_PREFIX["inbox"]) else "task"
            found[(kind, str(record["id"]))] = record
    return found


#: Touched records an incremental answer reads by key at a time (DynamoDB's BatchGetItem: 100).
ANSWER_BATCH = 100


def answer(
    items: ItemStore, user_id: str, collection: str, changes: Changes, derive: Derived | None = None
) -> tuple[Listing, set[str]]:
    """What a sync answer for `collection` holds: the touched records that are its members now, as
    `listed` records with their tasks' UIDs (read by key a batch at a time, each batch dropped
    once listed: up to MAX_CHANGES changes, never their whole records together), and the names
    of those that left it (trashed, moved away, an inbox item moved to the board: under the name
    the client knew, which the board task of the same id carries on)."""
    present: list[tuple[RecordKind, Item]] = []
    gone: set[str] = set()
    #: a subtask's task as read: whether it is live, and its UID (a few bytes each)
    tasks: dict[str, tuple[bool, str]] = {}
    touched = list(changes.touched.items())
    for start in range(0, len(touched), ANSWER_BATCH):
        batch = touched[start : start + ANSWER_BATCH]
        records = _current(items, user_id, [key for key, _ in batch])
        missing = [("task", record_id) for (kind, record_id), _ in batch if kind == "inbox"]
        records.update(_current(items, user_id, [key for key in missing if key not in records]))  # type: ignore[misc]
        tasks.update((record_id, (keys.live(r), uid_of(r))) for (k, record_id), r in records.items() if k == "task")
        parent_ids = {str(r["parentId"]) for (k, _), r in records.items() if k == "task" and r.get("parentId")}
        for (_, task_id), task in _current(items, user_id, [("task", p) for p in parent_ids - set(tasks)]).items():
            tasks[task_id] = (keys.live(task), uid_of(task))
        for (kind, record_id), collections in batch:
            record = records.get((kind, record_id))
            parent_id = str(record.get("parentId")) if record and record.get("parentId") else None
            parent = {"id": parent_id} if parent_id and tasks.get(parent_id, (False, ""))[0] else None
            if record is not None and is_member(kind, record, collection, parent):
                present.append((kind, listed(record, derive)))
                continue
            now_in = None if record is None else (INBOX if kind == "inbox" else record.get("spaceId"))
            if collection in collections or now_in == collection:
                known = record or records.get(("task", record_id))
                gone.add(name_of(known) if known is not None else default_name(record_id))
    parents = {str(r["parentId"]) for kind, r in present if kind == "task" and r.get("parentId")}
    return Listing(present, {p: tasks[p][1] for p in parents if p in tasks}), gone
