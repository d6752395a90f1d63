"""The user's own time zone: the one setting every "today", overdue, agenda and quick-add default
reads (REST, MCP, the pages, reminder messages, the calendar feed).

It lives in the user's todo settings item as `timezone` (where reminder messages and the CalDAV
edge already read it, and the account archive carries it). `configured_zone` reads it (None when
unset or no longer a known zone); `set_zone` writes it after `check_zone_name`, which accepts
only the names of the IANA database (`zoneinfo.available_timezones()`, less `localtime` and
`Factory`, which name no place): never a file path or a POSIX TZ string.

Setting the zone is a preference, not content: it writes no change record (nothing to undo in
the history), and it bumps the settings item's `revision` so a racing default-space write, which
is conditional on that revision, retries rather than losing the zone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from zoneinfo import available_timezones

from ..kernel.errors import ValidationError
from ..kernel.messages import quoted
from ..kernel.ports.storage import ItemStore, Update
from ..kernel.timestamps import now_timestamp
from .keys import settings_key

#: The longest zone name accepted (the database's longest is 32 characters).
MAX_ZONE_CHARS = 64


#: Names in the database that are no place: the server's own zone and the placeholder zone.
NOT_A_PLACE = frozenset({"localtime", "Factory", "posixrules"})


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones()) - NOT_A_PLACE


def zone_names() -> list[str]:
    """Every accepted name, sorted (a settings page's suggestions)."""
    return sorted(_known_zones())


def is_zone_name(name: Any) -> bool:
    return isinstance(name, str) and name in _known_zones()


def check_zone_name(name: Any, field: str = "timeZone") -> str:
    """`name` when it is an IANA zone name, else a ValidationError that names the fix."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("%(field)s: give an IANA time zone name such as Asia/Shanghai", field=field)
    given: str = name.strip()
    if len(given) > MAX_ZONE_CHARS or not is_zone_name(given):
        shown = quoted(given[:MAX_ZONE_CHARS])
        raise ValidationError(
            "%(field)s: %(shown)s is not an IANA time zone name (e.g. Asia/Shanghai, Europe/Berlin)",
            field=field,
            shown=shown,
        )
    return given


def configured_zone(items: ItemStore, user_id: str) -> str | None:
    """The zone the user set (one settings read), None when unset or unknown."""
    name = (items.get(settings_key(user_id)) or {}).get("timezone")
    return name if isinstance(name, str) and is_zone_name(name) else None


def set_zone(items: ItemStore, user_id: str, name: str) -> str:
    """Store the user's zone (checked); creates the settings item when it does not exist yet."""
    zone = check_zone_name(name)
    items.update(
        Update(key=settings_key(user_id), set={"timezone": zone, "updatedAt": now_timestamp()}, add={"revision": 1})
    )
    return zone
