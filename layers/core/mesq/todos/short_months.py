"""Repeats that keep the short months: "every month" from the 31st, "每月30号", "every year" from
29 February.

RFC 5545 skips a period that lacks the day: `FREQ=MONTHLY;BYMONTHDAY=30` has no date in
February, "every month" from 31 January comes only in the months with a 31st (and a series that
moves its due on completion stays there), and "every year" from 29 February comes every fourth
year. A person who asks for the rent on the 30th of every month means the last day of February
too, as Todoist and Outlook read it. So the repeats a person makes (quick add, the task form's
presets) are written in the RFC's own words for that: the day, or the month's last day when the
month is shorter (`BYMONTHDAY=28,29,30;BYSETPOS=-1`; the 31st is the last day,
`BYMONTHDAY=-1`), and 29 February or else the 28th (`BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1`).
Every calendar client reads them alike. A rule sent through the API is stored as sent. Pure.
"""

from __future__ import annotations

from datetime import date

#: The last day every month has: a day after it is one some months lack.
EVERY_MONTH_HAS = 28
_PART_ORDER = ("FREQ", "INTERVAL", "BYMONTH", "BYMONTHDAY", "BYSETPOS", "COUNT", "UNTIL", "WKST")
#: What a plain repeat may hold besides its frequency to be said again without skipping.
_PLAIN_PARTS = {"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"}


def rule_parts(rule: str) -> dict[str, str]:
    """`FREQ=MONTHLY;BYMONTHDAY=30` -> {"FREQ": "MONTHLY", "BYMONTHDAY": "30"} (names upper-cased)."""
    parts = (part.split("=", 1) for part in rule.removeprefix("RRULE:").split(";") if "=" in part)
    return {name.strip().upper(): value.strip() for name, value in parts}


def month_day_or_last(day: int) -> dict[str, str]:
    """The parts of "on `day` (29-31), or the month's last day when it is shorter"."""
    if day >= 31:
        return {"BYMONTHDAY": "-1"}
    return {"BYMONTHDAY": ",".join(str(each) for each in range(EVERY_MONTH_HAS, day + 1)), "BYSETPOS": "-1"}


LEAP_DAY_OR_LAST = {"BYMONTH": "2", "BYMONTHDAY": f"{EVERY_MONTH_HAS},29", "BYSETPOS": "-1"}


def never_skipping(rule: str, anchor: date) -> str:
    """`rule` said so that no month (or year) loses its occurrence, for a series that starts on
    `anchor` (its first due): a monthly rule on the 29th-31st (its BYMONTHDAY, else the anchor's
    day) takes the month's last day when the month is shorter; a yearly rule from 29 February
    takes the 28th in other years. Any other rule is returned as it is."""
    parts = rule_parts(rule)
    frequency, names = parts.get("FREQ"), set(parts)
    if frequency == "MONTHLY" and names <= _PLAIN_PARTS | {"BYMONTHDAY"}:
        day = parts.get("BYMONTHDAY", str(anchor.day))
        if not day.isdigit() or not EVERY_MONTH_HAS < int(day) <= 31:
            return rule
        parts.update(month_day_or_last(int(day)))
    elif frequency == "YEARLY" and names <= _PLAIN_PARTS and (anchor.month, anchor.day) == (2, 29):
        parts.update(LEAP_DAY_OR_LAST)
    else:
        return rule
    return ";".join(f"{name}={parts[name]}" for name in sorted(parts, key=_PART_ORDER.index))


def is_leap_day_form(rule: str) -> bool:
    """Whether `rule` is "every year on 29 February, or the 28th in other years": its next
    occurrence may come years before the next 29 February."""
    parts = rule_parts(rule)
    return parts.get("FREQ") == "YEARLY" and all(parts.get(name) == value for name, value in LEAP_DAY_OR_LAST.items())


def plain_repeat_of(rule: str, due: date) -> str | None:
    """The plain repeat (`FREQ=MONTHLY`, `FREQ=YEARLY`) whose never-skipping form `rule` is, when
    the series' occurrence `due` is on the rule's own day: the 29th or 30th of a month, or 29
    February. None otherwise, also on a short month's last day: there "Every month" said again
    from the due would move the series to that day (the page shows the rule as it is then).
    The 31st's form, `BYMONTHDAY=-1`, is a preset of its own ("Every month on the last day")."""
    if due.day in (29, 30) and rule_parts(rule) == rule_parts(never_skipping("FREQ=MONTHLY", due)):
        return "FREQ=MONTHLY"
    if (due.month, due.day) == (2, 29) and rule_parts(rule) == rule_parts(never_skipping("FREQ=YEARLY", due)):
        return "FREQ=YEARLY"
    return None
