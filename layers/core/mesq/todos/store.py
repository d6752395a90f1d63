"""Todo persistence: single-table keys, the whole-state snapshot, the lazy default space and the
transactional write helpers.

Offers (stable names):
- keys: `PREFIX`, `space_key`, `slug_key`, `column_key`, `task_key`, `inbox_key`, `tag_key`,
  `settings_key`; `stored(user_id, kind, record)` = record + pk/sk;
- `TodoState` + `load_state(items, user_id)`: ONE paginated query (sk begins_with `TODO#`) of
  the user's whole todo state, with lookups (`default_space`, `space_by_slug`, `live_columns`,
  `first_open_column`, `root_tasks`, `subtasks_of`, `live_inbox`, ...);
- `ensure_default_space(items, user_id)`: the lazy default space (one transaction, race-safe),
  returns a TodoState that has it;
- writes: `put_new(user_id, kind, record)`, `put_revised(user_id, kind, before, after)`,
  `delete_revised(...)`, `commit(items, ops)` (<= 100 ops, else VALIDATION_ERROR),
  `tag_registrations(state, user_id, tags, now)` (Puts for tags not yet in the registry),
  `bump(before, now)` (the next revision + updatedAt of a record).

Keys (pk `U#<userId>` for all): `TODO#SPACE#<id>`, `TODO#SLUG#<slug>` (claim -> spaceId),
`TODO#COL#<id>`, `TODO#TASK#<id>` (root tasks and subtasks), `TODO#INBOX#<id>` (inbox items with
embedded subtasks), `TODO#TAG#<name>`, `TODO#SETTINGS` (defaultSpaceId).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..auth.users import user_partition
from ..errors import ValidationError
from ..store.item_rules import MAX_TRANSACTION_OPS
from ..store.ports import Condition, ConditionFailed, Delete, Item, ItemStore, Key, Put, WriteOp
from ..timestamps import now_timestamp
from . import model

PREFIX = "TODO#"
QUERY_PAGE = 1000
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


def key(user_id: str, kind: Kind, ident: str) -> Key:
    return (user_partition(user_id), _KIND_PREFIX[kind] + ident)


def space_key(user_id: str, space_id: str) -> Key:
    return key(user_id, "space", space_id)


def slug_key(user_id: str, slug: str) -> Key:
    return key(user_id, "slug", slug)


def column_key(user_id: str, column_id: str) -> Key:
    return key(user_id, "column", column_id)


def task_key(user_id: str, task_id: str) -> Key:
    return key(user_id, "task", task_id)


def inbox_key(user_id: str, item_id: str) -> Key:
    return key(user_id, "inbox", item_id)


def tag_key(user_id: str, name: str) -> Key:
    return key(user_id, "tag", name)


def settings_key(user_id: str) -> Key:
    return (user_partition(user_id), SETTINGS_SK)


def _ident(kind: Kind, record: Item) -> str:
    return str(record["name"] if kind == "tag" else record["id"])


def stored(user_id: str, kind: Kind, record: Item) -> Item:
    """The item as stored: the record plus its keys."""
    pk, sk = key(user_id, kind, _ident(kind, record))
    return {**record, "pk": pk, "sk": sk}


def _record(item: Item) -> Item:
    return {name: value for name, value in item.items() if name not in ("pk", "sk")}


# -- the snapshot ------------------------------------------------------------------------------


@dataclass
class TodoState:
    """One user's whole todo state at one moment (records without pk/sk), keyed by id (tags by
    name). Deleted (trashed) tasks and inbox items are included; filter with `live`."""

    spaces: dict[str, Item] = field(default_factory=dict)
    slugs: dict[str, str] = field(default_factory=dict)  # slug -> spaceId (the claims)
    columns: dict[str, Item] = field(default_factory=dict)
    tasks: dict[str, Item] = field(default_factory=dict)  # root tasks and subtasks
    inbox: dict[str, Item] = field(default_factory=dict)
    tags: dict[str, Item] = field(default_factory=dict)
    settings: Item | None = None

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

    def root_tasks(self, column_id: str, *, include_deleted: bool = False) -> list[Item]:
        found = [
            t
            for t in self.tasks.values()
            if t.get("parentId") is None and t.get("columnId") == column_id and (include_deleted or live(t))
        ]
        return sorted(found, key=model.sort_key)

    def live_tasks_in_space(self, space_id: str) -> list[Item]:
        return [t for t in self.tasks.values() if t["spaceId"] == space_id and t.get("parentId") is None and live(t)]

    def subtasks_of(self, task_id: str, *, include_deleted: bool = False) -> list[Item]:
        found = [t for t in self.tasks.values() if t.get("parentId") == task_id and (include_deleted or live(t))]
        return sorted(found, key=model.sort_key)

    def live_inbox(self) -> list[Item]:
        return sorted((i for i in self.inbox.values() if live(i)), key=model.sort_key)


def live(record: Item) -> bool:
    """Not in the trash."""
    return record.get("deletedAt") is None


def _walk(items: ItemStore, partition: str) -> Iterable[Item]:
    after = None
    while True:
        page = items.query(partition, prefix=PREFIX, limit=QUERY_PAGE, after=after)
        yield from page.items
        if page.next_key is None:
            return
        after = page.next_key


def load_state(items: ItemStore, user_id: str) -> TodoState:
    """The user's whole todo state from one paginated query of the partition's `TODO#` range."""
    state = TodoState()
    targets: dict[str, dict[str, Item]] = {
        "TODO#SPACE#": state.spaces,
        "TODO#COL#": state.columns,
        "TODO#TASK#": state.tasks,
        "TODO#INBOX#": state.inbox,
    }
    for item in _walk(items, user_partition(user_id)):
        sk = str(item["sk"])
        if sk == SETTINGS_SK:
            state.settings = _record(item)
        elif sk.startswith("TODO#SLUG#"):
            state.slugs[sk.removeprefix("TODO#SLUG#")] = str(item["spaceId"])
        elif sk.startswith("TODO#TAG#"):
            state.tags[sk.removeprefix("TODO#TAG#")] = _record(item)
        else:
            for prefix, target in targets.items():
                if sk.startswith(prefix):
                    target[sk.removeprefix(prefix)] = _record(item)
                    break
    return state


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


def ensure_default_space(items: ItemStore, user_id: str, state: TodoState | None = None) -> TodoState:
    """A state that has the default space, creating it (with DEFAULT_COLUMNS) on first use in ONE
    transaction guarded by `Condition(exists=False)` on the settings item: of two racing first
    uses one wins, the other re-reads and uses the winner's space."""
    state = state if state is not None else load_state(items, user_id)
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
        state = load_state(items, user_id)
        if state.default_space() is None:
            raise
        return state
    return load_state(items, user_id)


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
