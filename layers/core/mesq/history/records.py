"""The change record: its keys, its stored shape and its public shape. Pure: no I/O.

A change record is one item, `U#<user>` / `CHANGE#<changeId>`, with no index entry: it is written
in the transaction of its write, where every item costs two write units and every index entry two
more, so the record alone keeps history's cost per write at one item (docs/performance.md). The
change id starts with the microsecond of the change, so the user's changes sort by time and
`since` / `until` are sort-key bounds. The other questions are answered without an index
(history/reads.py):
- by record: a chain. The record's item keeps the ids of its newest LINKS changes
  (`recentChanges`, newest first, beside `historyBytes`) and each change the ids of the LINKS
  before it of the same record (`priors`), both written in the same transaction: the History
  panel reads its changes LINKS at a time;
- by run or session: their ids start with the microsecond they began (`started`), and the
  session log (history/sessions.py) keeps when each session and run last wrote, so their changes
  are read from the user's timeline between the two;
- by actor: the actor's sessions in the log, then the same timeline reads.
Records written before this carry index keys (the `*_partition` functions below name them: gsi1
by run, gsi2 by record, gsi3 by actor, gsi4 by session); the readers merge what those indexes
hold with the above. An account import gives its change records none (archive/records.py links
their chains).

`before` and `after` hold only the fields that changed (a field missing from `before` did not
exist then), plus the revisions around the change; `ttl` expires the record after the
deployment's `history_days`. Past PACK_ABOVE bytes, `before`, `after` and `members` are stored
as one compressed string instead (`packed`: zlib, base64): every KB of a record written in a
transaction costs two write units; `expanded` restores them for every reader.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import zlib
from datetime import UTC, datetime
from typing import Any, Literal

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, Item, Key, Put

RecordKind = Literal["memo", "task", "subtask", "inbox", "space", "column", "tag"]
KINDS: tuple[RecordKind, ...] = ("memo", "task", "subtask", "inbox", "space", "column", "tag")
#: The scope family (`<family>:read` / `<family>:write`) each kind belongs to.
FAMILY: dict[str, str] = {kind: "memo" if kind == "memo" else "todo" for kind in KINDS}
Action = Literal["create", "update", "move", "trash", "restore", "delete"]

CHANGE_PREFIX = "CHANGE#"
#: Bookkeeping every write changes; the revisions are kept apart, updatedAt is the change's `at`.
#: `sync` is a sync client's own bookkeeping on a record (todos/sync/links.py: its resource name,
#: UID and the properties it keeps there, up to 32 KiB): not a field a person edits, and too big
#: to repeat in every change.
_NOT_FIELDS = frozenset(
    {
        "pk",
        "sk",
        "gsi1pk",
        "gsi1sk",
        "gsi2pk",
        "gsi2sk",
        "gsi3pk",
        "gsi3sk",
        "gsi4pk",
        "gsi4sk",
        "ttl",
        "revision",
        "recentChanges",
        "updatedAt",
        "historyBytes",
        "sync",
    }
)
#: Memo fields derived from the content: undo recomputes them, so the record need not repeat them.
_DERIVED = {"memo": frozenset({"tags", "tagPaths"})}
_MOVE_FIELDS = frozenset({"columnId", "spaceId", "position", "parentId"})
#: A change record stays well under DynamoDB's 400 KB item limit: past this, `after` (which the
#: next version or the record itself holds) is left out and `afterOmitted` says so.
MAX_CHANGE_BYTES = 300_000
#: A record's kept history stays under 1 MiB: the record item tracks the bytes of its change
#: records (`historyBytes`); a write that would pass the cap drops the oldest ones, down to
#: TRIM_TO (so the next trims are not at every write), and its change says `olderDropped`.
HISTORY_CAP = 1 << 20
TRIM_TO = HISTORY_CAP * 9 // 10
#: Bytes of `before` + `after` + `members` (their JSON) above which they are stored packed.
PACK_ABOVE = 512
_PACKED_FIELDS = ("before", "after", "members")


#: The length of the time prefix of change, run and session ids (epoch microseconds).
TIME_DIGITS = 17
#: Change ids a record item (`recentChanges`) and a change (`priors`) keep of the record's chain:
#: a reader fetches that many changes per round trip (about 270 bytes on each).
LINKS = 8


def links(value: object) -> list[str]:
    """The change ids a `recentChanges` or `priors` attribute holds (nothing else is followed)."""
    if not isinstance(value, list):
        return []
    return [ident for ident in value[:LINKS] if isinstance(ident, str) and ident]


def change_key(user_id: str, change_id: str) -> Key:
    return (user_partition(user_id), CHANGE_PREFIX + change_id)


def run_partition(user_id: str, run_id: str) -> str:
    return f"{user_partition(user_id)}#RUN#{run_id}"


def record_partition(user_id: str, record_id: str) -> str:
    return f"{user_partition(user_id)}#HIST#{record_id}"


def bare_credential(actor_id: str) -> str:
    """An actor id without its kind (`pat:abc` -> `abc`), the form the indexes key on."""
    return actor_id.partition(":")[2] if ":" in actor_id else actor_id


def actor_partition(user_id: str, actor_id: str) -> str:
    """GSI3's partition of an actor's changes; `actor_id` with or without its kind (`pat:abc`, `abc`)."""
    return f"{user_partition(user_id)}#ACTOR#{bare_credential(actor_id)}"


def actor_index_keys(user_id: str, change: Item) -> dict[str, str]:
    """GSI3's keys of a change record (a change by an actor with no id gets none)."""
    actor_id = str((change.get("actor") or {}).get("id") or "")
    if not actor_id:
        return {}
    return {"gsi3pk": actor_partition(user_id, actor_id), "gsi3sk": str(change["id"])}


def session_partition(user_id: str, session_id: str) -> str:
    return f"{user_partition(user_id)}#SESSION#{session_id}"


def time_prefix(moment: datetime) -> str:
    """The leading part of the ids of changes made at `moment` (17 digits of epoch microseconds)."""
    return f"{int(moment.timestamp() * 1_000_000):017d}"


def started(ident: str) -> str | None:
    """The time prefix a run or session id starts with (the microsecond it began), or None for
    an id made before ids carried one (those are read through their index)."""
    head = ident[:TIME_DIGITS]
    return head if len(ident) > TIME_DIGITS and head.isdigit() and head.isascii() else None


def shifted(prefix: str, microseconds: int) -> str:
    """A time prefix moved on (or back) by `microseconds`."""
    return f"{max(0, int(prefix) + microseconds):0{TIME_DIGITS}d}"


def new_change_id(moment: datetime) -> str:
    return f"{time_prefix(moment)}-{secrets.token_hex(4)}"


def changed_fields(kind: str, before: Item | None, after: Item | None) -> list[str]:
    skip = _NOT_FIELDS | _DERIVED.get(kind, frozenset())
    names = set(before or {}) | set(after or {})
    return sorted(
        name for name in names - skip if (before or {}).get(name, _MISSING) != (after or {}).get(name, _MISSING)
    )


_MISSING = object()


def action_of(kind: str, before: Item | None, after: Item | None, fields: list[str]) -> Action:
    if before is None:
        return "create"
    if after is None:
        return "delete"
    if kind == "memo" and "status" in fields:
        if after["status"] == "DELETED":
            return "trash"
        if before["status"] == "DELETED":
            return "restore"
    if "deletedAt" in fields:
        return "trash" if after.get("deletedAt") else "restore"
    if fields and set(fields) <= _MOVE_FIELDS:
        return "move"
    return "update"


def _bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def change_item(
    *,
    user_id: str,
    change_id: str,
    at: str,
    actor: dict[str, str],
    run_id: str,
    session_id: str,
    operation: str,
    kind: str,
    record_id: str,
    before: Item | None,
    after: Item | None,
    expires: int,
    undoes: str | None = None,
    members: list[Item] | None = None,
    priors: list[str] | None = None,
) -> Item:
    """One change record. `members`: the other records of the same write when one record per
    record would not fit the transaction (`member(...)` each: a move of a task with its 50
    subtasks, a batch of 100); they are undone together with the record. `priors`: the record's
    changes before this one, newest first (its item's `recentChanges`), the links of its chain."""
    fields = changed_fields(kind, before, after)
    item: Item = {
        "id": change_id,
        "at": at,
        "actor": actor,
        "runId": run_id,
        "sessionId": session_id,
        "operation": operation or "unknown",
        "action": action_of(kind, before, after, fields),
        **member(kind, record_id, before, after),
    }
    if undoes is not None:
        item["undoes"] = undoes
    if members:
        item["members"] = members
    if priors:
        item["priors"] = priors[:LINKS]
    size = _bytes(packed(item))
    if size > MAX_CHANGE_BYTES:
        item["after"], item["afterOmitted"] = {}, True
        size = _bytes(packed(item))
    item = packed(item)
    pk, sk = change_key(user_id, change_id)
    return {
        **item,
        "size": size,
        "pk": pk,
        "sk": sk,
        "ttl": expires,
    }


#: A record's title as its change keeps it: what a person recognises the record by in a history
#: ("edited the memo 周报"), as it read at the change, so a record renamed, trashed or purged
#: since is still named. At most this many characters.
TITLE_CHARACTERS = 80
_TITLE_FIELD = {"memo": "content", "task": "title", "subtask": "title", "inbox": "title"}
#: A Markdown line's leading marks: headings, quotes, list bullets and task boxes, numbers.
_MARKDOWN_LEAD = re.compile(r"^\s*(?:#{1,6}\s+|>+\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(?:\[[ xX]\]\s+)?")


def record_title(kind: str, item: Item | None) -> str:
    """The title of a record: a memo's first line with text (its Markdown marks taken off), a
    task's, subtask's or inbox item's title, a space's, column's or tag's name ("" when none)."""
    text = str((item or {}).get(_TITLE_FIELD.get(kind, "name")) or "")
    if kind == "memo":
        lines = (_MARKDOWN_LEAD.sub("", line).strip() for line in text.splitlines())
        text = next((line for line in lines if line), "")
    text = " ".join(text.split())
    return text if len(text) <= TITLE_CHARACTERS else text[: TITLE_CHARACTERS - 1] + "…"


def member(kind: str, record_id: str, before: Item | None, after: Item | None) -> Item:
    fields = changed_fields(kind, before, after)
    title = record_title(kind, after) or record_title(kind, before)
    return {
        "record": {"kind": kind, "id": record_id, **({"title": title} if title else {})},
        "fields": fields,
        "before": {name: before[name] for name in fields if before is not None and name in before},
        "after": {name: after[name] for name in fields if after is not None and name in after},
        "revisions": {
            "before": None if before is None else before.get("revision"),
            "after": None if after is None else after.get("revision"),
        },
    }


def packed(item: Item) -> Item:
    """`item` with its before / after / members as one compressed string when that is smaller
    and they pass PACK_ABOVE bytes; else `item` unchanged."""
    values = {name: item[name] for name in _PACKED_FIELDS if name in item}
    plain = json.dumps(values, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(plain) <= PACK_ABOVE:
        return item
    compressed = base64.b64encode(zlib.compress(plain, 6)).decode("ascii")
    if len(compressed) >= len(plain):
        return item
    return {**{name: value for name, value in item.items() if name not in _PACKED_FIELDS}, "packed": compressed}


def expanded(item: Item) -> Item:
    """A stored change record as every reader sees it: a packed one's before / after / members
    restored (a record written unpacked is returned as it is)."""
    if "packed" not in item:
        return item
    values = json.loads(zlib.decompress(base64.b64decode(item["packed"])))
    return {**{name: value for name, value in item.items() if name != "packed"}, **values}


def change_put(item: Item) -> Put:
    return Put(item, Condition(exists=False))


def not_undoable(change: Item) -> str | None:
    """Why undo_changes cannot revert this change (None: it can): a permanent delete never is,
    nor creating a space, column or tag (they have no trash; delete them instead). A space's
    removal or re-creation that an undo made (`undoes`, with its columns as `members`) is the
    exception: undoing it puts the space back as it was, or removes it again (a redo, then its
    undo; todos/revert.py)."""
    action, kind = change["action"], change["record"]["kind"]
    if is_moved_to_board(change):
        return None  # the inbox item is put back (todos/revert.py)
    if is_undo_of_space(change) or is_tag_an_undo_made(change):
        return None
    if action == "delete":
        return f"a permanent delete of {_A[kind]} cannot be undone"
    if action == "create" and kind in ("space", "column", "tag"):
        return f"creating a {kind} cannot be undone (a {kind} has no trash); delete it instead"
    return None


#: The kinds with their article, for the reasons above ("an inbox item", not "a inbox").
_A = {"memo": "a memo", "task": "a task", "subtask": "a subtask", "inbox": "an inbox item", "space": "a space",
      "column": "a column", "tag": "a tag"}  # fmt: skip
#: The operation whose inbox removal is a move, not a delete: the item lives on as a task.
MOVE_TO_BOARD = "move_todo_inbox_item_to_board"


def is_moved_to_board(change: Item) -> bool:
    """The inbox item's removal by move_todo_inbox_item_to_board (its undo puts the item back)."""
    return bool(
        change["record"]["kind"] == "inbox"
        and change["action"] == "delete"
        and change.get("operation") == MOVE_TO_BOARD
    )


def is_tag_an_undo_made(change: Item) -> bool:
    """A tag an undo registered again or deleted (a rename's undo: the old name, beside the new one
    a record changed since keeps, or registered by the records it took back; the new name merged
    into it): its redo removes it again, or counts it back (todos/revert.py), never 'creating a
    tag cannot be undone' or 'a permanent delete of a tag cannot be undone'."""
    return bool(
        change["record"]["kind"] == "tag"
        and change["action"] in ("create", "delete")
        and change.get("operation") == "undo_changes"
    )


def is_undo_of_space(change: Item) -> bool:
    """A space removed or brought back by an undo (the finisher's removal of a space a run or
    session made, a redo's re-creation of it): undoing it brings the space back with its columns,
    or removes it again. A column too: the finisher removes one by one, before their space, the
    columns of a wide space that the run or session added one by one (the space's own write then
    fits one transaction); undoing such a removal puts the column back, and so on."""
    return bool(
        change["record"]["kind"] in ("space", "column")
        and change["action"] in ("create", "delete")
        and change.get("undoes")
    )


def undoable(change: Item) -> bool:
    return not_undoable(change) is None


def public_change(item: Item) -> dict[str, Any]:
    """A change as list_changes answers it: `changeId` is its id under the one name every tool and
    route uses (`undo_changes {changeIds}`, `undone[].changeId`); `id` is the same value, kept for
    the clients that read it before."""
    found = {name: item[name] for name in _PUBLIC if name in item}
    found["changeId"] = item["id"]
    found["undoable"] = undoable(item)
    return found


_PUBLIC = (
    "id", "at", "actor", "runId", "sessionId", "operation", "action", "record", "fields", "before", "after",
    "revisions", "undoes", "undoneBy", "members", "afterOmitted", "olderDropped",
)  # fmt: skip


def epoch(moment: datetime) -> int:
    return int(moment.astimezone(UTC).timestamp())
