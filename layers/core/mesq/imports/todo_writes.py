"""Planned spaces, columns and tasks written through the todo write pattern (`todos.writes.apply`:
the partial state, list sizes, graph counts, the due index, tag registrations and one change
record per record in the same transaction), under ids derived from the source, every Put
conditioned on absence.

- a space (with its slug claim and its first COLUMNS_PER_WRITE columns) is one transaction,
  skipped when its id exists; its further columns, and a column missing from a space that exists
  (a later export added a section), are added COLUMNS_PER_WRITE a transaction;
- the column's tags the registry does not know yet are registered first, TAGS_PER_WRITE a
  transaction (each with its change record): a batch of tasks then writes no registrations, so
  its size is its records', whatever number of new labels they carry;
- root tasks with their subtasks go in transactions of up to BATCH_RECORDS records and BATCH_BYTES
  (long notes: one transaction takes 3.5 MB), the tasks
  already there left out first (read by key), so a second run creates nothing and a run cut
  short is completed by the next;
- positions are computed from the plan (the source's order), so a resumed run puts the missing
  tasks where the first would have.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import ValidationError
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import MAX_TRANSACTION_BYTES, Condition, Item, Key, Put, WriteOp
from ..kernel.timestamps import now_timestamp
from ..todos import keys, model, recurrence
from ..todos.board.tasks import open_column_check
from ..todos.inbox import records as inbox_records
from ..todos.state import TodoState, load_partial
from ..todos.writes import Built, _free_slug, apply, put_new, tag_registrations
from .plan import PlannedColumn, PlannedSpace, PlannedTask, SourceError, same_name, stop_if_asked

#: Records (root tasks + subtasks) per transaction: with their change records, list sizes and
#: graph counts well inside the 100 operations of one transaction.
BATCH_RECORDS = 24
#: New tags registered per transaction: a Put and a change record each, inside the 100.
TAGS_PER_WRITE = 40
#: New columns per transaction (a column costs its Put, its change record and the space's counts):
#: a space takes 50 columns, which as one transaction needed 153 operations.
COLUMNS_PER_WRITE = 20


def _conflict(what: str) -> Any:
    def make(state: TodoState) -> ValidationError:
        return ValidationError(
            "%(what)s could not be written because the board changed meanwhile; run the import again", what=what
        )

    return make


def _column(space_id: str, column: PlannedColumn, position: str, now: str) -> Item:
    return {"id": column.column_id, "spaceId": space_id, "name": column.name, "position": position,
            "archived": False, "revision": 1, "createdAt": now, "updatedAt": now}  # fmt: skip


def _into_existing(state: TodoState, planned: PlannedSpace) -> Item | None:
    """The account's live space named as the project (the first in the board's order), when the
    import has no space of its own for it yet: the project goes into it, its sections into the
    open columns of the same names (the planned ids changed to theirs), the others added."""
    wanted = same_name(planned.name)
    found = [space for space in state.spaces.values() if same_name(str(space["name"])) == wanted]
    if not found:
        return None
    space = min(found, key=lambda s: (str(s["position"]), str(s["id"])))
    open_columns: dict[str, str] = {}
    for there in state.columns_of(space["id"], include_archived=False):
        open_columns.setdefault(same_name(str(there["name"])), str(there["id"]))
    for column in planned.columns:
        if column.column_id not in state.columns and same_name(column.name) in open_columns:
            column.column_id = open_columns[same_name(column.name)]
            column.existing = True
    planned.space_id = space["id"]
    planned.into = str(space["name"])
    return space


def write_space(call: Call, planned: PlannedSpace) -> Counter[str]:
    """The space and any of its columns not there yet, COLUMNS_PER_WRITE columns a transaction
    (the space with the first of them); counts of what was created. A project named as a live
    space of the account (`same_name`) goes into that space (`_into_existing`: `planned` then
    names it, and its columns the ones it joins) rather than a second space of that name."""
    user_id = call.principal.user_id
    created: Counter[str] = Counter()
    while True:
        counted: Counter[str] = Counter()

        def build(state: TodoState, counted: Counter[str] = counted) -> Built:
            counted.clear()
            now = now_timestamp()
            ops: list[WriteOp] = []
            space = state.spaces.get(planned.space_id)
            if space is None:
                space = _into_existing(state, planned)
            if space is None:
                slug = _free_slug(state, model.slugify(planned.name))
                last = max((s["position"] for s in state.spaces.values()), default=None)
                position = model.position_between(last, None)
                space = {"id": planned.space_id, "name": planned.name, "slug": slug, "position": position,
                         "revision": 1, "createdAt": now, "updatedAt": now}  # fmt: skip
                ops.append(put_new(user_id, "space", space))
                pk, sk = keys.slug_key(user_id, slug)
                ops.append(Put({"pk": pk, "sk": sk, "spaceId": space["id"]}, Condition(exists=False)))
                counted["spaces"] += 1
            siblings = sorted(c["position"] for c in state.columns_of(space["id"]))
            missing = [column for column in planned.columns if column.column_id not in state.columns]
            missing = missing[:COLUMNS_PER_WRITE]
            last = siblings[-1] if siblings else None
            positions = model.positions_between(last, None, len(missing)) if missing else []
            for column, position in zip(missing, positions, strict=True):
                ops.append(put_new(user_id, "column", _column(space["id"], column, position, now)))
                counted["columns"] += 1
            return {}, ops

        apply(call, build, _conflict(f"space {planned.name!r}"))
        created.update(counted)
        if counted["columns"] < COLUMNS_PER_WRITE:  # the last of them written (or none was missing)
            return created


def _task_record(planned: PlannedTask, space_id: str, column_id: str | None, parent_id: str | None,
                 position: str, now: str) -> Item:  # fmt: skip
    args: dict[str, Any] = {"title": planned.title, "notes": planned.notes, "priority": planned.priority,
                            "tags": planned.tags, "due": planned.due, "timezone": planned.timezone}  # fmt: skip
    record: Item = {"id": planned.task_id, "spaceId": space_id, "columnId": column_id, "parentId": parent_id,
                    "position": position, **model.new_task_fields(args, now)}  # fmt: skip
    record["recurrence"] = recurrence.normalized(planned.recurrence)
    recurrence.check_rule(record["recurrence"], record["due"], record["timezone"])
    if planned.done:
        record["done"], record["completedAt"] = True, now
    return record


def check_planned(space: PlannedSpace) -> None:
    """Every task of the space as the write path will build it (due, recurrence, fields), before
    the import's first write: a record the write path would refuse stops the import whole."""
    now = now_timestamp()
    for column in space.columns:
        for task in column.tasks:
            for record in (task, *task.subtasks):
                try:
                    _task_record(record, space.space_id, column.column_id, None, "a", now)
                except ValidationError as error:
                    raise SourceError(
                        Text("%(task)s: %(reason)s", task=record.label or record.title, reason=error.text)
                    ) from None


def _inbox_record(planned: PlannedTask, position: str, now: str) -> Item:
    """An inbox item with its subtasks inside (a title and notes each: `todoist` kept the rest in
    their notes), as `todos.inbox.records.new_item` builds one, under the planned ids."""
    args: dict[str, Any] = {"title": planned.title, "notes": planned.notes, "priority": planned.priority,
                            "tags": planned.tags, "due": planned.due, "timezone": planned.timezone}  # fmt: skip
    subtasks = planned.subtasks[: inbox_records.MAX_INBOX_SUBTASKS]
    positions = model.positions_between(None, None, len(subtasks)) if subtasks else []
    item: Item = {"id": planned.task_id, **model.new_task_fields(args, now), "position": position,
                  "subtasks": [{"id": sub.task_id, "title": model.check_title(sub.title),
                                "notes": model.check_notes(sub.notes), "isDone": sub.done, "position": at,
                                "attachments": []} for sub, at in zip(subtasks, positions, strict=True)]}  # fmt: skip
    return inbox_records.check_size(item)


def check_inbox(items: list[PlannedTask]) -> None:
    """Every planned inbox item as the write path will build it, before the import's first write."""
    now = now_timestamp()
    for planned in items:
        try:
            _inbox_record(planned, "a", now)
        except inbox_records.InboxItemTooLarge as error:  # nothing in MeSQ to move yet: the export is where
            raise SourceError(
                Text(
                    "%(task)s: with its subtasks it would need %(size)s bytes, over the %(limit)s-byte limit of one "
                    "item of the inbox; shorten its notes or move it out of the inbox in the app you exported "
                    "from, then export and import again",
                    task=planned.label or planned.title,
                    size=error.size,
                    limit=inbox_records.MAX_STORED_BYTES,
                )
            ) from None
        except ValidationError as error:
            raise SourceError(
                Text("%(task)s: %(reason)s", task=planned.label or planned.title, reason=error.text)
            ) from None


#: What one batch of tasks or inbox items may weigh, counting each record twice (a change record
#: beside it): the transaction's limit less room for its list sizes, counts and tags.
BATCH_BYTES = MAX_TRANSACTION_BYTES - 200_000


def _inbox_batches(entries: list[tuple[str, PlannedTask]]) -> list[list[tuple[str, PlannedTask]]]:
    """Up to BATCH_RECORDS items a batch, and BATCH_BYTES: an item with its subtasks inside
    weighs up to 350 KB (`inbox_records.MAX_STORED_BYTES`), 24 of them with their change records
    some 16 MB, past what one transaction takes."""
    now = now_timestamp()

    def weight(entry: tuple[str, PlannedTask]) -> int:
        return 2 * len(json.dumps(_inbox_record(entry[1], entry[0], now), ensure_ascii=False).encode("utf-8"))

    return _packed(entries, lambda _entry: 1, weight)


def _packed(
    entries: list[tuple[str, PlannedTask]],
    records_of: Callable[[tuple[str, PlannedTask]], int],
    weight_of: Callable[[tuple[str, PlannedTask]], int],
) -> list[list[tuple[str, PlannedTask]]]:
    """`entries` in order, cut into batches of at most BATCH_RECORDS records and BATCH_BYTES of
    weight (an entry past either alone is a batch of its own, never an empty one)."""
    batches: list[list[tuple[str, PlannedTask]]] = []
    size = BATCH_RECORDS
    used = 0
    for entry in entries:
        records, weight = records_of(entry), weight_of(entry)
        if (size + records > BATCH_RECORDS or used + weight > BATCH_BYTES) and (not batches or batches[-1]):
            batches.append([])
            size = used = 0
        batches[-1].append(entry)
        size += records
        used += weight
    return batches


def _not_yet_there(
    call: Call,
    batches: list[list[tuple[str, PlannedTask]]],
    key_of: Callable[[str], Key],
    created: Counter[str],
    between: Callable[[], None] | None,
) -> Iterator[list[tuple[str, PlannedTask]]]:
    """Each batch's tasks not stored yet (read by key), counting in `created` those already there
    (`existing`, `in_trash`); a batch with none is skipped. `between` is called before every batch
    but the first (the batches before it told, at most once a second), and the run stops between
    two batches when asked (the server is stopping, or the request's time is up)."""
    for index, batch in enumerate(batches):
        if index and between is not None:
            between()
        stop_if_asked()
        found = call.services.items.batch_get([key_of(task.task_id) for _position, task in batch])
        there = {item["id"] for item in found}
        fresh = [(position, task) for position, task in batch if task.task_id not in there]
        created["existing"] += len(batch) - len(fresh)
        created["in_trash"] += sum(1 for item in found if item.get("deletedAt"))
        if fresh:
            yield fresh


def write_inbox(
    call: Call,
    planned: list[PlannedTask],
    created: Counter[str],
    written: list[PlannedTask] | None = None,
    *,
    between: Callable[[], None] | None = None,
) -> None:
    """The inbox items not there yet (read by key first), BATCH_RECORDS a transaction, after the
    live items that are not the plan's (a run resumed or repeated puts the missing ones where the
    first run did); `created`, `written` and `between` as `write_tasks`'s."""
    items, user_id = call.services.items, call.principal.user_id
    ids = {task.task_id for task in planned}
    state = load_partial(items, user_id)
    after = max((str(i["position"]) for i in state.live_inbox() if i["id"] not in ids), default=None)
    positions = model.positions_between(after, None, len(planned)) if planned else []
    register_tags(call, [tag for task in planned for tag in task.tags])
    batches = _inbox_batches(list(zip(positions, planned, strict=True)))
    for fresh in _not_yet_there(call, batches, partial(keys.inbox_key, user_id), created, between):
        counted: Counter[str] = Counter()

        def build(
            state: TodoState, fresh: list[tuple[str, PlannedTask]] = fresh, counted: Counter[str] = counted
        ) -> Built:
            counted.clear()
            now = now_timestamp()
            ops: list[WriteOp] = []
            tags: list[str] = []
            for position, task in fresh:
                ops.append(put_new(user_id, "inbox", _inbox_record(task, position, now)))
                tags += task.tags
                counted["tasks"] += 1
                counted["subtasks"] += min(len(task.subtasks), inbox_records.MAX_INBOX_SUBTASKS)
                counted["comments"] += task.comments + sum(sub.comments for sub in task.subtasks)
            return {}, ops + tag_registrations(state, user_id, tags, now)

        apply(call, build, _conflict("inbox items"))
        created.update(counted)
        if written is not None:
            written.extend(record for _position, task in fresh for record in (task, *task.subtasks))


def register_tags(call: Call, tags: list[str]) -> int:
    """The tags the registry does not know yet, TAGS_PER_WRITE a transaction; how many were new."""
    wanted = list(dict.fromkeys(tags))
    registered = 0
    for start in range(0, len(wanted), TAGS_PER_WRITE):
        chunk = wanted[start : start + TAGS_PER_WRITE]
        counted: list[int] = [0]

        def build(state: TodoState, chunk: list[str] = chunk, counted: list[int] = counted) -> Built:
            ops = tag_registrations(state, call.principal.user_id, chunk, now_timestamp())
            counted[0] = len(ops)
            return {}, ops

        apply(call, build, _conflict("the import's tags"))
        registered += counted[0]
    return registered


def _batches(tasks: list[tuple[str, PlannedTask]]) -> list[list[tuple[str, PlannedTask]]]:
    """Root tasks with their subtasks, up to BATCH_RECORDS records a batch and BATCH_BYTES
    (twice the records' weight): 24 tasks of 49,000 Chinese characters of notes were 3.6 MB, past
    what one transaction takes, and the same file imported again stopped at the same batch."""
    return _packed(
        tasks,
        lambda entry: 1 + len(entry[1].subtasks),
        lambda entry: 2 * sum(_weight(record) for record in (entry[1], *entry[1].subtasks)),
    )


def _weight(record: PlannedTask) -> int:
    """About what a planned task weighs as a stored record (its text in UTF-8, and the rest)."""
    text = record.title + record.notes + "".join(record.tags) + json.dumps(record.due)
    return len(text.encode("utf-8")) + 1_000


def _after_the_others(call: Call, column: PlannedColumn) -> str | None:
    """The last position of a column the account had, among its live tasks this plan does not
    hold (a run resumed or repeated puts the plan's tasks where the first run did): the import's
    tasks go after the person's own."""
    planned = {task.task_id for task in column.tasks}
    state = load_partial(call.services.items, call.principal.user_id)
    others = [str(task["position"]) for task in state.root_tasks(column.column_id) if task["id"] not in planned]
    return max(others, default=None)


def write_tasks(
    call: Call,
    space_id: str,
    column: PlannedColumn,
    created: Counter[str],
    written: list[PlannedTask] | None = None,
    *,
    between: Callable[[], None] | None = None,
) -> None:
    """The column's tasks and subtasks not there yet, in plan order; `created` counts what was
    written, batch by batch (so a fault partway still says what is there), `written` gets the
    planned tasks and subtasks each batch wrote, and `between` is called after each batch (the
    run's progress: a column of 5,000 tasks is some 200 batches)."""
    user_id = call.principal.user_id
    after = _after_the_others(call, column) if column.existing else None
    positions = model.positions_between(after, None, len(column.tasks)) if column.tasks else []
    register_tags(call, [tag for task in column.tasks for record in (task, *task.subtasks) for tag in record.tags])
    batches = _batches(list(zip(positions, column.tasks, strict=True)))
    for fresh in _not_yet_there(call, batches, partial(keys.task_key, user_id), created, between):
        counted: Counter[str] = Counter()

        def build(
            state: TodoState, fresh: list[tuple[str, PlannedTask]] = fresh, counted: Counter[str] = counted
        ) -> Built:
            counted.clear()
            target = state.columns.get(column.column_id)
            if target is None:
                raise ValidationError(
                    "column %(name)s of the import is gone; run the import again", name=quoted(column.name)
                )
            now = now_timestamp()
            ops: list[WriteOp] = [open_column_check(user_id, target)]
            tags: list[str] = []
            for position, task in fresh:
                ops.append(
                    put_new(user_id, "task", _task_record(task, space_id, column.column_id, None, position, now))
                )
                tags += task.tags
                counted["tasks"] += 1
                counted["comments"] += task.comments
                sub_positions = model.positions_between(None, None, len(task.subtasks)) if task.subtasks else []
                for sub_position, sub in zip(sub_positions, task.subtasks, strict=True):
                    ops.append(
                        put_new(user_id, "task", _task_record(sub, space_id, None, task.task_id, sub_position, now))
                    )
                    tags += sub.tags
                    counted["subtasks"] += 1
                    counted["comments"] += sub.comments
            return {}, ops + tag_registrations(state, user_id, tags, now)

        apply(call, build, _conflict(f"tasks of {column.name!r}"))
        created.update(counted)
        if written is not None:
            written.extend(record for _position, task in fresh for record in (task, *task.subtasks))
