"""Exports of other apps, built by the tests in each app's published format (never a copy of
anyone's file): a memos SQLite database of a given schema generation, a flomo HTML export ZIP, a
folder of Todoist project CSVs. Each builder returns what every record must become."""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

# -- memos -------------------------------------------------------------------------------------

#: The memo, user and file tables of memos' schema generations (store/migration/sqlite in its
#: repository): 0.20 (resource_name, memo_organizer, resource with internal_path/external_link),
#: 0.22 (uid, tags column, payload, storage_type/reference), 0.24 (pinned), latest (attachment).
_USER = """CREATE TABLE user (id INTEGER PRIMARY KEY AUTOINCREMENT, created_ts BIGINT NOT NULL DEFAULT 0,
  updated_ts BIGINT NOT NULL DEFAULT 0, row_status TEXT NOT NULL DEFAULT 'NORMAL', username TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL DEFAULT 'USER', email TEXT NOT NULL DEFAULT '', nickname TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL, avatar_url TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '');"""
_RELATION = """CREATE TABLE memo_relation (memo_id INTEGER NOT NULL, related_memo_id INTEGER NOT NULL,
  type TEXT NOT NULL, UNIQUE(memo_id, related_memo_id, type));"""
_ORGANIZER = """CREATE TABLE memo_organizer (memo_id INTEGER NOT NULL, user_id INTEGER NOT NULL,
  pinned INTEGER NOT NULL DEFAULT 0, UNIQUE(memo_id, user_id));"""
SCHEMAS: dict[str, str] = {
    "0.20": _USER
    + _RELATION
    + _ORGANIZER
    + """
CREATE TABLE memo (id INTEGER PRIMARY KEY AUTOINCREMENT, resource_name TEXT NOT NULL UNIQUE,
  creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL, updated_ts BIGINT NOT NULL, row_status TEXT NOT NULL DEFAULT 'NORMAL',
  content TEXT NOT NULL DEFAULT '', visibility TEXT NOT NULL DEFAULT 'PRIVATE');
CREATE TABLE resource (id INTEGER PRIMARY KEY AUTOINCREMENT, resource_name TEXT NOT NULL UNIQUE,
  creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL DEFAULT 0, updated_ts BIGINT NOT NULL DEFAULT 0, filename TEXT NOT NULL DEFAULT '',
  blob BLOB DEFAULT NULL, external_link TEXT NOT NULL DEFAULT '', type TEXT NOT NULL DEFAULT '',
  size INTEGER NOT NULL DEFAULT 0,
  internal_path TEXT NOT NULL DEFAULT '', memo_id INTEGER);
CREATE TABLE tag (name TEXT NOT NULL, creator_id INTEGER NOT NULL, UNIQUE(name, creator_id));""",
    "0.22": _USER
    + _RELATION
    + _ORGANIZER
    + """
CREATE TABLE memo (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL, updated_ts BIGINT NOT NULL, row_status TEXT NOT NULL DEFAULT 'NORMAL',
  content TEXT NOT NULL DEFAULT '', visibility TEXT NOT NULL DEFAULT 'PRIVATE', tags TEXT NOT NULL DEFAULT '[]',
  payload TEXT NOT NULL DEFAULT '{}');
CREATE TABLE resource (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL DEFAULT 0, updated_ts BIGINT NOT NULL DEFAULT 0, filename TEXT NOT NULL DEFAULT '',
  blob BLOB DEFAULT NULL, type TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0, memo_id INTEGER,
  storage_type TEXT NOT NULL DEFAULT '', reference TEXT NOT NULL DEFAULT '', payload TEXT NOT NULL DEFAULT '{}');""",
    "0.24": _USER
    + _RELATION
    + _ORGANIZER
    + """
CREATE TABLE memo (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL, updated_ts BIGINT NOT NULL, row_status TEXT NOT NULL DEFAULT 'NORMAL',
  content TEXT NOT NULL DEFAULT '', visibility TEXT NOT NULL DEFAULT 'PRIVATE', pinned INTEGER NOT NULL DEFAULT 0,
  payload TEXT NOT NULL DEFAULT '{}');
CREATE TABLE resource (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL DEFAULT 0, updated_ts BIGINT NOT NULL DEFAULT 0, filename TEXT NOT NULL DEFAULT '',
  blob BLOB DEFAULT NULL, type TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0, memo_id INTEGER,
  storage_type TEXT NOT NULL DEFAULT '', reference TEXT NOT NULL DEFAULT '', payload TEXT NOT NULL DEFAULT '{}');""",
    "latest": _USER
    + _RELATION
    + """
CREATE TABLE memo (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL, updated_ts BIGINT NOT NULL, row_status TEXT NOT NULL DEFAULT 'NORMAL',
  content TEXT NOT NULL DEFAULT '', visibility TEXT NOT NULL DEFAULT 'PRIVATE', pinned INTEGER NOT NULL DEFAULT 0,
  payload TEXT NOT NULL DEFAULT '{}');
CREATE TABLE attachment (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, creator_id INTEGER NOT NULL,
  created_ts BIGINT NOT NULL DEFAULT 0, updated_ts BIGINT NOT NULL DEFAULT 0, filename TEXT NOT NULL DEFAULT '',
  blob BLOB DEFAULT NULL, type TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0, memo_id INTEGER,
  storage_type TEXT NOT NULL DEFAULT '', reference TEXT NOT NULL DEFAULT '', payload TEXT NOT NULL DEFAULT '{}');""",
}
GENERATIONS = {"0.20": "0.19-0.20", "0.22": "0.22-0.23", "0.24": "0.24-0.25", "latest": "0.26 or later"}


def picture(index: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + hashlib.sha256(str(index).encode()).digest() * (4 + index % 7)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class ExpectedMemo:
    uid: str
    created: str
    updated: str
    pinned: bool
    archived: bool
    tags: set[str]
    files: list[str]  # sha256 of each attachment, in order
    comments: int = 0
    visibility: str = "PRIVATE"
    order: int = 0


def memos_database(folder: Path, generation: str = "latest", count: int = 1000) -> dict[str, ExpectedMemo]:
    """`folder/memos_prod.db` with users alice (the memos) and bob (comments, one memo), and an
    `assets/` folder of local files; what alice's memos must become, by memos uid."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "memos_prod.db")
    db.executescript(SCHEMAS[generation])
    db.execute("INSERT INTO user (id, username, password_hash) VALUES (1, 'alice', 'x'), (2, 'bob', 'x')")
    uid_column = "resource_name" if generation == "0.20" else "uid"
    files_table = "attachment" if generation == "latest" else "resource"
    (folder / "assets").mkdir(exist_ok=True)
    expected: dict[str, ExpectedMemo] = {}
    base = 1_600_000_000
    for index in range(count):
        uid = f"m{index:05d}x{generation.replace('.', '')}"
        created = base + index * 3600 + 17
        updated = created + (index % 5) * 60
        pinned = index % 25 == 0
        archived = index % 40 == 7
        content = f"Memo {index} about #topic/t{index % 9} and 中文 #生活"
        field_tags = [f"extra{index % 4}"] if index % 3 == 0 else []
        columns = [uid_column, "creator_id", "created_ts", "updated_ts", "row_status", "content", "visibility"]
        values: list[Any] = [uid, 1, created, updated, "ARCHIVED" if archived else "NORMAL", content,
                             ["PRIVATE", "PROTECTED", "PUBLIC"][index % 3]]  # fmt: skip
        if generation == "0.22":
            columns += ["tags", "payload"]
            values += [json.dumps(field_tags), json.dumps({"property": {}, "tags": field_tags})]
        elif generation in ("0.24", "latest"):
            columns += ["pinned", "payload"]
            values += [int(pinned), json.dumps({"property": {"hasLink": False}, "tags": field_tags})]
        else:
            field_tags = []
        memo_id = db.execute(
            f"INSERT INTO memo ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))})", values
        ).lastrowid
        if pinned and generation in ("0.20", "0.22"):
            db.execute("INSERT INTO memo_organizer (memo_id, user_id, pinned) VALUES (?, 1, 1)", (memo_id,))
        files: list[str] = []
        if index % 4 == 0:  # bytes in the database
            data = picture(index)
            _file(db, generation, files_table, f"r{uid}", memo_id, f"photo {index}.png", "image/png", data, blob=True)
            files.append(sha(data))
        if index % 10 == 5:  # a local file beside the database
            data = picture(index + 50_000)
            reference = f"assets/{index}_scan.jpg"
            (folder / reference).write_bytes(data)
            _file(db, generation, files_table, f"l{uid}", memo_id, f"scan {index}.jpg", "image/jpeg", data,
                  blob=False, reference=reference)  # fmt: skip
            files.append(sha(data))
        expected[uid] = ExpectedMemo(
            uid=uid,
            created=_stamp(created),
            updated=_stamp(updated),
            pinned=pinned,
            archived=archived,
            tags={f"topic/t{index % 9}", "生活", *field_tags},
            files=files,
            visibility=values[6],
            order=index,
        )
        expected[uid].__dict__["memo_id"] = memo_id
    # Comments (bob answers alice, alice answers herself) and references between alice's memos.
    ids = {uid: memo.__dict__["memo_id"] for uid, memo in expected.items()}
    uids = list(expected)
    for number, uid in enumerate(uids[::50]):
        author = 2 if number % 2 else 1
        comment = db.execute(
            f"INSERT INTO memo ({uid_column}, creator_id, created_ts, updated_ts, content) VALUES (?, ?, ?, ?, ?)",
            (f"c{number:04d}{generation}", author, base + 10_000_000 + number, base + 10_000_000 + number,
             f"a comment {number} #fromcomment"),
        ).lastrowid  # fmt: skip
        db.execute("INSERT INTO memo_relation VALUES (?, ?, 'COMMENT')", (comment, ids[uid]))
        if number % 3 == 1:  # a comment with a picture of its own: it joins the memo the comment answers
            data = picture(90_000 + number)
            _file(db, generation, files_table, f"rc{number}{uid}", comment, f"reply {number}.png", "image/png", data,
                  blob=True)  # fmt: skip
            expected[uid].files.append(sha(data))
        expected[uid].comments += 1
        expected[uid].tags.add("fromcomment")
    for first, second in zip(uids[1::100], uids[2::100], strict=False):
        db.execute("INSERT INTO memo_relation VALUES (?, ?, 'REFERENCE')", (ids[first], ids[second]))
    db.execute(
        f"INSERT INTO memo ({uid_column}, creator_id, created_ts, updated_ts, content)"
        " VALUES ('bobs', 2, ?, ?, 'bob #own')",
        (base, base),
    )
    db.commit()
    db.close()
    return expected


def _file(db: sqlite3.Connection, generation: str, table: str, uid: str, memo_id: int, name: str, mime: str,
          data: bytes, *, blob: bool, reference: str = "") -> None:  # fmt: skip
    uid_column = "resource_name" if generation == "0.20" else "uid"
    columns = [uid_column, "creator_id", "filename", "type", "size", "memo_id", "blob"]
    values: list[Any] = [uid, 1, name, mime, len(data), memo_id, data if blob else None]
    if generation == "0.20":
        columns.append("internal_path")
        values.append(reference)
    else:
        columns += ["storage_type", "reference"]
        values += ["DATABASE" if blob else "LOCAL", reference]
    db.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))})", values)


def _stamp(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


# -- flomo -------------------------------------------------------------------------------------


@dataclass
class ExpectedCard:
    created: str  # UTC, stored form
    tags: set[str]
    files: list[str]
    text: str  # a phrase the Markdown must hold
    order: int


def flomo_export(path: Path, count: int = 1000, zone: str = "Asia/Shanghai") -> list[ExpectedCard]:
    """A ZIP like flomo's: one folder holding `index.html` (every card, newest first) and `file/`."""
    tz = ZoneInfo(zone)
    cards: list[str] = []
    expected: list[ExpectedCard] = []
    members: dict[str, bytes] = {}
    start = datetime(2023, 1, 1, 8, 0, 0)
    for index in range(count):
        local = start + timedelta(hours=index * 5, seconds=index % 60)
        tag = f"读书/第{index % 6}章" if index % 2 else f"work/project{index % 3}/notes"
        files_html = ""
        files: list[str] = []
        if index % 3 == 0:
            data = picture(index + 90_000)
            name = f"file/{local:%Y-%m-%d}/42/{hashlib.md5(str(index).encode()).hexdigest()}.png"
            members[name] = data
            files_html = f'<div class="files"><img src="{name}" /></div>'
            files.append(sha(data))
        body = (
            f"<p>#{tag} card {index} with <strong>bold {index}</strong> and a "
            f'<a href="https://example.org/{index}">link</a></p>'
            f"<ul><li>first point {index}</li><li>second point</li></ul>"
        )
        cards.append(f'<div class="memo"><div class="time">{local:%Y-%m-%d %H:%M:%S}</div>'
                     f'<div class="content">{body}</div>{files_html}</div>')  # fmt: skip
        expected.append(
            ExpectedCard(
                created=local.replace(tzinfo=tz).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
                tags={tag, *(_parents(tag))},
                files=files,
                text=f"**bold {index}**",
                order=index,
            )
        )
    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>flomo</title></head><body>'
        '<div class="user"><div class="name">tester</div></div><div class="memos">'
        + "".join(reversed(cards))
        + "</div></body></html>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("flomo@tester-20240101/index.html", page)
        for name, data in members.items():
            archive.writestr(f"flomo@tester-20240101/{name}", data)
    return expected


def _parents(tag: str) -> list[str]:
    parts = tag.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]


# -- Todoist -----------------------------------------------------------------------------------

HEADER = ["TYPE", "CONTENT", "DESCRIPTION", "PRIORITY", "INDENT", "AUTHOR", "RESPONSIBLE", "DATE", "DATE_LANG",
          "TIMEZONE", "DURATION", "DURATION_UNIT"]  # fmt: skip
PRIORITY = {"1": "urgent", "2": "high", "3": "medium", "4": "none"}  # p1 to p4, as Todoist writes them


def todoist_csv(path: Path, rows: list[list[str]]) -> Path:
    """A Todoist CSV of `rows` under the first ten columns of HEADER (short rows padded)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER[:10])
        writer.writerows([(row + [""] * 10)[:10] for row in rows])
    return path


@dataclass
class ExpectedTask:
    title: str
    project: str
    section: str
    priority: str
    tags: list[str]
    due: dict[str, Any] | None
    timezone: str | None
    recurrence: str | None
    comments: int = 0
    subtasks: list[str] = field(default_factory=list)
    order: int = 0
    notes_has: list[str] = field(default_factory=list)


def next_weekday(now: datetime, zone: str, weekday: int) -> date:
    today = now.astimezone(ZoneInfo(zone)).date()
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def next_weekly_at(now: datetime, zone: str, weekday: int, hour: int, minute: int) -> date:
    """The day of a weekly rule's first occurrence at `hour:minute` after `now`: today's only
    while its time is still ahead (a Monday 09:30 import of "every monday at 9am" starts a week on)."""
    day = next_weekday(now, zone, weekday)
    if datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(zone)) <= now:
        day += timedelta(days=7)
    return day


def todoist_export(folder: Path, now: datetime, projects: int = 4, tasks: int = 260) -> dict[str, ExpectedTask]:
    """`projects` CSV files of `tasks` tasks each (sections, subtasks, priorities, labels, dates in
    English and Chinese, recurring ones, comments); what each root task must become, by title."""
    folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, ExpectedTask] = {}
    for project in range(projects):
        name = f"Project {project} 项目"
        zone = ["Asia/Shanghai", "America/New_York", "Europe/Berlin", "UTC"][project % 4]
        rows: list[list[str]] = []
        section = "To do"
        order = 0
        for index in range(tasks):
            if index % 50 == 0:
                section = f"Section {index // 50}"
                rows.append(["section", section, "", "", "", "", "", "", "", "", "", ""])
                order = 0
            title = f"Task {project}-{index}"
            labels = [f"label{index % 3}"] if index % 2 else []
            priority = str(1 + index % 4)
            kind = index % 6
            if kind == 0:
                date_text, lang, due, rule = (
                    "every friday",
                    "en",
                    {"type": "date", "date": next_weekday(now, zone, 4).isoformat()},
                    "FREQ=WEEKLY;BYDAY=FR",
                )
            elif kind == 1:
                date_text, lang, due, rule = (
                    "每周五",
                    "zh",
                    {"type": "date", "date": next_weekday(now, zone, 4).isoformat()},
                    "FREQ=WEEKLY;BYDAY=FR",
                )
            elif kind == 2:
                day = date(2024, 1 + index % 12, 1 + index % 28)
                date_text, lang, due, rule = f"{day:%b} {day.day} {day.year} 10:30", "en", _at(day, 10, 30, zone), None
            elif kind == 3:
                day = date(2025, 1 + index % 12, 1 + index % 28)
                date_text, lang, due, rule = (
                    f"{day.year}年{day.month}月{day.day}日",
                    "zh",
                    {"type": "date", "date": day.isoformat()},
                    None,
                )
            elif kind == 4:
                date_text, lang, due, rule = "", "", None, None
            else:
                date_text, lang, due, rule = (
                    "every monday at 9am",
                    "en",
                    _at(next_weekly_at(now, zone, 0, 9, 0), 9, 0, zone),
                    "FREQ=WEEKLY;BYDAY=MO",
                )
            content = " ".join([title, *(f"@{label}" for label in labels)])
            rows.append(["task", content, f"description of {title}", priority, "1", "Tester (1)", "", date_text, lang,
                         zone if date_text else "", "", ""])  # fmt: skip
            task = ExpectedTask(title=title, project=name, section=section, priority=PRIORITY[priority], tags=labels,
                                due=due, timezone=zone if due else None, recurrence=rule, order=order)  # fmt: skip
            task.notes_has.append(f"description of {title}")
            order += 1
            if index % 7 == 0:
                rows.append(["note", f"comment on {title}", "", "", "1", "Tester (1)", "", "", "", "", "", ""])
                task.comments += 1
                task.notes_has.append(f"comment on {title}")
            if index % 5 == 0:
                for sub in range(2):
                    sub_title = f"Sub {project}-{index}-{sub}"
                    rows.append(["task", sub_title, "", "4", "2", "", "", "", "", "", "", ""])
                    task.subtasks.append(sub_title)
            expected[title] = task
        with (folder / f"{name} [{2200000000 + project}].csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(HEADER)
            for row in rows:
                writer.writerow(row)
                writer.writerow([""] * len(HEADER)) if row[0] == "section" else None
    return expected


def _at(day: date, hour: int, minute: int, zone: str) -> dict[str, Any]:
    local = datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(zone))
    return {"type": "datetime", "at": local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
