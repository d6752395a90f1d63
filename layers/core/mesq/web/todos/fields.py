"""The todo pages' form fields <-> the todo operations' arguments (pure).

A browser sends a due as a date, an optional time and an IANA zone; the operations take
`{type: date, date}` or `{type: datetime, at}` plus `timezone`. The form shows a due in the
record's own zone, else the page's, and a zone-less time is read back in that same zone; a due
the person left as shown is not sent at all, so a save never moves it. Tags are one comma-separated
field, recurrence a preset or a custom RRULE, reminders a few relative offsets and one optional
absolute time. Anything malformed is a ValidationError naming the field (the page re-renders
the form with it, the user's text kept); the operations' own schemas check the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass, fields, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ...kernel import formats
from ...kernel.errors import ValidationError
from ...kernel.messages import quoted
from ...kernel.timestamps import format_timestamp, in_zone, parse_timestamp, parse_zone, skipped_wall_time
from ...kernel.typed_digits import ascii_digits, typed_whole_number
from ...todos.reminder_schedule import offset_parts, parse_offset
from ...todos.short_months import never_skipping, plain_repeat_of
from ..kit.forms import Fields
from ..kit.i18n import DEFAULT_LANGUAGE, N_, Translator

# ASCII digits: a typed value's other digits are read first (kernel/typed_digits.ascii_digits).
DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
TIME = re.compile(r"^[0-9]{2}:[0-9]{2}$")
LOCAL_MOMENT = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$")
CUSTOM = "custom"
#: (value, label) of the "Repeats" select; `custom` takes the RRULE text field.
RECURRENCE_PRESETS = (
    ("", N_("Does not repeat")),
    ("FREQ=DAILY", N_("Every day")),
    ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", N_("Every weekday")),
    ("FREQ=WEEKLY", N_("Every week")),
    ("FREQ=MONTHLY", N_("Every month")),
    ("FREQ=MONTHLY;BYMONTHDAY=-1", N_("Every month on the last day")),
    ("FREQ=YEARLY", N_("Every year")),
    (CUSTOM, N_("Custom rule (under Advanced)")),
)
#: (ISO 8601 offset from the due, label) of the relative reminder checkboxes.
REMINDER_OFFSETS = (("PT0M", N_("At the due time")), ("-PT15M", N_("15 minutes before")),
                    ("-PT1H", N_("1 hour before")), ("-P1D", N_("1 day before")))  # fmt: skip


@dataclass(frozen=True)
class TaskForm:
    """What the task form shows: a task's fields as the inputs hold them (also the user's own
    submitted text when a save is refused, so nothing typed is lost)."""

    title: str
    notes: str
    priority: str
    tags: str
    due_date: str
    due_time: str
    timezone: str
    preset: str
    rule: str


FORM_FIELDS = tuple(f.name for f in fields(TaskForm))


def digest(value: str) -> str:
    """A short fingerprint of a field as the page showed it (the form's `base_<field>`): enough to
    tell later whether the user or the other writer changed it, without sending the text twice."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]


def base_digests(form: TaskForm) -> dict[str, str]:
    return {name: digest(getattr(form, name)) for name in FORM_FIELDS}


@dataclass(frozen=True)
class Merge:
    """A refused save merged field by field against the version saved meanwhile: the form to show
    (the user's changes kept, the other writer's taken where the user changed nothing) and, per
    field that differs, what happened to it."""

    form: TaskForm
    rows: list[dict[str, str]]


def merge(theirs: TaskForm, yours: TaskForm, base: dict[str, str]) -> Merge:
    """Three-way merge with the base known by its digests (`base_<field>` of the submitted form;
    a missing digest counts as "the user changed it", so nothing typed is ever dropped)."""
    merged = yours
    rows: list[dict[str, str]] = []
    for name in FORM_FIELDS:
        mine, other = getattr(yours, name), getattr(theirs, name)
        if mine == other:
            continue
        if base.get(name) == digest(mine):
            merged = replace(merged, **{name: other})
            outcome = "theirs"  # only the other writer changed it
        elif base.get(name) == digest(other):
            outcome = "yours"  # only you changed it
        else:
            outcome = "both"  # both changed it: yours stays in the form, theirs is shown
        rows.append({"field": name, "theirs": other, "yours": mine, "outcome": outcome})
    return Merge(merged, rows)


def shown_zone(record: dict[str, Any], page_zone: str) -> str:
    """The zone a task's or inbox item's times are shown and asked in: its own, else the page's
    (the user's, else the browser's), the zone a zone-less time is read back in on save."""
    return record.get("timezone") or page_zone


def form_of_task(task: dict[str, Any], page_zone: str) -> TaskForm:
    """The form for a task or inbox item; a due without a zone of its own at its local time in
    `page_zone`, where the save reads a zone-less time back (the zone field stays empty)."""
    due, zone = task.get("due"), task.get("timezone") or ""
    due_date = due_time = ""
    if due and due["type"] == "date":
        due_date = due["date"]
    elif due:
        moment = in_zone(parse_timestamp(due["at"], "due"), ZoneInfo(shown_zone(task, page_zone)))
        due_date, due_time = moment.date().isoformat(), moment.strftime("%H:%M")
    rule = task.get("recurrence") or ""
    presets = {value for value, _ in RECURRENCE_PRESETS}
    # "Every month" from the 29th or 30th is stored in the form that keeps the short months (from
    # the 31st it is the last-day preset): still the preset while the due is on that day
    plain = plain_repeat_of(rule, date.fromisoformat(due_date)) if rule and DATE.match(due_date) else None
    preset = rule if rule in presets else plain or CUSTOM
    return TaskForm(
        title=task.get("title", ""),
        notes=task.get("notes") or "",
        priority=task.get("priority") or "none",
        tags=", ".join(task.get("tags") or ()),
        due_date=due_date,
        due_time=due_time,
        timezone=zone,
        preset=preset,
        rule=rule if preset == CUSTOM else "",
    )


def submitted_base(submitted: Fields) -> dict[str, str]:
    return {name: submitted.text(f"base_{name}") for name in FORM_FIELDS if submitted.text(f"base_{name}")}


def submitted_form(fields: Fields) -> TaskForm:
    return TaskForm(
        title=fields.text("title"),
        notes=fields.text("notes").replace("\r\n", "\n"),  # a textarea submits CRLF line ends
        priority=fields.text("priority") or "none",
        tags=fields.text("tags"),
        # Typed in a text box (a browser without date inputs): a date in full-width digits is that date.
        due_date=ascii_digits(fields.text("due_date").strip()),
        due_time=ascii_digits(fields.text("due_time").strip()),
        timezone=fields.text("timezone").strip(),
        preset=fields.text("repeat"),
        rule=fields.text("rule").strip(),
    )


#: What parts tags as typed: the comma, the full-width comma and the enumeration comma 、
#: ("家庭、工作", as Chinese lists things).
_TAG_SEPARATORS = re.compile(r"[,\uff0c\u3001]")


def tag_list(text: str) -> list[str]:
    """`work, 家务 ,, home` -> ["work", "家务", "home"] (order kept, repeats dropped); `#家庭、#工作`
    -> ["家庭", "工作"]: a tag typed as the board shows it, with its #, is that tag."""
    names = [name.strip().lstrip("#\uff03").strip() for name in _TAG_SEPARATORS.split(text)]
    return list(dict.fromkeys(name for name in names if name))


def due_of(form: TaskForm) -> dict[str, Any] | None:
    """The due the inputs mean: none, a date, or a wall-clock time in the form's zone (UTC without one)."""
    if not form.due_date:
        if form.due_time:
            raise ValidationError("due: give a date for the time")
        return None
    if not DATE.match(form.due_date):
        raise ValidationError("due: the date must look like 2026-12-31")
    try:
        day = date.fromisoformat(form.due_date)
    except ValueError:
        raise ValidationError("due: %(due_date)s is not a date", due_date=quoted(form.due_date)) from None
    if not form.due_time:
        return {"type": "date", "date": day.isoformat()}
    if not TIME.match(form.due_time):
        raise ValidationError("due: the time must look like 09:30")
    try:
        clock = time.fromisoformat(form.due_time)
    except ValueError:
        raise ValidationError("due: %(due_time)s is not a time of day", due_time=quoted(form.due_time)) from None
    zone = parse_zone(form.timezone, "timezone") if form.timezone else UTC
    moment = datetime.combine(day, clock, tzinfo=zone)
    # A time the zone skips (02:30 on a spring-forward day) is written as typed, with the offset
    # before the change: the same instant, and a repeat keeps 02:30 on the days after.
    return {"type": "datetime", "at": moment.isoformat() if skipped_wall_time(moment) else format_timestamp(moment)}


def recurrence_of(form: TaskForm) -> str | None:
    """The rule the repeat inputs mean: the custom rule as typed, or the preset, said so that a
    short month keeps its occurrence when the due is on the 29th-31st (todos/short_months.py)."""
    if form.preset == CUSTOM:
        if not form.rule:
            raise ValidationError("recurrence: type an RRULE such as FREQ=WEEKLY;BYDAY=MO,WE or pick a preset")
        return form.rule
    if form.preset not in {value for value, _ in RECURRENCE_PRESETS}:
        raise ValidationError("recurrence: choose one of the listed options")
    if form.preset and DATE.match(form.due_date):
        with contextlib.suppress(ValueError):  # not a date: due_of says so
            return never_skipping(form.preset, date.fromisoformat(form.due_date))
    return form.preset or None


DUE_FIELDS = ("due_date", "due_time", "timezone")


def untouched(form: TaskForm, base: dict[str, str], names: tuple[str, ...] = DUE_FIELDS) -> bool:
    """Whether the inputs `names` (the due's by default) still hold what the page showed (their
    `base_<field>` digests; a missing digest counts as touched)."""
    return all(base.get(name) == digest(getattr(form, name)) for name in names)


def due_changes(form: TaskForm, page_zone: str) -> dict[str, Any]:
    """`due` and `timezone` for the due inputs. A time without a zone is read in `page_zone`, the
    zone the form showed it in, and the record keeps that zone (a repeat follows its wall clock)."""
    zone = form.timezone or (page_zone if form.due_time else "")
    return {"due": due_of(replace(form, timezone=zone)), "timezone": zone or None}


def item_changes(form: TaskForm, page_zone: str, base: dict[str, str]) -> dict[str, Any]:
    """update_todo_inbox_item's arguments for the whole form (the revision added by the caller):
    what a task and an inbox item share. An untouched due is left out, so saving the form never
    moves it: the inputs hold minutes in a zone, which cannot always say the stored instant again
    (its seconds, a record without a zone of its own)."""
    changes: dict[str, Any] = {
        "title": form.title.strip(),
        "notes": form.notes,
        "priority": form.priority,
        "tags": tag_list(form.tags),
    }
    if not untouched(form, base):
        changes.update(due_changes(form, page_zone))
    return changes


#: The inputs the rule is made of: the repeat, the custom rule and the due's day.
RECURRENCE_FIELDS = ("preset", "rule", "due_date")


def task_changes(form: TaskForm, page_zone: str, base: dict[str, str]) -> dict[str, Any]:
    """update_todo_task's content arguments for the whole form (revision added by the caller).
    An untouched repeat is left out, as an untouched due is: "Every month" shown for a series on
    the 31st that is now at 28 February would be said again from the 28th."""
    changes = item_changes(form, page_zone, base)
    if not untouched(form, base, RECURRENCE_FIELDS):
        changes["recurrence"] = recurrence_of(form)
    return changes


def reminders_of(fields: Fields, zone_name: str, current: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reminder form: checked relative offsets plus one optional absolute local time, read in
    `zone_name` (the task's `shown_zone`). An absolute time the form left as it showed it keeps
    the `current` reminder's moment to the second (the field holds minutes)."""
    known = {offset for offset, _ in REMINDER_OFFSETS}
    chosen = [value for value in fields.all("offset") if isinstance(value, str)]
    if any(value not in known for value in chosen):
        raise ValidationError("reminders: choose among the listed offsets")
    reminders: list[dict[str, Any]] = [{"type": "relative", "offset": value} for value in dict.fromkeys(chosen)]
    moment = ascii_digits(fields.text("at").strip())
    if moment:
        if not LOCAL_MOMENT.match(moment):
            raise ValidationError("reminders: the time must look like 2026-12-31T09:30")
        zone = parse_zone(zone_name, "timezone")
        try:
            local = datetime.fromisoformat(moment).replace(tzinfo=zone)
        except ValueError:
            raise ValidationError("reminders: %(moment)s is not a date and time", moment=quoted(moment)) from None
        kept = [at for at in _absolute_times(current) if local_moment(at, zone_name) == moment]
        reminders.append({"type": "absolute", "at": kept[0] if kept else format_timestamp(local)})
    return reminders + [reminder for reminder in _not_in_form(current, known) if reminder not in reminders]


def _not_in_form(current: list[dict[str, Any]], listed_offsets: set[str]) -> list[dict[str, Any]]:
    """The reminders the form cannot show, kept as they are by a save: an offset it does not list
    and the set times after the first (both made through the API or a sync client)."""
    first_absolute = next((r for r in current if r.get("type") == "absolute"), None)
    return [
        reminder
        for reminder in current
        if not (reminder.get("type") == "relative" and form_offset(str(reminder.get("offset"))) in listed_offsets)
        and reminder is not first_absolute
    ]


def form_offset(offset: str) -> str:
    """The form's box for an offset written another way (an agent's `PT0S` or `-PT60M` is the box
    `PT0M` or `-PT1H`: the same days and the same exact rest), else the offset as it is."""
    try:
        parts = offset_parts(offset)
        return next((value for value, _ in REMINDER_OFFSETS if offset_parts(value) == parts), offset)
    except ValidationError:
        return offset


def _absolute_times(reminders: list[dict[str, Any]] | None) -> list[str]:
    return [r["at"] for r in reminders or () if r.get("type") == "absolute"]


def local_moment(at: str, zone_name: str) -> str:
    """A stored moment as the "At a set time" field holds it: `2026-12-08T20:00` in the zone."""
    return in_zone(parse_timestamp(at, "at"), ZoneInfo(zone_name)).strftime("%Y-%m-%dT%H:%M")


def reminders_beyond_form(task: dict[str, Any], zone_name: str, say: Translator) -> list[str]:
    """In words, the reminders a save keeps but the form cannot show (`_not_in_form`: an offset
    it has no box for, a set time after the first), so the page names every reminder it has."""
    known = {offset for offset, _ in REMINDER_OFFSETS}
    words = []
    for reminder in _not_in_form(task.get("reminders") or [], known):
        if reminder.get("type") == "absolute":
            words.append(local_moment(str(reminder["at"]), zone_name).replace("T", " "))
        else:
            words.append(offset_words(str(reminder.get("offset")), say))
    return words


def offset_words(text: str, say: Translator) -> str:
    """A relative reminder's offset as a person says it: `30 minutes before`, `1 day 2 hours after`."""
    total = parse_offset(text)
    seconds = int(abs(total.total_seconds()))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, seconds = divmod(rest, 60)
    units = (
        (days, say.ngettext("%(num)d day", "%(num)d days", days)),
        (hours, say.ngettext("%(num)d hour", "%(num)d hours", hours)),
        (minutes, say.ngettext("%(num)d minute", "%(num)d minutes", minutes)),
        (seconds, say.ngettext("%(num)d second", "%(num)d seconds", seconds)),
    )
    amount = " ".join(words for count, words in units if count)
    if not amount:
        return say.gettext("At the due time")
    if total < timedelta(0):
        return say.gettext("%(amount)s before", amount=amount)
    return say.gettext("%(amount)s after", amount=amount)


def reminder_form(task: dict[str, Any], zone_name: str) -> dict[str, Any]:
    """The reminder inputs for a task's current reminders: the offsets checked, the first
    absolute one as a local time in `zone_name` (the task's `shown_zone`)."""
    offsets = {form_offset(str(r["offset"])) for r in task.get("reminders") or () if r.get("type") == "relative"}
    absolute = _absolute_times(task.get("reminders"))
    return {"offsets": offsets, "at": local_moment(absolute[0], zone_name) if absolute else ""}


_DAY_NAMES = {0: N_("today"), 1: N_("tomorrow"), -1: N_("yesterday")}
ENGLISH = Translator(DEFAULT_LANGUAGE)
#: Beyond this many days away a due says only its date ("in 45 days" helps nobody).
RELATIVE_DAYS = 30


def occurrence_words(
    due: dict[str, Any] | None, zone: str | None, page_zone: str, now: datetime, say: Translator = ENGLISH
) -> str:
    """One occurrence's due in a notice, in the page's language (CLDR, `kernel/formats.py`):
    `Dec 11` / `12月11日`, a time `Dec 11 09:00` / `12月11日 09:00`, the year only when it is not
    `now`'s. A timed due is read on the task's wall clock, `zone` (its own zone, else the
    user's); only a zone other than the page's (`page_zone`: the user's, else the browser's) is
    named, by its generic name (`Dec 11 09:00 (Eastern Time)`)."""
    if not due:
        return ""
    this_year = now.astimezone(ZoneInfo(page_zone)).year
    if due["type"] == "date":
        day = date.fromisoformat(str(due["date"]))
        return formats.month_day(day, say.language, with_year=day.year != this_year)
    shown = zone or page_zone
    try:
        here = ZoneInfo(shown)
    except (ValueError, KeyError, ZoneInfoNotFoundError):  # a name this tzdata does not know
        shown, here = page_zone, ZoneInfo(page_zone)
    local = in_zone(parse_timestamp(str(due["at"]), "due"), here)
    text = f"{formats.month_day(local.date(), say.language, with_year=local.year != this_year)} "
    text += formats.clock(local, say.language)
    if shown == page_zone:
        return text
    return say.gettext("%(time)s (%(zone)s)", time=text, zone=formats.zone_name(here, say.language))


@dataclass(frozen=True)
class FriendlyDue:
    """A due as a person reads it, in the browser's zone: `text` "Fri 18:00 · in 3 days",
    "yesterday", "Dec 20 · in 17 days"; `exact` the full date (and time and zone) for a tooltip;
    `iso` for `<time datetime>`; `overdue` when it has passed and the task is not done."""

    text: str
    exact: str
    iso: str
    overdue: bool


def _day_words(day: date, today: date, say: Translator = ENGLISH) -> tuple[str, str]:
    """(the day: "today", "Fri", "Dec 20", "Jan 3, 2028"; how far: "in 3 days", "5 days ago", or
    ""), in `say`'s language ("今天", "周五", "12月20日", "2028年1月3日"; "3天后", "5天前"): the
    three nearest days by the catalog, the rest by CLDR (`kernel/formats.py`)."""
    days = (day - today).days
    language = say.language
    if days in _DAY_NAMES:
        words = say.gettext(_DAY_NAMES[days])
    elif 2 <= days <= 6:
        words = formats.weekday(day, language)
    else:
        words = formats.month_day(day, language, with_year=day.year != today.year)
    far = formats.in_days(days, language) if 2 <= abs(days) < RELATIVE_DAYS else ""
    return words, far


def friendly_due(
    due: dict[str, Any] | None,
    now: datetime,
    zone: str,
    *,
    done: bool = False,
    say: Translator = ENGLISH,
    own_zone: str | None = None,
) -> FriendlyDue | None:
    """`due` (a date, or a moment in UTC) in words relative to `now`, both seen in `zone` (the
    browser's IANA zone): a date has no zone, a moment is shown at its local time there. A date
    of a record with a zone of its own (`own_zone`) is today, past or ahead in that zone, as
    query_todos judges it: 5 December in Los Angeles is still today there while Shanghai's page
    is on the 6th, so it is not overdue yet (the page said "Overdue: yesterday" of a task its
    Today list holds). `say`: the page's language."""
    if not due:
        return None
    here = ZoneInfo(zone)
    today = now.astimezone(here).date()
    if due["type"] == "date":
        today = now.astimezone(_zone_or(own_zone, here)).date()
        day = date.fromisoformat(due["date"])
        words, far = _day_words(day, today, say)
        text = " · ".join(part for part in (words, far) if part)
        exact = formats.month_day(day, say.language, with_year=True)
        return FriendlyDue(text, exact, day.isoformat(), not done and day < today)
    moment = parse_timestamp(due["at"], "due")
    local = in_zone(moment, here)
    words, far = _day_words(local.date(), today, say)
    text = " · ".join(part for part in (f"{words} {formats.clock(local, say.language)}", far) if part)
    exact = formats.moment_text(local, local.tzinfo or here, say.language)
    return FriendlyDue(text, exact, format_timestamp(moment), not done and moment < now)


def _zone_or(name: str | None, fallback: ZoneInfo) -> ZoneInfo:
    if not name:
        return fallback
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # a name stored before zones were checked
        return fallback


def index_of(fields: Fields, name: str = "index") -> int | None:
    """A position among siblings (0 = first); absent = the end."""
    raw = fields.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and (index := typed_whole_number(raw, max_digits=6)) is not None:
        return index
    raise ValidationError("%(field)s: must be a whole number of 0 or more", field=name)
