"""A change of the history in the page's language (Activity and a record's History panel): what was
done to which kind of record, by what kind of credential, each changed field by its name and its
values as a person reads them, never an API word (`update`, `memo`, `pinned: False`, a column's
id, an ISO timestamp, a raw RRULE).

`change_view(change, say, names)` adds the words to a change of `list_changes`: `what` ("edited a
memo"), `label` (the record's own title or text, when the change carries it: the person's data),
`rows` (field, before, after). `names` maps the ids a todo change names (a column, a space, a
parent task) to their names, when the page knows them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup

from ...kernel import formats
from ...kernel.errors import ValidationError
from ...kernel.timestamps import parse_timestamp
from ..kit.i18n import N_, NC_, Translator
from ..kit.recurrence_words import recurrence_words

#: (action, kind) in words: "created a memo", "移动了任务". One string per pair, so each language
#: words it as it would (Chinese: verb + noun; no article).
_WHAT: dict[tuple[str, str], str] = {
    ("create", "memo"): N_("created a memo"), ("update", "memo"): N_("edited a memo"),
    ("trash", "memo"): N_("moved a memo to the trash"), ("restore", "memo"): N_("restored a memo"),
    ("delete", "memo"): N_("deleted a memo for good"), ("move", "memo"): N_("moved a memo"),
    ("create", "task"): N_("created a task"), ("update", "task"): N_("edited a task"),
    ("move", "task"): N_("moved a task"), ("trash", "task"): N_("moved a task to the trash"),
    ("restore", "task"): N_("restored a task"), ("delete", "task"): N_("deleted a task for good"),
    ("create", "subtask"): N_("created a subtask"), ("update", "subtask"): N_("edited a subtask"),
    ("move", "subtask"): N_("moved a subtask"), ("trash", "subtask"): N_("moved a subtask to the trash"),
    ("restore", "subtask"): N_("restored a subtask"), ("delete", "subtask"): N_("deleted a subtask for good"),
    ("create", "inbox"): N_("captured an inbox item"), ("update", "inbox"): N_("edited an inbox item"),
    ("move", "inbox"): N_("moved an inbox item"), ("trash", "inbox"): N_("moved an inbox item to the trash"),
    ("restore", "inbox"): N_("restored an inbox item"), ("delete", "inbox"): N_("deleted an inbox item for good"),
    ("create", "space"): N_("created a space"), ("update", "space"): N_("edited a space"),
    ("move", "space"): N_("moved a space"), ("trash", "space"): N_("deleted a space"),
    ("restore", "space"): N_("restored a space"), ("delete", "space"): N_("deleted a space"),
    ("create", "column"): N_("added a column"), ("update", "column"): N_("edited a column"),
    ("move", "column"): N_("moved a column"), ("trash", "column"): N_("deleted a column"),
    ("restore", "column"): N_("restored a column"), ("delete", "column"): N_("deleted a column"),
    ("create", "tag"): N_("created a tag"), ("update", "tag"): N_("edited a tag"),
    ("move", "tag"): N_("moved a tag"), ("trash", "tag"): N_("deleted a tag"),
    ("restore", "tag"): N_("restored a tag"), ("delete", "tag"): N_("deleted a tag"),
}  # fmt: skip
#: A record of that kind, as a History page's heading names it.
KIND_NOUNS = {
    "memo": NC_("record kind", "memo"), "task": NC_("record kind", "task"), "subtask": NC_("record kind", "subtask"),
    "inbox": NC_("record kind", "inbox item"), "space": NC_("record kind", "space"),
    "column": NC_("record kind", "column"), "tag": NC_("record kind", "tag"),
}  # fmt: skip
#: Who made a change, by the kind of credential it came through.
ACTOR_KINDS = {"pat": N_("access token"), "oauth": N_("connected app"), "web": N_("this web app"),
               "cli": N_("command line"), "session": N_("this web app")}  # fmt: skip
#: The names the history gives the web app and the command line (history/actor.py), stored in English.
ACTOR_NAMES = (N_("Web app"), N_("Command line"))
#: Each field a change may name, by what a person calls it. A field not listed (an id, a record's
#: kind, a sync client's bookkeeping) has no name a person knows: it is not shown.
FIELDS = {
    "content": NC_("field", "Text"), "pinned": NC_("field", "Pinned"), "status": NC_("field", "Status"),
    "resources": NC_("field", "Attachments"), "attachments": NC_("field", "Attachments"),
    "contentSource": NC_("field", "Source"), "title": NC_("field", "Title"), "notes": NC_("field", "Notes"),
    "priority": NC_("field", "Priority"), "tags": NC_("field", "Tags"), "due": NC_("field", "Due"),
    "timezone": NC_("field", "Time zone"), "recurrence": NC_("field", "Repeats"),
    "reminders": NC_("field", "Reminders"), "columnId": NC_("field", "Column"), "spaceId": NC_("field", "Space"),
    "parentId": NC_("field", "Task"), "done": NC_("field", "Done"), "isDone": NC_("field", "Done"),
    "completedAt": NC_("field", "Completed"), "deletedAt": NC_("field", "Deleted"),
    "createdAt": NC_("field", "Created"), "name": NC_("field", "Name"), "slug": NC_("field", "Short name"),
    "archived": NC_("field", "Archived"), "color": NC_("field", "Colour"), "subtasks": NC_("field", "Subtasks"),
    "occurrences": NC_("field", "Done occurrences"),
}  # fmt: skip
#: Fields that say nothing to a person (an order key, a sync client's bookkeeping): not shown.
HIDDEN_FIELDS = frozenset({"position", "props", "uid", "tagPaths"})
_TIMES = frozenset({"completedAt", "deletedAt", "createdAt"})
_IDS = frozenset({"columnId", "spaceId", "parentId"})
_WORDS = {
    "status": {"NORMAL": N_("in the timeline"), "ARCHIVED": N_("archived"), "DELETED": N_("in the trash")},
    "priority": {"urgent": N_("urgent"), "high": N_("high"), "medium": N_("medium"), "low": N_("low"),
                 "none": N_("none")},
    "contentSource": {"api": N_("the API"), "mcp": N_("an MCP app"), "web": N_("this web app"),
                      "cli": N_("the command line"), "import": N_("an import"), "external": N_("a sync")},
}  # fmt: skip
#: A record named by its id that the page cannot name (not among the changes it shows).
_SOME = {"columnId": N_("another column"), "spaceId": N_("another space"), "parentId": N_("a task")}
NOTHING = "—"
#: How much of a long text a diff shows.
TEXT_CHARS = 300


def _short(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…"


def value_words(field: str, value: Any, say: Translator, zone: str, names: Mapping[str, str]) -> str:
    """One value of a changed field as a person reads it, in `say`'s language."""
    if value is None or value == "" or value == []:
        return NOTHING
    if isinstance(value, bool):
        return say.gettext("yes") if value else say.gettext("no")
    words = _WORDS.get(field, {})
    if isinstance(value, str) and value in words:
        return say.gettext(words[value])
    if field in _TIMES and isinstance(value, str):
        try:
            return formats.moment_text(parse_timestamp(value, field), ZoneInfo(zone), say.language)
        except (ValidationError, ValueError, LookupError):
            return value
    if field in _IDS and isinstance(value, str):
        return names.get(value) or say.gettext(_SOME[field])
    if field == "timezone" and isinstance(value, str):
        try:
            return formats.zone_name(ZoneInfo(value), say.language)
        except (ValueError, LookupError):
            return value
    if field == "recurrence" and isinstance(value, str):
        return recurrence_words(value, say)
    if field == "due" and isinstance(value, dict):
        return _due_words(value, say, zone)
    if field == "tags" and isinstance(value, list):
        return " ".join(f"#{tag}" for tag in value)
    if field in ("resources", "attachments") and isinstance(value, list):
        return ", ".join(str(r.get("displayName") or r.get("name") or "") for r in value if isinstance(r, dict))
    if field == "reminders" and isinstance(value, list):
        return say.ngettext("%(num)d reminder", "%(num)d reminders", len(value))
    if field in ("subtasks", "occurrences") and isinstance(value, list):
        return say.ngettext("%(num)d item", "%(num)d items", len(value))
    if field == "slug" and isinstance(value, str):
        return Markup("<code>%s</code>") % value  # an address part (`/todos/b/space`), not words
    if isinstance(value, str):
        return _short(value)
    if isinstance(value, int | float):
        return formats.number(value, say.language)
    return _short(json.dumps(value, ensure_ascii=False))


def _due_words(due: dict[str, Any], say: Translator, zone: str) -> str:
    if due.get("type") == "date" and isinstance(due.get("date"), str):
        try:
            return formats.month_day(date.fromisoformat(due["date"]), say.language, with_year=True)
        except ValueError:
            return str(due["date"])
    if isinstance(due.get("at"), str):
        try:
            return formats.moment_text(parse_timestamp(due["at"], "due"), ZoneInfo(zone), say.language)
        except (ValidationError, ValueError, LookupError):
            return str(due["at"])
    return NOTHING


def record_names(changes: list[dict[str, Any]]) -> dict[str, str]:
    """The names the changes themselves carry (a column's, a space's, a task's title), newest
    first wins: enough to name the columns and spaces a move names."""
    names: dict[str, str] = {}
    for change in changes:
        record_id = change["record"]["id"]
        if record_id not in names and (label := _label(change)):
            names[record_id] = label
    return names


def _label(change: dict[str, Any]) -> str:
    """The record's own words, when the change carries them (a title, a name, a memo's text)."""
    for side in ("after", "before"):
        values = change.get(side) or {}
        for field in ("title", "name", "content"):
            text = values.get(field)
            if isinstance(text, str) and text.strip():
                return _short(text.strip().splitlines()[0])[:80]
    return ""


def change_view(change: dict[str, Any], say: Translator, zone: str, names: Mapping[str, str]) -> dict[str, Any]:
    """`change` with what a page shows of it in `say`'s language."""
    kind, action = change["record"]["kind"], change["action"]
    what = _WHAT.get((action, kind))
    rows = []
    for field in change.get("fields") or ():
        label = FIELDS.get(field)
        if field in HIDDEN_FIELDS or label is None:
            continue
        before = (change.get("before") or {}).get(field)
        after = None if change.get("afterOmitted") else (change.get("after") or {}).get(field)
        rows.append({
            "field": say.pgettext(*label),
            "before": value_words(field, before, say, zone, names),
            "after": value_words(field, after, say, zone, names),
        })  # fmt: skip
    actor = change.get("actor") or {}
    return {
        **change,
        "what": say.gettext(what) if what else f"{action} {kind}",
        "label": _label(change),
        "rows": rows,
        "actor_name": actor_name(actor, say),
        "actor_kind": say.gettext(ACTOR_KINDS[actor["kind"]]) if actor.get("kind") in ACTOR_KINDS else "",
    }


def actor_name(actor: Mapping[str, Any], say: Translator) -> str:
    """A credential's name (the person's own); the web app's and the command line's in words."""
    name = str(actor.get("name") or "")
    return say.gettext(name) if name in ACTOR_NAMES else name


def kind_noun(kind: str | None, say: Translator) -> str:
    noun = KIND_NOUNS.get(kind or "")
    return say.pgettext(*noun) if noun else (kind or "")


__all__ = ["actor_name", "change_view", "kind_noun", "record_names", "value_words"]
