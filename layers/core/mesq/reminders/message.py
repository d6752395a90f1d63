"""What a person reads in a reminder (docs/reminders.md): the task's title, its due time in the
task's zone (tick._payload: else the user's todo default, else UTC), a link to its page and the
ntfy priority of its priority. One builder for every channel kind, so an email, an ntfy
notification, a Telegram message and a push say the same."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..kernel.timestamps import parse_timestamp

#: ntfy priorities (1 min .. 5 max) of the task priorities.
NTFY_PRIORITY = {"none": 3, "low": 2, "medium": 3, "high": 4, "urgent": 5}


@dataclass(frozen=True)
class Message:
    title: str
    due: str  # "2026-12-03 09:15 (Europe/Berlin)", a date, or ""
    link: str
    priority: str

    @property
    def text(self) -> str:
        lines = [f"Reminder: {self.title}"]
        if self.due:
            lines.append(f"Due: {self.due}")
        lines.append(self.link)
        return "\n".join(lines)


def local_due(due: Any, timezone: Any) -> str:
    if not isinstance(due, dict):
        return ""
    if due.get("type") == "date":
        return str(due.get("date", ""))
    try:
        zone = ZoneInfo(str(timezone)) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    moment = parse_timestamp(str(due.get("at")), "at").astimezone(zone)
    return f"{moment:%Y-%m-%d %H:%M} ({timezone or 'UTC'})"


def message_of(payload: dict[str, Any], public_url: str) -> Message:
    """The reminder `payload` (tick._payload; a test send has no task) as a person reads it."""
    task = payload.get("task")
    base = public_url.rstrip("/")
    if not isinstance(task, dict):
        return Message("MeSQ test reminder", "", base + "/settings/reminders", "none")
    link = f"{base}/todos/tasks/{task.get('id')}"
    return Message(str(task.get("title") or "(untitled)"), local_due(task.get("due"), task.get("timezone")), link,
                   str(task.get("priority") or "none"))  # fmt: skip
