"""Todo keys in the single table, and the stored form of a todo record. Pure: no I/O.

Keys (pk `U#<userId>` for all): `TODO#SPACE#<id>`, `TODO#SLUG#<slug>` (claim -> spaceId),
`TODO#COL#<id>`, `TODO#TASK#<id>` (root tasks and subtasks), `TODO#INBOX#<id>` (inbox items with
embedded subtasks), `TODO#TAG#<name>`, `TODO#SETTINGS` (defaultSpaceId; the user's settings item,
whose key `auth/user_zone.py` writes because the user's `timezone` lives there too).

GSI2 (projection ALL; keys set by `stored` on every write, so they never go stale): a live root
task under `U#<user>#TODOCOL#<columnId>`, a subtask (trashed too) under
`U#<user>#TODOSUB#<parentId>`, a live inbox item under `U#<user>#TODOINBOX`, each with sort key
`<position>#<id>` (`#` sorts below every position and id character, so the index order is
`model.sort_key`'s).

GSI1 (the due index, INCLUDE projection: keys and `updatedAt`/`createdAt`; also set by `stored`):
every live task (root or subtask, archived column too) under
`U#<user>#TODODUE#<open|done>#<priority>` with sort key `<day>#<cover>`, `<day>` being its due's
date (a date-only due) or the UTC date of its instant (a datetime due), `~` without a due. A
date-only due's instant depends on a zone (its own, the user's, the query's), so it lies on
`<day>` or the day before in UTC: `todos/due_index.py` reads a day-range one day wider and the
query filters exactly. `<cover>` (`due_cover`) is the JSON list of what query_todos filters and
orders a task by besides its status and priority (the partition): parentId, columnId, spaceId,
due, timezone, updatedAt. Every write recomputes it, so a query decides the filter and the order
from the keys alone and reads by key only the page's records (and subtasks' parents). A cover
that would not fit DynamoDB's 1,024-byte sort key is `~` (`NO_COVER`): that task's record is read.
Trashed tasks and inbox items are not in it.

List sizes: `TODO#COUNT#COL#<columnId>`, `TODO#COUNT#INBOX`, `TODO#COUNT#SUB#<taskId>` hold
`count`, the number of items in that GSI2 list, kept by `list_sizes.size_ops` in each write's own
transaction (so a board read pages through a column without reading the rest of the board).
"""

from __future__ import annotations

import json
from datetime import UTC, date
from typing import Any, Literal

from ..auth.user_zone import SETTINGS_SK as SETTINGS_SK
from ..auth.user_zone import settings_key as settings_key
from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, Key
from ..kernel.timestamps import parse_timestamp

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
INDEX = "gsi2"
_INDEX_KEYS = frozenset({"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"})
DUE_INDEX = "gsi1"
#: The sort-key day of a task without a due: after every date, so a day range never holds it.
UNDATED = "~"


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


def due_partition(user_id: str, done: bool, priority: str) -> str:
    """GSI1 partition of the live tasks of one status and priority (the due index)."""
    return f"{user_partition(user_id)}#TODODUE#{'done' if done else 'open'}#{priority}"


def due_day(due: Any) -> str:
    """The due index's day of a due: a date-only due's own date, a datetime due's UTC date,
    UNDATED without one (or with one our writes never store)."""
    if not isinstance(due, dict) or not due:
        return UNDATED
    try:
        if due.get("type") == "datetime":
            return parse_timestamp(str(due["at"]), "due.at").astimezone(UTC).date().isoformat()
        return date.fromisoformat(str(due["date"])).isoformat()
    except (KeyError, ValueError, OverflowError, ValidationError):
        return UNDATED


def _due_keys(user_id: str, kind: Kind, record: Item) -> dict[str, str]:
    """The GSI1 keys of a live task (none for anything else)."""
    if kind != "task" or not live(record):
        return {}
    partition = due_partition(user_id, bool(record.get("done")), str(record.get("priority") or "none"))
    return {"gsi1pk": partition, "gsi1sk": f"{due_day(record.get('due'))}#{due_cover(record)}"}


#: The fields of a task the due index's sort key carries, in the cover's order.
COVERED = ("parentId", "columnId", "spaceId", "due", "timezone", "updatedAt")
#: The cover of a task whose fields do not fit a sort key (or are not JSON): its record is read.
NO_COVER = "~"
_MAX_SORT_KEY_BYTES = 1024  # DynamoDB's limit of a sort key (the day and `#` included)
_DECODE = json.JSONDecoder().decode


def due_cover(record: Item) -> str:
    """What a query needs of a task besides its status and priority, as compact JSON."""
    try:
        cover = json.dumps([record.get(name) for name in COVERED], separators=(",", ":"))
    except (TypeError, ValueError):
        return NO_COVER
    return cover if len(cover.encode()) <= _MAX_SORT_KEY_BYTES - 16 else NO_COVER


def covered_record(task_id: str, done: bool, priority: str, sort_key: str) -> Item | None:
    """The part of a task's record its due-index entry holds (`id`, `done`, `priority` and
    COVERED), or None when the entry has no cover (NO_COVER, or a key written before it)."""
    cover = sort_key.partition("#")[2]
    if not cover.startswith("["):
        return None
    try:
        values = _DECODE(cover)
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != len(COVERED):
        return None
    return {"id": task_id, "done": done, "priority": priority, **dict(zip(COVERED, values, strict=True))}


def due_keys_of(user_id: str, record: Item) -> dict[str, str]:
    """The due-index keys a stored task should carry (the backfill compares them)."""
    return _due_keys(user_id, "task", record)


def _index_keys(user_id: str, kind: Kind, record: Item) -> dict[str, str]:
    """The GSI1 (due) and GSI2 (list) keys of a record (none when it is in neither)."""
    due = _due_keys(user_id, kind, record)
    partition: str | None = None
    if kind == "task" and record.get("parentId") is not None:
        partition = subtask_list(user_id, str(record["parentId"]))
    elif kind == "task" and record.get("columnId") and live(record):
        partition = column_list(user_id, str(record["columnId"]))
    elif kind == "inbox" and live(record):
        partition = inbox_list(user_id)
    if partition is None:
        return due
    return {**due, "gsi2pk": partition, "gsi2sk": f"{record['position']}#{record['id']}"}


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
