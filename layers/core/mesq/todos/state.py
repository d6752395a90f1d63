"""The todo snapshot: one user's todo state read from the store, and the lookups every todo
operation uses. Every read is an explicit call; nothing runs a query behind a Mapping.

Offers (stable names):
- `TodoState` + `load_state(items, user_id)`: the user's whole todo state (sk begins_with
  `TODO#`, read as the two ranges around the list sizes: two paginated queries; what the graph
  view, query_todos and the rare whole-board writes use): `tasks` and `inbox` hold every record;
- `load_partial(items, user_id)`: what writes use: the same TodoState, but only the small
  structure (settings, slug claims, spaces, columns, tags: one range Query and one prefix Query)
  is read up front. Tasks and inbox items are read by key when asked for (`task(id)`,
  `inbox_item(id)`: GetItem, remembered, misses too; `prefetch_tasks(ids)`: one BatchGetItem),
  the lists a write needs come from GSI2 (`root_tasks`, `subtasks_of`, `live_inbox`, ...), and
  `every_task()` / `every_inbox_item()` read the whole kind (one prefix Query; only rare writes do
  it: tag rename/delete, the trash, a space/column delete on a board never sized; otherwise
  `live_root_count` reads the columns' list sizes). So a write costs O(what it touches), not O(the
  board). `tasks` / `inbox` hold the records read so far.

Index reads are eventually consistent on DynamoDB: they only ever supply positions and ids; the
records a write conditions on are re-read from the table. Keys are in `keys.py`, the write
helpers (and the lazy default space) in `writes.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..auth.user_zone import is_zone_name
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore
from ..store.paging import walk
from . import model
from .keys import (
    INDEX,
    KIND_PREFIX,
    PREFIX,
    SETTINGS_SK,
    SIZE_PREFIX,
    column_list,
    inbox_list,
    key,
    live,
    prefix_range,
    record_of,
    subtask_list,
)
from .list_sizes import column_sizes

#: Positions read beyond `index` when inserting at an index: room to step over tied positions.
_TIE_MARGIN = 8
Fetched = Literal["task", "inbox"]


@dataclass
class _Source:
    """Where a partial state reads what it was not given, and what it already knows is absent
    or complete."""

    items: ItemStore
    user_id: str
    complete: set[str] = field(default_factory=set)  # kinds read whole (`every_*`)
    absent: set[tuple[str, str]] = field(default_factory=set)  # (kind, id) read and not found

    def one(self, kind: Fetched, ident: str) -> Item | None:
        found = self.items.get(key(self.user_id, kind, ident))
        return None if found is None else record_of(found)

    def many(self, kind: Fetched, idents: list[str]) -> dict[str, Item]:
        found = self.items.batch_get([key(self.user_id, kind, ident) for ident in idents])
        return {str(item["sk"]).removeprefix(KIND_PREFIX[kind]): record_of(item) for item in found}

    def every(self, kind: Fetched) -> dict[str, Item]:
        prefix = KIND_PREFIX[kind]
        found = _walk(self.items, user_partition(self.user_id), prefix)
        return {str(item["sk"]).removeprefix(prefix): record_of(item) for item in found}

    def index_items(self, partition: str, *, descending: bool = False, limit: int | None = None) -> list[Item]:
        """Records of one GSI2 list in index order (all of it, or the first `limit`)."""
        found = walk(self.items, partition, index=INDEX, descending=descending, limit=limit)
        return [record_of(item) for item in found]


@dataclass
class TodoState:
    """One user's todo state (records without keys), by id (tags by name). Deleted (trashed)
    tasks and inbox items are included; filter with `live`. From `load_state` everything is in
    `tasks` / `inbox`; from `load_partial` (`source` set) those hold what was read so far, and
    the methods below read the rest explicitly."""

    spaces: dict[str, Item] = field(default_factory=dict)
    slugs: dict[str, str] = field(default_factory=dict)  # slug -> spaceId (the claims)
    columns: dict[str, Item] = field(default_factory=dict)
    tasks: dict[str, Item] = field(default_factory=dict)  # root tasks and subtasks
    inbox: dict[str, Item] = field(default_factory=dict)
    tags: dict[str, Item] = field(default_factory=dict)
    settings: Item | None = None
    source: _Source | None = field(default=None, compare=False, repr=False)

    # -- records by id (a partial state reads them by key) ---------------------------------

    def _records(self, kind: Fetched) -> dict[str, Item]:
        return self.tasks if kind == "task" else self.inbox

    def _partial(self, kind: Fetched) -> _Source | None:
        """The source to read `kind` from, while this state does not hold all of it."""
        return None if self.source is None or kind in self.source.complete else self.source

    def _find(self, kind: Fetched, ident: str) -> Item | None:
        records, source = self._records(kind), self._partial(kind)
        if source is not None and ident not in records and (kind, ident) not in source.absent:
            found = source.one(kind, ident)
            if found is None:
                source.absent.add((kind, ident))
            else:
                records[ident] = found
        return records.get(ident)

    def task(self, task_id: str) -> Item | None:
        """A root task or subtask (trashed too), or None."""
        return self._find("task", task_id)

    def inbox_item(self, item_id: str) -> Item | None:
        """An inbox item (trashed too), or None."""
        return self._find("inbox", item_id)

    def prefetch_tasks(self, task_ids: Iterable[str]) -> None:
        """Read the tasks not read yet in one BatchGetItem (a complete state has them all)."""
        source = self._partial("task")
        if source is None:
            return
        missing = [i for i in dict.fromkeys(task_ids) if i not in self.tasks and ("task", i) not in source.absent]
        if not missing:
            return
        found = source.many("task", missing)
        for ident in missing:
            if ident in found:
                self.tasks[ident] = found[ident]
            else:
                source.absent.add(("task", ident))

    def _every(self, kind: Fetched) -> list[Item]:
        records, source = self._records(kind), self._partial(kind)
        if source is not None:
            records.clear()
            records.update(source.every(kind))
            source.complete.add(kind)
        return list(records.values())

    def every_task(self) -> list[Item]:
        """Every root task and subtask (trashed too); a partial state reads them all once."""
        return self._every("task")

    def every_inbox_item(self) -> list[Item]:
        """Every inbox item (trashed too); a partial state reads them all once."""
        return self._every("inbox")

    # -- structure --------------------------------------------------------------------------

    @property
    def user_zone(self) -> str | None:
        """The user's own time zone (user_zone.py), read with the structure; None when unset."""
        name = None if self.settings is None else self.settings.get("timezone")
        return name if is_zone_name(name) else None

    @property
    def default_space_id(self) -> str | None:
        return None if self.settings is None else self.settings.get("defaultSpaceId")

    def default_space(self) -> Item | None:
        space_id = self.default_space_id
        return None if space_id is None else self.spaces.get(space_id)

    def space_by_slug(self, slug: str) -> Item | None:
        space_id = self.slugs.get(slug)
        return None if space_id is None else self.spaces.get(space_id)

    def ordered_spaces(self) -> list[Item]:
        return sorted(self.spaces.values(), key=model.sort_key)

    def columns_of(self, space_id: str, *, include_archived: bool = True) -> list[Item]:
        found = [c for c in self.columns.values() if c["spaceId"] == space_id]
        if not include_archived:
            found = [c for c in found if not c.get("archived")]
        return sorted(found, key=model.sort_key)

    def first_open_column(self, space_id: str) -> Item | None:
        open_columns = self.columns_of(space_id, include_archived=False)
        return open_columns[0] if open_columns else None

    # -- ordered lists (a partial state reads them from GSI2) -------------------------------

    def root_tasks(self, column_id: str, *, include_deleted: bool = False, consistent: bool = False) -> list[Item]:
        """A column's root tasks in order. A partial state reads the column's GSI2 list (live
        tasks only; eventually consistent) unless `consistent` (or `include_deleted`) asks for
        the table itself (the whole task set: emptiness checks before deleting a column)."""
        source = None if include_deleted or consistent else self._partial("task")
        if source is not None:
            found = [t for t in source.index_items(column_list(source.user_id, column_id)) if live(t)]
        else:
            found = [
                t
                for t in self.every_task()
                if t.get("parentId") is None and t.get("columnId") == column_id and (include_deleted or live(t))
            ]
        return sorted(found, key=model.sort_key)

    def root_positions(self, column_id: str, index: int | None = None, exclude: str | None = None) -> list[str]:
        """Sorted positions of the column's live root tasks (but `exclude`): all of them, or on a
        partial state just enough for `model.position_for_index(positions, index)` (the last
        one to append, the first `index` + a few to insert)."""
        source = self._partial("task")
        if source is None:
            return [str(t["position"]) for t in self.root_tasks(column_id) if t["id"] != exclude]
        return _head_positions(source, column_list(source.user_id, column_id), index, exclude)

    def root_after(self, task: Item) -> Item | None:
        """The live root task right after `task` in its column."""
        source = self._partial("task")
        if source is None:
            later = [t for t in self.root_tasks(task["columnId"]) if model.sort_key(t) > model.sort_key(task)]
            return later[0] if later else None
        partition = column_list(source.user_id, str(task["columnId"]))
        page = source.items.query(partition, index=INDEX, start=f"{task['position']}#{task['id']}", limit=2)
        later = [record_of(t) for t in page.items if model.sort_key(t) > model.sort_key(task)]
        return later[0] if later else None

    def live_root_count(self, column_ids: list[str]) -> int:
        """How many live root tasks the columns hold: their list sizes (one strongly consistent
        BatchGetItem; the emptiness check of a column or space delete), else, when a list was
        never sized, counted from the table itself (every task: a board from before sizes)."""
        source = self._partial("task")
        if source is not None:
            counted = column_sizes(source.items, source.user_id, column_ids)
            if counted is not None:
                return counted
        wanted = set(column_ids)
        return sum(
            1 for t in self.every_task() if t.get("parentId") is None and t.get("columnId") in wanted and live(t)
        )

    def subtasks_of(self, task_id: str, *, include_deleted: bool = False) -> list[Item]:
        """A task's subtasks in order: the live ones (at most model.MAX_SUBTASKS), or with
        `include_deleted` the trashed ones too (the trash has no limit). A partial state reads the
        task's GSI2 list, which keeps the trashed ones (projection ALL: their `deletedAt` is in
        the entry), and then by key only the records asked for: a caller of the live ones never
        reads the trash's records (a task with 120 trashed subtasks read 120 more keys)."""
        return self._subtasks_in(task_id, self._subtask_entries(task_id), include_deleted=include_deleted)

    def trashed_subtasks(self, task_id: str) -> list[Item]:
        """A task's trashed subtasks as its subtask list's entries hold them (GSI2, projection ALL;
        eventually consistent): for naming them (`get_todo_task`'s context), never for a write,
        which reads its records by key. The trash has no limit: no record is read by key here."""
        return _trashed_in(task_id, self._subtask_entries(task_id))

    def subtasks_and_trash(self, task_id: str) -> tuple[list[Item], list[Item]]:
        """`subtasks_of(task_id)` and `trashed_subtasks(task_id)` from one read of the task's
        subtask list (get_todo_task's context names both: one GSI2 query, not two)."""
        entries = self._subtask_entries(task_id)
        return self._subtasks_in(task_id, entries), _trashed_in(task_id, entries)

    def _subtask_entries(self, task_id: str) -> list[Item]:
        """The entries of a task's subtask list (one GSI2 query), or on a complete state every task."""
        source = self._partial("task")
        if source is None:
            return list(self.tasks.values())
        return source.index_items(subtask_list(source.user_id, task_id))

    def _subtasks_in(self, task_id: str, entries: list[Item], *, include_deleted: bool = False) -> list[Item]:
        candidates: Iterable[Item] = entries
        if self._partial("task") is not None:
            # The index names them; the records come from the table (a write conditions on them).
            ids = [str(t["id"]) for t in entries if include_deleted or live(t)]
            self.prefetch_tasks(ids)
            candidates = [record for i in ids if (record := self.task(i)) is not None]
        found = [t for t in candidates if t.get("parentId") == task_id and (include_deleted or live(t))]
        return sorted(found, key=model.sort_key)

    def live_inbox(self) -> list[Item]:
        source = self._partial("inbox")
        if source is not None:
            return sorted((i for i in source.index_items(inbox_list(source.user_id)) if live(i)), key=model.sort_key)
        return sorted((i for i in self.inbox.values() if live(i)), key=model.sort_key)

    def inbox_positions(self, index: int | None = None) -> list[str]:
        """Like `root_positions`, for the live inbox."""
        source = self._partial("inbox")
        if source is None:
            return [str(i["position"]) for i in self.live_inbox()]
        return _head_positions(source, inbox_list(source.user_id), index, None)


def _trashed_in(task_id: str, entries: list[Item]) -> list[Item]:
    return [t for t in entries if t.get("parentId") == task_id and not live(t)]


def _head_positions(source: _Source, partition: str, index: int | None, exclude: str | None) -> list[str]:
    if index is None:  # append: only the last position matters
        tail = [t for t in source.index_items(partition, descending=True, limit=2) if t["id"] != exclude]
        return [str(tail[0]["position"])] if tail else []
    head = source.index_items(partition, limit=max(index, 0) + 2 + _TIE_MARGIN)
    return [str(t["position"]) for t in sorted(head, key=model.sort_key) if t["id"] != exclude]


# -- loading -----------------------------------------------------------------------------------


def _walk(items: ItemStore, partition: str, prefix: str = PREFIX) -> Iterable[Item]:
    # As a key range rather than `prefix=`: the same items, and an adapter that cannot use an
    # index for a prefix (SQLite's substr filter) reads only the range, not the partition.
    return _walk_range(items, partition, *prefix_range(prefix))


def _walk_range(items: ItemStore, partition: str, start: str, end: str) -> Iterable[Item]:
    return walk(items, partition, start=start, end=end)


PREFIX_END = prefix_range(PREFIX)[1]
_TARGET_PREFIXES = tuple(KIND_PREFIX[kind] for kind in ("space", "column", "task", "inbox"))


def _sort_in(state_parts: dict[str, dict[str, Item]], settings: list[Item], slugs: dict[str, str],
             tags: dict[str, Item], items: Iterable[Item]) -> None:  # fmt: skip
    for item in items:
        sk = str(item["sk"])
        if sk == SETTINGS_SK:
            settings.append(record_of(item))
        elif sk.startswith(KIND_PREFIX["slug"]):
            slugs[sk.removeprefix(KIND_PREFIX["slug"])] = str(item["spaceId"])
        elif sk.startswith(KIND_PREFIX["tag"]):
            tags[sk.removeprefix(KIND_PREFIX["tag"])] = record_of(item)
        else:
            for prefix in _TARGET_PREFIXES:
                if sk.startswith(prefix):
                    state_parts[prefix][sk.removeprefix(prefix)] = record_of(item)
                    break


def _state(parts: list[Iterable[Item]], source: _Source | None) -> TodoState:
    by_prefix: dict[str, dict[str, Item]] = {prefix: {} for prefix in _TARGET_PREFIXES}
    settings: list[Item] = []
    slugs: dict[str, str] = {}
    tags: dict[str, Item] = {}
    for part in parts:
        _sort_in(by_prefix, settings, slugs, tags, part)
    return TodoState(
        spaces=by_prefix[KIND_PREFIX["space"]],
        slugs=slugs,
        columns=by_prefix[KIND_PREFIX["column"]],
        tasks=by_prefix[KIND_PREFIX["task"]],
        inbox=by_prefix[KIND_PREFIX["inbox"]],
        tags=tags,
        settings=settings[0] if settings else None,
        source=source,
    )


def load_state(items: ItemStore, user_id: str) -> TodoState:
    """The user's whole todo state from the partition's `TODO#` range, read as the two ranges
    around the list sizes (`TODO#COUNT#...`, one per root task: read by board pages, not here)."""
    partition = user_partition(user_id)
    below, above = prefix_range(SIZE_PREFIX)
    return _state(
        [_walk_range(items, partition, PREFIX, below), _walk_range(items, partition, above, PREFIX_END)], None
    )


def load_records(items: ItemStore, user_id: str) -> TodoState:
    """A partial state with no structure read: records by key and their GSI2 lists only, for a
    read that needs no space, column or tag (a task's history's subtasks). Nothing is read yet."""
    return TodoState(source=_Source(items, user_id))


def load_partial(items: ItemStore, user_id: str) -> TodoState:
    """What a write needs up front: the structure (settings, slug claims, spaces, tags: one
    range Query `TODO#SETTINGS` .. `TODO#TASK#`; columns: one prefix Query); tasks and inbox
    items on demand (see the module docstring)."""
    partition = user_partition(user_id)
    structure = _walk_range(items, partition, SETTINGS_SK, KIND_PREFIX["task"])
    columns = _walk(items, partition, KIND_PREFIX["column"])
    return _state([structure, columns], _Source(items, user_id))
