"""Every archived record rebuilt into the importer's partition, never written as given.

An archive is a stranger's file: its `records.jsonl` may carry any attribute, including index
keys that point into another user's partitions (`gsi2pk: "UPLOADS"`, a victim's inbox, history or
timeline) or into global ones (the reminder buckets, the user directory). `rebuild` therefore

- keeps only the attributes the record's kind defines (the write paths' own field lists);
- validates ids, timestamps and enums as the write paths do (`kernel.timestamps.parse_timestamp`,
  the todo model's checks, the memo statuses, the history actions);
- derives every key from the record through the functions the write paths use
  (`memos.store.with_index_keys`, `todos.keys.stored`, `history.records`, `reading.model`,
  `attachments.store`), so nothing lands outside `U#<user>` and the user's own index partitions;
- derives every attachment path from the record's id (`attachments.paths.attachment_path`): a
  path that names any other folder is refused;
- returns None for derived records (counters, the reminder index): the import recomputes them
  (archive/counters.py, `reminder_entry`).

A refused record raises ArchiveError naming the line, the field and a cut excerpt of the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..attachments import store as attachment_store
from ..attachments.paths import (
    MEMO,
    TODO,
    Namespace,
    attachment_path,
    kind_of,
    mcp_uri,
    own_attachment_id,
    read_url,
)
from ..attachments.store import USAGE_SK
from ..attachments.uploads import check_mime_type, clean_display_name
from ..history import records as history
from ..kernel.errors import MesqError
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from ..kernel.tags import expand_tag_paths, parse_tags
from ..kernel.timestamps import parse_timestamp
from ..memos import store as memo_store
from ..memos.keys import MEMO_PREFIX, STATS_SK, TAG_PREFIX
from ..reading import model as reading
from ..reading.keys import BOOK_PREFIX, NOTE_PREFIX
from ..todos import keys as todo_keys
from ..todos import model as todo_model
from ..todos.reminder_schedule import INDEX_PREFIX, index_item, next_instant
from . import words
from .format import NOT_CARRIED, ArchiveError

#: Records an import never writes as given: they are derived from the others and recomputed.
DERIVED_PREFIXES = (STATS_SK, TAG_PREFIX, USAGE_SK, todo_keys.SIZE_PREFIX, INDEX_PREFIX)

_MEMO_FIELDS = ("id", "content", "status", "pinned", "resources", "contentSource", "createdAt", "updatedAt",
                "revision", "historyBytes")  # fmt: skip
_RESOURCE_FIELDS = ("path", "displayName", "mimeType", "fileSize", "type", "url", "mcp_uri")
_BOOK_FIELDS = ("id", "provider", "externalId", "title", "author", "cover", "syncedAt", "source", "lastNoteAt",
                "upstreamMark", *reading.COUNTERS)  # fmt: skip
_NOTE_FIELDS = ("id", "bookId", "noteType", "content", "createdAt", "externalId", "quotedText", "chapterTitle",
                "chapterIndex", "position", "fingerprint", "version", "deletedUpstream", "deletedUpstreamAt",
                "updatedAt")  # fmt: skip
_CHANGE_FIELDS = (*history._PUBLIC, "size")
_SETTINGS_FIELDS = ("defaultSpaceId", "timezone", "revision", "createdAt", "updatedAt")
_TODO_FIELDS: dict[str, tuple[str, ...]] = {
    "space": todo_model.SPACE_FIELDS,
    "column": todo_model.COLUMN_FIELDS,
    "task": (*todo_model.TASK_FIELDS, "historyBytes"),
    "inbox": (*todo_model.INBOX_FIELDS, "subtasks", "historyBytes"),
    "tag": (*todo_model.TAG_FIELDS, "historyBytes"),
}
_ACTIONS = ("create", "update", "move", "trash", "restore", "delete")
_CHANGE_ID = re.compile(r"\d{17}-[0-9a-f]{8}")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")
_TIMES = ("createdAt", "updatedAt", "deletedAt", "completedAt", "syncedAt", "lastNoteAt", "deletedUpstreamAt")


class _Refused(Exception):
    """A field of one record is refused (the caller adds the line): `text` says why."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text


def _not_a_timestamp(name: str, value: Any) -> Text:
    return Text("%(field)s: %(value)s is not an ISO 8601 timestamp", field=name, value=quoted(value))


def _pick(item: Mapping[str, Any], fields: Sequence[str]) -> Item:
    return {name: item[name] for name in fields if name in item}


def _text(record: Item, name: str, *, optional: bool = False) -> str | None:
    value = record.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Refused(Text("%(field)s: %(value)s is not a string", field=name, value=quoted(value)))
    return value


def _ident(record: Item, name: str = "id", pattern: re.Pattern[str] = _ID) -> str:
    value = _text(record, name)
    assert value is not None
    if not pattern.fullmatch(value):
        raise _Refused(Text("%(field)s: %(value)s is not an id", field=name, value=quoted(value)))
    return value


def _whole(record: Item, name: str, minimum: int = 0) -> None:
    value = record.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
        raise _Refused(
            Text(
                "%(field)s: %(value)s is not a whole number >= %(minimum)s",
                field=name,
                value=quoted(value),
                minimum=minimum,
            )
        )


def _times(record: Item) -> None:
    for name in _TIMES:
        if record.get(name) is not None:
            _moment(record[name], name)


def _moment(value: Any, name: str) -> datetime:
    try:
        return parse_timestamp(value, name) if isinstance(value, str) else _not_a_time(value, name)
    except MesqError:
        raise _Refused(_not_a_timestamp(name, value)) from None


def _not_a_time(value: Any, name: str) -> datetime:
    raise _Refused(_not_a_timestamp(name, value))


def _one_of(record: Item, name: str, choices: Sequence[Any]) -> None:
    if record.get(name) not in choices:
        raise _Refused(
            Text(
                "%(field)s: %(value)s is not one of %(choices)s",
                field=name,
                value=quoted(record.get(name)),
                choices=", ".join(map(str, choices)),
            )
        )


def _own_path(value: Any, user_id: str, kind: Namespace, name: str) -> str:
    """The attachment path of `user_id` that `value` names (only the id is taken from it)."""
    try:
        return attachment_path(user_id, own_attachment_id(value, user_id, name, kind), kind)
    except MesqError:
        raise _Refused(
            Text("%(field)s: %(value)s is not an attachment path of this account", field=name, value=quoted(value))
        ) from None


def _files(values: Any, user_id: str, kind: Namespace, name: str) -> list[Item]:
    if values is None:
        return []
    if not isinstance(values, list):
        raise _Refused(Text("%(field)s: not a list", field=name))
    files = []
    for index, value in enumerate(values):
        if not isinstance(value, dict):
            raise _Refused(Text("%(field)s[%(index)s]: not an object", field=name, index=index))
        file = _pick(value, _RESOURCE_FIELDS)
        path = _own_path(file.get("path"), user_id, kind, f"{name}[{index}].path")
        file["path"] = path
        _shown_name(file)
        _media(file)
        if "url" in file:  # the read URL of the derived path (the instance's origin kept, nothing else)
            base = str(file["url"]).partition("?")[0]
            origin = base.removesuffix(kind.read_route) if base.endswith(kind.read_route) else ""
            file["url"] = read_url(path, origin if _ORIGIN.fullmatch(origin) else None, kind)
        if "mcp_uri" in file:
            file["mcp_uri"] = mcp_uri(path, kind)
        files.append(file)
    return files


def _media(file: Item) -> None:
    """A file's `mimeType` as an upload takes it (a media type, no line break: it becomes the
    download's Content-Type), and its `type` derived from it as every upload derives it, never
    the archive's word (an HTML file named an "image")."""
    if "mimeType" not in file:
        return
    try:
        check_mime_type(file["mimeType"])
    except MesqError:
        raise _Refused(
            Text(
                "%(field)s: %(value)s is not a media type like image/jpeg",
                field="mimeType",
                value=quoted(file["mimeType"]),
            )
        ) from None
    file["type"] = kind_of(file["mimeType"])


def _shown_name(file: Item) -> None:
    """A file's `displayName` as an upload would take it: no control or text-direction characters
    (a name that reads as another one, a program as a picture), within the length."""
    if "displayName" in file:
        file["displayName"] = clean_display_name(str(file["displayName"]), "file")


# -- the kinds ---------------------------------------------------------------------------------


def _memo(item: Item, user_id: str) -> Item:
    memo = _pick(item, _MEMO_FIELDS)
    _ident(memo)
    content = _text(memo, "content")
    _one_of(memo, "status", memo_store.STATUSES)
    _one_of(memo, "pinned", (True, False))
    _moment(memo.get("createdAt"), "createdAt")
    _moment(memo.get("updatedAt"), "updatedAt")
    _whole(memo, "revision", 1)
    _whole(memo, "historyBytes")
    memo["revision"] = memo.get("revision", 1)
    memo["tags"] = parse_tags(content or "")  # derived from the content, as every memo write does
    memo["tagPaths"] = expand_tag_paths(memo["tags"])
    memo["resources"] = _files(memo.get("resources"), user_id, MEMO, "resources")
    return memo_store.with_index_keys(user_id, memo)


def _attachment(kind: Namespace) -> Callable[[Item, str], Item]:
    def rebuild(item: Item, user_id: str) -> Item:
        # `links` (how many writes linked it, attachments/store.py) comes back as it was exported
        record = _pick(item, (*attachment_store._PUBLIC, attachment_store.LINKS))
        ident = _ident(record, pattern=re.compile(r"[0-9a-f]{28}"))
        _whole(record, "fileSize")
        _whole(record, attachment_store.LINKS)
        if "fileSize" not in record:
            raise _Refused(Text("%(field)s: missing", field="fileSize"))
        _times(record)
        _shown_name(record)
        record.setdefault("mimeType", "application/octet-stream")  # what the bytes were written with
        _media(record)
        record["path"] = attachment_path(user_id, ident, kind)  # derived, never the archive's
        pk, sk = attachment_store.attachment_key(user_id, ident, kind)
        return {**record, "pk": pk, "sk": sk}

    return rebuild


def _todo_record(kind: todo_keys.Kind) -> Callable[[Item, str], Item]:
    def rebuild(item: Item, user_id: str) -> Item:
        record = _pick(item, _TODO_FIELDS[kind])
        if kind == "tag":
            todo_model.check_tags([str(_text(record, "name"))], "name")
        else:
            _ident(record)
        _times(record)
        _whole(record, "revision", 1)
        _whole(record, "historyBytes")
        if kind in ("task", "inbox"):
            _task_fields(record, user_id)
        if kind == "inbox":
            record["subtasks"] = _inbox_subtasks(record.get("subtasks"), user_id)
        if kind in ("space", "column", "task", "inbox"):
            _text(record, "position")
        for name in ("spaceId", "columnId", "parentId"):
            if record.get(name) is not None:
                _ident(record, name)
        return todo_keys.stored(user_id, kind, record)

    return rebuild


def _task_fields(record: Item, user_id: str) -> None:
    _one_of(record, "priority", todo_model.PRIORITIES)
    record["due"] = todo_model.check_due(record.get("due"))
    record["timezone"] = todo_model.check_timezone(record.get("timezone"))
    reminders = record.get("reminders") or []
    if not isinstance(reminders, list) or len(reminders) > 5:
        raise _Refused(Text("%(field)s: not a list of at most %(limit)s reminders", field="reminders", limit=5))
    for index, reminder in enumerate(reminders):
        if not isinstance(reminder, dict) or reminder.get("type") not in ("absolute", "relative"):
            raise _Refused(Text("%(field)s[%(index)s]: not a reminder", field="reminders", index=index))
        if reminder["type"] == "absolute":
            _moment(reminder.get("at"), f"reminders[{index}].at")
    record["attachments"] = _files(record.get("attachments"), user_id, TODO, "attachments")


def _inbox_subtasks(values: Any, user_id: str) -> list[Item]:
    if values is None:
        return []
    if not isinstance(values, list) or len(values) > todo_model.MAX_SUBTASKS:
        raise _Refused(
            Text("%(field)s: not a list of at most %(limit)s", field="subtasks", limit=todo_model.MAX_SUBTASKS)
        )
    subtasks = []
    for index, value in enumerate(values):
        if not isinstance(value, dict):
            raise _Refused(Text("%(field)s[%(index)s]: not an object", field="subtasks", index=index))
        subtask = _pick(value, todo_model.INBOX_SUBTASK_FIELDS)
        _ident(subtask)
        subtask["attachments"] = _files(subtask.get("attachments"), user_id, TODO, f"subtasks[{index}].attachments")
        subtasks.append(subtask)
    return subtasks


def _slug(item: Item, user_id: str) -> Item:
    slug = str(item["sk"]).removeprefix(todo_keys.KIND_PREFIX["slug"])
    todo_model.check_slug(slug, "sk")
    space = _ident(item, "spaceId")
    pk, sk = todo_keys.slug_key(user_id, slug)
    return {"pk": pk, "sk": sk, "spaceId": space}


def _settings(item: Item, user_id: str) -> Item:
    settings = _pick(item, _SETTINGS_FIELDS)
    if settings.get("defaultSpaceId") is not None:
        _ident(settings, "defaultSpaceId")
    settings["timezone"] = todo_model.check_timezone(settings.get("timezone"))
    if settings["timezone"] is None:
        del settings["timezone"]
    _times(settings)
    _whole(settings, "revision", 1)
    pk, sk = todo_keys.settings_key(user_id)
    return {**settings, "pk": pk, "sk": sk}


def _book(item: Item, user_id: str) -> Item:
    book = _pick(item, _BOOK_FIELDS)
    ident = _ident(book)
    _text(book, "title")
    _times(book)
    for name in reading.COUNTERS:
        _whole(book, name)
    pk, sk = reading.book_key(user_id, ident)
    return {**book, "pk": pk, "sk": sk}


def _note(item: Item, user_id: str) -> Item:
    note = _pick(item, _NOTE_FIELDS)
    _ident(note)
    _ident(note, "bookId")
    _text(note, "content")
    _one_of(note, "noteType", tuple(reading.CONTENT_ORIGIN))
    _times(note)
    for name in ("chapterIndex", "position", "version"):
        _whole(note, name)
    return {**note, "pk": user_partition(user_id), "sk": reading.note_sort_key(note)}


def _change(item: Item, user_id: str) -> Item:
    change = _pick(item, _CHANGE_FIELDS)
    ident = _ident(change, pattern=_CHANGE_ID)
    _moment(change.get("at"), "at")
    _ident(change, "runId")
    if "sessionId" in change:
        _ident(change, "sessionId")
    _one_of(change, "action", _ACTIONS)
    record = change.get("record")
    if not isinstance(record, dict) or record.get("kind") not in history.KINDS:
        raise _Refused(Text("%(field)s: %(value)s is not a changed record", field="record", value=quoted(record)))
    if record["kind"] == "tag":  # a tag's history is keyed by its name: `紧急`, `work/项目`, `C++`
        named = "name" if "id" not in record else "id"
        record_id = todo_model.check_tags([str(_text(record, named))], f"record.{named}")[0]
    else:
        record_id = _ident(record)
    title = record.get("title")
    kept_title = {"title": title} if isinstance(title, str) and len(title) <= history.TITLE_CHARACTERS else {}
    change["record"] = {"kind": record["kind"], "id": record_id, **kept_title}
    for name in ("before", "after", "revisions"):
        if not isinstance(change.get(name, {}), dict):
            raise _Refused(Text("%(field)s: not an object", field=name))
    _whole(change, "size")
    ttl = item.get("ttl")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        raise _Refused(Text("%(field)s: %(value)s is not an expiry time", field="ttl", value=quoted(ttl)))
    pk, sk = history.change_key(user_id, ident)
    # No index keys and no chain link as given: `chained` links it from the archive's own order.
    return history.packed({**change, "pk": pk, "sk": sk, "ttl": ttl})  # stored as the history stores its own


#: The records whose item heads a chain of changes (history/timeline.py), by sort-key prefix.
_CHAINED = (MEMO_PREFIX, *(todo_keys.KIND_PREFIX[kind] for kind in ("space", "column", "task", "inbox", "tag")))


def chained(item: Item, heads: dict[str, list[str]]) -> None:
    """The history's chains rebuilt from the archive itself, never from links it carries: the
    records come in sort-key order, every change record (in time order) before any record item,
    so a change links to the LINKS changes of the same record before it (`priors`, newest first),
    and a record item names its newest LINKS (`recentChanges`). `heads` holds them per record."""
    sk = str(item["sk"])
    if sk.startswith(history.CHANGE_PREFIX):
        record_id = str(item["record"]["id"])
        if record_id in heads:
            item["priors"] = heads[record_id]
        heads[record_id] = [str(item["id"]), *heads.get(record_id, [])][: history.LINKS]
    elif sk.startswith(_CHAINED):
        record_id = str(item["name"] if sk.startswith(todo_keys.KIND_PREFIX["tag"]) else item["id"])
        if record_id in heads:
            item["recentChanges"] = heads[record_id]


_KINDS: tuple[tuple[str, Callable[[Item, str], Item]], ...] = (
    (MEMO_PREFIX, _memo),
    (MEMO.record_prefix, _attachment(MEMO)),
    (TODO.record_prefix, _attachment(TODO)),
    (todo_keys.KIND_PREFIX["space"], _todo_record("space")),
    (todo_keys.KIND_PREFIX["column"], _todo_record("column")),
    (todo_keys.KIND_PREFIX["task"], _todo_record("task")),
    (todo_keys.KIND_PREFIX["inbox"], _todo_record("inbox")),
    (todo_keys.KIND_PREFIX["tag"], _todo_record("tag")),
    (todo_keys.KIND_PREFIX["slug"], _slug),
    (todo_keys.SETTINGS_SK, _settings),
    (BOOK_PREFIX, _book),
    (NOTE_PREFIX, _note),
    (history.CHANGE_PREFIX, _change),
)


def derived(sk: str) -> bool:
    return sk.startswith(DERIVED_PREFIXES)


def rebuild(item: Item, user_id: str, where: str | Text) -> Item | None:
    """`item` (already rehomed to `user_id`) as the import writes it; None for a derived record.
    ArchiveError `where: field: ...` when a field is refused, or the sort key is not the one the
    record's own fields give (a record is never moved to another key)."""
    sk = str(item.get("sk", ""))
    if derived(sk):
        return None
    build = next((build for prefix, build in _KINDS if sk.startswith(prefix)), None)
    if build is None or (sk == todo_keys.SETTINGS_SK) != (build is _settings):
        raise ArchiveError(Text("%(where)s: %(reason)s", where=where, reason=Text(NOT_CARRIED)))
    try:
        stored = build(item, user_id)
    except _Refused as refused:
        raise ArchiveError(Text("%(where)s: %(reason)s", where=where, reason=refused.text)) from None
    except MesqError as error:  # a write path's own check (due, timezone, tags, slug)
        raise ArchiveError(Text("%(where)s: %(reason)s", where=where, reason=error.text)) from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        # a field the kind needs is missing or of another shape than any write of ours stores
        raise ArchiveError(Text("%(where)s: not a record this kind can hold", where=where)) from None
    if stored["sk"] != sk:
        raise ArchiveError(
            Text(
                "%(where)s: %(record)s whose id does not match the rest of the record",
                where=where,
                record=words.described_text(sk),
            )
        )
    return stored


def reminder_entry(task: Item, user_id: str, now: datetime, user_zone: str | None = None) -> Item | None:
    """The reminder index item an imported task needs (its next instant after `now`; a date-only
    due without a zone of its own read in `user_zone`), as the todo writes keep it
    (`reminder_schedule.index_ops`), or None."""
    if not str(task.get("sk", "")).startswith(todo_keys.KIND_PREFIX["task"]):
        return None
    moment = next_instant(todo_keys.record_of(task), now, user_zone)
    return None if moment is None else index_item(user_id, str(task["id"]), moment)


__all__ = ["DERIVED_PREFIXES", "derived", "rebuild", "reminder_entry"]
