"""Quick add: one line a person types ("买牛奶 明天下午3点 #家务 !high", "call mom tomorrow 5pm
every monday p1") -> a task's title, due, priority, tags and recurrence, in the person's zone.

Pure domain code (no web, no clock of its own: `now` is passed in). This module reads the
priority and the tags, hides the repeat phrases from the date reader, and puts the title back
together; `quick_rules.py` turns a repeat phrase into an RRULE and its first due, and
`quick_dates.py` finds the due (dateparser, with the Chinese and English rewrites it needs). A rule
always comes with a first due: its first occurrence that is not past (`quick_rules.first_due`).

Weeks and months as a Chinese calendar reads them: a week runs Monday to Sunday. 这周五 / 本周五
is this week's Friday, but a new task is almost never meant to be overdue the moment it is made:
once that day has passed (这周五 typed on a Sunday) it is the next Friday, as a bare 周五 is;
today stays today. 下周 / 下星期 / 下礼拜 alone is next week's Monday (as TickTick reads it), 下个月
/ 下月 the same day next month (the 31st of January -> the last of February), 下个月5号 the 5th of
next month (a day the month lacks -> its last day). 礼拜 is 星期 (礼拜五, 下礼拜一, 每礼拜五). The
rest of what is read, and why: docs/decisions.md, "Quick add".

Bounded work, whatever is typed: a line over MAX_CHARACTERS (a task title's own cap) is not read
at all (the create then refuses it for its length); the date reader's own bounds are in
`quick_dates.py`. The callers run it in a worker thread (`web/todos/quick.py`), never on the event
loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..kernel.tags import find_tags
from ..kernel.timestamps import skipped_wall_time
from ..kernel.typed_digits import ascii_digits
from .quick_dates import MORNING_WORDS, impossible_times, lunar_dates, past_days, read_due
from .quick_rules import RECUR_EVERY, RECUR_ZH, ZH_DAYPART_WORD, first_due, part_clock_time, part_of_day, rule_of
from .quick_words import PART_TIMES
from .short_months import is_leap_day_form, never_skipping

__all__ = ["KINDS", "MAX_CHARACTERS", "QuickAdd", "parse_quick_add"]

#: The longest line read (a task title's maxLength): a longer one is taken as typed.
MAX_CHARACTERS = 500

_PRIORITY_P = {"1": "urgent", "2": "high", "3": "medium", "4": "low"}
_PRIORITY_WORDS = {
    "urgent": "urgent", "high": "high", "medium": "medium", "med": "medium", "low": "low",
    "紧急": "urgent", "高": "high", "中": "medium", "低": "low",
    **{f"p{number}": value for number, value in _PRIORITY_P.items()},
}  # fmt: skip
# `!word` (`!high`, `!p1`, `!高`; `！` as a Chinese keyboard types it) wherever it stands, glued to
# Chinese text too (`开会!p1`), but not inside a Latin word (`wow!high`); a bare `p1` only as a
# word of its own. Either ends at whitespace, the line's end, or the next `#tag` / `!word`.
_PRIORITY = re.compile(r"(?:(?<![A-Za-z0-9])[!！](\w+)|(?:(?<=\s)|^)[pP]([1-4]))(?=[\s#!！,.;:，。；：、]|$)")

#: Private-use characters (U+E000 on) that stand in for a repeat phrase not read as the rule
#: (recurrence ignored: the inbox, a removed chip; a second phrase) while the date is looked for:
#: the phrase goes back whole into the title ("周报 每周五" must not give its "周五" to the due
#: and leave "周报每"). A mark is a word of its own, never glued to the words beside it, so no date
#: phrase takes it in ("每天9:30": the due "9:30", not "<mark>9:30"). A character the line already
#: holds is skipped.
_KEPT_MARKS = range(0xE000, 0xF900)


@dataclass(frozen=True)
class QuickAdd:
    """What was understood. `due` is a local date or a timed instant (aware, in the zone)."""

    title: str
    due: date | datetime | None = None
    priority: str | None = None
    tags: tuple[str, ...] = ()
    recurrence: str | None = None
    chips: tuple[dict[str, str], ...] = field(default=())  # kind, text as typed

    def due_argument(self) -> dict[str, Any] | None:
        """The `due` of create_todo_task: a date or an instant in UTC."""
        if isinstance(self.due, datetime):
            if skipped_wall_time(self.due):  # "每天凌晨2点半" on a spring-forward day: 02:30 kept for the series
                return {"type": "datetime", "at": self.due.isoformat()}
            at = self.due.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")
            return {"type": "datetime", "at": at}
        if isinstance(self.due, date):
            return {"type": "date", "date": self.due.isoformat()}
        return None

    def arguments(self, zone: str) -> dict[str, Any]:
        """create_todo_task's fields beyond the column: title, due (+ timezone), priority, tags, recurrence."""
        out: dict[str, Any] = {"title": self.title}
        due = self.due_argument()
        if due is not None:
            out["due"], out["timezone"] = due, zone
        if self.priority:
            out["priority"] = self.priority
        if self.tags:
            out["tags"] = list(self.tags)
        if self.recurrence:
            out["recurrence"] = self.recurrence
        return out


def _unmasked(word: str, kept: dict[str, str]) -> str:
    """A word with the repeat phrases its marks hid put back."""
    for mark, phrase in kept.items():
        word = word.replace(mark, phrase)
    return word


def parse_quick_add(text: str, *, zone: str, now: datetime, ignore: frozenset[str] = frozenset()) -> QuickAdd:
    """Understand one line. `zone` is the person's IANA zone, `now` an aware instant; `ignore`
    names the kinds (due, priority, tag, recurrence) or single tags ("tag:home") the person removed:
    their words stay in the title. A line over MAX_CHARACTERS is the title as typed."""
    if len(text) > MAX_CHARACTERS:
        return QuickAdd(title=text.strip())
    # Full-width (a Chinese input method) and other scripts' digits are the numbers they are
    # (kernel/typed_digits.py); the chips show them in ASCII, the title as typed (`_as_typed`).
    as_typed, text = text, ascii_digits(text)
    tz = ZoneInfo(zone)
    today = now.astimezone(tz).date()
    chips: list[dict[str, str]] = []
    line = f" {text.strip()} "

    priority: str | None = None
    understood: list[tuple[int, int]] = []  # spans of the line the chips took
    for match in [] if "priority" in ignore else _PRIORITY.finditer(line):
        value = _PRIORITY_P.get(match[2] or "") or _PRIORITY_WORDS.get((match[1] or "").lower())
        if value:
            priority = value  # the last one typed wins
            chips.append({"kind": "priority", "text": match[0].strip(), "value": value})
            understood.append(match.span())
    line = _without(line, understood)

    tags: list[str] = []
    understood = []
    for start, end, name in [] if "tag" in ignore else find_tags(line):  # the memo tag rule (kernel/tags.py)
        if f"tag:{name}" in ignore:
            continue  # this one chip removed: "#name" stays in the title
        if name not in tags:
            tags.append(name)
            chips.append({"kind": "tag", "text": "#" + name, "value": name})
        understood.append((start, end))
    line = _without(line, understood)

    # A clock time no clock shows ("25:00", "24:30", "at 25") is no due, nor a rule's time: it
    # stays in the title as typed (as 2月30日 does), behind a mark no reader takes a part of.
    marks = (chr(code) for code in _KEPT_MARKS if chr(code) not in line)
    kept: dict[str, str] = {}  # mark -> the phrase it hides
    # A day already past ("上周五", "前天晚上8点") or of the lunar calendar ("农历八月十五") is no due
    # either, and stays as typed (past_days, lunar_dates).
    for start, end in reversed(_apart(impossible_times(line) + past_days(line) + lunar_dates(line))):
        mark = next(marks, None)
        if mark is None:  # cannot happen in MAX_CHARACTERS
            break
        kept[mark] = line[start:end]
        line = f"{line[:start]} {mark} {line[end:]}"

    # Repeat phrases: the first one typed ("every ..." before "每...") is the rule unless ignored;
    # any other is hidden from the date reader behind a mark and stays whole in the title.
    recurrence: str | None = None
    phrases = [match for pattern in (RECUR_EVERY, RECUR_ZH) for match in pattern.finditer(line)]
    rule_phrase = None if "recurrence" in ignore or not phrases else phrases[0]
    originals: dict[str, str] = {}  # a rewritten word -> what was typed (`_recorder`)
    evening = False  # the rule names a part of the day after noon: "at 7" is on its clock
    masked = plain = ""  # the line for the date reader; the line as the title keeps it
    end = 0
    for match in sorted(phrases, key=lambda match: match.start()):
        masked, plain = masked + line[end : match.start()], plain + line[end : match.start()]
        end = match.end()
        if match is rule_phrase:
            recurrence, part = rule_of(match), match.groupdict().get("part") or part_of_day(match, line)
            chips.append({"kind": "recurrence", "text": match[0].strip(), "value": recurrence})
            if part and "due" in ignore:  # the due chip removed: its words stay in the title
                masked, plain = masked + f" {part} ", plain + f" {part} "
            elif part:  # "每周五下午", "every friday afternoon": the part's time, read as a bare time would be
                # (with seconds: no rewrite makes that word, and the title drops it if a time typed
                # later is the due: "every evening call mom at 7")
                injected = f"{PART_TIMES[part.lower()]}:00"
                originals[injected] = ""
                evening = PART_TIMES[part.lower()] >= "12:00"
                masked, plain = masked + f" {injected} ", plain + " "
            elif clock := part_clock_time(match):  # "every evening at 7"
                masked, plain = masked + f" {clock} ", plain + " "
            else:  # "每晚8点": the part goes back before its hour, to be read on its clock (晚上8点)
                daypart = match.groupdict().get("daypart") or ""
                masked, plain = masked + " " + ZH_DAYPART_WORD.get(daypart[:1], ""), plain + " "
            continue
        mark = next(marks, None)
        if mark is None:  # cannot happen in MAX_CHARACTERS; the phrase is then left to the reader
            masked, plain = masked + match[0], plain + match[0]
            continue
        kept[mark] = match[0]
        masked, plain = masked + f" {mark} ", plain + match[0]
    masked, plain = masked + line[end:], plain + line[end:]

    due: date | datetime | None = None
    found: tuple[datetime, bool, list[str]] | None = None
    if "due" in ignore:
        words = masked.split()
    else:
        morning = MORNING_WORDS.search(text) is not None
        words, found = read_due(masked, today, originals, tz, now, evening=evening, morning=morning)
    due_chip: dict[str, str] | None = None
    if found:
        when, timed, due_words = found
        due = when.replace(second=0, microsecond=0) if timed else when.date()
        due_chip = {"kind": "due", "text": " ".join(due_words)}
    if recurrence:
        # The first due is the rule's first occurrence from the typed due (else today), not
        # already past: a rule needs a due, and it must be one the rule gives.
        # "every other tuesday" starts on the coming Tuesday (the due anchors the series); an
        # INTERVAL counted from today's week could skip it
        anchor = today if due is None else due
        # "每月30号", "every month" on the 31st: February keeps its occurrence (short_months.py)
        recurrence = never_skipping(recurrence, anchor)
        if is_leap_day_form(recurrence) and anchor > today:
            # "every year on feb 29" typed in 2027: the rule names its day, and 28 February 2027
            # is its first occurrence, not the next 29 February
            anchor = today
        for chip in chips:
            if chip["kind"] == "recurrence":
                chip["value"] = recurrence
        first_rule = re.sub(r";INTERVAL=\d+", "", recurrence) if "BYDAY" in recurrence else recurrence
        due = first_due(first_rule, anchor, tz, now)
        if due_chip is None:  # a due the rule gave: removed with the rule, not on its own
            due_chip = {"kind": "due", "text": "", "drop": "recurrence"}
    if due_chip is not None and due is not None:
        chips.append({**due_chip, "value": _describe(due)})

    # The rewrite set date phrases apart with spaces; without a date found, the words stay as typed.
    typed = _unmasked(" ".join(plain.split()), kept)
    title_words = [shown for word in words if (shown := originals.get(word, _unmasked(word, kept)))]
    title = (_join(title_words) if found else typed) or typed or text.strip()
    title = _NO_SPACE_BEFORE.sub("", title)  # "去买菜 ，别忘了": the space a removed chip stood in
    title = _without_orphans(title, text.strip())
    return QuickAdd(
        title=_as_typed(title, text, as_typed),
        due=due,
        priority=priority,
        tags=tuple(tags),
        recurrence=recurrence,
        chips=tuple(chips),
    )


def _as_typed(title: str, read: str, typed: str) -> str:
    """`title`, made of `read` (the line with ASCII digits), with each word's digits as `typed`:
    the two differ digit for digit, so a word of one stands at the same place in the other."""
    if read == typed:
        return title

    def back(word: re.Match[str]) -> str:
        at = read.find(word[0])
        return typed[at : at + len(word[0])] if at >= 0 else word[0]

    return re.sub(r"\S+", back, title)


#: Spaces before closing CJK punctuation: no one types them; they are left where a chip was taken out.
_NO_SPACE_BEFORE = re.compile(r"\s+(?=[，。；：！？、）】》」』”’])")


#: What sets a date apart from the words it came with ("周三：开会", "明天，交报告", "交报告：明天").
_SEPARATORS = "：:，,、；;。 \t"
#: A pair of brackets a removed chip leaves empty ("开会（周三）").
_EMPTY_BRACKETS = re.compile(r"\s*(?:（\s*）|\(\s*\)|【\s*】|\[\s*\])")


def _without_orphans(title: str, typed: str) -> str:
    """`title` without the punctuation a removed chip leaves behind: a separator at either end
    that the line did not begin or end with, and brackets left empty that the line did not hold
    empty. A title that would be nothing stays as it was."""
    out = title
    if not _EMPTY_BRACKETS.search(typed):
        out = _EMPTY_BRACKETS.sub("", out)
    if typed[:1] not in _SEPARATORS:
        out = out.lstrip(_SEPARATORS)
    if typed[-1:] not in _SEPARATORS:
        out = out.rstrip(_SEPARATORS)
    return out or title


def _apart(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` in order, each overlapping one merged into the one before it."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _without(line: str, spans: list[tuple[int, int]]) -> str:
    """`line` with each (start, end) span, in order and apart, replaced by a space."""
    for start, end in reversed(spans):
        line = f"{line[:start]} {line[end:]}"
    return line


def _join(words: list[str]) -> str:
    """Words back into a title: no space between two CJK words ("买 牛奶" was never typed)."""
    out = ""
    for word in words:
        if out and not (_cjk(out[-1]) and _cjk(word[0])):
            out += " "
        out += word
    return out.strip()


def _cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


def _describe(due: date | datetime) -> str:
    if isinstance(due, datetime):
        return due.strftime("%Y-%m-%d %H:%M")
    return due.isoformat()


KINDS = ("due", "priority", "tag", "recurrence")
