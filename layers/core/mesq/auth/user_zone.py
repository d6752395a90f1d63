"""The user's own time zone: an account preference that every "today", overdue, agenda and
quick-add default reads (REST, MCP, the pages, reminder messages, the calendar feed), and the day
a memo counts on in the memo sidebar when the caller names no `deviceTimeZone`.

It lives in the user's settings item (`settings_key`: `U#<userId>` / `TODO#SETTINGS`, the item
that also holds the todo board's `defaultSpaceId`) as `timezone`, where reminder messages and the
CalDAV edge read it and the account archive carries it. The key is written here, below the
domains, so the memo and todo domains (one floor, never importing each other) both reach the
zone; `todos/keys.py` names it from here for the board's own reads and writes of that item.
`configured_zone` reads it (None when unset or no longer a known zone; `zone_in` does the same
for an item already read); `set_zone` writes it after `check_zone_name`, which accepts only the
names of the IANA database (`zoneinfo.available_timezones()`, less `localtime` and `Factory`,
which name no place): never a file path or a POSIX TZ string.

Setting the zone is a preference, not content: it writes no change record (nothing to undo in
the history), and it bumps the settings item's `revision` so a racing default-space write, which
is conditional on that revision, retries rather than losing the zone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from zoneinfo import available_timezones

from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item, ItemStore, Key, Update
from ..kernel.timestamps import now_timestamp

#: The sort key of the user's settings item (its name is older than this module: the todo board
#: wrote it first). Existing items, the account archive and CalDAV read it under this key.
SETTINGS_SK = "TODO#SETTINGS"

#: The longest zone name accepted (the database's longest is 32 characters).
MAX_ZONE_CHARS = 64


#: Names in the database that are no place: the server's own zone and the placeholder zone.
NOT_A_PLACE = frozenset({"localtime", "Factory", "posixrules"})


def settings_key(user_id: str) -> Key:
    """The key of the user's settings item (the zone's `timezone`, the board's `defaultSpaceId`)."""
    return (user_partition(user_id), SETTINGS_SK)


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


def zone_in(settings: Item | None) -> str | None:
    """The zone a settings item (`settings_key`) holds, None when unset or unknown."""
    name = (settings or {}).get("timezone")
    return name if isinstance(name, str) and is_zone_name(name) else None


def configured_zone(items: ItemStore, user_id: str) -> str | None:
    """The zone the user set (one settings read), None when unset or unknown."""
    return zone_in(items.get(settings_key(user_id)))


def set_zone(items: ItemStore, user_id: str, name: str) -> str:
    """Store the user's zone (checked); creates the settings item when it does not exist yet."""
    zone = check_zone_name(name)
    items.update(
        Update(key=settings_key(user_id), set={"timezone": zone, "updatedAt": now_timestamp()}, add={"revision": 1})
    )
    return zone
