"""The account's own preferences an archive carries beside its records: the pages' language
(Settings → Language) and the time zone (docs/archive.md "What an archive holds").

Neither is a record of its own kind: the language sits in the profile, which never leaves (its
password hash), and the zone in the todo settings item, which travels only with the board. So
the manifest carries them as `account: {"language": "zh", "timeZone": "Asia/Shanghai"}`, each
only when the account set it, in every export whatever its scopes (they are how the person reads
their own data: days counted in their zone, pages in their language; no secret). An import takes
each only where the importing account has not set its own (decisions.md "preferences in an
archive"), and keeps the zone it had even when the archive's board took its settings item's
place (`todos/untouched_board.py` removes it with the empty board).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..auth.user_zone import configured_zone, is_zone_name, set_zone
from ..auth.users import SETTING_CHOICES, get_user, set_setting
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import ItemStore
from .format import MANIFEST, ArchiveError

#: The manifest's key, and the names of what it holds.
ACCOUNT = "account"
LANGUAGE = "language"
TIME_ZONE = "timeZone"
NAMES = (LANGUAGE, TIME_ZONE)
_LANGUAGES = tuple(choice for choice in SETTING_CHOICES[LANGUAGE] if isinstance(choice, str) and choice)


def _chosen_language(items: ItemStore, user_id: str) -> str:
    """The language the person chose in Settings ("" = none: the browser's is used)."""
    language = ((get_user(items, user_id) or {}).get("settings") or {}).get(LANGUAGE)
    return language if isinstance(language, str) and language in _LANGUAGES else ""


def of_account(items: ItemStore, user_id: str) -> dict[str, str]:
    """What the manifest carries of `user_id`: the language and zone they set, each only if set."""
    found = {LANGUAGE: _chosen_language(items, user_id), TIME_ZONE: configured_zone(items, user_id) or ""}
    return {name: value for name, value in found.items() if value}


def in_words(account: Mapping[str, str]) -> str:
    """`language zh and time zone Asia/Shanghai` (the command line's English), "" for none."""
    said = {LANGUAGE: "language", TIME_ZONE: "time zone"}
    return " and ".join(f"{said[name]} {value}" for name, value in account.items() if name in said)


def checked(account: Any) -> dict[str, str]:
    """The manifest's `account` (absent in archives written before it: {}), or ArchiveError
    naming the bad value; names it does not know are passed over (a later MeSQ's)."""
    if account is None:
        return {}
    if not isinstance(account, Mapping):
        raise ArchiveError(Text("%(file)s: account must be an object", file=MANIFEST))
    language, zone = account.get(LANGUAGE), account.get(TIME_ZONE)
    if language is not None and language not in _LANGUAGES:
        raise ArchiveError(
            Text(
                "%(file)s: account.language: %(value)s is not one of %(choices)s",
                file=MANIFEST,
                value=quoted(language),
                choices=", ".join(_LANGUAGES),
            )
        )
    if zone is not None and not is_zone_name(zone):
        raise ArchiveError(
            Text(
                "%(file)s: account.timeZone: %(value)s is not an IANA time zone name",
                file=MANIFEST,
                value=quoted(zone),
            )
        )
    return {name: str(value) for name, value in ((LANGUAGE, language), (TIME_ZONE, zone)) if value is not None}


def restore(items: ItemStore, user_id: str, carried: Mapping[str, str], own_zone: str | None) -> dict[str, str]:
    """After an import's writes: the archive's language and zone where the account has none of
    its own (`own_zone`: the account's zone before the import), the account's zone put back where
    the archive's settings record replaced it. Returns what was taken from the archive."""
    taken: dict[str, str] = {}
    language = carried.get(LANGUAGE)
    if language and not _chosen_language(items, user_id):
        set_setting(items, user_id, LANGUAGE, language)
        taken[LANGUAGE] = language
    now = configured_zone(items, user_id)
    wanted = own_zone or carried.get(TIME_ZONE)
    if wanted and now != wanted:
        set_zone(items, user_id, wanted)
    if own_zone is None and wanted:
        taken[TIME_ZONE] = wanted
    return taken


__all__ = ["ACCOUNT", "NAMES", "checked", "of_account", "restore"]
