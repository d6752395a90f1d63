"""What every import from another app shares: the one-line error that stops it before anything is
written, the planned records (checked whole before the first write), the ids derived from the
source's own identity (so a second run creates nothing), and the report in the person's terms.

A source reader (memos, flomo, todoist) turns a file into a `Plan`: every memo, space, column and
task it will write, each with a derived id, and what it skipped or kept verbatim, with the reason.
Only a plan that is complete is written (`imports/run.py`), so a file that fails anywhere writes
nothing at all.
"""

from __future__ import annotations

import base64
import hashlib
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..archive.words import counted
from ..kernel.concurrency import out_of_time, stop_requested
from ..kernel.errors import ServiceUnavailable
from ..kernel.i18n import Text, Translator

#: The kinds a person picks (CLI `--from`, REST `kind`, Settings → Import).
KINDS = ("memos", "flomo", "todoist")
#: The skipped and kept lists a report keeps (the counts stay exact beyond it), and the length of
#: each entry's words (a stored report is cut further to fit a DynamoDB item: `reports.save_report`).
LISTED_MAX = 200
ENTRY_MAX = 300
#: Memos one import plans at most (flomo cards, memos rows of all its users): each is held until
#: the plan is whole, and a page or database of tiny ones is a small file (a 266 KB flomo ZIP
#: planned 88,360 memos). As many as an import ZIP's members and a Markdown import's notes.
MAX_MEMOS = 100_000
#: Text one import plans at most, in all (memos' contents; Todoist's titles and notes): some ten
#: times a heavy account's. Each record is cut to its own limit, but 100,000 memos of 50,000
#: characters, or 20,000 tasks of 50,000, would be gigabytes held before the first write.
MAX_TEXT = 128 * 1024 * 1024
#: A refusal's one line, at most (a file's name and a reason; a library's long error is cut).
MESSAGE_MAX = 300


class SourceError(Exception):
    """The file cannot be imported at all (not the app's format, damaged, hostile): one line, and
    nothing has been written. `message` is that line in English (the command line's, REST's);
    `text` the same words for Settings → Import to say in its reader's language (what a person
    can realistically meet is written as a `Text` template, the rest stays English).

    `detail`: what a library said of the fault (SQLite's "file is not a database", csv's "field
    larger than field limit", an OSError's text), for the server's log only: the edges log it with
    the request's trace id (`asgi.app_imports.log_refusal`) and never answer it, since a person
    can do nothing with a library's English and it may name a server path."""

    def __init__(self, message: str | Text, *, detail: str = "") -> None:
        self.text = message if isinstance(message, Text) else Text(one_line(message))
        line = one_line(str(self.text))
        super().__init__(line)
        self.message = line
        self.detail = one_line(detail)

    @property
    def refusal(self) -> str:
        """The line an edge answers: "nothing imported: <why>" (said once, never by the reason)."""
        return f"nothing imported: {self.message}"


def one_line(message: str) -> str:
    """One line whatever the cause carried (SQLite's quick_check lists a problem per line), cut
    at MESSAGE_MAX (a library's long error)."""
    line = " ".join(message.split())
    return line if len(line) <= MESSAGE_MAX else line[: MESSAGE_MAX - 1] + "…"


class CutShort(SourceError):
    """The writes stopped partway (a store fault, a board changed meanwhile): what was written
    stays under the run's id, and `report` says what it is; a second run of the same file
    completes it (ids derived, writes conditioned on absence), undo of the run reverts it."""

    def __init__(self, reason: Text, report: Report) -> None:
        super().__init__(
            Text(
                "the import stopped after writing %(summary)s (run %(run_id)s): %(reason)s. Import the same"
                " file again to complete it, or undo the run",
                reason=reason,
                summary=report.summary_text(),
                run_id=report.run_id,
            )
        )
        self.report = report
        self.message = " ".join(str(self.text).split())  # whole: the run id and what to do come last

    @property
    def refusal(self) -> str:
        return self.message


def stop_if_asked() -> None:
    """Between two writes: the server is stopping (SIGTERM), or the request's time is nearly up
    (a Lambda invocation's timeout, `kernel.concurrency.finish_within`), so the run ends here, cut
    short with its report, and the same file imported again completes it."""
    if stop_requested():
        raise ServiceUnavailable("the server is stopping")
    if out_of_time():
        raise ServiceUnavailable(
            "this request's time on the server was up (`mesq import` on a computer has no such limit)"
        )


class Unavailable(SourceError):
    """One part of the file cannot be read (an attachment's file is missing): that part is listed
    as skipped and the rest imports. Anything hostile (a path that escapes, a link) is a
    SourceError and stops the import."""


def comment_heading(say: Translator, author: str, when: str) -> str:
    """The bold line a comment kept in a memo or a task's notes starts with, in the person's
    language: `**Comment by bob, 2026-03-05 09:30**` (in Chinese `**评论, ...**` with a full-width comma)."""
    if author and when:
        heading = say.gettext("Comment by %(author)s, %(when)s", author=author, when=when)
    elif author:
        heading = say.gettext("Comment by %(author)s", author=author)
    elif when:
        heading = say.gettext("Comment, %(when)s", when=when)
    else:
        heading = say.pgettext("a comment's heading", "Comment")
    return f"**{heading}**"


def same_name(name: str) -> str:
    """What two names are compared by: trimmed, Latin letters in either case alike (工作 is
    工作, " Work " is work; Chinese and other scripts as written)."""
    return "".join(ch.casefold() if "LATIN" in unicodedata.name(ch, "") else ch for ch in name.strip())


def derived_id(prefix: str, user_id: str, *identity: str) -> str:
    """A record id from the user and the source's identity of the record: the same export gives
    the same ids, so writes conditioned on absence create nothing the second time."""
    digest = hashlib.sha256("\0".join((user_id, *identity)).encode("utf-8")).digest()
    return prefix + base64.urlsafe_b64encode(digest[:15]).decode("ascii")


@dataclass(frozen=True)
class PlannedFile:
    """An attachment to upload: its name and type, its size (checked while planning), the SHA-256
    of its bytes, and how to read them again at write time."""

    name: str
    mime: str
    size: int
    sha256: str
    read: Callable[[], bytes]


@dataclass
class PlannedMemo:
    memo_id: str
    content: str
    created: str
    updated: str
    pinned: bool = False
    archived: bool = False
    #: Where it came from, kept on the stored memo (not in its public shape): app, id, visibility.
    origin: dict[str, Any] = field(default_factory=dict)
    files: list[PlannedFile] = field(default_factory=list)
    #: Comments appended to the content (memos' COMMENT relations), for the report.
    comments: int = 0
    #: What the report names this memo by (`memos/abc123`, `card 3 (2024-03-05 10:00:00)`).
    label: str | Text = ""


@dataclass
class PlannedTask:
    task_id: str
    title: str
    notes: str = ""
    priority: str = "none"
    tags: list[str] = field(default_factory=list)
    due: dict[str, Any] | None = None
    timezone: str | None = None
    recurrence: str | None = None
    done: bool = False
    subtasks: list[PlannedTask] = field(default_factory=list)
    #: Comments (Todoist notes) appended to the notes, for the report.
    comments: int = 0
    #: What the report names this task by (`Groceries line 12`).
    label: str | Text = ""
    #: What was cut from it to fit (its notes), said as "imported but shortened" once it is
    #: written (`todo_writes.write_tasks`): a run that finds it there already imported nothing.
    cut: Text | None = None


@dataclass
class PlannedColumn:
    column_id: str
    name: str
    tasks: list[PlannedTask] = field(default_factory=list)
    #: Set at write time (`todo_writes.write_space`): the column is one the account had already
    #: (a section named as a column of the space the project went into), so its tasks go after
    #: the ones there, never among them.
    existing: bool = False


@dataclass
class PlannedSpace:
    space_id: str
    name: str
    columns: list[PlannedColumn] = field(default_factory=list)
    #: Set at write time (`todo_writes.write_space`): the name of the account's live space of the
    #: same name the project went into (no space of its own was made), for the report.
    into: str | None = None


@dataclass
class Report:
    """What an import did, in the person's terms: how many of each thing were imported, how
    many were already there, and what was skipped, kept only as text or imported but shortened
    (cut to a limit: it is there, less than all of it), with the reason."""

    kind: str
    run_id: str = ""
    imported: Counter[str] = field(default_factory=Counter)
    existing: Counter[str] = field(default_factory=Counter)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)
    shortened: list[tuple[str, str]] = field(default_factory=list)
    skipped_count: int = 0
    kept_count: int = 0
    shortened_count: int = 0
    records: int = 0
    seconds: float = 0.0
    #: Of the records already there, those in the trash (an undone import, or deleted since): an
    #: import never writes over a record, so it does not bring them back; the report says so.
    in_trash: int = 0
    #: `skipped` and `kept` as templates with their parameters (`skipped`, `kept` and `as_dict`
    #: are their English: REST, the command line), for the report page in its reader's language.
    skipped_words: list[tuple[Text, Text]] = field(default_factory=list, repr=False)
    kept_words: list[tuple[Text, Text]] = field(default_factory=list, repr=False)
    shortened_words: list[tuple[Text, Text]] = field(default_factory=list, repr=False)
    #: Where a project went that is not a space of its own: "into the existing space 工作".
    merged: list[tuple[str, str]] = field(default_factory=list)
    merged_words: list[tuple[Text, Text]] = field(default_factory=list, repr=False)

    def skip(self, which: str | Text, why: str | Text) -> None:
        self.skipped_count += 1
        if len(self.skipped) < LISTED_MAX:
            entry = (_entry(which), _entry(why))
            self.skipped.append((_cut(str(entry[0])), _cut(str(entry[1]))))
            self.skipped_words.append(entry)

    def keep(self, which: str | Text, what: str | Text) -> None:
        """Something read only as text (kept verbatim in the record's notes or content)."""
        self.kept_count += 1
        if len(self.kept) < LISTED_MAX:
            entry = (_entry(which), _entry(what))
            self.kept.append((_cut(str(entry[0])), _cut(str(entry[1]))))
            self.kept_words.append(entry)

    def shorten(self, which: str | Text, what: str | Text) -> None:
        """Something imported but cut to a limit (a task's notes): it counts as imported, never
        as skipped, and the report says what was cut."""
        self.shortened_count += 1
        if len(self.shortened) < LISTED_MAX:
            entry = (_entry(which), _entry(what))
            self.shortened.append((_cut(str(entry[0])), _cut(str(entry[1]))))
            self.shortened_words.append(entry)

    def merge(self, which: str | Text, what: str | Text) -> None:
        """Something imported into a record the account already had (a project into the space of
        its name): said once a project, never counted as skipped or kept."""
        if len(self.merged) < LISTED_MAX:
            entry = (_entry(which), _entry(what))
            self.merged.append((_cut(str(entry[0])), _cut(str(entry[1]))))
            self.merged_words.append(entry)

    @property
    def per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float(self.records)

    def summary(self) -> str:
        """`412 memos, 37 tags, 58 images imported; 1 already there; 3 skipped` (English; the
        pages say it through the catalog from `as_dict`, a run cut short by `summary_text`)."""
        return str(self.summary_text())

    def summary_text(self) -> Text:
        """The summary as a `Text`, for a page in its reader's language."""
        parts = [counted(name, self.imported[name]) for name in _COUNTED if self.imported[name]]
        text = Text("nothing new imported")
        if parts:
            what = parts[0]
            for part in parts[1:]:
                what = Text("%(list)s, %(item)s", list=what, item=part)
            text = Text("%(what)s imported", what=what)
        there = sum(self.existing.values())
        if there:
            text = Text("%(summary)s; %(count)s already there", summary=text, count=there)
        if self.in_trash:
            text = Text(
                "%(summary)s (%(count)s of them in the trash: restore them there; importing again does not)",
                summary=text,
                count=self.in_trash,
            )
        if self.skipped_count:
            text = Text("%(summary)s; %(count)s skipped", summary=text, count=self.skipped_count)
        if self.kept_count:
            text = Text("%(summary)s; %(count)s kept as text", summary=text, count=self.kept_count)
        if self.shortened_count:
            text = Text("%(summary)s; %(count)s imported but shortened", summary=text, count=self.shortened_count)
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "runId": self.run_id,
            "imported": dict(self.imported),
            "existing": dict(self.existing),
            "inTrash": self.in_trash,
            "skipped": [{"which": _cut(which), "why": _cut(why)} for which, why in self.skipped],
            "skippedCount": self.skipped_count,
            "kept": [{"which": _cut(which), "what": _cut(what)} for which, what in self.kept],
            "keptCount": self.kept_count,
            "shortened": [{"which": _cut(which), "what": _cut(what)} for which, what in self.shortened],
            "shortenedCount": self.shortened_count,
            "merged": [{"which": _cut(which), "what": _cut(what)} for which, what in self.merged],
            "records": self.records,
            "seconds": round(self.seconds, 3),
            "summary": self.summary(),
        }

    def words(self) -> dict[str, Any]:
        """The skipped, kept and shortened lists as templates with their parameters (`Text.stored`), kept
        with the report so its page says them in its reader's language (`as_dict` has the English)."""
        return {
            "skipped": [{"which": which.stored(), "why": why.stored()} for which, why in self.skipped_words],
            "kept": [{"which": which.stored(), "what": what.stored()} for which, what in self.kept_words],
            "shortened": [{"which": which.stored(), "what": what.stored()} for which, what in self.shortened_words],
            "merged": [{"which": which.stored(), "what": what.stored()} for which, what in self.merged_words],
        }


#: What a summary counts, in its order (`archive.words.counted` says each).
_COUNTED = ("memos", "tags", "attachments", "comments", "spaces", "columns", "tasks", "subtasks")
#: A report entry that is the person's own data or a name: said as it is, never looked up.
_AS_IS = "%(name)s"


def _cut(text: str) -> str:
    return text if len(text) <= ENTRY_MAX else text[: ENTRY_MAX - 1] + "…"


def _entry(words: str | Text) -> Text:
    """A report entry as a `Text` whose every string is cut at ENTRY_MAX (a plain string is the
    person's own data or a name, never looked up in the catalog: a task titled "Done" stays so)."""
    if not isinstance(words, Text):
        return Text(_AS_IS, name=_cut(words))
    params = {name: _entry(value) if isinstance(value, Text) else _cut(value) if isinstance(value, str) else value
              for name, value in words.params.items()}  # fmt: skip
    return Text(words.template, **params)


@dataclass
class Plan:
    """Everything one import will write, checked whole; the report's skipped and kept lists are
    filled while planning."""

    report: Report
    memos: list[PlannedMemo] = field(default_factory=list)
    spaces: list[PlannedSpace] = field(default_factory=list)
    #: Inbox items (Todoist's Inbox project), each with its subtasks embedded (`todo_writes.write_inbox`).
    inbox: list[PlannedTask] = field(default_factory=list)

    @property
    def attachment_bytes(self) -> int:
        return sum(file.size for memo in self.memos for file in memo.files)
