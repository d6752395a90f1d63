"""Todo keys in the single table, and the stored form of a todo record. Pure: no I/O.

Keys (pk `U#<userId>` for all): `TODO#SPACE#<id>`, `TODO#SLUG#<slug>` (claim -> spaceId),
`TODO#COL#<id>`, `TODO#TASK#<id>` (root tasks and subtasks), `TODO#INBOX#<id>` (inbox items with
embedded subtasks), `TODO#TAG#<name>`, `TODO#SETTINGS` (defaultSpaceId).

GSI2 (projection ALL; keys set by `stored` on every write, so they never go stale): a live root
task under `U#<user>#TODOCOL#<columnId>`, a subtask (trashed too) under
`U#<user>#TODOSUB#<parentId>`, a live inbox item under `U#<user>#TODOINBOX`, each with sort key
`<position>#<id>` (`#` sorts below every position and id character, so the index order is
`model.sort_key`'s).

List sizes: `TODO#COUNT#COL#<columnId>`, `TODO#COUNT#INBOX`, `TODO#COUNT#SUB#<taskId>` hold
`count`, the number of items in that GSI2 list, kept by `list_sizes.size_ops` in each write's own
transaction (so a board read pages through a column without reading the rest of the board).
"""

from __future__ import annotations

from typing import Literal

from ..kernel.keys import user_partition
from ..store.ports import Item, Key

PREFIX = "TODO#"
Kind = Literal["space", "slug", "column", "task", "inbox", "tag"]
KIND_PREFIX: dict[str, str] = {
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


def key(user_id: str, kind: Kind, ident: str) -> Key:
    return (user_partition(user_id), KIND_PREFIX[kind] + ident)


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


def ident(kind: Kind, record: Item) -> str:
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


SIZE_PREFIX = "TODO#COUNT#"
#: The sizes a board read needs up front (columns, inbox) sort before the per-task ones.
SUBTASK_SIZE_PREFIX = "TODO#COUNT#SUB#"


def size_key(user_id: str, partition: str) -> Key:
    """The key of the size item of one GSI2 list (`column_list`, `subtask_list`, `inbox_list`)."""
    owner = user_partition(user_id)
    name = partition.removeprefix(f"{owner}#").removeprefix("TODO")
    return (owner, SIZE_PREFIX + name.removeprefix("#"))


def list_of_size(user_id: str, sk: str) -> str:
    """The GSI2 list a size item counts (the inverse of `size_key`)."""
    return f"{user_partition(user_id)}#TODO{sk.removeprefix(SIZE_PREFIX)}"


def live(record: Item) -> bool:
    """Not in the trash."""
    return record.get("deletedAt") is None


def list_of(user_id: str, kind: Kind, record: Item | None) -> str | None:
    """The GSI2 list a stored record is in (None: in none, or no record)."""
    return None if record is None else _index_keys(user_id, kind, record).get("gsi2pk")


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
    pk, sk = key(user_id, kind, ident(kind, record))
    return {**record_of(record), **_index_keys(user_id, kind, record), "pk": pk, "sk": sk}


def record_of(item: Item) -> Item:
    """A stored item without its keys: the record."""
    return {name: value for name, value in item.items() if name not in _INDEX_KEYS}


def prefix_range(prefix: str) -> tuple[str, str]:
    """The sort-key range [start, end) holding exactly the keys that start with `prefix`."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)
