"""What a person reads in a reminder (docs/reminders.md), in their language (Settings → Language,
else their browser's at sign-in, else English: `auth.users.preferred_language`): the task's title,
its due time in the task's zone (tick._payload: else the user's todo default, else UTC) with the
zone by its name, a link to its page and the ntfy priority of its priority. One builder for every
channel kind, so an email, an ntfy notification, a Telegram message and a push say the same.
The webhook's JSON payload is for programs: it carries no words and stays the same."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..kernel import formats
from ..kernel.i18n import DEFAULT_LANGUAGE, Translator
from ..kernel.timestamps import in_zone, parse_timestamp

#: ntfy priorities (1 min .. 5 max) of the task priorities.
NTFY_PRIORITY = {"none": 3, "low": 2, "medium": 3, "high": 4, "urgent": 5}


@dataclass(frozen=True)
class Message:
    title: str
    due: str  # "2026-12-03 09:15 (Central European Time)", a date, or ""
    link: str
    priority: str
    say: Translator = field(default=Translator(DEFAULT_LANGUAGE))
    #: What the link opens: the task's page, or (a test send) the reminder settings.
    opens_settings: bool = False

    @property
    def subject(self) -> str:
        """An email's subject, a Telegram message's first line."""
        return self.say.gettext("Reminder: %(title)s", title=self.title)

    @property
    def due_line(self) -> str:
        """`Due 2026-12-03 09:15 (…)`, or "Reminder" without a due: an ntfy or push body."""
        return self.say.gettext("Due %(when)s", when=self.due) if self.due else self.say.gettext("Reminder")

    @property
    def link_words(self) -> str:
        """The words of the link: what it opens."""
        if self.opens_settings:
            return self.say.gettext("Open the reminder settings")
        return self.say.gettext("Open the task")

    @property
    def text(self) -> str:
        lines = [self.subject]
        if self.due:
            lines.append(self.say.gettext("Due: %(when)s", when=self.due))
        lines.append(self.link)
        return "\n".join(lines)


def local_due(due: Any, timezone: Any, language: str = DEFAULT_LANGUAGE) -> str:
    if not isinstance(due, dict):
        return ""
    if due.get("type") == "date":
        try:
            return formats.month_day(date.fromisoformat(str(due.get("date"))), language, with_year=True)
        except ValueError:
            return str(due.get("date", ""))
    try:
        zone = ZoneInfo(str(timezone)) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    moment = in_zone(parse_timestamp(str(due.get("at")), "at"), zone)
    say = Translator(language)
    # The hour a clock change repeats (01:30 twice in New York on the autumn night) is said with
    # its side of the change (`EDT` / `EST`, `北美东部夏令时间`), as the pages say it: the generic
    # name would give two reminders an hour apart the same words. Every other hour keeps the
    # everyday name (`Eastern Time`, `中国时间`).
    repeated = moment.replace(fold=1 - moment.fold).utcoffset() != moment.utcoffset()
    zone_words = formats.zone_at(moment, language) if repeated else formats.zone_name(zone, language)
    return say.gettext("%(time)s (%(zone)s)", time=moment.strftime("%Y-%m-%d %H:%M"), zone=zone_words)


def message_of(payload: dict[str, Any], public_url: str, language: str = DEFAULT_LANGUAGE) -> Message:
    """The reminder `payload` (tick._payload; a test send has no task) as a person reads it in
    `language`."""
    say = Translator(language)
    task = payload.get("task")
    base = public_url.rstrip("/")
    if not isinstance(task, dict):
        return Message(
            say.gettext("MeSQ test reminder"), "", base + "/settings/reminders", "none", say, opens_settings=True
        )
    link = f"{base}/todos/tasks/{task.get('id')}"
    return Message(str(task.get("title") or say.gettext("(untitled)")), local_due(task.get("due"), task.get("timezone"),
                   language), link, str(task.get("priority") or "none"), say)  # fmt: skip
