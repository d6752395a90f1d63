"""Todoist's project export (CSV, one file per project) into MeSQ spaces, columns and tasks.

Columns of the CSV: TYPE (`task`, `section`, `note`), CONTENT, DESCRIPTION, PRIORITY (1 = p1),
INDENT (1 = a task, 2 and more = its subtasks), AUTHOR, RESPONSIBLE, DATE (natural language, as
the person typed it), DATE_LANG, TIMEZONE; newer exports add DURATION, DURATION_UNIT, DEADLINE,
DEADLINE_LANG.

- a file (a project) becomes a space named after it (`Groceries [2203306141].csv` -> Groceries; a
  file without a name, `plan_todoist`'s `unnamed`: "Todoist import (<day>)" in the person's language),
  or, named as a space the account has, goes into that one (decided at write time, `todo_writes`);
- Todoist's Inbox project (`Inbox.csv`, `Inbox [<id>].csv`) becomes inbox items instead (`_inbox_items`):
  its sections, a recurrence, and a subtask's date, labels and priority are kept in the notes;
- a section becomes a column; tasks before the first section go to a first column named as a new
  board's (`To do`, 待办: the person's language, docs/i18n.md);
- INDENT 1 is a task, deeper rows its subtasks (MeSQ has one level: deeper ones are subtasks of
  the task too, the report says so; past 50 subtasks, the rest become a checklist in the notes);
- PRIORITY 1/2/3/4 (p1 to p4) becomes urgent/high/medium/none; DESCRIPTION the notes; `@labels` tags;
- DATE is read in TIMEZONE (the file's, else `zone`) by the quick-add grammar (English and
  Chinese: "every friday", "每周五", "tomorrow 5pm", "3月15日"; an ISO 8601 date and time as the instant
  it names), an "every ..." phrase becoming an
  RRULE; another DATE_LANG is read by dateparser in that language (dates only);
- a task name's Markdown (`**bold**`, `*italic*`, `~~struck~~`, `` `code` ``, `[text](url)`) loses its
  marks in the title, a link's address going to the notes (`plain_title`);
- a comment (`note`) is appended to its task's notes;
- whatever cannot be read (a date phrase, a label that is not a tag, a project-level comment)
  is kept verbatim in the notes (or the first task's) and listed in the report, never dropped.

CONTENT is text: a cell like `=HYPERLINK(...)` or `=cmd|' /C calc'!A0` is a title like any other
(nothing here evaluates it, and MeSQ never writes it back into a spreadsheet).
"""

from __future__ import annotations

import codecs
import csv
import io
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn
from zoneinfo import ZoneInfo

import dateparser

from ..kernel.errors import MesqError
from ..kernel.i18n import Text, Translator
from ..kernel.memo_markdown import markdown_parser
from ..kernel.messages import WHOLE, quoted
from ..kernel.tags import is_valid_tag
from ..kernel.timestamps import parse_timestamp, parse_zone
from ..todos import model, recurrence
from ..todos.quick_add import parse_quick_add
from .plan import (
    MAX_TEXT,
    Plan,
    PlannedColumn,
    PlannedSpace,
    PlannedTask,
    Report,
    SourceError,
    comment_heading,
    derived_id,
    same_name,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

SOURCE = "todoist"
MAX_CSV_BYTES = 64 * 1024 * 1024
#: A CSV field longer than this is refused (csv's own default is 128 KiB; notes hold 50,000 characters).
MAX_FIELD_CHARACTERS = 1024 * 1024
#: Task rows (tasks and subtasks) one import takes, and tasks one column takes: a board of this
#: size is already far past what a person scrolls, and an import of it takes minutes of the
#: server's writes (300,000 rows took 28). A larger export is split into projects or imported in parts.
MAX_TASKS = 20_000
#: Titles and notes one import plans at most, in all (`plan.MAX_TEXT`).
MAX_TEXT_CHARACTERS = MAX_TEXT
#: Columns a CSV's header may name. Todoist writes 14; each row is kept over the header's columns,
#: so a header of a million short names (8 MB) made every row of the file a dict of a million
#: entries (gigabytes in all) before a task was planned.
MAX_COLUMNS = 100
MAX_TASKS_PER_COLUMN = 5_000
#: PRIORITY is the task's p-number, as Todoist's CSV help says ("Type 1 to add p1 (highest priority)
#: ... 4 to add p4 (lowest priority)"): p4 is no priority, what every task has until set. Not the
#: API's numbers, where 4 is p1. An empty or other cell is no priority.
_PRIORITY = {"1": "urgent", "2": "high", "3": "medium", "4": "none"}
#: Punctuation Chinese text puts around words: a label ends at it (`@工作，@紧急` is two labels),
#: as at an ASCII comma, and a label may start right after it.
_CJK_PUNCTUATION = "，。；：！？（）【】「」『』、《》“”‘’…—～〈〉〔〕〖〗"
#: `@name`, after whitespace or that punctuation (never inside an address: `bob@example.com`),
#: then one separator of a list of labels (`，` `、` `；`), which the title loses with the label.
_LABEL = re.compile(rf"(?<![^\s{_CJK_PUNCTUATION}])@([^\s@{_CJK_PUNCTUATION}]+)[，、；]?")
_PROJECT_ID = re.compile(r"\s*\[\d+\]\s*$")
#: A task name that may hold Markdown (`plain_title`): one of the characters its marks start with.
_MARKS = re.compile(r"[*_`~\[\]<\\&]")
#: Characters a link's words escape in the notes, so that they stay words there.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>]")
#: AUTHOR is `Ann (8908577)`: the name, then the Todoist user's number (`[…]` in older exports).
_AUTHOR_ID = re.compile(r"\s*[\[(]\d+[\])]\s*$")
_SENTINEL = "x"
#: An ISO 8601 date and time (`2027-01-05T09:00:00Z`, `...-05:00`, `...T09:00:00.000000`), which
#: the quick-add grammar does not read; a date alone (`2027-01-05`) it does.
_ISO_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?$")
#: The column of tasks before any section. Its id (and its tasks') is derived from this English
#: key, so a second import of the same file finds it again whatever the language; its name is
#: a new board's first column in the person's language (`plan_todoist`'s `first_column`).
FIRST_COLUMN = model.DEFAULT_COLUMNS[0][1]
#: What a project whose file has no name (an upload without one) derives its ids from: the name
#: such a project had before it was named in the person's language, so an earlier import of the
#: same file is found again. Its space's name is `plan_todoist`'s `unnamed`.
UNNAMED_KEY = "Todoist"
#: The name of Todoist's own inbox project (`Inbox.csv`, `Inbox [2203306140].csv`), in every
#: language of Todoist's app: its tasks go into MeSQ's inbox, not a space named "Inbox".
INBOX = "Inbox"


@dataclass(frozen=True)
class DateRead:
    due: dict[str, Any] | None
    timezone: str | None
    rule: str | None


def read_date(text: str, language: str, zone: str, now: datetime) -> DateRead | None:
    """DATE as a due (and an RRULE for "every ..."), or None when any of it cannot be read: a
    phrase past the years a due may hold ("Dec 31 9999 11pm" west of UTC, "Jan 1 0001" east of
    it) or a DATE_LANG dateparser does not know is kept as text, like a phrase the grammar does
    not know, never an error at write time."""
    try:
        found = _read_date(text, language, zone, now)
    except (OverflowError, ValueError):  # dates past year 1..9999 in UTC, an unknown DATE_LANG
        return None
    if found is None:
        return None
    try:
        model.check_due(found.due)  # what the write path accepts ("0001-01-01T..."), checked before any write
        recurrence.check_rule(found.rule, found.due, found.timezone)
    except MesqError:
        return None
    return found


def _read_date(text: str, language: str, zone: str, now: datetime) -> DateRead | None:
    phrase = " ".join(text.split())
    if not phrase:
        return DateRead(None, None, None)
    if _ISO_DATE_TIME.match(phrase):  # a script's or a converter's cell: one instant, exactly
        try:
            moment = datetime.fromisoformat(phrase)
        except ValueError:
            return None
        if moment.tzinfo is None:  # no offset of its own: the row's zone
            moment = moment.replace(tzinfo=ZoneInfo(zone))
        return DateRead(_due(moment), zone, None)
    understood = parse_quick_add(f"{_SENTINEL} {phrase}", zone=zone, now=now, ignore=frozenset({"priority", "tag"}))
    if understood.title == _SENTINEL and understood.due is not None:
        # "every day": quick add starts the series on its first occurrence from the import's day
        found = DateRead(_due(understood.due), zone, understood.recurrence)
    elif language and re.split("[-_]", language)[0] not in ("en", "zh"):
        settings: Any = {"TIMEZONE": zone, "RETURN_AS_TIMEZONE_AWARE": True, "PREFER_DATES_FROM": "future",
                         "RELATIVE_BASE": now.astimezone(ZoneInfo(zone)).replace(tzinfo=None)}  # fmt: skip
        when = dateparser.parse(phrase, languages=[re.split("[-_]", language)[0]], settings=settings)
        if when is None:
            return None
        timed = bool(when.hour or when.minute or re.search(r"\d:\d|\d\s*(?:am|pm)\b", phrase, re.IGNORECASE))
        found = DateRead(_due(when if timed else when.date()), zone, None)
    else:
        return None
    return found


def plain_title(title: str) -> tuple[str, list[str]]:
    """A task name's words without its Markdown marks, and its links' addresses as lines for the
    notes: Todoist shows `**bold**`, `*italic*` (`__` `_`), `~~strikethrough~~`, `` `code` `` and
    `[text](url)` in a name as formatting, and its CSV keeps the marks, where a MeSQ title is plain
    text (the board, the Reminders app over CalDAV, a reminder). Read by the memo parser
    (CJK-friendly emphasis: `**《三体》**很好看`; a lone or unclosed `~` stays: 3~5, 好的~~); a bare URL or an
    autolink stays in the title as its address, a link `[文档](https://…)` leaves `文档` there and
    `[文档](https://…)` in the notes (`<https://…>` for a link without words, whose address is
    then the title too). A name without a mark is returned as it is."""
    if not _MARKS.search(title):
        return title, []
    words: list[str] = []
    links: list[str] = []
    opened: list[tuple[int, str]] = []  # where each open link's words start, and its address
    tokens = _title_parser().parseInline(title)
    for token in tokens[0].children or [] if tokens else []:
        if token.type in ("text", "code_inline"):
            words.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            words.append(" ")
        elif token.type == "link_open":
            bare = token.markup in ("autolink", "linkify")
            opened.append((len(words), "" if bare else str(token.attrGet("href") or "")))
        elif token.type == "link_close" and opened:
            start, href = opened.pop()
            text = " ".join("".join(words[start:]).split())
            if href and not text:
                words.append(href)
            if href:
                links.append(_link_line(text, href))
        elif token.type == "image":  # `![alt](src)`: its words, and the address in the notes
            words.append(token.content)
            href = str(token.attrGet("src") or "")
            if href:
                links.append(_link_line(token.content, href))
    plain = " ".join("".join(words).split())
    return (plain, links) if plain else (title, [])


def _link_line(text: str, href: str) -> str:
    """A link of a task name as a line of its notes: `[words](address)`, `<address>` without words."""
    words = _MARKDOWN_SPECIAL.sub(lambda mark: "\\" + mark.group(), text)
    return f"[{words}]({href})" if text else f"<{href}>"


@cache
def _title_parser() -> MarkdownIt:
    # A task's name has no footnotes: `[^1]` is words, whatever the memo parser reads.
    return markdown_parser().disable(["footnote_ref"])


def _due(value: date | datetime) -> dict[str, Any]:
    if isinstance(value, datetime):
        # isoformat, not strftime: "%Y" writes year 1 as "1", not "0001"
        at = value.astimezone(ZoneInfo("UTC")).replace(tzinfo=None, microsecond=0).isoformat()
        return {"type": "datetime", "at": at + "Z"}
    return {"type": "date", "date": value.isoformat()}


def project_name(file_name: str) -> str | None:
    """The project a CSV's name names (`Groceries [2203306141].csv` -> Groceries); None for a
    file whose name names none (an upload that came without a name, a file not called `*.csv`)."""
    stem = posixpath.basename(file_name)
    if not stem.lower().endswith(".csv"):
        return None
    return _PROJECT_ID.sub("", stem[: -len(".csv")]).strip() or None


def _with_project_id(file_name: str) -> str | None:
    """The file's name with Todoist's project id (`Notes [2203306142]`): what tells apart two
    projects of the same name; None for a file that names no project."""
    stem = posixpath.basename(file_name)
    if not stem.lower().endswith(".csv") or not _PROJECT_ID.search(stem[: -len(".csv")]):
        return None
    return " ".join(stem[: -len(".csv")].split())


def _rows(name: str, data: bytes) -> Iterator[tuple[int, dict[str, str]]]:
    """The file's records, each with the line it starts on (a cell may hold line breaks: a
    DESCRIPTION of three lines makes the next record start three lines on), one at a time: a
    list of them all held a dict a record, some 2.4 GB for a 64 MiB CSV of short comments."""
    if len(data) > MAX_CSV_BYTES:
        raise SourceError(
            Text(
                "%(file)s: over %(limit)s bytes; a Todoist project export is far smaller",
                file=name,
                limit=MAX_CSV_BYTES,
            )
        )
    bad_byte = _first_bad_byte(data)
    if bad_byte is not None and _cut_inside_a_character(data, bad_byte):
        raise SourceError(_cut_short(name, data.count(b"\n") + 1))
    if bad_byte is not None:
        # Todoist writes UTF-8; a CSV saved again by a spreadsheet (Excel: GBK, "Unicode" UTF-16) is not
        raise SourceError(
            Text(
                "%(file)s: not UTF-8 text (byte %(byte)s). Todoist exports UTF-8; a CSV saved again by a"
                " spreadsheet may not be: export the project from Todoist again, or save it as CSV UTF-8",
                file=name,
                byte=bad_byte,
            )
        )
    # Decoded as it is read: the whole text in a StringIO held it five times over (a str, then
    # four bytes a character), some 320 MB for a 64 MiB CSV before its first row.
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    # strict: a quote left open at the end (a cut file) is an error, not the rows after it swallowed
    reader = csv.reader(text, strict=True, delimiter=_delimiter(data))
    ended = 0  # the line the record read last ended on
    try:
        header = [field.strip().upper() for field in next(reader, [])]
        if "TYPE" not in header or "CONTENT" not in header:
            raise SourceError(
                Text("%(file)s: not a Todoist CSV (its first line must name TYPE and CONTENT)", file=name)
            )
        if len(header) > MAX_COLUMNS:
            raise SourceError(
                Text(
                    "%(file)s: its first line names %(count)s columns; a Todoist CSV has about a dozen (at most"
                    " %(limit)s are read). Export the project from Todoist again",
                    file=name,
                    count=len(header),
                    limit=MAX_COLUMNS,
                )
            )
        ended = reader.line_num
        short = 0  # the line of the last record when it has fewer cells than the header names
        for record in reader:
            if record:  # an empty line is no record (a row of commas is one, of empty cells)
                # a cell's line breaks as a note's: "\n" (a file saved on Windows has "\r\n" in them too)
                cells = dict(zip(header, (_lines(cell) for cell in record), strict=False))
                short = ended + 1 if len(record) < len(header) else 0
                yield ended + 1, {key: cells.get(key, "") for key in header}
            ended = reader.line_num
        if short and not data.endswith((b"\n", b"\r")):
            # Todoist writes every cell of every row and ends each with a line break: a last row
            # short of cells with no break after it is a file cut short (a download, a copy), not
            # a project that ends there (its tasks after the cut would be missing, unsaid)
            raise SourceError(_cut_short(name, short))
    except csv.Error as error:
        # the faulty record starts on the line after the last one read whole (a refusal of the
        # whole file: the plan, written only once whole, is dropped)
        raise SourceError(_unreadable_csv(name, ended + 1, str(error)), detail=f"csv: {error}") from None


def _first_bad_byte(data: bytes) -> int | None:
    """The offset of the first byte that is not UTF-8, or None: checked a megabyte at a time, so
    the file is not held a second time as text to find out."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    for offset in range(0, len(data), step):
        try:
            decoder.decode(data[offset : offset + step], final=offset + step >= len(data))
        except UnicodeDecodeError as error:
            # the decoder's position counts from the bytes it kept back from the slice before
            return max(0, offset - len(decoder.getstate()[0])) + error.start
    return None


def _cut_inside_a_character(data: bytes, bad_byte: int) -> bool:
    """Whether the first byte that is not UTF-8 starts a character the file's end cuts off (a
    download cut short), not a byte of another encoding (a spreadsheet's GBK or UTF-16)."""
    tail = data[bad_byte:]
    if not 0 < len(tail) < 4:
        return False
    try:
        tail.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.reason == "unexpected end of data"
    return False


def _cut_short(name: str, line: int) -> Text:
    return Text(
        "%(file)s: line %(line)s ends in the middle of a row, so the file is cut short. Export the project"
        " from Todoist again",
        file=name,
        line=line,
    )


def _delimiter(data: bytes) -> str:
    """Todoist writes commas; a spreadsheet that saved the file again may have written semicolons
    (Excel in a German or French locale) or tabs ("Unicode text"): the one that makes the first line
    name TYPE and CONTENT."""
    end = data.find(b"\n")
    first = (data if end < 0 else data[:end]).decode("utf-8-sig")
    for candidate in (",", ";", "\t"):
        try:
            names = {field.strip().upper() for field in next(csv.reader([first], delimiter=candidate), [])}
        except csv.Error:
            continue
        if {"TYPE", "CONTENT"} <= names:
            return candidate
    return ","


def _lines(cell: str) -> str:
    return cell.replace("\r\n", "\n").replace("\r", "\n") if "\r" in cell else cell


def _unreadable_csv(name: str, line: int, said: str) -> Text:
    """What csv's fault means for the file, in MeSQ's words (csv's own English, `said`, is only
    logged): csv gives no codes, so its three messages a person meets are told apart by their text."""
    if said.startswith("field larger than field limit"):
        return Text(
            "%(file)s: a cell at line %(line)s is over %(limit)s characters, far past a task's title and"
            " notes; check that this is a Todoist project export",
            file=name,
            line=line,
            limit=MAX_FIELD_CHARACTERS,
        )
    if said.startswith("unexpected end of data"):
        return Text(
            "%(file)s: a quoted cell opened at line %(line)s is never closed, so the file is cut short."
            " Export the project from Todoist again",
            file=name,
            line=line,
        )
    return Text(
        "%(file)s: line %(line)s is not valid CSV (a quote inside a cell that is not doubled). Export the"
        ' project from Todoist again, or double the quote ("")',
        file=name,
        line=line,
    )


def _comment_time(text: str, zone: str) -> str:
    """A comment's DATE (`2018-06-08T07:02:05.000000Z`, UTC) as its heading writes times:
    `2018-06-08 15:02` in the import's zone (`... UTC` in UTC), as memos' comments; else as written."""
    try:
        moment = parse_timestamp(text, "DATE")
        local = moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
    except (MesqError, OverflowError, ValueError):
        return text
    return f"{local} UTC" if zone == "UTC" else local


class _Project:
    """One project's rows turned into a planned space."""

    def __init__(
        self,
        user_id: str,
        file_name: str,
        zone: str,
        now: datetime,
        report: Report,
        say: Translator,
        first_column: str = FIRST_COLUMN,
        unnamed: str = UNNAMED_KEY,
        with_id: bool = False,
    ) -> None:
        self.user_id, self.zone, self.now, self.report = user_id, zone, now, report
        #: Todoist's Inbox project: its tasks become inbox items (`plan_todoist`), which hold no
        #: section, no recurrence, and subtasks of a title and notes only (the rest kept in the notes).
        self.inbox = not with_id and same_name(project_name(file_name) or "") == same_name(INBOX)
        #: The section the rows read now are under (an inbox item's notes name it).
        self.section_name: str | None = None
        self.say = say
        self.first_column = first_column
        named = _with_project_id(file_name) if with_id else project_name(file_name)
        #: What the space's id and its records' ids derive from: the project's name, or
        #: UNNAMED_KEY for a file without one (so a second import of it finds them again, on any
        #: day and in either language); the space is named `unnamed` (the person's language).
        self.key = model.check_name((named or UNNAMED_KEY)[: model.NAME_MAX])
        self.name = model.check_name((named or unnamed)[: model.NAME_MAX])
        self.space = PlannedSpace(derived_id("ts", user_id, SOURCE, self.key), self.name)
        self.column: PlannedColumn | None = None
        #: What the current column's tasks derive their ids from: the section's title, or
        #: FIRST_COLUMN (not the column's name, which is in the person's language).
        self.column_key = FIRST_COLUMN
        self.root: PlannedTask | None = None
        self.root_key = ""  # the root's title as written: its subtasks' ids derive from it
        self.last: PlannedTask | None = None
        self.seen: dict[tuple[str, ...], int] = {}
        self.orphan_notes: list[str] = []
        self.orphan_text = 0
        #: Characters of titles and notes planned so far (an upper bound: `finish` only cuts), so
        #: the import's text cap is checked as rows are read, not once the project is done.
        self.text = 0
        #: DATE cells already read, by (phrase, DATE_LANG, zone): a project repeats a few phrases
        #: ("每周一", "tomorrow") over its tasks, and each reading costs ~3 ms of dateparser (a
        #: 19,000-task export took 55 s to plan, its writes 24 s).
        self.dates: dict[tuple[str, str, str], DateRead | None] = {}

    def _id(self, prefix: str, *identity: str) -> str:
        key = (prefix, *identity)
        occurrence = self.seen.get(key, 0)
        self.seen[key] = occurrence + 1
        return derived_id(prefix, self.user_id, SOURCE, self.key, *identity, str(occurrence))

    def _kept_line(self, item: Text) -> str:
        """A line of a task's notes keeping what MeSQ has no field for: `Todoist 日期 'every 3rd'`."""
        return "Todoist " + self.say.text(item)

    def _date(self, text: str, language: str, zone: str) -> DateRead | None:
        key = (text, language, zone)
        if key not in self.dates:
            self.dates[key] = read_date(text, language, zone, self.now)
        found = self.dates[key]
        # each task its own due: what one task's write does to it is never another's
        return None if found is None else replace(found, due=dict(found.due) if found.due else None)

    def line_label(self, line: int) -> Text:
        """`Groceries line 12`: where in which project's file a report entry is."""
        return Text("%(project)s line %(line)s", project=self.name, line=line)

    def section(self, name: str, line: int) -> None:
        title = " ".join(name.split())[: model.NAME_MAX] or "—"
        self.section_name = title
        if len(self.space.columns) >= model.MAX_COLUMNS_PER_SPACE:
            self.report.keep(
                self.line_label(line),
                Text(
                    "section %(section)s past %(limit)s columns; its tasks join the last column",
                    section=quoted(title, WHOLE),
                    limit=model.MAX_COLUMNS_PER_SPACE,
                ),
            )
            return
        self.column = PlannedColumn(self._id("tc", title), title)
        self.column_key = title
        self.space.columns.append(self.column)
        self.root = self.last = None

    def _current_column(self) -> PlannedColumn:
        if self.column is None:
            self.column = PlannedColumn(self._id("tc", FIRST_COLUMN), self.first_column)
            self.column_key = FIRST_COLUMN
            self.space.columns.append(self.column)
        return self.column

    def task(self, row: dict[str, str], line: int) -> None:
        where = self.line_label(line)
        content = row.get("CONTENT", "").strip()
        indent = row.get("INDENT", "1").strip() or "1"
        depth = int(indent) if indent.isdigit() and int(indent) > 0 else 1
        kept: list[Text] = []  # what the notes keep, each a line there and a part of the report's entry
        tags: list[str] = []
        for label in _LABEL.findall(content):
            name = label.rstrip(",.;")
            if is_valid_tag(name) and len(tags) < model.MAX_TAGS_PER_RECORD:
                tags.append(name)
            else:
                written = "@" + name
                kept.append(Text("label %(label)s", label=written))
        title = " ".join(_LABEL.sub(lambda m: "" if m.group(1).rstrip(",.;") in tags else m.group(0), content).split())
        if not title:
            title = content or self.say.gettext("(untitled)")
        # A subtask's id derives from its task's title as written (marks and all, cut as a title
        # is): the ids of an export imported before titles lost their marks stay the same.
        key = title if len(title) <= model.TITLE_MAX else title[: model.TITLE_MAX - 1] + "…"
        title, links = plain_title(title)
        notes = "\n\n".join(part for part in (row.get("DESCRIPTION", "").strip(), "\n".join(links)) if part)
        if len(title) > model.TITLE_MAX:
            notes = f"{title}\n\n{notes}".strip()
            title = title[: model.TITLE_MAX - 1] + "…"
            self.report.keep(
                where,
                Text("a title over %(limit)s characters: cut, the whole of it in the notes", limit=model.TITLE_MAX),
            )
        zone = row.get("TIMEZONE", "").strip() or self.zone
        try:
            parse_zone(zone, "TIMEZONE")
        except MesqError:
            kept.append(Text("time zone %(zone)s", zone=quoted(zone, WHOLE)))
            zone = self.zone
        date_text = row.get("DATE", "").strip()
        language = row.get("DATE_LANG", "").strip()
        read = self._date(date_text, language, zone) if date_text else DateRead(None, None, None)
        if read is None:
            kept.append(Text("date %(date)s", date=quoted(date_text, WHOLE)))
            read = DateRead(None, None, None)
        deadline = row.get("DEADLINE", "").strip()
        if deadline:
            kept.append(Text("deadline %(date)s", date=quoted(deadline, WHOLE)))
        code = row.get("PRIORITY", "").strip()
        priority = _PRIORITY.get(code, "none")
        parent = self.root if depth > 1 else None
        if self.inbox and parent is None and self.section_name is not None:
            kept.append(Text("section %(section)s", section=quoted(self.section_name, WHOLE)))
        if self.inbox and parent is not None:  # an inbox item's subtask holds a title and notes only
            kept += [Text("label %(label)s", label="@" + tag) for tag in tags]
            tags = []
            if read.due is not None:
                kept.append(Text("date %(date)s", date=quoted(date_text, WHOLE)))
                read = DateRead(None, None, None)
            if priority != "none":
                kept.append(Text("priority %(priority)s", priority="p" + code))
                priority = "none"
        if kept:
            notes = (notes + "\n\n" if notes else "") + "\n".join(self._kept_line(item) for item in kept)
            said = kept[0]
            for more in kept[1:]:
                said = Text("%(list)s; %(item)s", list=said, item=more)
            self.report.keep(where, Text("%(items)s kept in the notes", items=said))
        self._current_column()
        identity = (self.column_key, *((self.root_key,) if parent else ()), content)
        task = PlannedTask(
            task_id=self._id("tt", *identity),
            title=title,
            notes=notes,
            priority=priority,
            tags=tags,
            due=read.due,
            timezone=read.timezone,
            recurrence=read.rule if parent is None else None,
            label=where,
        )
        self.text += len(title) + len(notes)
        if parent is None:
            if len(self._current_column().tasks) >= MAX_TASKS_PER_COLUMN:
                raise SourceError(
                    Text("%(where)s: over %(limit)s tasks in one column", where=where, limit=MAX_TASKS_PER_COLUMN)
                )
            if depth > 1:
                self.report.keep(where, Text("a subtask without a task above it: imported as a task"))
            if self.inbox and read.rule:
                kept_date = self._kept_line(Text("date %(date)s", date=quoted(date_text, WHOLE)))
                task.notes = (task.notes + "\n\n" if task.notes else "") + kept_date
                task.recurrence = None  # its due stays: the next occurrence
                self.report.keep(
                    where,
                    Text(
                        "a recurring task (%(date)s); inbox items do not recur in MeSQ, kept in the notes",
                        date=quoted(date_text, WHOLE),
                    ),
                )
            self._current_column().tasks.append(task)
            self.root, self.root_key = task, key
        else:
            if read.rule:
                kept_date = self._kept_line(Text("date %(date)s", date=quoted(date_text, WHOLE)))
                task.notes = (task.notes + "\n\n" if task.notes else "") + kept_date
                self.report.keep(
                    where,
                    Text(
                        "a recurring subtask (%(date)s); only tasks recur in MeSQ, kept in the notes",
                        date=quoted(date_text, WHOLE),
                    ),
                )
            if depth > 2:
                self.report.keep(
                    where,
                    Text(
                        "indent %(depth)s: MeSQ has one level of subtasks; a subtask of %(task)s",
                        depth=depth,
                        task=quoted(parent.title, WHOLE),
                    ),
                )
            if len(parent.subtasks) >= model.MAX_SUBTASKS:
                if len(parent.notes) <= model.NOTES_MAX:  # past it, `finish` cuts them (see `note`)
                    parent.notes = (parent.notes + "\n" if parent.notes else "") + f"- [ ] {title}"
                    self.text += len(title) + 7
                self.report.keep(
                    where,
                    Text(
                        "past %(limit)s subtasks: a checklist line in the notes of %(task)s",
                        limit=model.MAX_SUBTASKS,
                        task=quoted(parent.title, WHOLE),
                    ),
                )
                self.last = parent
                return
            parent.subtasks.append(task)
        self.last = task

    def note(self, row: dict[str, str], line: int) -> None:
        text = row.get("CONTENT", "").strip()
        if not text:
            return
        author = _AUTHOR_ID.sub("", row.get("AUTHOR", "")).strip()
        when = _comment_time(row.get("DATE", "").strip(), self.zone)
        comment = f"{comment_heading(self.say, author, when)}\n\n{text}"
        indent = row.get("INDENT", "").strip()
        target = self.root if indent == "1" and self.root is not None else self.last
        if target is None:
            self._orphan(comment)
            self.report.keep(self.line_label(line), Text("a comment on the project: kept in the first task's notes"))
            return
        target.comments += 1
        if len(target.notes) > model.NOTES_MAX:
            # Past the limit already: `finish` cuts them there and lists the task as shortened.
            # Appending would copy the notes whole for every comment (quadratic: a 64 MiB CSV
            # of comments on one task took some 20 minutes of a core to plan).
            return
        target.notes = f"{target.notes}\n\n---\n{comment}".strip() if target.notes else comment
        self.text += len(comment) + 5

    def _orphan(self, text: str) -> None:
        """Keep `text` for the first task's notes; past NOTES_MAX of them nothing more is held
        (`finish` would cut it: a CSV of unknown rows was held whole, then joined)."""
        if self.orphan_text <= model.NOTES_MAX:
            self.orphan_notes.append(text)
            self.orphan_text += len(text) + 5
            self.text += len(text) + 5

    def unknown(self, row: dict[str, str], line: int) -> None:
        kind = row.get("TYPE", "").strip()
        text = " | ".join(value.strip() for value in row.values() if value.strip())
        self._orphan(self.say.gettext("Todoist row %(line)s: %(text)s", line=line, text=text))
        self.report.keep(
            self.line_label(line),
            Text("a row of TYPE %(type)s (not a task, section or note) kept in the notes", type=quoted(kind, WHOLE)),
        )

    def finish(self) -> PlannedSpace:
        if self.orphan_notes:
            first = next((task for column in self.space.columns for task in column.tasks), None)
            if first is not None:
                first.notes = "\n\n---\n".join([first.notes, *self.orphan_notes]).strip()
            else:
                column = self._current_column()
                column.tasks.append(
                    PlannedTask(
                        self._id("tt", "comments"),
                        self.say.gettext("%(project)s: comments", project=self.name),
                        notes="\n\n---\n".join(self.orphan_notes),
                    )
                )
        if not self.space.columns:
            self._current_column()
        for column in self.space.columns:
            for task in column.tasks:
                for planned in (task, *task.subtasks):  # a subtask's too: its cut was unsaid
                    if len(planned.notes) > model.NOTES_MAX:
                        planned.notes = planned.notes[: model.NOTES_MAX - 1] + "…"
                        planned.cut = Text("notes past %(limit)s characters were cut", limit=model.NOTES_MAX)
        return self.space


def _inbox_items(space: PlannedSpace) -> list[PlannedTask]:
    """The Inbox project's tasks, in order, as inbox items (their ids of their own kind: `ti…`,
    derived as a task's are, so a second import finds them)."""
    items = []
    for column in space.columns:
        for task in column.tasks:
            task.task_id = "ti" + task.task_id[2:]
            for sub in task.subtasks:
                sub.task_id = "ti" + sub.task_id[2:]
            items.append(task)
    return items


def _too_much_text(file_name: str) -> NoReturn:
    shown = f"{MAX_TEXT_CHARACTERS:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
    raise SourceError(
        Text(
            "%(file)s: its tasks hold over %(limit)s characters, more than one import takes",
            file=file_name,
            limit=shown,
        )
    )


def plan_todoist(
    files: Iterable[tuple[str, bytes]],
    user_id: str,
    report: Report,
    zone: str,
    now: datetime,
    say: Translator,
    first_column: str = FIRST_COLUMN,
    unnamed: str = UNNAMED_KEY,
) -> Plan:
    """The projects as planned spaces. `files`: (file name, bytes) of each project's CSV; `say`:
    the person's language, for the lines the import writes into the tasks' notes;
    `first_column` names the column of tasks before any section (a new board's first column in
    the person's language, as `todos.model.default_board`); `unnamed` the space of a file whose
    name names no project (an upload without a name: "Todoist import (Mar 5, 2026)" in the
    person's language, `wiring.imports`)."""
    csv.field_size_limit(MAX_FIELD_CHARACTERS)
    plan = Plan(report)
    names: set[str] = set()
    task_rows = characters = 0
    inbox_read = False  # an Inbox.csv of no task is a file read (nothing to import), not "no file"
    for file_name, data in files:
        project = _Project(user_id, file_name, zone, now, report, say, first_column, unnamed)
        if project.key in names and _with_project_id(file_name) not in (None, project.key):
            # Todoist names projects freely (a "Notes" under two parents): the backup's
            # `Notes [2203306141].csv` and `Notes [2203306142].csv` are told apart by their ids.
            project = _Project(user_id, file_name, zone, now, report, say, first_column, unnamed, with_id=True)
            report.keep(
                file_name,
                Text(
                    "a second project named %(name)s: its space is named %(space)s",
                    name=quoted(project_name(file_name) or ""),
                    space=quoted(project.name),
                ),
            )
        if project.key in names:
            raise SourceError(
                Text("%(file)s: a second project named %(name)s", file=file_name, name=quoted(project.name))
            )
        names.add(project.key)
        for line, row in _rows(file_name, data):
            kind = row.get("TYPE", "").strip().lower()
            if kind == "meta":  # `view_style=list` or `=board`: how Todoist shows the project, no record
                continue
            if kind == "section":
                project.section(row.get("CONTENT", ""), line)
            elif kind == "task":
                task_rows += 1
                if task_rows > MAX_TASKS:  # before any write, and before more rows are planned
                    raise SourceError(
                        Text("%(file)s: over %(limit)s tasks in one import", file=file_name, limit=MAX_TASKS)
                    )
                if row.get("CONTENT", "").strip():
                    project.task(row, line)
                else:
                    report.skip(project.line_label(line), Text("a task without a title"))
            elif kind == "note":
                project.note(row, line)
            elif kind or any(value.strip() for value in row.values()):
                project.unknown(row, line)
            if characters + project.text > MAX_TEXT_CHARACTERS:  # before any write, as rows are read
                _too_much_text(file_name)
        space = project.finish()
        if project.inbox:
            plan.inbox += _inbox_items(space)
            inbox_read = True
        else:
            plan.spaces.append(space)
        characters += sum(
            len(planned.title) + len(planned.notes)
            for column in space.columns
            for task in column.tasks
            for planned in (task, *task.subtasks)
        )
        if characters > MAX_TEXT_CHARACTERS:  # before the next file is read, and before any write
            _too_much_text(file_name)
    if not plan.spaces and not inbox_read:
        raise SourceError(Text("no Todoist CSV file (TYPE, CONTENT, ...) found"))
    return plan
