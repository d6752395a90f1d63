"""The todo model shared by every todo module: limits, ids, positions, field validation and the
public record shapes (what the API returns for a stored item).

Offers (stable names, used by tasks/inbox/views alike):
- limits: TITLE_MAX, NOTES_MAX, MAX_TAGS_PER_RECORD, MAX_SUBTASKS, MAX_COLUMNS_PER_SPACE,
  NAME_MAX, PRIORITIES, DEFAULT_COLUMNS;
- `new_id()`; positions: `position_between(before, after)`, `positions_between(before, after, n)`,
  `position_for_index(sorted_positions, index)` (fractional string keys, see below);
- validation: `check_title`, `check_notes`, `check_tags`, `check_due`, `check_timezone`,
  `check_name`, `check_slug`, `slugify`;
- shapes: `public_space`, `public_column`, `public_task` (root tasks and subtasks),
  `public_tag`, `public_inbox_item`, `public_inbox_subtask(item, subtask)`;
- `new_task_fields(...)`: the stored fields of a fresh task / subtask / inbox item body.

Positions are fractional-indexing keys (base-62 strings, PyPI `fractional-indexing`): sorting by
plain string comparison gives the order, and a key can always be made between two others, so
moving one record rewrites that record only (no renumbering of its siblings, which could exceed
the 100-operation transaction limit). Ties (concurrent inserts at the same spot) sort by id.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

import fractional_indexing

from ..kernel.errors import ValidationError
from ..kernel.i18n import NC_, Translator
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from ..kernel.spec import SpecError, load_spec
from ..kernel.tags import is_valid_tag
from ..kernel.timestamps import parse_timestamp, parse_zone
from ..kernel.values import without_controls
from .recurrence import normalized as normalized_rule


def _schema_value(schema: str, keyword: str) -> Any:
    """A keyword of a todo schema in the loaded spec (todos/openapi.yaml): the spec states the
    limits, the model reads them once at import, and a spec without them fails at start-up."""
    try:
        return load_spec().document["components"]["schemas"][schema][keyword]
    except KeyError:
        raise SpecError(f"todos/openapi.yaml: components.schemas.{schema}.{keyword} is missing") from None


TITLE_MAX = int(_schema_value("TodoTitle", "maxLength"))
NOTES_MAX = int(_schema_value("TodoNotes", "maxLength"))
NAME_MAX = int(_schema_value("TodoName", "maxLength"))  # space and column names
SLUG_MAX = int(_schema_value("TodoSlug", "maxLength"))
MAX_TAGS_PER_RECORD = int(_schema_value("TodoTagList", "maxItems"))
PRIORITIES: tuple[str, ...] = tuple(_schema_value("TodoPriority", "enum"))
# Not in a schema of their own (the spec states them only inside operations' bodies): a root
# task moves with its subtasks in one transaction (<= 100 ops): 1 + 50 + tag records.
MAX_SUBTASKS = 50
MAX_COLUMNS_PER_SPACE = 50
#: A new board's names, in the language of the person it is made for (`default_board`): the
#: first board of an account and a space created without columns. The last column is the done
#: column. Marked for the catalog with their context: "Done" the column is not "Done" the state.
DEFAULT_SPACE_NAME = NC_("a new board", "Default")
DEFAULT_COLUMNS = (NC_("a new board", "To do"), NC_("a new board", "Doing"), NC_("a new board", "Done"))
DEFAULT_ALIAS = "default"


def default_board(language: str) -> tuple[str, tuple[str, ...]]:
    """(the space's name, its columns' names) of a new board in `language` (en: Default / To do /
    Doing / Done; zh: 默认 / 待办 / 进行中 / 已完成); the last column is the done column."""
    say = Translator(language)
    return say.pgettext(*DEFAULT_SPACE_NAME), tuple(say.pgettext(*column) for column in DEFAULT_COLUMNS)


_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)


def new_id() -> str:
    """Random, URL-safe, the same kind of id memos use."""
    return secrets.token_urlsafe(12)


# -- positions ---------------------------------------------------------------------------------


def position_between(before: str | None, after: str | None) -> str:
    """A key sorting strictly between `before` and `after` (None = open end). Two records can
    share a key (concurrent inserts); when `after` ties with `before` there is no key between
    them, and the new one goes just after `before` (it then sorts among the tie's neighbours by
    id, as the tie itself does) instead of failing the write."""
    if before is not None and after is not None and after <= before:
        after = None
    return str(fractional_indexing.generate_key_between(before, after))


def positions_between(before: str | None, after: str | None, count: int) -> list[str]:
    return [str(key) for key in fractional_indexing.generate_n_keys_between(before, after, count)]


def position_for_index(siblings: Sequence[str], index: int | None) -> str:
    """The key that puts a record at `index` (0 = first) among `siblings` (sorted positions of
    the other records in the list); None or an index past the end appends."""
    if index is None or index >= len(siblings):
        return position_between(siblings[-1] if siblings else None, None)
    if index <= 0:
        return position_between(None, siblings[0] if siblings else None)
    before, after = siblings[index - 1], siblings[index]
    if before == after:  # a tie from concurrent inserts: go just after both
        return position_between(before, None if index + 1 >= len(siblings) else _next_distinct(siblings, index))
    return position_between(before, after)


def _next_distinct(siblings: Sequence[str], index: int) -> str | None:
    for key in siblings[index:]:
        if key > siblings[index - 1]:
            return key
    return None


# -- field validation --------------------------------------------------------------------------


def check_title(value: str, field: str = "title") -> str:
    """The title as stored: without its outer whitespace and without control characters
    (`kernel.values.CONTROL_CHARACTERS`: invisible, and never part of a one-line label)."""
    text = without_controls(value).strip()
    if not text:
        raise ValidationError("%(field)s: must not be empty or only whitespace", field=field)
    if len(text) > TITLE_MAX:
        raise ValidationError(
            "%(field)s: at most %(title_max)s characters (got %(count)s)",
            field=field,
            title_max=TITLE_MAX,
            count=len(text),
        )
    return text


def check_notes(value: str | None, field: str = "notes") -> str:
    text = value or ""
    if len(text) > NOTES_MAX:
        raise ValidationError(
            "%(field)s: at most %(notes_max)s characters of Markdown (got %(count)s)",
            field=field,
            notes_max=NOTES_MAX,
            count=len(text),
        )
    return text


def check_name(value: str, field: str = "name") -> str:
    """A space's or column's name as stored: as a title, without outer whitespace and control
    characters."""
    text = without_controls(value).strip()
    if not text:
        raise ValidationError("%(field)s: must not be empty or only whitespace", field=field)
    if len(text) > NAME_MAX:
        raise ValidationError("%(field)s: at most %(name_max)s characters", field=field, name_max=NAME_MAX)
    return text


def check_tags(values: Sequence[str], field: str = "tags") -> list[str]:
    """Distinct tags in the given order; each a valid tag name (the memo TagName rule)."""
    tags = list(dict.fromkeys(values))
    for index, tag in enumerate(tags):
        if not is_valid_tag(tag):
            raise ValidationError(
                "%(field)s[%(index)s]: %(tag)s is not a valid tag (1..100 characters, no spaces, '#' or punctuation)",
                field=field,
                index=index,
                tag=quoted(tag),
            )
    if len(tags) > MAX_TAGS_PER_RECORD:
        raise ValidationError(
            "%(field)s: at most %(max_tags_per_record)s tags per record",
            field=field,
            max_tags_per_record=MAX_TAGS_PER_RECORD,
        )
    return tags


def check_due(value: dict[str, Any] | None, field: str = "due") -> dict[str, Any] | None:
    """Due keeps its original semantics: a calendar date or an instant with its own offset, stored
    exactly as given (only checked)."""
    if value is None:
        return None
    kind = value.get("type")
    if kind == "date":
        text = value.get("date")
        if not isinstance(text, str) or not _DATE.fullmatch(text):
            raise ValidationError("%(field)s.date: must be YYYY-MM-DD", field=field)
        try:
            date.fromisoformat(text)
        except ValueError:
            raise ValidationError(
                "%(field)s.date: %(text)s is not a calendar date", field=field, text=quoted(text)
            ) from None
        return {"type": "date", "date": text}
    if kind == "datetime":
        text = value.get("at")
        if not isinstance(text, str):
            raise ValidationError("%(field)s.at: must be an ISO 8601 timestamp with Z or an offset", field=field)
        parse_timestamp(text, f"{field}.at")
        return {"type": "datetime", "at": text}
    raise ValidationError("%(field)s.type: must be 'date' or 'datetime'", field=field)


def check_timezone(value: str | None, field: str = "timezone") -> str | None:
    if value is None:
        return None
    parse_zone(value, field)
    return value


#: The editable content of tasks, subtasks and inbox items, each with its check.
_CONTENT_CHECKS: dict[str, Callable[[Any], Any]] = {
    "title": check_title,
    "notes": check_notes,
    "priority": lambda value: value,  # the schema's enum already decided
    "tags": check_tags,
    "due": check_due,
    "timezone": check_timezone,
    "recurrence": normalized_rule,
    # Checked against the attachment registry by the operation (todos/attachments.py `bound`).
    "attachments": list,
}


def with_content(record: Item, changes: Mapping[str, Any]) -> Item:
    """A copy of `record` with the content fields present in `changes`, each validated."""
    after = dict(record)
    for name, check in _CONTENT_CHECKS.items():
        if name in changes:
            after[name] = check(changes[name])
    return after


def check_slug(value: str, field: str = "slug") -> str:
    if not _SLUG.fullmatch(value):
        raise ValidationError(
            "%(field)s: %(value)s must be 1..%(slug_max)s lowercase letters, digits and inner hyphens (e.g. work-2026)",
            field=field,
            value=quoted(value),
            slug_max=SLUG_MAX,
        )
    return value


def slugify(name: str) -> str:
    """A slug from a name: ASCII letters and digits kept, the rest collapsed to hyphens; names
    without any (e.g. all CJK) give `space`."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[: SLUG_MAX - 4].strip("-")
    return slug or "space"


# -- public shapes -----------------------------------------------------------------------------

SPACE_FIELDS = ("id", "name", "slug", "isDefault", "position", "revision", "createdAt", "updatedAt")
COLUMN_FIELDS = ("id", "spaceId", "name", "position", "archived", "done", "revision", "createdAt", "updatedAt")
TASK_FIELDS = (
    "id", "spaceId", "columnId", "parentId", "title", "notes", "priority", "tags", "due", "timezone",
    "recurrence", "reminders", "attachments", "done", "completedAt", "position", "revision",
    "createdAt", "updatedAt", "deletedAt",
)  # fmt: skip
TAG_FIELDS = ("name", "color", "revision", "createdAt", "updatedAt")
INBOX_FIELDS = (
    "id", "title", "notes", "priority", "tags", "due", "timezone", "recurrence", "reminders", "attachments",
    "done", "completedAt", "position", "revision", "createdAt", "updatedAt", "deletedAt",
)  # fmt: skip
INBOX_SUBTASK_FIELDS = ("id", "title", "notes", "isDone", "position", "attachments")


def _pick(item: Item, fields: Sequence[str]) -> dict[str, Any]:
    return {name: item.get(name) for name in fields}


def public_space(item: Item, default_space_id: str | None) -> dict[str, Any]:
    """`isDefault` comes from the settings record (one place), not from the space item."""
    return {**_pick(item, SPACE_FIELDS), "isDefault": item["id"] == default_space_id}


def public_column(item: Item) -> dict[str, Any]:
    """`done`: the space's done column (completed tasks move there); columns older than the flag lack it."""
    return {**_pick(item, COLUMN_FIELDS), "done": bool(item.get("done"))}


def public_task(item: Item, *, include_notes: bool = True) -> dict[str, Any]:
    """A root task (parentId null) or a subtask (columnId null, parentId set)."""
    shape = _pick(item, TASK_FIELDS)
    if not include_notes:
        del shape["notes"]
    return shape


def public_tag(item: Item) -> dict[str, Any]:
    return _pick(item, TAG_FIELDS)


def public_inbox_item(item: Item, *, include_notes: bool = True) -> dict[str, Any]:
    """An inbox item with its embedded subtasks in the exposed inbox-subtask shape."""
    shape = _pick(item, INBOX_FIELDS)
    if not include_notes:
        del shape["notes"]
    shape["subtasks"] = [
        public_inbox_subtask(item, sub, include_notes=include_notes)
        for sub in sorted(item.get("subtasks", []), key=lambda s: (s["position"], s["id"]))
    ]
    return shape


def public_inbox_subtask(parent: Item, subtask: dict[str, Any], *, include_notes: bool = True) -> dict[str, Any]:
    """No own revision and no completion time: writes use the parent's revision."""
    shape = {**_pick(subtask, INBOX_SUBTASK_FIELDS), "parentItemId": parent["id"], "parentRevision": parent["revision"]}
    if shape["notes"] is None:
        shape["notes"] = ""
    if shape["attachments"] is None:
        shape["attachments"] = []
    if not include_notes:
        del shape["notes"]
    return shape


def new_task_fields(args: dict[str, Any], now: str) -> dict[str, Any]:
    """The content fields of a new task-like record from validated arguments (title, notes,
    priority, tags, due, timezone) plus the not-yet-in-scope fields left empty."""
    return {
        "title": check_title(args["title"]),
        "notes": check_notes(args.get("notes")),
        "priority": args.get("priority", "none"),
        "tags": check_tags(args.get("tags", [])),
        "due": check_due(args.get("due")),
        "timezone": check_timezone(args.get("timezone")),
        "recurrence": None,
        "reminders": [],
        "attachments": list(args.get("attachments", [])),  # already `bound` by the operation
        "done": False,
        "completedAt": None,
        "revision": 1,
        "createdAt": now,
        "updatedAt": now,
        "deletedAt": None,
    }


def sort_key(item: Item) -> tuple[str, str]:
    """Order within a list: position, then id (ties from concurrent inserts stay stable)."""
    return (str(item.get("position", "")), str(item["id"]))
