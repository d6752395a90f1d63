"""flomo (浮墨)'s HTML export into MeSQ memos.

flomo's "export all (HTML)" is a ZIP of one folder: one HTML page listing every card, and a
`file/` folder with the cards' images. Each card is

    <div class="memo">
      <div class="time">2024-03-05 09:30:00</div>        local time of the account, no zone
      <div class="content"><p>text #tag/child</p><ul><li>…</li></ul></div>
      <div class="files"><img src="file/2024-03-05/123/abc.png"></div>
    </div>

A card becomes a memo: its rich text as Markdown (`html_text`: lists, bold, links; never HTML),
its `#tags/hierarchical` as tags (they are in the text), its images (and audio) as attachments,
its time read in `zone` (flomo writes the account's local time; China Standard Time unless the
person says otherwise). The memo id is derived from the card's time and HTML, so the same export
imported again creates nothing, and an edited card imports as a new memo.

Refused with one line, before anything is written: a file that is not a ZIP, a ZIP without one
HTML page of cards, a page that declares entities (`<!ENTITY`: an entity bomb has no business in
an export), a page over MAX_HTML_BYTES, a file reference that leaves the export's folder.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from datetime import datetime
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from ..attachments.uploads import MAX_FILE_BYTES
from ..kernel.i18n import Text
from ..kernel.messages import WHOLE, quoted
from ..kernel.timestamps import format_timestamp
from . import html_text, memo_checks
from .plan import MAX_MEMOS, Plan, PlannedFile, PlannedMemo, Report, SourceError, derived_id
from .zipped import BoundedZip

SOURCE = "flomo"
DEFAULT_ZONE = "Asia/Shanghai"
MAX_HTML_BYTES = 256 * 1024 * 1024
#: A card's HTML read at most (its tree is built alone: a page is read card by card). A memo
#: holds 50,000 characters; a card of them in rich text is a few hundred thousand.
MAX_CARD_CHARACTERS = 4 * 1024 * 1024
#: Cards one import plans at most (`plan.MAX_MEMOS`).
MAX_CARDS = MAX_MEMOS
_ENTITY_DECLARATION = re.compile(rb"<!ENTITY", re.IGNORECASE)
_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M")
_EXTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _page(archive: BoundedZip) -> str:
    pages = [name for name in archive.names() if name.lower().endswith((".html", ".htm"))]
    if not pages:
        raise SourceError(Text("%(file)s: not a flomo export (no HTML page in the ZIP)", file=archive.label))
    shallowest = min(name.count("/") for name in pages)
    top = [name for name in pages if name.count("/") == shallowest]
    if len(top) > 1:
        named = [name for name in top if posixpath.basename(name).lower() == "index.html"]
        if len(named) != 1:
            raise SourceError(
                Text(
                    "%(file)s: several HTML pages (%(pages)s); a flomo export has one",
                    file=archive.label,
                    pages=", ".join(top[:3]),
                )
            )
        top = named
    return top[0]


class _NotATime(ValueError):
    """A card's time that cannot be read: `text` says why (the card is skipped)."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text


def _when(text: str, zone: ZoneInfo, label: Text) -> str:
    cleaned = " ".join(text.split())
    for pattern in _TIME_FORMATS:
        try:
            local = datetime.strptime(cleaned, pattern)
        except ValueError:
            continue
        try:
            return format_timestamp(local.replace(tzinfo=zone))
        except (OverflowError, ValueError):  # year 1 east of UTC, year 9999 west of it: no UTC time
            raise _NotATime(
                Text(
                    "%(card)s: time %(time)s is outside the years a memo's time can hold",
                    card=label,
                    time=quoted(cleaned),
                )
            ) from None
    raise _NotATime(Text("%(card)s: time %(time)s is not a date and time", card=label, time=quoted(cleaned)))


def _file_ref(page: str, source: str, archive: BoundedZip) -> str | None:
    """The member a card's file reference names (relative to the page), None when absent;
    SourceError when it leaves the export."""
    ref = unquote(source.strip()).replace("\\", "/")
    if not ref or _EXTERNAL.match(ref):
        return None
    if ref.startswith("/"):
        raise SourceError(
            Text("%(file)s: file reference %(ref)s is an absolute path", file=archive.label, ref=quoted(source))
        )
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), ref))
    if joined == ".." or joined.startswith("../"):
        raise SourceError(
            Text(
                "%(file)s: file reference %(ref)s leaves the export (path traversal)",
                file=archive.label,
                ref=quoted(source),
            )
        )
    return joined if joined in archive.members else ""


def plan_flomo(archive: BoundedZip, user_id: str, report: Report, zone_name: str = DEFAULT_ZONE) -> Plan:
    zone = ZoneInfo(zone_name)
    page = _page(archive)
    raw = archive.read(page, MAX_HTML_BYTES)
    if _ENTITY_DECLARATION.search(raw):
        raise SourceError(
            Text(
                "%(file)s: %(page)s declares entities (<!ENTITY>); an export never does", file=archive.label, page=page
            )
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceError(
            Text(
                "%(file)s: %(page)s is not UTF-8 text (byte %(byte)s)", file=archive.label, page=page, byte=error.start
            )
        ) from None
    plan = Plan(report)
    seen: dict[str, int] = {}
    number = 0
    for number, source in enumerate(html_text.blocks(text, "memo"), start=1):
        if number > MAX_CARDS:
            shown = f"{MAX_CARDS:,}"  # (outside the Text call: Babel skips a call that holds an f-string)
            raise SourceError(
                Text("%(file)s: over %(limit)s cards, more than one import takes", file=archive.label, limit=shown)
            )
        if len(source) > MAX_CARD_CHARACTERS:  # a card's tree takes some 75 times its text
            report.skip(
                Text("card %(number)s", number=number),
                Text(
                    "%(size)s characters of HTML, over the %(limit)s read for a card",
                    size=len(source),
                    limit=MAX_CARD_CHARACTERS,
                ),
            )
            continue
        card = html_text.parse(source).select_one("div.memo")
        if card is None:
            continue
        time_element = card.select_one(".time")
        stamp = " ".join(time_element.get_text(" ").split()) if time_element else ""
        label = (
            Text("card %(number)s (%(time)s)", number=number, time=stamp)
            if stamp
            else Text("card %(number)s (no time)", number=number)
        )
        try:
            created = _when(stamp, zone, label)
        except _NotATime as error:
            report.skip(label, error.text)
            continue
        deepest = html_text.depth(card)
        if deepest > html_text.MAX_DEPTH:  # before str(card) and markdownify, which recurse per level
            report.skip(
                label,
                Text(
                    "rich text nested %(depth)s levels deep, over the %(limit)s read",
                    depth=deepest,
                    limit=html_text.MAX_DEPTH,
                ),
            )
            continue
        identity = str(card)
        sources: list[str] = []
        for media in card.select("img[src], audio[src], video[src], source[src]"):
            sources.append(str(media.get("src")))
        for media in card.select("img, audio, video, source"):
            media.decompose()
        files_element = card.select_one(".files")
        if files_element is not None:
            files_element.decompose()
        content = html_text.to_markdown(card.select_one(".content"))
        files: list[PlannedFile] = []
        for source in dict.fromkeys(sources):
            member = _file_ref(page, source, archive)
            if member is None and source.strip().lower().startswith(("http://", "https://")):
                report.keep(label, Text("file %(file)s is a link; kept as a link", file=quoted(source, WHOLE)))
                content = f"{content}\n\n<{source}>".strip()
                continue
            if member is None:  # data:, javascript:, a file: path of the exporting machine: nothing to keep
                report.skip(
                    _file_label(label, _shown(source)), Text("not a file of the export nor a web link: not imported")
                )
                continue
            if not member:
                report.skip(_file_label(label, source), Text("not in the export"))
                continue
            if archive.size(member) > MAX_FILE_BYTES:  # the memo is skipped (memo_checks): never read
                name = memo_checks.display_name(posixpath.basename(member), "file")
                files.append(PlannedFile(name, memo_checks.media_type("", name), archive.size(member), "", lambda: b""))
                continue
            size, sha256 = archive.digest(member, MAX_FILE_BYTES)
            if size == 0:
                report.skip(_file_label(label, source), Text("empty (0 bytes)"))
                continue
            name = memo_checks.display_name(posixpath.basename(member), "file")
            files.append(
                PlannedFile(name, memo_checks.media_type("", name), size, sha256, _reader(archive, member, size))
            )
        if not content and files:
            content = "📎"  # a card of images only: a memo needs text
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        planned = PlannedMemo(
            memo_id=derived_id("mf", user_id, SOURCE, identity, str(occurrence)),
            content=content,
            created=created,
            updated=created,
            origin={"app": SOURCE, "time": stamp, "zone": zone_name},
            files=files,
            label=label,
        )
        memo_checks.admit(plan, planned)
    if not number:
        raise SourceError(Text("%(file)s: %(page)s holds no flomo cards (div.memo)", file=archive.label, page=page))
    return plan


def _shown(source: str) -> str:
    """A reference as the report names it: a data: URI's kilobytes of base64 say nothing."""
    return source if len(source) <= 60 else source[:59] + "…"


def _file_label(card: Text, source: str) -> Text:
    return Text("%(card)s file %(file)s", card=card, file=quoted(source, WHOLE))


def _reader(archive: BoundedZip, member: str, size: int) -> Callable[[], bytes]:
    return lambda: archive.read(member, size)
