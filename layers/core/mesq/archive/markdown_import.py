"""`import_markdown`: a folder or ZIP of Markdown files into a user's memos, one memo per `.md`
file (docs/markdown-import.md).

- Optional YAML front matter (`---` ... `---`, read with a safe loader that refuses aliases and
  caps size and depth, `limits.FRONT_MATTER_*`) sets `created`,
  `updated` (ISO 8601), `tags` (a list, or one string) and `pinned` (bool); other keys (Obsidian's
  `aliases`, ...) are ignored. `#tags` in the text are tags as usual; a front-matter tag the text
  does not carry is appended as a last line `#tag`, so tags stay in the content, where every
  memo keeps them (tag rename, counters).
- Files the text embeds (`![alt](img.png)`, Obsidian's `![[img.png]]`) become the memo's
  attachments. A reference is resolved against the list of files inside the folder or ZIP only
  (relative to the note, then from the root, then, Obsidian-style, a unique file of that name),
  so no reference can reach outside it; one that tries, or names a missing file, fails the note.
- A note that cannot be imported (not UTF-8, bad front matter, over a limit, a bad reference) is
  listed with one line of reason and the rest import.
- Writes go through the domain's write paths: attachments through `attachments.uploads`
  (size checks, quota, record and usage in one transaction), the memo through
  `memos.changes.write_recorded` (counters, tag counters, its change record), exactly as
  `create_memo` builds it except for an id derived from the user, the note's relative path and its
  bytes. The memo Put is conditioned on absence, and a note whose memo exists is skipped before
  its attachments are uploaded, so importing the same files again creates nothing new (an edited
  note is a new memo).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import mimetypes
import os
import posixpath
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import yaml

from ..attachments import store as attachment_store
from ..attachments.paths import MEMO
from ..attachments.reads import checked_resources
from ..attachments.uploads import MAX_FILE_BYTES, clean_display_name, store_bytes
from ..auth.user_zone import configured_zone
from ..kernel.context import Call, Channel, Principal, Services, new_run_id
from ..kernel.errors import MesqError
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import ConditionFailed, Item
from ..kernel.spec import load_spec
from ..kernel.tags import expand_tag_paths, is_valid_tag, parse_tags
from ..kernel.timestamps import format_timestamp, now_timestamp, parse_timestamp
from ..memos import store as memo_store
from ..memos.changes import write_recorded
from ..memos.reads import content_max_characters
from ..memos.writes import MAX_TAG_PATHS_PER_MEMO
from .bounded_zip import BoundedZip, Member
from .limits import FRONT_MATTER_BYTES, FRONT_MATTER_DEPTH, NOTES_ZIP

CONTENT_SOURCE = "markdown"
#: Folders a vault keeps for its app, not for notes (Obsidian's settings, git, the trash).
_SKIPPED_DIRS = frozenset({".obsidian", ".git", ".trash", "__MACOSX"})
_FRONT_MATTER_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
#: `![alt](target "title")` / `![alt](<target with spaces>)` and Obsidian's `![[target|size]]`.
_LINK_EMBED = re.compile(r"!\[[^\]\n]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+[\"'(][^)\n]*)?\s*\)")
_WIKI_EMBED = re.compile(r"!\[\[([^\]|#\n]+)(?:[|#][^\]\n]*)?\]\]")
#: Code spans and fences, where `![x](y)` is an example, not an embed (as tags.py skips them).
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
_EXTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # http:, https:, data:, mailto:, app:


class NoteError(Exception):
    """Why one note cannot be imported (one line), as a `Text`: the import page says it in its
    reader's language, the command line in English (`str`)."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text


def _not_a_time(name: str, value: Any) -> Text:
    return Text("%(field)s: %(value)s is not an ISO 8601 date or time", field=name, value=quoted(value))


@dataclass
class MarkdownReport:
    files: int = 0
    created: int = 0
    existing: int = 0
    attachments: int = 0
    #: (the note's path, why it was skipped)
    failed: list[tuple[str, Text]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.files / self.seconds if self.seconds > 0 else float(self.files)


@dataclass(frozen=True)
class Note:
    """One parsed note: what its memo will hold, before attachments are uploaded."""

    path: str
    memo_id: str
    content: str
    created: str | None
    updated: str | None
    pinned: bool
    images: tuple[str, ...]


# -- sources -----------------------------------------------------------------------------------


class Source(Protocol):
    """The files of a folder or ZIP by relative POSIX path, and their bytes (bounded reads)."""

    sizes: dict[str, int]

    def read(self, name: str, limit: int) -> bytes: ...


class FolderSource:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sizes = {}
        for directory, dirs, files in os.walk(root):  # never follows symlinked folders
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
            for name in files:
                path = Path(directory, name)
                if not path.is_symlink():  # a link could point anywhere: its target is not "inside"
                    self.sizes[path.relative_to(root).as_posix()] = path.stat().st_size

    def read(self, name: str, limit: int) -> bytes:
        with open(self.root / name, "rb") as handle:
            return handle.read(limit + 1)


class ZipSource:
    """The files of a ZIP, read through `BoundedZip` under `limits.NOTES_ZIP`."""

    def __init__(self, archive: BoundedZip) -> None:
        self.archive = archive
        self.sizes = {}
        self._members: dict[str, Member] = {}
        for member in archive.members():
            name = posixpath.normpath(member.name.replace("\\", "/"))
            parts = name.split("/")
            if (
                member.name.endswith("/")
                or name.startswith(("/", "../"))
                or name == ".."
                or _SKIPPED_DIRS & set(parts[:-1])
            ):
                continue
            self.sizes[name] = member.size
            self._members[name] = member
        # A ZIP of a folder holds it under one top folder: strip it, so the ZIP's notes have the
        # paths (and so the memo ids) the folder itself gives.
        tops = {name.split("/", 1)[0] if "/" in name else "" for name in self.sizes}
        if len(tops) == 1 and "" not in tops:
            cut = len(tops.pop()) + 1
            self.sizes = {name[cut:]: size for name, size in self.sizes.items()}
            self._members = {name[cut:]: info for name, info in self._members.items()}

    def read(self, name: str, limit: int) -> bytes:
        member = self._members[name]
        with self.archive.open(member) as reader:
            return reader.read(min(limit + 1, member.size))  # never past the limit, nor past its size


# -- parsing (pure) ----------------------------------------------------------------------------


class _FrontMatterLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses aliases (`*name`: a few hundred bytes of nested aliases
    expand to gigabytes) and nesting deeper than FRONT_MATTER_DEPTH."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        # MeSQ's own refusals: NoteErrors (in the catalog), not YAML errors, whose words are the parser's.
        if self.check_event(yaml.AliasEvent):
            event = self.get_event()  # type: ignore[no-untyped-call]
            raise NoteError(
                Text("front matter line %(line)s: aliases (*name) are not allowed", line=event.start_mark.line + 2)
            )
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > FRONT_MATTER_DEPTH:
                raise NoteError(
                    Text(
                        "front matter nested deeper than the front matter depth cap of %(cap)s", cap=FRONT_MATTER_DEPTH
                    )
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return {}, text
    start = text.index("\n") + 1
    end = _FRONT_MATTER_END.search(text, start)
    if end is None:
        raise NoteError(Text("front matter has no closing '---' line"))
    block = text[start : end.start()]
    if len(block.encode()) > FRONT_MATTER_BYTES:
        raise NoteError(
            Text("front matter over the front matter size cap of %(cap)s bytes", cap=format(FRONT_MATTER_BYTES, ","))
        )
    try:
        meta = yaml.load(block, Loader=_FrontMatterLoader)  # noqa: S506 - a safe loader, aliases refused
    except yaml.YAMLError as error:
        # The parser's own words ("mapping values are not allowed here") are English a person
        # cannot act on: the line, and what usually breaks it, in MeSQ's.
        mark = getattr(error, "problem_mark", None)
        if mark is None:
            raise NoteError(Text("front matter is not valid YAML; check its colons, quotes and indentation")) from None
        raise NoteError(
            Text(
                "front matter is not valid YAML at line %(line)s; check its colons, quotes and indentation",
                line=mark.line + 2,
            )
        ) from None
    except (ValueError, OverflowError) as error:  # a well-formed but impossible date: 2024-13-01
        if "digits" in str(error):  # Python's cap on an integer's digits, no date at all
            raise NoteError(Text("front matter holds a number too long to read")) from None
        raise NoteError(
            Text("front matter holds a date that does not exist (such as 2024-13-01 or 2024-02-30)")
        ) from None
    except RecursionError:
        raise NoteError(Text("front matter is nested too deeply")) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise NoteError(Text("front matter must be a mapping of keys to values"))
    return meta, text[end.end() :].lstrip("\r\n")


def _timestamp(value: Any, name: str, zone: tzinfo = UTC) -> str | None:
    """A front-matter time as a stored timestamp; a date (its midnight) or a time without a zone is
    read in `zone`, the person's (`2024-03-05` written in St. John's is that day there)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            return format_timestamp(parse_timestamp(value.strip(), name))
        except MesqError:
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                raise NoteError(_not_a_time(name, value)) from None
    else:
        raise NoteError(_not_a_time(name, value))
    try:
        return format_timestamp(moment if moment.tzinfo else moment.replace(tzinfo=zone))
    except OverflowError:  # 0001-01-01T00:30+01:00 is before year 1 in UTC
        raise NoteError(
            Text("%(field)s: %(value)s is outside 0001..9999 in UTC", field=name, value=quoted(str(value)))
        ) from None


def _meta_tags(value: Any) -> list[str]:
    if value is None:
        return []
    raw = re.split(r"[,\s]+", value) if isinstance(value, str) else value
    if not isinstance(raw, list):
        raise NoteError(Text("tags: give a list of tags"))
    tags: list[str] = []
    for entry in raw:
        if isinstance(entry, bool) or not isinstance(entry, str | int | float):
            raise NoteError(Text("tags: %(value)s is not a tag", value=quoted(entry)))
        tag = str(entry).strip().lstrip("#")
        if not tag:
            continue
        if not is_valid_tag(tag):
            raise NoteError(Text("tags: %(value)s is not a valid tag", value=quoted(tag)))
        tags.append(tag)
    return tags


def _references(body: str) -> list[str]:
    body = _CODE.sub(" ", body)
    found: dict[str, None] = {}
    for match in _LINK_EMBED.finditer(body):
        found.setdefault(unquote(match.group(1) or match.group(2)).strip(), None)
    for match in _WIKI_EMBED.finditer(body):
        found.setdefault(match.group(1).strip(), None)
    return [ref for ref in found if ref and not _EXTERNAL.match(ref) and not ref.startswith("#")]


def _resolve(note_path: str, ref: str, sizes: dict[str, int]) -> str:
    """The file `ref` names, among the files of the folder; NoteError when it escapes or is missing."""
    ref = ref.replace("\\", "/")
    if ref.startswith("/") or re.match(r"^[A-Za-z]:/", ref):
        raise NoteError(
            Text("image %(file)s: an absolute path; only files inside the folder are imported", file=quoted(ref))
        )
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(note_path), ref))
    if beside == ".." or beside.startswith("../"):
        raise NoteError(Text("image %(file)s points outside the folder", file=quoted(ref)))
    for candidate in (beside, posixpath.normpath(ref)):
        if candidate in sizes:
            return candidate
    if "/" not in ref:  # Obsidian's shortest form: the one file of that name anywhere
        same_name = [name for name in sizes if posixpath.basename(name) == ref]
        if len(same_name) == 1:
            return same_name[0]
    raise NoteError(Text("image %(file)s is not in the folder", file=quoted(ref)))


def memo_id_for(user_id: str, path: str, data: bytes) -> str:
    """The memo id of one note's import: the same user, path and bytes give the same id."""
    digest = hashlib.sha256(f"{user_id}\0{path}\0".encode() + data).digest()
    return "md" + base64.urlsafe_b64encode(digest[:15]).decode("ascii")


def parse_note(
    user_id: str, path: str, data: bytes, sizes: dict[str, int], max_images: int, zone: tzinfo = UTC
) -> Note:
    """One note as the memo it makes; `zone` reads its front matter's dates and zone-less times."""
    limit = content_max_characters()
    if len(data) > 4 * limit:  # over 4 bytes a character: certainly over the limit
        raise NoteError(Text("larger than a memo holds (%(limit)s characters)", limit=limit))
    try:
        text = data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError as error:
        raise NoteError(Text("not UTF-8 text (byte %(at)s)", at=error.start)) from None
    meta, body = _front_matter(text)
    created, updated = (
        _timestamp(meta.get("created"), "created", zone),
        _timestamp(meta.get("updated"), "updated", zone),
    )
    pinned = meta.get("pinned", False)
    if not isinstance(pinned, bool):
        raise NoteError(Text("pinned: %(value)s is not true or false", value=quoted(pinned)))
    content = body.strip()
    missing = [tag for tag in _meta_tags(meta.get("tags")) if tag not in parse_tags(content)]
    if missing:
        content = f"{content}\n\n{' '.join('#' + tag for tag in dict.fromkeys(missing))}".strip()
    if not content:
        raise NoteError(Text("empty: no text and no tags"))
    if len(content) > limit:
        raise NoteError(Text("%(count)s characters, over the memo limit of %(limit)s", count=len(content), limit=limit))
    if len(expand_tag_paths(parse_tags(content))) > MAX_TAG_PATHS_PER_MEMO:
        raise NoteError(Text("more than %(count)s distinct tags (counting parent tags)", count=MAX_TAG_PATHS_PER_MEMO))
    images = tuple(dict.fromkeys(_resolve(path, ref, sizes) for ref in _references(body)))
    if len(images) > max_images:
        raise NoteError(
            Text("%(count)s attachments, over the %(limit)s a memo holds", count=len(images), limit=max_images)
        )
    for image in images:
        if image.lower().endswith(".md"):
            raise NoteError(
                Text("%(file)s is a note, not an attachment (embedded notes are not imported)", file=quoted(image))
            )
        if sizes[image] > MAX_FILE_BYTES:
            raise NoteError(
                Text(
                    "image %(file)s is over the %(limit)s-byte attachment limit",
                    file=quoted(image),
                    limit=MAX_FILE_BYTES,
                )
            )
    return Note(path, memo_id_for(user_id, path, data), content, created, updated, pinned, images)


# -- writing -----------------------------------------------------------------------------------


def _max_images() -> int:
    return int(load_spec().document["components"]["schemas"]["MemoResourceList"]["maxItems"])


def _discard(call: Call, uploaded: list[dict[str, Any]]) -> None:
    """Give back what a failed note uploaded (record, quota, bytes)."""
    user_id = call.principal.user_id
    for resource in uploaded:
        record = {"id": resource["path"].rsplit("/", 1)[-1], "fileSize": resource["fileSize"]}
        with contextlib.suppress(ConditionFailed):  # already discarded
            call.services.items.transact(attachment_store.unregister(user_id, record, MEMO))
        call.services.blobs.delete(resource["path"])


def _write(call: Call, source: Source, note: Note) -> tuple[bool, int]:
    """(created, attachments uploaded); False when the memo is already there."""
    items, user_id = call.services.items, call.principal.user_id
    if memo_store.read_memo(items, user_id, note.memo_id) is not None:
        return False, 0
    uploaded: list[dict[str, Any]] = []
    try:
        for image in note.images:
            data = source.read(image, MAX_FILE_BYTES)
            mime = mimetypes.guess_type(image)[0] or "application/octet-stream"
            name = clean_display_name(posixpath.basename(image), "image")
            uploaded.append(store_bytes(call, data, name, mime))
        now = now_timestamp()
        created = note.created or note.updated or now
        tags = parse_tags(note.content)
        memo: Item = {
            "id": note.memo_id,
            "content": note.content,
            "tags": tags,
            "tagPaths": expand_tag_paths(tags),
            "status": "NORMAL",
            "pinned": note.pinned,
            "resources": checked_resources(call, uploaded),
            "contentSource": CONTENT_SOURCE,
            "createdAt": created,
            "updatedAt": max(note.updated or created, created),
            "revision": 1,
        }
        write_recorded(call, None, memo)
    except ConditionFailed as failure:
        _discard(call, uploaded)
        if failure.index == 0:
            return False, 0  # imported meanwhile by a twin run
        raise
    except BaseException:
        _discard(call, uploaded)
        raise
    return True, len(uploaded)


def _notes(source: Source) -> Iterator[str]:
    return iter(sorted(name for name in source.sizes if name.lower().endswith(".md")))


def _import(call: Call, source: Source, zone: tzinfo) -> MarkdownReport:
    started = time.perf_counter()
    report = MarkdownReport()
    limit, max_images = 4 * content_max_characters(), _max_images()
    for path in _notes(source):
        report.files += 1
        try:
            note = parse_note(call.principal.user_id, path, source.read(path, limit), source.sizes, max_images, zone)
            created, attachments = _write(call, source, note)
        except NoteError as error:
            report.failed.append((path, error.text))
            continue
        except MesqError as error:  # a limit the write path enforces (quota, size, type)
            report.failed.append((path, error.text))
            continue
        report.created += created
        report.existing += not created
        report.attachments += attachments
    report.seconds = time.perf_counter() - started
    return report


def import_markdown(
    services: Services,
    user_id: str,
    path: Path,
    *,
    principal: Principal | None = None,
    channel: Channel = "cli",
    label: str | None = None,
    zone: str | None = None,
) -> MarkdownReport:
    """Import every `.md` file of the folder or ZIP at `path` as `user_id`'s memos. The change
    records name `principal` (the command line's call, `mesq import --markdown`, without one;
    Settings → Import passes the signed-in browser). `label`: the ZIP's name in errors. Dates and
    zone-less times are read in the account's zone, else `zone` (a page's), else UTC."""
    named = configured_zone(services.items, user_id) or zone
    floating = ZoneInfo(named) if named else UTC
    principal = principal or Principal(
        user_id, frozenset(), "cli:markdown-import", "pat", name="mesq import --markdown"
    )
    call = Call(
        principal=principal, services=services, trace_id=new_run_id(), channel=channel, operation_id="create_memo"
    )
    if path.is_dir():
        return _import(call, FolderSource(path), floating)
    with BoundedZip(path, NOTES_ZIP, label) as archive:
        return _import(call, ZipSource(archive), floating)


__all__ = ["MarkdownReport", "Note", "NoteError", "import_markdown", "memo_id_for", "parse_note"]
