"""The field an error names, said as a page labels it (sweep F8).

A domain or validation error names its field by the argument's path (`title`,
`reminders[0].offset`, `changes[2].title`: `%(field)s`), which REST and MCP answer with as it is.
A page says the same message with the field by the name its form shows (标题, 时区, Title, Time
zone): `labelled(text, names)` gives the `field` parameters of a message (its nested messages'
too) the label of the path's last part that has one (`reminders[0].offset` -> Reminders), the
page's own `names` first (a column form's `name` is its Column name), then FIELD_NAMES; a path
without a label stays as it is. The labels are catalog strings, translated where the message is
said (`Page.error_text`, the error page, a script's JSON error).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...kernel.i18n import Text
from .i18n import N_

#: Argument and form field names -> the label a page gives them (English source text).
FIELD_NAMES: dict[str, str] = {
    "title": N_("Title"),
    "notes": N_("Notes"),
    "name": N_("Name"),
    "priority": N_("Priority"),
    "tags": N_("Tags"),
    "due": N_("Due"),
    "due_date": N_("Due date"),
    "due_time": N_("Due time"),
    "timezone": N_("Time zone"),
    "timeZone": N_("Time zone"),
    "recurrence": N_("Repeats"),
    "preset": N_("Repeats"),
    "rule": N_("Custom rule"),
    "reminders": N_("Reminders"),
    "subtasks": N_("Subtasks"),
    "content": N_("Content"),
    "columns": N_("Columns"),
    "index": N_("Position"),
    # attachments (the composer's uploads; a memo's resources)
    "displayName": N_("File name"),
    "mimeType": N_("File type"),
    "size": N_("File size"),
    "file": N_("File"),
    "path": N_("Attachment"),
}
_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def label_of(path: str, names: Mapping[str, str] | None = None) -> str | None:
    """The label (an English catalog string) of the last part of `path` that has one, or None."""
    for part in reversed(_PART.findall(path)):
        label = (names or {}).get(part) or FIELD_NAMES.get(part)
        if label is not None:
            return label
    return None


def labelled(text: Text, names: Mapping[str, str] | None = None) -> Text:
    """`text` with each `field` parameter (its nested messages' too) as the page labels it."""
    params: dict[str, object] = {}
    for key, value in text.params.items():
        if isinstance(value, Text):
            value = labelled(value, names)
        elif key == "field" and isinstance(value, str):
            label = label_of(value, names)
            value = Text(label) if label is not None else value
        params[key] = value
    return type(text)(text.template, **params)


__all__ = ["FIELD_NAMES", "label_of", "labelled"]
