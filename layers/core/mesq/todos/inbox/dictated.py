"""`parse: true` on the inbox capture: the title read as the web's quick add reads it
(`todos/quick_add.py`, the one parser), for a client that can only send a line of words, as an
iPhone Shortcut's *Dictate Text* does (docs/shortcuts.md).

The line is read in the capture's `timezone` if it names one, else the user's own, else UTC; the
inbox takes no repeat rule, so a repeat phrase stays in the title (as on the web's inbox). A field
the caller also gave wins over what the line says (`due`, `priority`); tags are both. `said` is
what the answer's `read` shows a person: the item as captured, its due on the clock of its zone
("交报告 · 2026-12-08 15:00 Asia/Shanghai · #工作"), in no language of its own. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..model import check_timezone
from ..quick_add import parse_quick_add

#: The inbox keeps no recurrence: its phrase is not read.
_NOT_READ = frozenset({"recurrence"})


def dictated(args: Mapping[str, Any], user_zone: str | None, now: datetime) -> dict[str, Any]:
    """The capture's arguments with its title read: title, due (with its zone), priority, tags."""
    # The capture's own zone is checked before the line is read in it (a name the zone database
    # lacks is the write's VALIDATION_ERROR, never the parser's failure).
    zone = check_timezone(args.get("timezone")) or user_zone or "UTC"
    read = parse_quick_add(args["title"], zone=zone, now=now, ignore=_NOT_READ).arguments(zone)
    fields = {**args, "title": read["title"]}
    if "due" not in args and "due" in read:
        fields["due"], fields["timezone"] = read["due"], zone
    if "priority" not in args and "priority" in read:
        fields["priority"] = read["priority"]
    if read.get("tags"):
        fields["tags"] = list(dict.fromkeys([*args.get("tags", []), *read["tags"]]))
    return fields


def said(item: Mapping[str, Any], user_zone: str | None) -> str:
    """The captured item in one line: title · due · #tags · !priority."""
    parts = [str(item["title"])]
    due = item.get("due")
    if due and due.get("type") == "datetime":
        zone = item.get("timezone") or user_zone or "UTC"
        at = datetime.fromisoformat(due["at"]).astimezone(ZoneInfo(zone))
        parts.append(f"{at:%Y-%m-%d %H:%M} {zone}")
    elif due:
        parts.append(str(due["date"]))
    parts += ["#" + name for name in item.get("tags", [])]
    if item.get("priority", "none") != "none":
        parts.append("!" + str(item["priority"]))
    return " · ".join(parts)


__all__ = ["dictated", "said"]
