"""How a sync client (CalDAV) names a todo record: its resource name in the client's collection,
its UID, and what the client set that MeSQ does not map (kept for it, never read here).

A record a client wrote carries `sync = {"name", "uid", "props", "kept", "revision"}` (stored,
never in the public shapes): `name` is the resource name the client PUT it under, `uid` its UID,
`props` the client's own data as the edge serialised it (opaque here, at most MAX_PROPS_BYTES,
but for its `exdates`: the dates the client excluded from the series, read by `excluded_dates`),
`kept` the fields the client sent that this record cannot hold (recurrence or reminders on a
subtask or an inbox item, a parent MeSQ cannot attach), which the edge gives back from `props`
unchanged, and `revision` the record's revision that write made: while the record is still at
it, nothing but the client has changed it since. An inbox item also carries `held`: the
recurrence and reminders the edge read from the client's RRULE and VALARMs (HELD_FIELDS), which
the item does not act on and the board task it is moved to takes over (inbox/move.py).
A record made anywhere else has no `name` or `uid` of its own: its name is `<id>.ics`, its UID
its id.

Lookup items map a client's name and UID back to the record (`TODOSYNC#NAME#<name>`,
`TODOSYNC#UID#<uid>` -> `{kind, id}`), written in the transaction that gives the record that
name. They sit outside the `TODO#` range, so the board's reads never see them. A lookup is only
believed when the record still carries the same name or UID (a record renamed away, or a lookup
left behind, resolves to nothing).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from ...kernel.errors import ValidationError
from ...kernel.i18n import N_
from ...kernel.keys import user_partition
from ...kernel.ports.storage import Condition, Item, ItemStore, Key, Put
from .. import keys

SYNC_FIELD = "sync"
#: The key of `sync.props` under which the edge lists the client's excluded dates (EXDATE).
EXCLUDED_DATES = "exdates"
#: What an inbox item holds for its move to the board (`sync.held`), read by the edge as a task's.
HELD_FIELDS = ("recurrence", "reminders")
#: The collection of the inbox items; every other collection is a space, named by its id.
INBOX = "inbox"
#: What a client shows the inbox collection as, and the title of a task a client sent without
#: one: translated into the person's language (a Chinese user's list is 收件箱, not "Inbox").
INBOX_NAME = N_("Inbox")
UNTITLED = N_("(untitled)")
#: What a record made outside a sync client is called in its collection: `<id>` and the
#: iCalendar file extension clients expect.
DEFAULT_SUFFIX = ".ics"
NAME_PREFIX = "TODOSYNC#NAME#"
UID_PREFIX = "TODOSYNC#UID#"
#: The client's own data kept per record (what MeSQ does not map): room for Apple's and
#: Thunderbird's X- properties and a few RECURRENCE-ID overrides, well under a record's 400 KB.
MAX_PROPS_BYTES = 32 * 1024
MAX_NAME = 200
MAX_UID = 255
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

RecordKind = Literal["task", "inbox"]


def check_name(name: str) -> str:
    if not name or len(name) > MAX_NAME or _UNSAFE.search(name) or name in (".", ".."):
        raise ValidationError(
            "name: a resource name of 1..%(max_name)s characters without '/' or control characters", max_name=MAX_NAME
        )
    return name


def check_uid(uid: str) -> str:
    if not uid.strip() or len(uid) > MAX_UID or _CONTROL.search(uid):
        raise ValidationError("uid: 1..%(max_uid)s characters without control characters", max_uid=MAX_UID)
    return uid


def check_props(props: dict[str, Any]) -> dict[str, Any]:
    size = len(json.dumps(props, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_PROPS_BYTES:
        raise ValidationError(
            "props: the client's own properties take %(size)s bytes; MeSQ keeps at most %(max_props_bytes)s per task",
            size=size,
            max_props_bytes=MAX_PROPS_BYTES,
        )
    return props


def excluded_dates(record: Item) -> list[str]:
    """The occurrences a sync client excluded from the record's series (its EXDATEs), as the edge
    read them: `YYYY-MM-DD` for a day, an ISO time with its offset for one instant. What the next
    due is stepped past (recurrence.advanced); the client's own lines stay in `props` as written."""
    props = (record.get(SYNC_FIELD) or {}).get("props") or {}
    found = props.get(EXCLUDED_DATES) if isinstance(props, dict) else None
    return [str(value) for value in found] if isinstance(found, list) else []


def held_of(link: dict[str, Any]) -> dict[str, Any]:
    """What an inbox item's link holds for the board task (HELD_FIELDS): its `held`; an item
    saved before `held` was kept (an older deployment's) has the same reading in the app data
    the edge stored with it, its value beside each group's lines (`props.shadows.<field>.value`,
    always kept for recurrence and reminders). So it is moved as a new item is, no migration."""
    if link.get("held"):
        return dict(link["held"])
    shadows = _shadows(link)
    if shadows is None:
        return {}
    groups = {field: shadows.get(field) for field in HELD_FIELDS}
    return {field: group["value"] for field, group in groups.items() if isinstance(group, dict) and group.get("value")}


def alarms_kept_for_the_app(link: dict[str, Any], refused: list[Any]) -> dict[str, Any] | None:
    """`link` with the app's alarms that stand for `refused` reminders marked as the app's alone
    (their entry in `props.shadows.reminders.each`, the reminder the edge read from each VALARM,
    becomes None): the edge then gives those VALARMs back as the app wrote them, beside the
    task's own reminders. None when the app data has no per-alarm reading to mark (an item
    saved before it was kept): the caller keeps all the app's alarms as its own data."""
    shadows = _shadows(link)
    shadow = shadows.get("reminders") if shadows is not None else None
    each = shadow.get("each") if isinstance(shadow, dict) else None
    if shadows is None or not isinstance(shadow, dict):
        return None
    if not isinstance(each, list) or not all(alarm in each for alarm in refused):
        return None
    marked = [None if value in refused else value for value in each]
    return {**link, "props": {**link["props"], "shadows": {**shadows, "reminders": {**shadow, "each": marked}}}}


def _shadows(link: dict[str, Any]) -> dict[str, Any] | None:
    """The app data's per-field readings (`props.shadows`), or None when the link has none."""
    props = link.get("props")
    shadows = props.get("shadows") if isinstance(props, dict) else None
    return shadows if isinstance(shadows, dict) else None


def default_name(record_id: str) -> str:
    return record_id + DEFAULT_SUFFIX


def name_of(record: Item) -> str:
    return str((record.get(SYNC_FIELD) or {}).get("name") or default_name(str(record["id"])))


def uid_of(record: Item) -> str:
    return str((record.get(SYNC_FIELD) or {}).get("uid") or record["id"])


def collection_of(kind: RecordKind, record: Item) -> str:
    return INBOX if kind == "inbox" else str(record["spaceId"])


def name_key(user_id: str, name: str) -> Key:
    return (user_partition(user_id), NAME_PREFIX + name)


def uid_key(user_id: str, uid: str) -> Key:
    return (user_partition(user_id), UID_PREFIX + uid)


def lookup_put(key: Key, kind: RecordKind, record_id: str, replaces: Item | None) -> Put:
    """The lookup of a name or UID, pointing at the record; conditioned on the lookup being as it
    was read (absent, or the stale one it replaces), so two clients cannot both take a name."""
    condition = Condition(exists=False) if replaces is None else Condition(equals={"id": replaces["id"]})
    return Put({"pk": key[0], "sk": key[1], "kind": kind, "id": record_id}, condition)


def without_sync(record: Item) -> Item:
    """A record's content without the sync client's bookkeeping (a copy is not the client's)."""
    return {name: value for name, value in record.items() if name != SYNC_FIELD}


def _record(items: ItemStore, user_id: str, kind: str, record_id: str) -> tuple[RecordKind, Item] | None:
    """The record a lookup names; an inbox item moved to the board is the task of the same id."""
    if kind not in ("task", "inbox"):
        return None
    for each in (kind, "task" if kind == "inbox" else "inbox"):
        found = items.get(keys.key(user_id, "task" if each == "task" else "inbox", record_id))
        if found is not None:
            return each, keys.record_of(found)  # type: ignore[return-value]
    return None


def by_name(items: ItemStore, user_id: str, name: str) -> tuple[RecordKind, Item] | None:
    """The record a resource name names: its lookup (while the record still carries the name),
    else `<id>.ics` of a record that has no name of its own."""
    lookup = items.get(name_key(user_id, name))
    if lookup is not None:
        found = _record(items, user_id, str(lookup["kind"]), str(lookup["id"]))
        if found is not None and name_of(found[1]) == name:
            return found
    return _by_default(items, user_id, name.removesuffix(DEFAULT_SUFFIX) if name.endswith(DEFAULT_SUFFIX) else None,
                       lambda record: name_of(record) == name)  # fmt: skip


def by_uid(items: ItemStore, user_id: str, uid: str) -> tuple[RecordKind, Item] | None:
    """The record with this UID: its lookup, else the record whose id it is (a UID MeSQ gave)."""
    lookup = items.get(uid_key(user_id, uid))
    if lookup is not None:
        found = _record(items, user_id, str(lookup["kind"]), str(lookup["id"]))
        if found is not None and uid_of(found[1]) == uid:
            return found
    return _by_default(items, user_id, uid, lambda record: uid_of(record) == uid)


def _by_default(items: ItemStore, user_id: str, record_id: str | None, fits: Any) -> tuple[RecordKind, Item] | None:
    if not record_id or len(record_id) > 64 or not re.fullmatch(r"[A-Za-z0-9_-]+", record_id):
        return None
    found = _record(items, user_id, "task", record_id)
    return found if found is not None and fits(found[1]) else None


def without_identity(record: Item) -> Item:
    """A record that gives up its client name and UID (another record took them over): it keeps
    the client's data, and is called `<id>.ics` again."""
    link = {k: v for k, v in (record.get(SYNC_FIELD) or {}).items() if k not in ("name", "uid")}
    return {**record, SYNC_FIELD: link or None}


def public_link(record: Item) -> dict[str, Any]:
    link = record.get(SYNC_FIELD) or {}
    return {
        "name": name_of(record),
        "uid": uid_of(record),
        "props": link.get("props") or {},
        "kept": list(link.get("kept") or []),
        "revision": link.get("revision"),
    }
