"""A change record in a person's words, in the page's language: one sentence ("edited the memo
“周报”", "moved the task “买牛奶” from “待办” to “已完成”"), and the details a reader may open
(the text's own changes, a priority or a due in words, tags added and removed). Columns and
spaces by name, records by title; never an id, a revision, a position or a value as Python
writes it (`None`, `False`).

The sentence's verb is the change's *act* (`act_of`): what the person would say they did,
read from the action, the operation and the fields (a pin is an update of `pinned`; a
completion an update of `done`). Session summaries count the same acts ("edited 30 memos,
moved 1 task").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from markupsafe import Markup, escape

from ...history.records import record_title
from ...kernel import formats
from ...kernel.tags import parse_tags
from ..kit.i18n import N_, NC_, NP_, Translator, translations
from ..kit.recurrence_words import recurrence_words
from .diff import Row, compare
from .times import clock, day_words, local, moment_words

# -- what a change is called ---------------------------------------------------------------------

#: The record, named by its title (line) or counted (summary).
_THING = {
    "memo": N_("the memo “%(title)s”"), "task": N_("the task “%(title)s”"),
    "subtask": N_("the subtask “%(title)s”"), "inbox": N_("the inbox item “%(title)s”"),
    "space": N_("the space “%(title)s”"), "column": N_("the column “%(title)s”"), "tag": N_("the tag “%(title)s”"),
}  # fmt: skip
_UNTITLED = {
    "memo": N_("a memo"), "task": N_("a task"), "subtask": N_("a subtask"), "inbox": N_("an inbox item"),
    "space": N_("a space"), "column": N_("a column"), "tag": N_("a tag"),
}  # fmt: skip
_COUNTED = {
    "memo": NP_("%(num)d memo", "%(num)d memos"), "task": NP_("%(num)d task", "%(num)d tasks"),
    "subtask": NP_("%(num)d subtask", "%(num)d subtasks"),
    "inbox": NP_("%(num)d inbox item", "%(num)d inbox items"),
    "space": NP_("%(num)d space", "%(num)d spaces"), "column": NP_("%(num)d column", "%(num)d columns"),
    "tag": NP_("%(num)d tag", "%(num)d tags"),
}  # fmt: skip

#: Each act's sentence around the record (`thing`); the summary's where it differs (no from/to).
_SAID = {
    "create": N_("created %(thing)s"),
    "add": N_("added %(thing)s"),
    "edit": N_("edited %(thing)s"),
    "rename": N_("renamed %(thing)s to “%(to)s”"),
    "move_column": N_("moved %(thing)s from “%(from)s” to “%(to)s”"),
    "move_space": N_("moved %(thing)s to the space “%(to)s”"),
    "reorder": N_("moved %(thing)s"),
    "complete": N_("completed %(thing)s"),
    "reopen": N_("reopened %(thing)s"),
    "pin": N_("pinned %(thing)s"),
    "unpin": N_("unpinned %(thing)s"),
    "archive": N_("archived %(thing)s"),
    "unarchive": N_("moved %(thing)s back to the timeline"),
    "unarchive_column": N_("unarchived %(thing)s"),
    "trash": N_("moved %(thing)s to the trash"),
    "restore": N_("restored %(thing)s from the trash"),
    "delete": N_("deleted %(thing)s for good"),
    "remove": N_("deleted %(thing)s"),
    "bring_back": N_("brought back %(thing)s"),
    "recolour": N_("changed the colour of %(thing)s"),
    "to_board": N_("moved %(thing)s from the inbox to the board"),
    "retag": N_("renamed the tag “%(from)s” to “%(to)s” in %(thing)s"),
}
#: The summary's sentences: each act said of a count ("edited 30 memos"; no from / to), in a
#: context of their own, so a language can set the number apart from the words around it
#: (zh: 编辑了 30 条笔记, where the record's sentence reads 编辑了笔记“周报”).
_SUMMED = {
    "create": NC_("a count of records", "created %(thing)s"),
    "add": NC_("a count of records", "added %(thing)s"),
    "edit": NC_("a count of records", "edited %(thing)s"),
    "rename": NC_("a count of records", "renamed %(thing)s"),
    "move_column": NC_("a count of records", "moved %(thing)s"),
    "move_space": NC_("a count of records", "moved %(thing)s"),
    "reorder": NC_("a count of records", "moved %(thing)s"),
    "complete": NC_("a count of records", "completed %(thing)s"),
    "reopen": NC_("a count of records", "reopened %(thing)s"),
    "pin": NC_("a count of records", "pinned %(thing)s"),
    "unpin": NC_("a count of records", "unpinned %(thing)s"),
    "archive": NC_("a count of records", "archived %(thing)s"),
    "unarchive": NC_("a count of records", "moved %(thing)s back to the timeline"),
    "unarchive_column": NC_("a count of records", "unarchived %(thing)s"),
    "trash": NC_("a count of records", "moved %(thing)s to the trash"),
    "restore": NC_("a count of records", "restored %(thing)s from the trash"),
    "delete": NC_("a count of records", "deleted %(thing)s for good"),
    "remove": NC_("a count of records", "deleted %(thing)s"),
    "bring_back": NC_("a count of records", "brought back %(thing)s"),
    "recolour": NC_("a count of records", "changed the colour of %(thing)s"),
    "to_board": NC_("a count of records", "moved %(thing)s from the inbox to the board"),
    "retag": NC_("a count of records", "renamed a tag in %(thing)s"),
}
#: Kinds with no trash: their delete is final and says so plainly.
_NO_TRASH = frozenset({"space", "column", "tag"})
_TASKS = frozenset({"task", "subtask", "inbox"})
_COMPLETING = ("complete_todo_task", "complete_todo_subtask", "complete_todo_inbox_item", "batch_complete_todo_tasks")


def _occurrences_closed(values: dict[str, Any]) -> int:
    """How many occurrences of a repeating task a change's side counts as done (none when absent)."""
    return int(values.get("occurrenceCount") or 0)


def act_of(change: dict[str, Any]) -> str:
    """What the person would say was done: a key of `_SAID`."""
    kind, action = change["record"]["kind"], change["action"]
    fields = set(change["fields"])
    after = change.get("after") or {}
    if action == "delete":
        if kind == "inbox" and change.get("operation") == "move_todo_inbox_item_to_board":
            return "to_board"
        return "remove" if kind in _NO_TRASH else "delete"
    if action == "create" and kind in _NO_TRASH and change.get("undoes"):
        return "bring_back"  # a space an undo removed, put back by a redo (with its columns)
    if action == "create" and kind == "subtask":
        return "add"  # a subtask is added to its task, as the task page's button says
    if action in ("create", "trash", "restore"):
        return str(action)
    before = change.get("before") or {}
    if kind in _TASKS and "done" in fields and (change.get("operation") in _COMPLETING or change.get("undoes")):
        # completing moves it to the done column too; so does its undo, which reopens it (or completes it again)
        return "complete" if after.get("done") else "reopen"
    if "spaceId" in fields and kind in ("task", "subtask", "column"):
        # before the column: a move to another space changes both, and the space is the news
        # (its column, most often the same name as the one it left, is a detail when it differs)
        return "move_space"
    if kind in _TASKS and "columnId" in fields:
        return "move_column"
    if action == "move":
        return "reorder"
    if kind == "memo":
        if change.get("operation") == "rename_memo_tag" and renamed_tag(change):
            return "retag"
        if fields == {"pinned"}:
            return "pin" if after.get("pinned") else "unpin"
        if fields == {"status"}:
            return "archive" if after.get("status") == "ARCHIVED" else "unarchive"
        return "edit"
    if kind in _TASKS:
        if change.get("operation") == "update_todo_tag" and fields == {"tags"} and renamed_tag(change):
            return "retag"
        if "done" in fields:
            return "complete" if after.get("done") else "reopen"
        if "occurrenceCount" in fields:
            # a repeating task's occurrence closed (its count up: a completion, or the redo of
            # one) or taken back (down: only an undo of the completion does that, a reopening)
            return "complete" if _occurrences_closed(after) > _occurrences_closed(before) else "reopen"
        if change.get("operation") in _COMPLETING:  # a recurring task moved on to its next occurrence
            return "complete"
    if ("name" in fields and fields <= {"name", "slug"}) or (kind in _TASKS and fields == {"title"}):
        return "rename"
    if kind == "column" and fields == {"archived"}:
        return "archive" if after.get("archived") else "unarchive_column"
    if kind == "tag" and fields == {"color"}:
        return "recolour"
    return "edit"


def renamed_tag(change: dict[str, Any]) -> tuple[str, str] | None:
    """The tag a tag rename took out of this record and the one it put in (the shortest of each:
    `#a/b` and `#a` renamed together read as `a`), from a memo's content before and after (the
    change keeps no tag names of its own) or a todo record's tags. None when they show no tag
    gone and none new (a merge into a name the record already carried)."""
    if change["record"]["kind"] in _TASKS:
        before = [str(tag) for tag in (change.get("before") or {}).get("tags") or []]
        after = [str(tag) for tag in (change.get("after") or {}).get("tags") or []]
    else:
        before = parse_tags(str((change.get("before") or {}).get("content") or ""))
        after = parse_tags(str((change.get("after") or {}).get("content") or ""))
    gone = [tag for tag in before if tag not in after]
    new = [tag for tag in after if tag not in before]
    if not gone or not new:
        return None
    return min(gone, key=len), min(new, key=len)


# -- names the change refers to -----------------------------------------------------------------


@dataclass(frozen=True)
class Names:
    """What a page's changes refer to by id, by name: columns and spaces (from list_todo_spaces),
    and the titles of memos whose change records predate titles (batch_get_memos)."""

    columns: dict[str, str] = field(default_factory=dict)
    spaces: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)


def title_of(change: dict[str, Any], names: Names) -> str:
    """The record's title as the change keeps it, else as its fields say, else as it is now."""
    record = change["record"]
    if record.get("title"):
        return str(record["title"])
    kind = record["kind"]
    return (
        record_title(kind, change.get("after"))
        or record_title(kind, change.get("before"))
        or names.titles.get(record["id"], "")
    )


def referenced_ids(changes: Iterable[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """(column ids, memo ids without a title) the changes need named."""
    columns: set[str] = set()
    untitled: set[str] = set()
    for change in changes:
        for side in ("before", "after"):
            values = change.get(side) or {}
            columns |= {str(values[name]) for name in ("columnId", "spaceId") if values.get(name)}
        if change["record"]["kind"] == "memo" and not title_of(change, Names()):
            untitled.add(change["record"]["id"])
    return columns, untitled


# -- a change as a line -------------------------------------------------------------------------


@dataclass(frozen=True)
class Detail:
    """One field's change as shown under "details": a text compared line by line (`rows`), or a
    value before and after in words, or what was added to and taken from a list."""

    label: str
    rows: tuple[Row, ...] = ()
    before: str = ""
    after: str = ""
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Line:
    """One change as a sentence: its act, its details, its time (`when`: with the day, for a
    record's history; `clock`: the time alone, inside a session) and its record's page."""

    change: dict[str, Any]
    act: str
    sentence: Markup
    details: tuple[Detail, ...]
    when: str
    clock: str
    url: str | None


def _markup(say: Translator, message: str, **variables: Any) -> Markup:
    """A catalog sentence as markup, its variables escaped (a title a person typed stays text)."""
    text = Markup(translations(say.language).gettext(message))  # noqa: S704 -- the committed catalog is trusted
    return text % {name: value if isinstance(value, Markup) else escape(value) for name, value in variables.items()}


_PAGES = {"memo": "/memos/{id}/edit", "task": "/todos/tasks/{id}", "subtask": "/todos/tasks/{id}",
          "inbox": "/todos/inbox/{id}"}  # fmt: skip


def record_url(change: dict[str, Any]) -> str | None:
    """The page of the changed record (none for what has no page of its own: a space, column, tag)."""
    record = change["record"]
    page = _PAGES.get(record["kind"])
    return page.format(id=record["id"]) if page else None


def thing(change: dict[str, Any], names: Names, say: Translator, *, title: str | None = None) -> Markup:
    kind = change["record"]["kind"]
    title = title_of(change, names) if title is None else title
    if not title:
        return _markup(say, _UNTITLED.get(kind, N_("a record")))
    return _markup(say, _THING[kind], title=Markup('<span class="title">%s</span>') % title)


def sentence(change: dict[str, Any], act: str, names: Names, say: Translator) -> Markup:
    before, after = change.get("before") or {}, change.get("after") or {}
    kind = change["record"]["kind"]
    if act == "rename":
        field_name = "title" if kind in _TASKS else "name"
        old = str(before.get(field_name) or "")
        return _markup(
            say, _SAID[act], thing=thing(change, names, say, title=old or None), to=str(after.get(field_name) or "")
        )
    if act == "move_column":
        return _markup(
            say, _SAID[act], thing=thing(change, names, say),
            **{"from": _column(before.get("columnId"), names, say), "to": _column(after.get("columnId"), names, say)},
        )  # fmt: skip
    if act == "move_space":
        return _markup(say, _SAID[act], thing=thing(change, names, say), to=_space(after.get("spaceId"), names, say))
    if act == "retag":
        old_tag, new_tag = renamed_tag(change) or ("", "")
        return _markup(say, _SAID[act], thing=thing(change, names, say), **{"from": old_tag, "to": new_tag})
    return _markup(say, _SAID[act], thing=thing(change, names, say))


def _column(column_id: Any, names: Names, say: Translator) -> str:
    return names.columns.get(str(column_id)) or say.gettext("a deleted column")


def _space(space_id: Any, names: Names, say: Translator) -> str:
    return names.spaces.get(str(space_id)) or say.gettext("a deleted space")


# -- details: each field in words ---------------------------------------------------------------

_LABELS = {
    "content": N_("Text"), "title": N_("Title"), "notes": N_("Notes"), "name": N_("Name"),
    "priority": N_("Priority"), "tags": N_("Tags"), "due": N_("Due"), "timezone": N_("Time zone"),
    "recurrence": N_("Repeats"), "reminders": N_("Reminders"), "attachments": N_("Attachments"),
    "resources": N_("Attachments"), "pinned": N_("Pinned"), "status": N_("Where"), "columnId": N_("Column"),
    "spaceId": N_("Space"), "color": N_("Colour"), "archived": N_("Archived"), "done": N_("Done"),
}  # fmt: skip
_TEXTS = frozenset({"content", "title", "notes", "name"})
#: Bookkeeping nobody reads in a history: positions, ids, times the sentence already says.
_UNSAID = frozenset({
    "id", "position", "parentId", "createdAt", "completedAt", "deletedAt", "contentSource", "slug", "spaceId",
})  # fmt: skip
#: A repeating series' own record of its completed occurrences: nothing a person set or reads.
_SERIES_BOOKKEEPING = frozenset({"occurrences", "occurrenceCount", "excludedCount"})
#: What each act's sentence already says, so its details need not repeat it.
_SAID_FIELDS = {
    "move_column": {"columnId"}, "move_space": {"spaceId"}, "complete": {"done"}, "reopen": {"done"},
    "pin": {"pinned"}, "unpin": {"pinned"}, "archive": {"status", "archived"}, "unarchive": {"status"},
    "unarchive_column": {"archived"}, "trash": {"status"}, "restore": {"status"}, "rename": {"name", "title"},
}  # fmt: skip
_PRIORITY = {"urgent": N_("urgent"), "high": N_("high"), "medium": N_("medium"), "low": N_("low"), "none": N_("none")}
_STATUS = {"NORMAL": N_("in the timeline"), "ARCHIVED": N_("archived"), "DELETED": N_("in the trash")}
#: Lines of a created memo shown under its details (the rest is one click away, on its page).
CREATED_LINES = 12


def _yes_no(value: Any, say: Translator) -> str:
    return say.gettext("yes") if value else say.gettext("no")


def _due(value: Any, zone: str, now: datetime, say: Translator) -> str:
    if not isinstance(value, dict):
        return ""
    today = now.astimezone(ZoneInfo(zone)).date()
    if value.get("type") == "date":
        return day_words(date.fromisoformat(str(value["date"])), today, say)
    moment = local(str(value.get("at", "")), zone)
    return say.gettext("%(day)s %(time)s", day=day_words(moment.date(), today, say), time=clock(moment, say))


def _due_in(value: Any, side: dict[str, Any], zone: str, now: datetime, say: Translator) -> str:
    """A due as its side of the change has it: a time in the task's own zone when that side names
    one other than the reader's ("Dec 7 09:30 (Eastern Time)", as the task page shows it, beside a
    "Time zone → Eastern Time" line that would else read as 22:30 New York time), else the reader's."""
    own = side.get("timezone")
    if not isinstance(value, dict) or value.get("type") != "datetime" or not own or own == zone:
        return _value("due", value, Names(), zone, now, say)
    try:
        ZoneInfo(str(own))
    except (ZoneInfoNotFoundError, ValueError):
        return _value("due", value, Names(), zone, now, say)
    moment = local(str(value.get("at", "")), str(own))
    today = now.astimezone(ZoneInfo(str(own))).date()
    when = say.gettext("%(day)s %(time)s", day=day_words(moment.date(), today, say), time=clock(moment, say))
    return say.gettext("%(time)s (%(zone)s)", time=when, zone=_zone(own, say))


def _zone(value: Any, say: Translator) -> str:
    if not value:
        return ""
    try:
        return formats.zone_name(ZoneInfo(str(value)), say.language)  # the pages' and reminders' words
    except (ZoneInfoNotFoundError, ValueError, LookupError):
        return str(value)


def _names_of(values: Any, key: str = "") -> list[str]:
    if not isinstance(values, list):
        return []
    found = []
    for value in values:
        name = value.get(key) if key and isinstance(value, dict) else value
        if isinstance(name, str) and name:
            found.append(name)
    return found


def _value(name: str, value: Any, names: Names, zone: str, now: datetime, say: Translator) -> str:
    """A field's value in words ("" for none: the template shows a dash)."""
    if value is None or value == "" or value == []:
        return ""
    words: dict[str, Callable[[], str]] = {
        "priority": lambda: say.gettext(_PRIORITY.get(str(value), N_("none"))),
        "due": lambda: _due(value, zone, now, say),
        "timezone": lambda: _zone(value, say),
        "recurrence": lambda: recurrence_words(str(value), say),
        "reminders": lambda: say.ngettext("%(num)d reminder", "%(num)d reminders", len(value)),
        "status": lambda: say.gettext(_STATUS.get(str(value), N_("in the timeline"))),
        "columnId": lambda: _column(value, names, say),
        "spaceId": lambda: _space(value, names, say),
        "color": lambda: say.gettext("a colour"),
    }
    if name in words:
        return words[name]()
    if isinstance(value, bool):
        return _yes_no(value, say)
    if isinstance(value, (str, int, float)):
        return str(value)
    return ""


def _detail(name: str, before: dict[str, Any], after: dict[str, Any], names: Names, zone: str, now: datetime,
            say: Translator) -> Detail | None:  # fmt: skip
    label = say.gettext(_LABELS[name])
    old, new = before.get(name), after.get(name)
    if name in _TEXTS:
        rows = compare(str(old or ""), str(new or ""))
        return Detail(label, rows=tuple(rows)) if rows else None
    if name in ("tags", "attachments", "resources"):
        key = "" if name == "tags" else "displayName"
        was, now_names = _names_of(old, key), _names_of(new, key)
        added = tuple(item for item in now_names if item not in was)
        removed = tuple(item for item in was if item not in now_names)
        if not added and not removed:
            return None
        return Detail(label, added=added, removed=removed)
    if name == "due":  # a time in the task's own zone, when the change says it (the task page's reading)
        was_words, now_words = _due_in(old, before, zone, now, say), _due_in(new, after, zone, now, say)
    else:
        was_words, now_words = _value(name, old, names, zone, now, say), _value(name, new, names, zone, now, say)
    if was_words == now_words:
        return None
    return Detail(label, before=was_words, after=now_words)


def _created(change: dict[str, Any], names: Names, zone: str, now: datetime, say: Translator) -> list[Detail]:
    """A new record's details: a memo's text (its first lines), a task's notes, due, priority
    and tags when it has them; nothing for a record the sentence names whole (a column, a tag)."""
    after = change.get("after") or {}
    kind = change["record"]["kind"]
    if kind == "memo":
        lines = str(after.get("content") or "").split("\n")
        shown = "\n".join(lines[:CREATED_LINES])
        rows = compare("", shown)
        more = len(lines) - CREATED_LINES
        note = say.ngettext("and %(num)d more line", "and %(num)d more lines", more) if more > 0 else ""
        return [Detail(say.gettext(_LABELS["content"]), rows=tuple(rows), note=note)] if rows else []
    details = []
    for name in ("notes", "due", "priority", "tags"):
        value = after.get(name)
        if not value or value == "none" or kind not in _TASKS:
            continue
        detail = _detail(name, {}, after, names, zone, now, say)
        if detail is not None:
            details.append(detail)
    return details


def details(change: dict[str, Any], act: str, names: Names, zone: str, now: datetime, say: Translator) -> list[Detail]:
    if change.get("afterOmitted"):
        return [Detail(say.gettext("Change"), note=say.gettext("Too large to keep; the record itself has it."))]
    if act in ("create", "add"):
        found = _created(change, names, zone, now, say)
    elif act in ("trash", "restore", "delete", "remove", "bring_back", "to_board", "recolour"):
        found = []
    else:
        before, after = change.get("before") or {}, change.get("after") or {}
        skip = _UNSAID | _SAID_FIELDS.get(act, set())
        if act == "complete":
            # A recurring task's next occurrence is the completion, and so is the series'
            # bookkeeping of it (the occurrence kept, the counts COUNT reads).
            skip = skip | {"due", "reminders", "columnId"} | _SERIES_BOOKKEEPING
        elif act == "reopen":
            # its undo: the due going back is worth reading, the occurrence taken out is not
            skip = skip | _SERIES_BOOKKEEPING
        found = []
        others = 0
        for name in change["fields"]:
            if name in skip:
                continue
            if name not in _LABELS:
                others += 1
                continue
            detail = _detail(name, before, after, names, zone, now, say)
            if detail is not None:
                found.append(detail)
        if others:
            other = NP_("%(num)d other detail changed", "%(num)d other details changed")
            found.append(Detail(say.gettext("Other"), note=say.ngettext(*other, others)))
    members = change.get("members") or []
    if members:
        found.append(Detail(say.gettext("With it"), note=_counted_records(members, say)))
    return found


def _counted_records(members: list[dict[str, Any]], say: Translator) -> str:
    """The records of the same change, counted by kind ("3 columns": a space's removal took
    them; "2 subtasks": a move carried them), so the reader knows what went with it."""
    counts = Counter(str(member["record"]["kind"]) for member in members)
    return say.gettext(", ").join(say.ngettext(*_COUNTED[kind], count) for kind, count in counts.most_common())


def line(change: dict[str, Any], names: Names, zone: str, now: datetime, say: Translator) -> Line:
    act = act_of(change)
    return Line(
        change=change, act=act, sentence=sentence(change, act, names, say),
        details=tuple(details(change, act, names, zone, now, say)),
        when=moment_words(str(change["at"]), zone, now, say), clock=clock(local(str(change["at"]), zone), say),
        url=record_url(change),
    )  # fmt: skip


# -- a session summed up ------------------------------------------------------------------------

#: Acts named in a summary before the rest are counted ("and 3 other changes").
SUMMARY_PARTS = 4


def summary(changes: list[dict[str, Any]], say: Translator) -> str:
    """`edited 30 memos, moved 1 task`: each act on each kind counted, most frequent first; the
    columns a new space came with last ("created 2 spaces" before their 6 columns)."""
    counts = Counter((act_of(change), change["record"]["kind"]) for change in changes)
    with_spaces = Counter(
        (act_of(change), "column")
        for change in changes
        if change["record"]["kind"] == "column" and change.get("operation") == "create_todo_space"
    )
    parts = []
    ranked = sorted(counts.most_common(), key=lambda entry: entry[0] in with_spaces)  # stable: by count within
    for (act, kind), count in ranked[:SUMMARY_PARTS]:
        singular, plural = _COUNTED[kind]
        parts.append(say.pgettext(*_SUMMED[act], thing=say.ngettext(singular, plural, count)))
    rest = sum(count for _key, count in ranked[SUMMARY_PARTS:])
    if rest:
        parts.append(say.ngettext("%(num)d other change", "%(num)d other changes", rest))
    return say.gettext(", ").join(parts)


__all__ = ["Detail", "Line", "Names", "act_of", "line", "record_url", "referenced_ids", "summary", "title_of"]
