"""memos' own database (`memos_prod.db`) into MeSQ memos: the mapping, on rows a reader gives.

Reading the SQLite file is an adapter's work (`mesq/adapters/imports/memos_sqlite.py`: read-only,
immutable, the schema generation detected from its tables); this module sees plain rows through
the `MemosDatabase` port and plans the memos of one memos user:

- content as written, created and updated times (memos keeps Unix seconds, UTC);
- pinned (the memo's `pinned` column from 0.24, `memo_organizer` before) and archived
  (`row_status`);
- tags: those in the content, plus memos' own tag fields (the `tags` column of 0.22-0.23, the
  payload's `tags` from 0.22) appended as a last line when the content does not carry them;
- attachments: bytes stored in the database, and local files beside it (`LOCAL` storage, or
  `internal_path` before 0.22); a link (`EXTERNAL`) is kept as a Markdown link, S3 objects are
  listed as not imported (MeSQ does not fetch from other servers);
- relations (`REFERENCE`) as Markdown links to the related memo, comments (`COMMENT` relations:
  a memo that answers another) appended to the memo they answer under a "Comment" line (its
  time in the person's zone), not imported as memos of their own; the person's own comment on
  another user's memo (which is not imported) is a memo of its own, saying whose memo it
  answered; these lines are written in the person's language (`say`: 评论, 2026-03-05 09:30);
- visibility recorded on the stored memo (`origin.visibility`); nothing becomes public.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from ..kernel.i18n import Text, Translator
from ..kernel.messages import WHOLE, quoted
from ..kernel.timestamps import format_timestamp
from ..memos.reads import content_max_characters
from . import memo_checks
from .plan import Plan, PlannedFile, PlannedMemo, Report, SourceError, Unavailable, comment_heading, derived_id

SOURCE = "memos"


@dataclass(frozen=True)
class MemosUser:
    id: int
    username: str
    memos: int


@dataclass(frozen=True)
class MemosRow:
    id: int
    uid: str
    creator_id: int
    created_ts: int
    updated_ts: int
    row_status: str
    content: str
    visibility: str
    pinned: bool
    tags: tuple[str, ...]
    #: The content held bytes that are not UTF-8 text (memos keeps whatever bytes it was sent):
    #: they are read as U+FFFD, and the report says so.
    not_utf8: bool = False
    #: The content's length in characters when it is as long as the reader was asked to read or
    #: longer (`MemosDatabase.memos(characters)`): `content` then holds only its start (a link's text),
    #: and the memo is skipped as over the limit, as is the memo it comments on. None when
    #: `content` is whole.
    cut_from: int | None = None


@dataclass(frozen=True, slots=True)
class AttachmentRow:
    id: int
    uid: str
    memo_id: int | None
    filename: str
    type: str
    size: int
    #: DATABASE (bytes in the row), LOCAL (a file beside the database), EXTERNAL (a link), S3.
    storage: str
    reference: str
    #: The memos user who uploaded it (None: a schema without the column).
    creator_id: int | None = None


class MemosDatabase(Protocol):
    """What the importer reads of a memos database (mesq/adapters/imports/memos_sqlite.py)."""

    @property
    def generation(self) -> str:
        """The memos releases whose schema this is, e.g. `0.22-0.23`."""
        ...

    def users(self) -> list[MemosUser]: ...

    def memos(self, characters: int) -> list[MemosRow]:
        """Every memo of every user, oldest first; a content of `characters` or more is not held
        (`MemosRow.cut_from`): a stranger's database may hold contents of hundreds of megabytes."""
        ...

    def relations(self) -> list[tuple[int, int, str]]:
        """(memo_id, related_memo_id, type) rows."""
        ...

    def attachments(self) -> list[AttachmentRow]: ...

    def checked_bytes(self, attachment: AttachmentRow, limit: int) -> tuple[int, str]:
        """(size, SHA-256) of an attachment's bytes, read through once; Unavailable when its
        file is missing, SourceError when it is hostile (a path out of the folder, a link) or
        the row is damaged."""
        ...

    def reader(self, attachment: AttachmentRow, limit: int) -> Callable[[], bytes]: ...


def _when(seconds: int) -> str:
    try:
        return format_timestamp(datetime.fromtimestamp(int(seconds), UTC))
    except (OverflowError, OSError, ValueError):
        raise SourceError(Text("a memo time %(value)s is not a Unix time", value=quoted(seconds))) from None


def pick_user(database: MemosDatabase, wanted: str | None) -> MemosUser:
    users = database.users()
    if wanted is not None:
        found = [user for user in users if user.username == wanted]
        if not found:
            names = ", ".join(user.username for user in users) or "none"
            raise SourceError(
                Text("no memos user %(name)s in this database (its users: %(users)s)", name=quoted(wanted), users=names)
            )
        return found[0]
    with_memos = [user for user in users if user.memos]
    if len(with_memos) == 1:
        return with_memos[0]
    if not with_memos:
        raise SourceError(Text("this memos database holds no memos"))
    names = ", ".join(f"{user.username} ({user.memos})" for user in with_memos)
    raise SourceError(
        Text("this database has several memos users; name one with --memos-user (its users: %(users)s)", users=names)
    )


def _first_line(content: str) -> str:
    for line in content.splitlines():
        text = line.strip().lstrip("#>-*").strip()
        if text:
            # A link's text must not carry the other memo's tags: `#` is left out.
            return " ".join(text.replace("#", " ").split())[:80].replace("[", "(").replace("]", ")")
    return "memo"


def _local_time(seconds: int, zone: str) -> str:
    """`2026-03-05 09:30` in `zone` (the person's), `2026-03-05 01:30 UTC` when that is UTC; a
    time no calendar holds as its number (a comment's heading: the comment is still kept)."""
    try:
        _when(seconds)
    except SourceError:
        return str(seconds)
    local = datetime.fromtimestamp(int(seconds), UTC).astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
    return f"{local} UTC" if zone == "UTC" else local


def _comment(row: MemosRow, authors: dict[int, str], owner: int, say: Translator, zone: str) -> str:
    author = "" if row.creator_id == owner else authors.get(row.creator_id) or say.gettext("someone")
    quoted = "\n".join(f"> {line}" if line else ">" for line in row.content.strip().splitlines())
    return f"{comment_heading(say, author, _local_time(row.created_ts, zone))}\n\n{quoted}"


def _files(
    database: MemosDatabase, row: MemosRow, attachments: Iterable[AttachmentRow], report: Report, label: str
) -> tuple[list[PlannedFile], list[str]]:
    """The memo's files to upload, and lines for those it keeps as links."""
    files: list[PlannedFile] = []
    links: list[str] = []
    for attachment in attachments:
        name = memo_checks.display_name(attachment.filename, f"attachment-{attachment.uid}")
        if attachment.storage == "EXTERNAL":
            links.append(f"[{name}]({attachment.reference})")
            report.keep(
                label,
                Text(
                    "attachment %(name)s is a link (%(link)s); kept as a link",
                    name=quoted(name, WHOLE),
                    link=attachment.reference,
                ),
            )
            continue
        which = Text("%(memo)s attachment %(name)s", memo=label, name=quoted(name, WHOLE))
        if attachment.storage not in ("DATABASE", "LOCAL"):
            report.skip(which, Text("stored on %(storage)s; MeSQ does not fetch it", storage=attachment.storage))
            continue
        try:
            size, sha256 = database.checked_bytes(attachment, _limit())
        except Unavailable as error:
            report.skip(which, error.text)
            continue
        if size == 0:
            report.skip(which, Text("empty (0 bytes)"))
            continue
        mime = memo_checks.media_type(attachment.type, name)
        files.append(PlannedFile(name, mime, size, sha256, database.reader(attachment, size)))
    return files, links


def _limit() -> int:
    from ..attachments.uploads import MAX_FILE_BYTES

    return MAX_FILE_BYTES


def plan_memos(
    database: MemosDatabase, user_id: str, report: Report, memos_user: str | None, say: Translator, zone: str = "UTC"
) -> Plan:
    """The memos of one memos user as planned memos; `say` and `zone`: the person's language and
    zone, for the lines the import writes into them (a comment's heading)."""
    owner = pick_user(database, memos_user)
    authors = {user.id: user.username for user in database.users()}
    limit = content_max_characters()
    rows = database.memos(limit + 1)  # a content past the limit is skipped: its start is enough
    by_id = {row.id: row for row in rows}
    comments: dict[int, list[MemosRow]] = {}
    references: dict[int, list[int]] = {}
    #: The person's own comments on a memo not imported (another user's): memos of their own.
    answering_others: dict[int, MemosRow] = {}
    relations = database.relations()
    commenting = {memo_id for memo_id, related_id, kind in relations if kind == "COMMENT" and memo_id != related_id}
    for memo_id, related_id, kind in relations:
        if kind == "COMMENT" and (memo_id == related_id or related_id in commenting):
            # A comment on itself, or on a comment (a loop of them): memos writes neither. Appended
            # to a memo that is not imported as one, it would be lost unsaid: it stays a memo.
            continue
        answered = by_id.get(related_id)
        if kind == "COMMENT" and memo_id in by_id and answered is not None and answered.creator_id == owner.id:
            comments.setdefault(related_id, []).append(by_id[memo_id])
        elif kind == "COMMENT" and memo_id in by_id and answered is not None:
            answering_others[memo_id] = answered
        elif kind == "REFERENCE" and memo_id != related_id:  # a link to itself says nothing
            references.setdefault(memo_id, []).append(related_id)
    comment_ids = {row.id for answers in comments.values() for row in answers}
    attachments: dict[int, list[AttachmentRow]] = {}
    for attachment in database.attachments():
        if attachment.memo_id is not None and attachment.memo_id in by_id:
            attachments.setdefault(attachment.memo_id, []).append(attachment)
        elif attachment.creator_id in (None, owner.id):
            # A file no memo references (an upload whose memo was never saved, or whose memo is
            # gone): nothing to attach it to, but never dropped unsaid. Another user's is not ours.
            name = memo_checks.display_name(attachment.filename, f"attachment-{attachment.uid}")
            report.skip(Text("attachment %(name)s", name=quoted(name, WHOLE)), Text("not attached to any memo"))

    # memos keeps uids unique; a database made or mended by hand may repeat one. The first memo
    # (by row id) keeps the uid's id, a later one an id of its own: it was dropped as "already there".
    ids: dict[int, str] = {}
    repeated: set[int] = set()
    uses: dict[str, int] = {}
    for row in sorted(rows, key=lambda row: row.id):
        occurrence = uses.get(row.uid, 0)
        uses[row.uid] = occurrence + 1
        ids[row.id] = derived_id("mm", user_id, SOURCE, row.uid, *((str(occurrence),) if occurrence else ()))
        if occurrence:
            repeated.add(row.id)

    def mesq_id(row: MemosRow) -> str:
        return ids[row.id]

    plan = Plan(report)
    for row in rows:
        if row.creator_id != owner.id or row.id in comment_ids:
            continue
        label = f"memos/{row.uid}"
        if row.id in repeated:
            report.keep(label, Text("another memo of this database has the same uid: imported as a memo of its own"))
        try:
            created = _when(row.created_ts)
        except SourceError as error:  # a damaged or made-up row: that memo, named, not the whole import
            report.skip(label, error.text)
            continue
        try:
            updated = _when(max(row.updated_ts, row.created_ts))
        except SourceError:
            updated = created
        if row.cut_from is not None:
            report.skip(label, memo_checks.too_long(row.cut_from, limit))
            continue
        content = row.content.strip()
        if row.not_utf8:
            report.keep(label, Text("bytes that are not UTF-8 text, each kept as �"))
        files, links = _files(database, row, sorted(attachments.get(row.id, []), key=lambda a: a.id), report, label)
        extra: list[str] = []
        if row.id in answering_others:  # its memo is not imported: the comment stands alone, saying whose it answered
            other = answering_others[row.id]
            author = authors.get(other.creator_id) or say.gettext("someone")
            answered_memo = "memos/" + other.uid
            extra.append(say.gettext("(a comment on %(memo)s by %(author)s)", memo=answered_memo, author=author))
        if links:
            extra.append("\n".join(links))
        related = [by_id[other] for other in references.get(row.id, []) if other in by_id]
        for other in related:
            if other.creator_id == owner.id and other.id not in comment_ids:
                extra.append(f"→ [{_first_line(other.content)}](/memos/{mesq_id(other)}/edit)")
            else:
                extra.append(f"→ memos/{other.uid}")
        answers = sorted(comments.get(row.id, []), key=lambda answer: (answer.created_ts, answer.id))
        past = sum(answer.cut_from - len(answer.content) for answer in answers if answer.cut_from is not None)
        for answer in answers:
            # A comment's own files (memos lets a comment carry images) go with it, onto this memo.
            answer_files, answer_links = _files(
                database,
                answer,
                sorted(attachments.get(answer.id, []), key=lambda a: a.id),
                report,
                f"memos/{answer.uid}",
            )
            files += answer_files
            said = _comment(answer, authors, owner.id, say, zone)
            extra.append("\n>\n".join([said, *(f"> {link}" for link in answer_links)]))
        content = "\n\n".join([content, *extra]).strip()
        if past:  # a comment over the limit holds only its start: the memo with it whole is longer
            report.skip(label, memo_checks.too_long(len(content) + past, limit))
            continue
        content = memo_checks.with_tags(content, list(row.tags))
        planned = PlannedMemo(
            memo_id=mesq_id(row),
            content=content,
            created=created,
            updated=updated,
            pinned=row.pinned,
            archived=row.row_status == "ARCHIVED",
            origin={"app": SOURCE, "id": row.uid, "visibility": row.visibility},
            files=files,
            comments=len(answers),
            label=label,
        )
        memo_checks.admit(plan, planned)
    return plan
