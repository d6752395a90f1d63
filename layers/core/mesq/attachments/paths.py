"""Attachment paths: opaque, per user, never able to name another user's object.

Attachments come in namespaces (`Namespace`): memo attachments (`MEMO`) and todo attachments
(`TODO`) share every rule, the quota and the storage; they differ only in the path segment, the
MCP URI, the REST routes, the record prefix and the scopes. A registered attachment lives at
`users/<userId>/<namespace>/<attachmentId>`; bytes of a direct upload
first land at `uploads/<userId>/<uploadId>` (the prefix the bucket's lifecycle rule expires) and
are copied to the final path on completion. The id is 12 hex digits of milliseconds since the
epoch (so ids sort by creation time) plus 64 random bits. Every path a client sends is matched
against the exact shape and the caller's own user id before anything touches storage: traversal
(`..`), other prefixes and other users' paths are refused without a storage call.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import parse_qs, quote, unquote, urlsplit

from ..kernel.errors import Forbidden, ValidationError
from ..kernel.i18n import N_, ForPrograms, Text
from ..kernel.messages import quoted

ATTACHMENT_ROOT = "users"
STAGING_ROOT = "uploads"
KINDS = ("image", "video", "audio")


@dataclass(frozen=True)
class Namespace:
    """What tells memo attachments and todo attachments apart (everything else is shared)."""

    name: str  # the path segment: users/<user>/<name>/<id>
    noun: str  # for messages: "memo attachment" (a catalog string, said in the reader's language)
    mcp_uri_prefix: str
    read_route: str  # the authenticated REST read (GET/HEAD)
    relay_route: str  # the multipart relay upload
    record_prefix: str  # sort key prefix of the attachment records
    read_scope: str
    write_scope: str

    @cached_property  # compiled once per namespace (a frozen dataclass still has a __dict__)
    def pattern(self) -> re.Pattern[str]:
        return re.compile(rf"{ATTACHMENT_ROOT}/([A-Za-z0-9_-]{{1,64}})/{self.name}/([0-9a-f]{{28}})")


MEMO = Namespace(
    name="memo",
    noun=N_("memo attachment"),
    mcp_uri_prefix="memo://resource/",
    read_route="/api/toolkit/memo/resources/read",
    relay_route="/api/toolkit/memo/resources/upload",
    record_prefix="MEMOATT#",
    read_scope="memo:read",
    write_scope="memo:write",
)
TODO = Namespace(
    name="todo",
    noun=N_("todo attachment"),
    mcp_uri_prefix="todo://attachment/",
    read_route="/api/toolkit/todo/attachments/read",
    relay_route="/api/toolkit/todo/attachments/upload",
    record_prefix="TODOATT#",
    read_scope="todo:read",
    write_scope="todo:write",
)
NAMESPACES = (MEMO, TODO)


def namespace_of(path: str) -> Namespace | None:
    """The namespace a well-formed attachment path belongs to (None for anything else)."""
    for namespace in NAMESPACES:
        if isinstance(path, str) and namespace.pattern.fullmatch(path):
            return namespace
    return None


def new_attachment_id() -> str:
    return f"{int(time.time() * 1000):012x}{secrets.token_hex(8)}"


def attachment_path(user_id: str, attachment_id: str, kind: Namespace = MEMO) -> str:
    return f"{ATTACHMENT_ROOT}/{user_id}/{kind.name}/{attachment_id}"


def staging_path(user_id: str, upload_id: str) -> str:
    return f"{STAGING_ROOT}/{user_id}/{upload_id}"


def own_attachment_id(path: str, user_id: str, field: str = "path", kind: Namespace = MEMO) -> str:
    """The attachment id of `path` if it is a well-formed `kind` attachment path of `user_id`.

    ValidationError for anything that is not such a path (traversal and the other namespace
    included); Forbidden for another user's path (its shape says whose it is, so nothing leaks)."""
    match = kind.pattern.fullmatch(path) if isinstance(path, str) else None
    if match is None and (handle := _handle_of(path)) is not None:
        # An answer hands out a path beside its mcp_uri and url: say which one to pass.
        raise ValidationError(
            "%(field)s: that is an attachment's %(form)s; pass its path instead: %(path)s",
            field=field,
            form=ForPrograms(handle[0]),
            path=quoted(handle[1], limit=200),  # a well-formed path: short, and useless cut
        )
    if match is None:
        # The shape is for programs: a page says the kind in its reader's words, without it.
        raise ValidationError(
            "%(field)s: %(path)s is not a %(noun)s path%(shape)s",
            field=field,
            path=quoted(path),
            noun=Text(kind.noun),
            shape=ForPrograms(f" (users/<you>/{kind.name}/<id>)"),
        )
    if match.group(1) != user_id:
        raise Forbidden("%(field)s: this attachment belongs to another account", field=field)
    return match.group(2)


def _handle_of(value: object) -> tuple[str, str] | None:
    """("mcp_uri" or "url", the path inside) when `value` is an attachment's MCP URI or read URL
    (what every answer puts beside its `path`); None for anything else."""
    if not isinstance(value, str):
        return None
    for namespace in NAMESPACES:
        if value.startswith(namespace.mcp_uri_prefix):
            inside = unquote(value.removeprefix(namespace.mcp_uri_prefix))
            return ("mcp_uri", inside) if namespace_of(inside) is not None else None
    parts = urlsplit(value)
    if any(parts.path.endswith(namespace.read_route) for namespace in NAMESPACES):
        given = parse_qs(parts.query).get("path", [])
        if len(given) == 1 and namespace_of(given[0]) is not None:
            return "url", given[0]
    return None


def mcp_uri(path: str, kind: Namespace = MEMO) -> str:
    return kind.mcp_uri_prefix + quote(path, safe="")


def read_url(path: str, base: str | None, kind: Namespace = MEMO) -> str:
    """The authenticated REST read URL, under `base` (the public URL, or the request's own in an
    answer: kernel/answer_urls.py); the bare route without one."""
    return f"{base or ''}{kind.read_route}?path={quote(path, safe='')}"


def kind_of(mime_type: str) -> str:
    """The memo resource `type`: image, video or audio by the media type, else file."""
    major = mime_type.split("/", 1)[0].strip().lower()
    return major if major in KINDS else "file"
