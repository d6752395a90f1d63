"""Attachment paths: opaque, per user, never able to name another user's object.

A registered attachment lives at `users/<userId>/memo/<attachmentId>`; bytes of a direct upload
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
from urllib.parse import quote

from ..errors import Forbidden, ValidationError

ATTACHMENT_ROOT = "users"
STAGING_ROOT = "uploads"
MCP_URI_PREFIX = "memo://resource/"
READ_ROUTE = "/api/toolkit/memo/resources/read"
_PATH = re.compile(rf"{ATTACHMENT_ROOT}/([A-Za-z0-9_-]{{1,64}})/memo/([0-9a-f]{{28}})")
KINDS = ("image", "video", "audio")


def new_attachment_id() -> str:
    return f"{int(time.time() * 1000):012x}{secrets.token_hex(8)}"


def attachment_path(user_id: str, attachment_id: str) -> str:
    return f"{ATTACHMENT_ROOT}/{user_id}/memo/{attachment_id}"


def staging_path(user_id: str, upload_id: str) -> str:
    return f"{STAGING_ROOT}/{user_id}/{upload_id}"


def own_attachment_id(path: str, user_id: str, field: str = "path") -> str:
    """The attachment id of `path` if it is a well-formed attachment path of `user_id`.

    ValidationError for anything that is not an attachment path (traversal included);
    Forbidden for another user's path (its shape says whose it is, so nothing leaks)."""
    match = _PATH.fullmatch(path) if isinstance(path, str) else None
    if match is None:
        raise ValidationError(f"{field}: {path!r} is not a memo attachment path (users/<you>/memo/<id>)")
    if match.group(1) != user_id:
        raise Forbidden(f"{field}: this attachment belongs to another account")
    return match.group(2)


def mcp_uri(path: str) -> str:
    return MCP_URI_PREFIX + quote(path, safe="")


def read_url(path: str, public_url: str | None) -> str:
    """The authenticated REST read URL (absolute when the instance URL is configured)."""
    return f"{public_url or ''}{READ_ROUTE}?path={quote(path, safe='')}"


def kind_of(mime_type: str) -> str:
    """The memo resource `type`: image, video or audio by the media type, else file."""
    major = mime_type.split("/", 1)[0].strip().lower()
    return major if major in KINDS else "file"
