"""The CalDAV URL space, under `/dav`:

| path | what |
| --- | --- |
| `/.well-known/caldav` | redirects to `/dav/` (RFC 6764) |
| `/dav/` | the service root: names the signed-in user's principal |
| `/dav/<username>/` | the user's principal and calendar home (one resource, as Radicale does) |
| `/dav/<username>/<space id>/` | one calendar per space, named as the space |
| `/dav/<username>/inbox/` | the inbox, a calendar of its own |
| `/dav/<username>/<collection>/<name>` | one task (a calendar object resource) |

Space ids are random 16-character tokens, so no space is ever called `inbox`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote, unquote_to_bytes, urlsplit

from ..todos.sync.links import INBOX

ROOT = "/dav"
WELL_KNOWN = "/.well-known/caldav"

Level = Literal["root", "home", "collection", "object"]


@dataclass(frozen=True)
class Target:
    level: Level
    username: str = ""
    collection: str = ""
    name: str = ""


def parse(path: str) -> Target | None:
    """What a request path names (None: nothing in the CalDAV space)."""
    if path in (ROOT, ROOT + "/"):
        return Target("root")
    if not path.startswith(ROOT + "/"):
        return None
    rest = path[len(ROOT) + 1 :]
    trailing = rest.endswith("/")
    parts = [part for part in rest.split("/") if part]
    if not parts or any(part in (".", "..") for part in parts) or len(parts) > 3:
        return None
    if len(parts) == 1:
        return Target("home", parts[0])
    if len(parts) == 2:
        return Target("collection", parts[0], parts[1])
    if trailing:
        return None
    return Target("object", parts[0], parts[1], parts[2])


#: What a decoder makes of bytes that are not UTF-8 (the ASGI server's, API Gateway's).
_NOT_DECODED = "\ufffd"


def is_utf8(raw_path: bytes | None, target: Target) -> bool:
    """Whether the request path names its parts in UTF-8 (docs/decisions.md "CalDAV names not
    UTF-8"). Bytes that are not (`caf%E9.ics`) were decoded to U+FFFD, stored under that other
    name and listed under another href: refused instead. `raw_path` is the path as sent, when the
    server keeps it; without it (Lambda), a part holding U+FFFD is taken for such bytes."""
    if raw_path is not None:
        try:
            unquote_to_bytes(raw_path).decode("utf-8")
        except UnicodeDecodeError:
            return False
    return not any(_NOT_DECODED in part for part in (target.username, target.collection, target.name))


def home(base: str, username: str) -> str:
    return f"{base}{ROOT}/{quote(username, safe='')}/"


def collection(base: str, username: str, collection_id: str) -> str:
    return f"{home(base, username)}{quote(collection_id, safe='')}/"


def inbox(base: str, username: str) -> str:
    return collection(base, username, INBOX)


def object_href(base: str, username: str, collection_id: str, name: str) -> str:
    return collection(base, username, collection_id) + quote(name, safe="@:+=~!$&'()*,;")


def name_in(href: str, collection_href: str) -> str | None:
    """The resource name an href names inside a collection (None: not a member's href)."""
    path = urlsplit(href).path
    prefix = urlsplit(collection_href).path
    if not path.startswith(prefix):
        return None
    name = unquote(path[len(prefix) :])
    return name if name and "/" not in name else None
