"""query_todos: filtered flat search over every kind of todo record (seed query_todos).

Pure functions over a `traversal.Board`. The rules, and the decisions where the seed is silent:

- Kinds: `task` (root task), `subtask`, `inboxItem`, `inboxSubtask`; each is one record, counted
  on its own in `page.totalCount` (a subtask is not folded into its parent).
- Live records only: no trash, no root task in an archived column, no subtask whose parent is
  trashed, missing or in an archived column, no inbox subtask of a trashed inbox item.
- `query`: literal, case-insensitive (Unicode casefold) substring of the title or of the notes.
- `priority`, `tags` (every tag, each matching itself and the tags below it: `家` matches `家` and
  `家/装修`, as memo tag filters do), date bounds: inbox subtasks have no priority, tags
  or due of their own, so any of these filters excludes them (they never inherit the parent's).
- `status`: open = not done, done = done (inbox subtasks: `isDone`), all. Default open.
- `spaceId`/`spaceSlug`: only that space's tasks and subtasks (inbox records belong to no space,
  so a space filter excludes them); omitted = every space and the inbox.
- Dates: `dueAfter` inclusive, `dueBefore` exclusive, compared as instants. A datetime due is its
  own instant. A date-only due (`{"type":"date","date":"2026-10-07"}`) is the START of that day in
  the record's `timezone` (UTC when it has none or an unknown one): with the Shanghai-week bounds
  of the seed a task due 2026-10-11 with timezone Asia/Shanghai starts at 2026-10-11T00:00+08:00
  and matches, one due 2026-10-12 does not. Recurring root tasks are dated by their earliest
  unfinished, not-deleted occurrence, which is their current due (see `record_moment`).
  Records without a date are excluded whenever a date bound is given.
- `priority`: any of the listed values (a record without one counts as `none`).
- `overdue` (issue 29): true = open records whose due has passed (a timed due before now, a
  date-only due before today in its zone: own, else the user's, else UTC); false = the rest.
- Order (`orderBy`): `updated` = `updatedAt` descending, then `kind`, then `id` ascending (an
  inbox subtask has no `updatedAt` of its own and sorts by its parent's); `due` = soonest due
  first, undated last, ties as `updated`; `priority` = urgent..none, ties by due.
- `includeNotes`: the first 2,000 characters of the notes as `notes`, `notesTruncated: true` when
  cut (read the whole text with the detail tool). Without it items carry no notes at all.
- Paging: `limit` (default 25, max 200) is the requested size; the page holds as many whole items
  of it as fit the response budget (`page.returned` may be smaller), `nextOffset` advances by what
  was returned. One item alone over budget -> RESPONSE_TOO_LARGE (hint: includeNotes=false).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Literal
from zoneinfo import ZoneInfo

from ...kernel.errors import ValidationError
from ...kernel.messages import quoted
from ...kernel.pages import always, behind_nonempty, page
from ...kernel.response_budget import RESPONSE_BUDGET_CHARACTERS, item_cost, json_size
from ...kernel.tags import within
from ...kernel.timestamps import parse_timestamp, parse_zone
from ...search.literal_kind import fold
from ...search.literal_kind import needle as literal_needle
from .budget import response_too_large
from .traversal import Board, Record, inbox_subtask_view, is_live

DEFAULT_LIMIT = 25
NOTES_PREVIEW = 2000
Status = Literal["all", "open", "done"]
Kind = Literal["task", "subtask", "inboxItem", "inboxSubtask"]


OrderBy = Literal["updated", "due", "priority"]
#: orderBy=priority: the most pressing first.
PRIORITY_RANK = {"urgent": 0, "high": 1, "medium": 2, "low": 3, "none": 4}


@dataclass(frozen=True)
class TodoQuery:
    query: str | None = None
    priorities: frozenset[str] | None = None  # any of these; None = every priority
    tags: tuple[str, ...] = ()
    status: Status = "open"
    space_ids: frozenset[str] | None = None  # None = every space and the inbox
    due_after: datetime | None = None
    due_before: datetime | None = None
    include_notes: bool = False
    floating_zone: tzinfo | None = None  # for date-only dues without a zone of their own
    offset: int = 0
    limit: int = DEFAULT_LIMIT
    budget: int = RESPONSE_BUDGET_CHARACTERS
    #: True: open records whose due has passed; False: every other record; None: no filter.
    overdue: bool | None = None
    #: The instant `overdue` is judged at (the operation passes the clock's now).
    now: datetime | None = None
    order_by: OrderBy = "updated"

    @property
    def has_date_filter(self) -> bool:
        return self.due_after is not None or self.due_before is not None


def floating_zone(configured: str | None, due_after: str | None, due_before: str | None) -> tzinfo | None:
    """Where a date-only due without a zone of its own starts its day: the user's todo zone when
    set, else the offset the caller wrote the bounds in ("this week" in Shanghai means Shanghai
    days), else None (UTC)."""
    zone = _zone(configured)
    if zone is not None:
        return zone
    bound = due_after if due_after is not None else due_before
    return datetime.fromisoformat(bound).tzinfo if bound is not None else None


#: The days a bound may name, from today in the user's zone (what an iPhone Shortcut sends simply),
#: the same two in both languages (docs/decisions.md, "a due bound a Shortcut can write").
DAY_WORDS = {"today": 0, "tomorrow": 1, "今天": 0, "明天": 1}
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP_START = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]")


def names_a_day(value: str | None) -> bool:
    """A bound written as a day (today, tomorrow, 今天, 明天, 2026-12-07) rather than an instant."""
    return value is not None and (value in DAY_WORDS or _DATE.fullmatch(value) is not None)


def _bound(value: str, field: str, zone: tzinfo, today: date | None, end: bool) -> datetime:
    """A due bound: a timestamp with an offset as it is; given `today`, a day (`today`,
    `tomorrow`, `今天`, `明天`, 2026-12-07) is the whole of it in `zone`: from its start (dueAfter), up to its end
    (dueBefore, exclusive)."""
    if today is not None and names_a_day(value):
        try:
            day = today + timedelta(days=DAY_WORDS[value]) if value in DAY_WORDS else date.fromisoformat(value)
            return datetime.combine(day + timedelta(days=1 if end else 0), time(), tzinfo=zone).astimezone(UTC)
        except (ValueError, OverflowError):
            pass  # 2026-02-30, 9999-12-31's end: refused below
    elif _TIMESTAMP_START.match(value):  # a timestamp, with parse_timestamp's own words for its faults
        return parse_timestamp(value, field)
    raise ValidationError(
        "%(field)s: %(value)s is not today, tomorrow, 今天, 明天, a date (2026-12-07: the whole day in your zone) "
        "or a timestamp with Z or an offset (2026-12-07T09:00:00+08:00)",
        field=field,
        value=quoted(value),
    )


def parse_bounds(
    due_after: str | None, due_before: str | None, zone: tzinfo = UTC, today: date | None = None
) -> tuple[datetime | None, datetime | None]:
    """The due bounds as instants. With `today` (the date now in `zone`, the user's), a bound may
    name a day, read in `zone`; without it only timestamps are taken."""
    after = _bound(due_after, "dueAfter", zone, today, end=False) if due_after is not None else None
    before = _bound(due_before, "dueBefore", zone, today, end=True) if due_before is not None else None
    if after is not None and before is not None and after > before:
        raise ValidationError("dueAfter must not be after dueBefore (equal bounds give an empty result)")
    return after, before


# -- dates -------------------------------------------------------------------------------------


def _zone(name: str | None) -> ZoneInfo | None:
    """A record's (or the user's) zone; none, or a stored name this tzdata does not know, reads as
    UTC (None)."""
    if not name:
        return None
    try:
        return parse_zone(name, "timezone")
    except ValidationError:
        return None


def due_moment(
    due: Mapping[str, Any] | None, timezone: str | None, floating_zone: tzinfo | None = None
) -> datetime | None:
    """The instant a due stands for in date filters (UTC); None without a due. A date-only due is
    the start of that day in the record's own zone, else `floating_zone` (the user's todo zone, or
    the offset the query's bounds were written in), else UTC."""
    if not due:
        return None
    if due.get("type") == "datetime":
        return _instant(str(due["at"]))
    return _day_start(str(due["date"]), timezone if isinstance(timezone, str) else None, floating_zone)


# A query decides thousands of records that share a few hundred dues and zones (the due index's
# candidates): each instant is computed once per process (datetimes are immutable).
@lru_cache(maxsize=8192)
def _instant(at: str) -> datetime:
    return parse_timestamp(at, "due.at")


@lru_cache(maxsize=8192)
def _day_start(day_text: str, timezone: str | None, floating_zone: tzinfo | None) -> datetime:
    day = date.fromisoformat(day_text)
    zone = _zone(timezone) or floating_zone or UTC
    try:
        return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
    except OverflowError:  # 0001-01-01 east of UTC (or 9999-12-31 west of it) leaves the calendar
        return datetime.min.replace(tzinfo=UTC) if day.year == 1 else datetime.max.replace(tzinfo=UTC)


def record_moment(record: Mapping[str, Any], kind: Kind, floating_zone: tzinfo | None = None) -> datetime | None:
    """A record's date in filters: its own due. A recurring root task's due IS its earliest
    unfinished, not-deleted occurrence (completing one moves the due on, see todos/recurrence.py;
    rescheduling moves it too), so the same rule covers it."""
    if kind == "inboxSubtask":
        return None
    return due_moment(record.get("due"), record.get("timezone"), floating_zone)


# -- records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    kind: Kind
    record: Record  # the public record (inbox subtasks: exposed shape with parentItemId/parentRevision)
    updated_at: str
    space_id: str | None
    column_id: str | None
    parent_id: str | None


def _candidates(board: Board) -> Iterator[_Candidate]:
    """Every live record with where it sits."""
    live_columns = {c["id"] for c in board.columns if not c.get("archived") and is_live(c)}
    roots: dict[str, Record] = {}
    for task in board.tasks:
        if not task.get("parentId") and is_live(task) and task.get("columnId") in live_columns:
            roots[task["id"]] = task
    for task in board.tasks:
        if not is_live(task):
            continue
        parent_id = task.get("parentId")
        if not parent_id:
            if task["id"] in roots:
                yield _Candidate("task", task, task["updatedAt"], task["spaceId"], task.get("columnId"), None)
        elif parent_id in roots:
            parent = roots[parent_id]
            yield _Candidate("subtask", task, task["updatedAt"], parent["spaceId"], parent.get("columnId"), parent_id)
    for item in board.inbox_items:
        if not is_live(item):
            continue
        yield _Candidate("inboxItem", item, item["updatedAt"], None, None, None)
        for sub in item.get("subtasks") or ():
            yield _Candidate("inboxSubtask", inbox_subtask_view(item, sub), item["updatedAt"], None, None, item["id"])


def _matches(candidate: _Candidate, query: TodoQuery, needle: str | None) -> bool:
    record, kind = candidate.record, candidate.kind
    done = bool(record.get("isDone") if kind == "inboxSubtask" else record.get("done"))
    if (query.status == "open" and done) or (query.status == "done" and not done):
        return False
    if query.space_ids is not None and candidate.space_id not in query.space_ids:
        return False
    if query.priorities is not None and (
        kind == "inboxSubtask" or (record.get("priority") or "none") not in query.priorities
    ):
        return False
    if query.overdue is not None and is_overdue(candidate, query) != query.overdue:
        return False
    if query.tags:
        tags = () if kind == "inboxSubtask" else record.get("tags") or ()
        if not all(any(within(tag, wanted) for tag in tags) for wanted in query.tags):
            return False
    if needle is not None:
        title = fold(str(record.get("title") or ""))
        notes = fold(str(record.get("notes") or ""))
        if needle not in title and needle not in notes:
            return False
    if query.has_date_filter:
        moment = record_moment(record, kind, query.floating_zone)
        if moment is None:
            return False
        if query.due_after is not None and moment < query.due_after:
            return False
        if query.due_before is not None and moment >= query.due_before:
            return False
    return True


def is_overdue(candidate: _Candidate, query: TodoQuery) -> bool:
    """An open record whose due has passed: a timed due before now, a date-only due before
    today in its zone (its own, else the user's, else UTC): a task due today is not overdue
    before the day ends. A recurring task's due is its current occurrence."""
    record, kind = candidate.record, candidate.kind
    due = record.get("due") if kind != "inboxSubtask" else None
    if not due or record.get("done") or query.now is None:
        return False
    if due.get("type") == "datetime":
        return parse_timestamp(str(due["at"]), "due.at") < query.now
    zone = _zone(record.get("timezone")) or query.floating_zone or UTC
    return date.fromisoformat(str(due["date"])) < query.now.astimezone(zone).date()


def _sort_key_due(candidate: _Candidate, query: TodoQuery) -> tuple[int, datetime]:
    moment = record_moment(candidate.record, candidate.kind, query.floating_zone)
    return (0, moment) if moment is not None else (1, datetime.max.replace(tzinfo=UTC))


def _item(candidate: _Candidate, include_notes: bool) -> Record:
    """The flat query item: the record's own fields plus where it sits (`kind`, `spaceId`,
    `columnId`, `parentId`); inbox subtasks carry `parentRevision` instead of a revision."""
    record, kind = candidate.record, candidate.kind
    item: Record = {"kind": kind, "id": record["id"], "title": record.get("title", "")}
    if include_notes:
        notes = str(record.get("notes") or "")
        item["notes"] = notes[:NOTES_PREVIEW]
        item["notesTruncated"] = len(notes) > NOTES_PREVIEW
    item["spaceId"] = candidate.space_id
    item["columnId"] = candidate.column_id
    item["parentId"] = candidate.parent_id
    if kind == "inboxSubtask":
        item.update(
            done=bool(record.get("isDone")),
            position=record.get("position"),
            attachments=record.get("attachments") or [],
            parentRevision=record["parentRevision"],
            updatedAt=candidate.updated_at,
        )
        return item
    for name in ("priority", "tags", "due", "timezone", "recurrence", "done", "completedAt", "position"):
        item[name] = record.get(name)
    item["tags"] = item["tags"] or []
    item["priority"] = item["priority"] or "none"
    item["done"] = bool(item["done"])
    item["attachments"] = record.get("attachments") or []
    item["revision"] = record["revision"]
    item["createdAt"] = record.get("createdAt")
    item["updatedAt"] = record["updatedAt"]
    return item


def matching(board: Board, query: TodoQuery) -> list[_Candidate]:
    # The spaces around the text are not looked for, and spaces alone are refused, as in search_memos.
    needle = literal_needle(query.query) if query.query else None
    empty_range = query.due_after is not None and query.due_before is not None and query.due_after >= query.due_before
    if empty_range:
        return []
    found = [c for c in _candidates(board) if _matches(c, query, needle)]
    # Stable sorts: kind and id ascending, then updatedAt (fixed-width UTC text) descending, then
    # the requested order on top (due: soonest first, none last; priority: urgent first, then due).
    found.sort(key=lambda c: (c.kind, str(c.record["id"])))
    found.sort(key=lambda c: c.updated_at, reverse=True)
    if query.order_by == "due":
        found.sort(key=lambda c: _sort_key_due(c, query))
    elif query.order_by == "priority":
        found.sort(
            key=lambda c: (PRIORITY_RANK.get(str(c.record.get("priority") or "none"), 4), _sort_key_due(c, query))
        )
    return found


def query_todos(
    board: Board, query: TodoQuery, records_of: Callable[[list[str]], Mapping[str, Record]] | None = None
) -> dict[str, Any]:
    """`records_of`: for a board whose tasks hold only what filtering and ordering need (the due
    index's covers, views/indexed.py), the whole records of the page's tasks by id."""
    found = matching(board, query)
    total = len(found)
    window = found[query.offset : query.offset + query.limit]
    if records_of is not None:
        window = _whole(window, records_of)
    # The page wrapper at its largest (hasMore with a nextOffset), whatever the budget lets through.
    widest = page(query.offset, query.limit, query.limit, total, has_more=always)
    base = max(json_size({"items": [], "page": wrapper}) for wrapper in (widest, _page(query, query.limit, total)))
    used, items = base, list[Record]()
    for candidate in window:
        item = _item(candidate, query.include_notes)
        cost = item_cost(item)
        if used + cost > query.budget:
            if not items:
                raise response_too_large(
                    f"{candidate.kind} {candidate.record['id']}",
                    base + cost,
                    hints=["includeNotes"] if query.include_notes else [],
                    budget=query.budget,
                    record_id=str(candidate.record["id"]),
                )
            break
        used += cost
        items.append(item)
    return {"items": items, "page": _page(query, len(items), total)}


def _whole(window: list[_Candidate], records_of: Callable[[list[str]], Mapping[str, Record]]) -> list[_Candidate]:
    """The window with its tasks' whole records; a task gone meanwhile (an eventually consistent
    index entry of a purged task) leaves the page."""
    tasks = [str(c.record["id"]) for c in window if c.kind in ("task", "subtask")]
    whole = records_of(tasks) if tasks else {}
    return [
        c if c.kind not in ("task", "subtask") else replace(c, record=whole[str(c.record["id"])])
        for c in window
        if c.kind not in ("task", "subtask") or str(c.record["id"]) in whole
    ]


def _page(query: TodoQuery, returned: int, total: int) -> dict[str, Any]:
    return page(query.offset, query.limit, returned, total, has_more=behind_nonempty)
