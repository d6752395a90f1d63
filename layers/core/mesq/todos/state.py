"""Todo persistence: single-table keys, the whole-state snapshot, the lazy default space and the
transactional write helpers.

Offers (stable names):
- keys: `PREFIX`, `key(user_id, kind, id)`, `slug_key`, `column_key`, `task_key`, `inbox_key`,
  `settings_key`; `stored(user_id, kind, record)` = record + pk/sk;
- `TodoState` + `load_state(items, user_id)`: ONE paginated query (sk begins_with `TODO#`) of
  the user's whole todo state (what the read views use), with lookups (`default_space`,
  `space_by_slug`, `first_open_column`, `root_tasks`, `root_positions`, `subtasks_of`,
  `live_inbox`, ...);
- `load_partial(items, user_id)`: what writes use: the same TodoState, but only the small
  structure (settings, slug claims, spaces, columns, tags: one GetItem-sized range Query and one
  prefix Query) is read up front; tasks and inbox items are `Records` fetched by key on first
  use (GetItem / BatchGetItem), and the lists a write needs come from GSI2 (below), so a write
  costs O(what it touches), not O(the board). Iterating `state.tasks` / `state.inbox` still
  works: it loads that whole kind (only rare writes do it: tag rename/delete, space/column
  delete);
- `ensure_default_space(items, user_id, partial=...)`: the lazy default space (one
  transaction, race-safe), returns a TodoState that has it;
- writes: `put_new(user_id, kind, record)`, `put_revised(user_id, kind, before, after)`,
  `delete_revised(...)`, `commit(items, ops)` (<= 100 ops, else VALIDATION_ERROR),
  `tag_registrations(state, user_id, tags, now)` (Puts for tags not yet in the registry),
  `bump(before, now)` (the next revision + updatedAt of a record).

Keys (pk `U#<userId>` for all): `TODO#SPACE#<id>`, `TODO#SLUG#<slug>` (claim -> spaceId),
`TODO#COL#<id>`, `TODO#TASK#<id>` (root tasks and subtasks), `TODO#INBOX#<id>` (inbox items with
embedded subtasks), `TODO#TAG#<name>`, `TODO#SETTINGS` (defaultSpaceId).

GSI2 (projection ALL; keys set by `stored` on every write, so they never go stale): a live root
task under `U#<user>#TODOCOL#<columnId>`, a subtask (trashed too) under
`U#<user>#TODOSUB#<parentId>`, a live inbox item under `U#<user>#TODOINBOX`, each with sort key
`<position>#<id>` (`#` sorts below every position and id character, so the index order is
`model.sort_key`'s). Index reads are eventually consistent on DynamoDB: they only ever supply
positions and ids; the records a write conditions on are re-read from the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..auth.users import user_partition
from ..errors import ValidationError
from ..store.item_rules import MAX_TRANSACTION_OPS
from ..store.paging import walk
from ..store.ports import Condition, ConditionFailed, Delete, Item, ItemStore, Key, Put, WriteOp
from ..timestamps import now_timestamp
from . import model

PREFIX = "TODO#"
Kind = Literal["space", "slug", "column", "task", "inbox", "tag"]
_KIND_PREFIX: dict[str, str] = {
    "space": "TODO#SPACE#",
    "slug": "TODO#SLUG#",
    "column": "TODO#COL#",
    "task": "TODO#TASK#",
    "inbox": "TODO#INBOX#",
    "tag": "TODO#TAG#",
}
SETTINGS_SK = "TODO#SETTINGS"
INDEX = "gsi2"
_INDEX_KEYS = ("pk", "sk", "gsi2pk", "gsi2sk")
# Positions read beyond `index` when inserting at an index: room to step over tied positions.
_TIE_MARGIN = 8


def key(user_id: str, kind: Kind, ident: str) -> Key:
    return (user_partition(user_id), _KIND_PREFIX[kind] + ident)


def slug_key(user_id: str, slug: str) -> Key:
    return key(user_id, "slug", slug)


def column_key(user_id: str, column_id: str) -> Key:
    return key(user_id, "column", column_id)


def task_key(user_id: str, task_id: str) -> Key:
    return key(user_id, "task", task_id)


def inbox_key(user_id: str, item_id: str) -> Key:
    return key(user_id, "inbox", item_id)


def settings_key(user_id: str) -> Key:
    return (user_partition(user_id), SETTINGS_SK)


def _ident(kind: Kind, record: Item) -> str:
    return str(record["name"] if kind == "tag" else record["id"])


def column_list(user_id: str, column_id: str) -> str:
    """GSI2 partition of a column's live root tasks."""
    return f"{user_partition(user_id)}#TODOCOL#{column_id}"


def subtask_list(user_id: str, task_id: str) -> str:
    """GSI2 partition of a task's subtasks (trashed ones too)."""
    return f"{user_partition(user_id)}#TODOSUB#{task_id}"


def inbox_list(user_id: str) -> str:
    """GSI2 partition of the live inbox items."""
    return f"{user_partition(user_id)}#TODOINBOX"


def _index_keys(user_id: str, kind: Kind, record: Item) -> dict[str, str]:
    """The GSI2 keys of a record (none when it is in no ordered list a write reads)."""
    partition: str | None = None
    if kind == "task" and record.get("parentId") is not None:
        partition = subtask_list(user_id, str(record["parentId"]))
    elif kind == "task" and record.get("columnId") and live(record):
        partition = column_list(user_id, str(record["columnId"]))
    elif kind == "inbox" and live(record):
        partition = inbox_list(user_id)
    if partition is None:
        return {}
    return {"gsi2pk": partition, "gsi2sk": f"{record['position']}#{record['id']}"}


def stored(user_id: str, kind: Kind, record: Item) -> Item:
    """The item as stored: the record plus its keys (GSI2 keys recomputed, never copied)."""
    pk, sk = key(user_id, kind, _ident(kind, record))
    return {**_record(record), **_index_keys(user_id, kind, record), "pk": pk, "sk": sk}


def _record(item: Item) -> Item:
    return {name: value for name, value in item.items() if name not in _INDEX_KEYS}


class Records(Mapping[str, Item]):
    """Records of one kind by id. Complete (a full load), or partial: a missing id is fetched
    by key on first use (negative answers are remembered too), `prefetch` fetches many in one
    BatchGetItem, and iterating loads the whole kind once (one prefix Query)."""

    def __init__(
        self,
        known: Mapping[str, Item] | None = None,
        *,
        fetch_one: Callable[[str], Item | None] | None = None,
        fetch_many: Callable[[list[str]], dict[str, Item]] | None = None,
        fetch_all: Callable[[], dict[str, Item]] | None = None,
    ) -> None:
        self._known: dict[str, Item | None] = dict(known or {})
        self._fetch_one, self._fetch_many, self._fetch_all = fetch_one, fetch_many, fetch_all

    @property
    def complete(self) -> bool:
        return self._fetch_all is None

    def prefetch(self, idents: Iterable[str]) -> None:
        missing = [i for i in dict.fromkeys(idents) if i not in self._known]
        if self.complete or not missing or self._fetch_many is None:
            return
        found = self._fetch_many(missing)
        for ident in missing:
            self._known[ident] = found.get(ident)

    def __getitem__(self, ident: str) -> Item:
        if not self.complete and ident not in self._known and self._fetch_one is not None:
            self._known[ident] = self._fetch_one(ident)
        found = self._known.get(ident)
        if found is None:
            raise KeyError(ident)
        return found

    def _everything(self) -> dict[str, Item]:
        if self._fetch_all is not None:
            self._known = dict(self._fetch_all())
            self._fetch_all = None
        return {ident: record for ident, record in self._known.items() if record is not None}

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())

    def __repr__(self) -> str:
        return f"Records({self._everything()!r})"


# -- the snapshot ------------------------------------------------------------------------------


@dataclass
class _Source:
    """Where a partial state fetches what it was not given."""

    items: ItemStore
    user_id: str

    def index_items(self, partition: str, *, descending: bool = False, limit: int | None = None) -> list[Item]:
        """Records of one GSI2 list in index order (all of it, or the first `limit`)."""
        return [_record(item) for item in walk(self.items, partition, index=INDEX, descending=descending, limit=limit)]


@dataclass
class TodoState:
    """One user's todo state (records without keys), by id (tags by name). Deleted (trashed)
    tasks and inbox items are included; filter with `live`. From `load_state` everything is in
    memory; from `load_partial` tasks and inbox items are fetched on demand (see `Records`) and
    the ordered lists come from GSI2 (`source` set)."""

    spaces: dict[str, Item] = field(default_factory=dict)
    slugs: dict[str, str] = field(default_factory=dict)  # slug -> spaceId (the claims)
    columns: dict[str, Item] = field(default_factory=dict)
    tasks: Records = field(default_factory=Records)  # root tasks and subtasks
    inbox: Records = field(default_factory=Records)
    tags: dict[str, Item] = field(default_factory=dict)
    settings: Item | None = None
    source: _Source | None = field(default=None, compare=False, repr=False)

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

    def _indexed(self, records: Records) -> _Source | None:
        """The source to read ordered lists from GSI2, when this state is partial."""
        return None if records.complete else self.source

    def root_tasks(self, column_id: str, *, include_deleted: bool = False, consistent: bool = False) -> list[Item]:
        """A column's root tasks in order. A partial state reads the column's GSI2 list (live
        tasks only; eventually consistent) unless `consistent` (or `include_deleted`) asks for
        the table itself (the whole task set: emptiness checks before deleting a column)."""
        source = None if include_deleted or consistent else self._indexed(self.tasks)
        if source is not None:
            found = [t for t in source.index_items(column_list(source.user_id, column_id)) if live(t)]
        else:
            found = [
                t
                for t in self.tasks.values()
                if t.get("parentId") is None and t.get("columnId") == column_id and (include_deleted or live(t))
            ]
        return sorted(found, key=model.sort_key)

    def root_positions(self, column_id: str, index: int | None = None, exclude: str | None = None) -> list[str]:
        """Sorted positions of the column's live root tasks (but `exclude`): all of them, or on a
        partial state just enough for `model.position_for_index(positions, index)` (the last
        one to append, the first `index` + a few to insert)."""
        source = self._indexed(self.tasks)
        if source is None:
            return [str(t["position"]) for t in self.root_tasks(column_id) if t["id"] != exclude]
        return _head_positions(source, column_list(source.user_id, column_id), index, exclude)

    def root_after(self, task: Item) -> Item | None:
        """The live root task right after `task` in its column."""
        source = self._indexed(self.tasks)
        if source is None:
            later = [t for t in self.root_tasks(task["columnId"]) if model.sort_key(t) > model.sort_key(task)]
            return later[0] if later else None
        partition = column_list(source.user_id, str(task["columnId"]))
        page = source.items.query(partition, index=INDEX, start=f"{task['position']}#{task['id']}", limit=2)
        later = [_record(t) for t in page.items if model.sort_key(t) > model.sort_key(task)]
        return later[0] if later else None

    def live_tasks_in_space(self, space_id: str) -> list[Item]:
        return [t for t in self.tasks.values() if t["spaceId"] == space_id and t.get("parentId") is None and live(t)]

    def subtasks_of(self, task_id: str, *, include_deleted: bool = False) -> list[Item]:
        source = self._indexed(self.tasks)
        if source is not None:
            # The index names them; the records come from the table (a write conditions on them).
            ids = [str(t["id"]) for t in source.index_items(subtask_list(source.user_id, task_id))]
            self.tasks.prefetch(ids)
            candidates: Iterable[Item] = [self.tasks[i] for i in ids if i in self.tasks]
        else:
            candidates = self.tasks.values()
        found = [t for t in candidates if t.get("parentId") == task_id and (include_deleted or live(t))]
        return sorted(found, key=model.sort_key)

    def live_inbox(self) -> list[Item]:
        source = self._indexed(self.inbox)
        if source is not None:
            return sorted((i for i in source.index_items(inbox_list(source.user_id)) if live(i)), key=model.sort_key)
        return sorted((i for i in self.inbox.values() if live(i)), key=model.sort_key)

    def inbox_positions(self, index: int | None = None) -> list[str]:
        """Like `root_positions`, for the live inbox."""
        source = self._indexed(self.inbox)
        if source is None:
            return [str(i["position"]) for i in self.live_inbox()]
        return _head_positions(source, inbox_list(source.user_id), index, None)


def _head_positions(source: _Source, partition: str, index: int | None, exclude: str | None) -> list[str]:
    if index is None:  # append: only the last position matters
        tail = [t for t in source.index_items(partition, descending=True, limit=2) if t["id"] != exclude]
        return [str(tail[0]["position"])] if tail else []
    head = source.index_items(partition, limit=max(index, 0) + 2 + _TIE_MARGIN)
    return [str(t["position"]) for t in sorted(head, key=model.sort_key) if t["id"] != exclude]


def live(record: Item) -> bool:
    """Not in the trash."""
    return record.get("deletedAt") is None


def prefix_range(prefix: str) -> tuple[str, str]:
    """The sort-key range [start, end) holding exactly the keys that start with `prefix`."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _walk(items: ItemStore, partition: str, prefix: str = PREFIX) -> Iterable[Item]:
    # As a key range rather than `prefix=`: the same items, and an adapter that cannot use an
    # index for a prefix (SQLite's substr filter) reads only the range, not the partition.
    return _walk_range(items, partition, *prefix_range(prefix))


def _walk_range(items: ItemStore, partition: str, start: str, end: str) -> Iterable[Item]:
    return walk(items, partition, start=start, end=end)


_TARGET_PREFIXES = ("TODO#SPACE#", "TODO#COL#", "TODO#TASK#", "TODO#INBOX#")


def _sort_in(state_parts: dict[str, dict[str, Item]], settings: list[Item], slugs: dict[str, str],
             tags: dict[str, Item], items: Iterable[Item]) -> None:  # fmt: skip
    for item in items:
        sk = str(item["sk"])
        if sk == SETTINGS_SK:
            settings.append(_record(item))
        elif sk.startswith("TODO#SLUG#"):
            slugs[sk.removeprefix("TODO#SLUG#")] = str(item["spaceId"])
        elif sk.startswith("TODO#TAG#"):
            tags[sk.removeprefix("TODO#TAG#")] = _record(item)
        else:
            for prefix in _TARGET_PREFIXES:
                if sk.startswith(prefix):
                    state_parts[prefix][sk.removeprefix(prefix)] = _record(item)
                    break


def load_state(items: ItemStore, user_id: str) -> TodoState:
    """The user's whole todo state from one paginated query of the partition's `TODO#` range."""
    parts: dict[str, dict[str, Item]] = {prefix: {} for prefix in _TARGET_PREFIXES}
    settings: list[Item] = []
    slugs: dict[str, str] = {}
    tags: dict[str, Item] = {}
    _sort_in(parts, settings, slugs, tags, _walk(items, user_partition(user_id)))
    return TodoState(
        spaces=parts["TODO#SPACE#"],
        slugs=slugs,
        columns=parts["TODO#COL#"],
        tasks=Records(parts["TODO#TASK#"]),
        inbox=Records(parts["TODO#INBOX#"]),
        tags=tags,
        settings=settings[0] if settings else None,
    )


def _lazy_records(source: _Source, kind: Kind) -> Records:
    partition, prefix = user_partition(source.user_id), _KIND_PREFIX[kind]

    def one(ident: str) -> Item | None:
        found = source.items.get(key(source.user_id, kind, ident))
        return None if found is None else _record(found)

    def many(idents: list[str]) -> dict[str, Item]:
        found = source.items.batch_get([key(source.user_id, kind, ident) for ident in idents])
        return {str(item["sk"]).removeprefix(prefix): _record(item) for item in found}

    def every() -> dict[str, Item]:
        return {str(item["sk"]).removeprefix(prefix): _record(item) for item in _walk(source.items, partition, prefix)}

    return Records(fetch_one=one, fetch_many=many, fetch_all=every)


def load_partial(items: ItemStore, user_id: str) -> TodoState:
    """What a write needs up front: the structure (settings, slug claims, spaces, tags: one
    range Query `TODO#SETTINGS` .. `TODO#TASK#`; columns: one prefix Query); tasks and inbox
    items on demand (see the module docstring)."""
    parts: dict[str, dict[str, Item]] = {prefix: {} for prefix in _TARGET_PREFIXES}
    settings: list[Item] = []
    slugs: dict[str, str] = {}
    tags: dict[str, Item] = {}
    partition = user_partition(user_id)
    structure = _walk_range(items, partition, SETTINGS_SK, _KIND_PREFIX["task"])
    _sort_in(parts, settings, slugs, tags, structure)
    _sort_in(parts, settings, slugs, tags, _walk(items, partition, _KIND_PREFIX["column"]))
    source = _Source(items, user_id)
    return TodoState(
        spaces=parts["TODO#SPACE#"],
        slugs=slugs,
        columns=parts["TODO#COL#"],
        tasks=_lazy_records(source, "task"),
        inbox=_lazy_records(source, "inbox"),
        tags=tags,
        settings=settings[0] if settings else None,
        source=source,
    )


# -- the default space -------------------------------------------------------------------------


def _free_slug(state: TodoState, wanted: str) -> str:
    if wanted not in state.slugs:
        return wanted
    number = 2
    while f"{wanted}-{number}" in state.slugs:
        number += 1
    return f"{wanted}-{number}"


def new_space_ops(
    user_id: str, state: TodoState, name: str, slug: str, column_names: Sequence[str], now: str
) -> tuple[Item, list[Item], list[WriteOp]]:
    """A space, its slug claim and its columns as conditional Puts (the claim fails on a taken
    slug, which is what keeps slugs unique under races)."""
    last = max((s["position"] for s in state.spaces.values()), default=None)
    space: Item = {
        "id": model.new_id(),
        "name": name,
        "slug": slug,
        "position": model.position_between(last, None),
        "revision": 1,
        "createdAt": now,
        "updatedAt": now,
    }
    positions = model.positions_between(None, None, len(column_names))
    columns: list[Item] = [
        {
            "id": model.new_id(),
            "spaceId": space["id"],
            "name": column_name,
            "position": position,
            "archived": False,
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
        }
        for column_name, position in zip(column_names, positions, strict=True)
    ]
    ops: list[WriteOp] = [
        put_new(user_id, "space", space),
        Put({"pk": slug_key(user_id, slug)[0], "sk": slug_key(user_id, slug)[1], "spaceId": space["id"]},
            Condition(exists=False)),
    ]  # fmt: skip
    ops += [put_new(user_id, "column", column) for column in columns]
    return space, columns, ops


def ensure_default_space(
    items: ItemStore, user_id: str, state: TodoState | None = None, *, partial: bool = False
) -> TodoState:
    """A state that has the default space, creating it (with DEFAULT_COLUMNS) on first use in ONE
    transaction guarded by `Condition(exists=False)` on the settings item: of two racing first
    uses one wins, the other re-reads and uses the winner's space. `partial`: the state is a
    write's `load_partial` one, else the whole `load_state`."""
    load = load_partial if partial else load_state
    state = state if state is not None else load(items, user_id)
    if state.default_space() is not None:
        return state
    now = now_timestamp()
    slug = _free_slug(state, model.DEFAULT_ALIAS)
    space, _columns, ops = new_space_ops(user_id, state, model.DEFAULT_SPACE_NAME, slug, model.DEFAULT_COLUMNS, now)
    pk, sk = settings_key(user_id)
    settings: Item = {"pk": pk, "sk": sk, "defaultSpaceId": space["id"], "revision": 1, "updatedAt": now}
    if state.settings is None:
        ops.append(Put(settings, Condition(exists=False)))
    else:  # settings exist but name no space (never by our writes): repair, still conditional
        revision = int(state.settings.get("revision", 1))
        repaired = {**state.settings, **settings, "revision": revision + 1}
        ops.append(Put(repaired, Condition(equals={"revision": revision})))
    try:
        items.transact(ops)
    except ConditionFailed:
        state = load(items, user_id)
        if state.default_space() is None:
            raise
        return state
    return load(items, user_id)


# -- writes ------------------------------------------------------------------------------------


def put_new(user_id: str, kind: Kind, record: Item) -> Put:
    return Put(stored(user_id, kind, record), Condition(exists=False))


def put_revised(user_id: str, kind: Kind, before: Item, after: Item) -> Put:
    """`after` in place of `before`, only if nobody changed it meanwhile (same revision)."""
    return Put(stored(user_id, kind, after), Condition(equals={"revision": before["revision"]}))


def delete_revised(user_id: str, kind: Kind, before: Item) -> Delete:
    return Delete(key(user_id, kind, _ident(kind, before)), Condition(equals={"revision": before["revision"]}))


def bump(before: Item, now: str | None = None) -> dict[str, Any]:
    """The revision and updatedAt a change of `before` gets (updatedAt never goes backwards)."""
    moment = now or now_timestamp()
    return {"revision": int(before["revision"]) + 1, "updatedAt": max(moment, str(before["updatedAt"]))}


def tag_registrations(state: TodoState, user_id: str, tags: Iterable[str], now: str) -> list[WriteOp]:
    """Puts registering tags the registry does not know yet (every tag used on a record is a tag
    record, so list_todo_tags is the registry). A concurrent registration of the same name makes
    the transaction fail; callers reload and retry once."""
    ops: list[WriteOp] = []
    for name in dict.fromkeys(tags):
        if name not in state.tags:
            record = {"name": name, "color": None, "revision": 1, "createdAt": now, "updatedAt": now}
            ops.append(put_new(user_id, "tag", record))
    return ops


def commit(items: ItemStore, ops: Sequence[WriteOp]) -> None:
    """One all-or-nothing transaction; more than 100 writes is refused before anything is written."""
    if len(ops) > MAX_TRANSACTION_OPS:
        raise ValidationError(
            f"this change needs {len(ops)} writes; one atomic change may have at most {MAX_TRANSACTION_OPS}"
        )
    if ops:
        items.transact(list(ops))
