"""Users: a profile item in the user's own partition plus a unique-username claim item."""

from __future__ import annotations

import contextlib
import re
import secrets
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.errors import NotFound, ValidationError
from ..kernel.i18n import DEFAULT_LANGUAGE, LANGUAGES
from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Condition, ConditionFailed, ItemStore, Put, Update
from ..kernel.timestamps import now_timestamp
from ..store.paging import walk
from .passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hash_password, verify_password

logger = Logger(child=True)

_USERNAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,31}$")


def _profile_key(user_id: str) -> tuple[str, str]:
    return (user_partition(user_id), "PROFILE")


def _username_key(username: str) -> tuple[str, str]:
    return (f"USERNAME#{username}", "USERNAME")


# Every username claim is also an entry of this GSI2 partition (sort key: the username), so the
# accounts can be listed in name order without a table scan.
DIRECTORY_INDEX = "gsi2"
DIRECTORY_PARTITION = "USERS"

# Counts every user ever created (same transaction as the profile): the browser's first-run
# set-up is open only while it is absent, and `first_user=True` makes that claim atomic.
USER_COUNT_KEY = ("META#USERS", "USERS")

#: The interface settings of a new account (list_memos/get_memo report `doubleClickEdit` with
#: `includeContext`; the memo page changes it). `language`: the web pages' language, "" = the
#: browser's (`Accept-Language`), else "en" or "zh" (Settings → Language).
DEFAULT_SETTINGS: dict[str, bool | str] = {"doubleClickEdit": False, "language": ""}
SETTING_CHOICES: dict[str, tuple[bool | str, ...]] = {"doubleClickEdit": (False, True), "language": ("", "en", "zh")}


class SetupAlreadyDone(ValidationError):
    """`first_user=True` but a user exists already (another set-up won the race)."""


def any_user_exists(items: ItemStore) -> bool:
    return items.get(USER_COUNT_KEY) is not None


def public_user(profile: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": profile["userId"],
        "username": profile["username"],
        "admin": profile.get("admin", False),
        "createdAt": profile["createdAt"],
    }


def _check_password_length(password: str) -> None:
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise ValidationError(
            "password must be %(min_password_length)s..%(max_password_length)s characters long",
            min_password_length=MIN_PASSWORD_LENGTH,
            max_password_length=MAX_PASSWORD_LENGTH,
        )


def create_user(
    items: ItemStore, username: str, password: str, *, admin: bool = False, first_user: bool = False
) -> dict[str, Any]:
    if not _USERNAME.fullmatch(username):
        raise ValidationError(
            "username must be 2-32 characters of a-z, 0-9, '_', '.', '-' and start with a letter or digit"
        )
    _check_password_length(password)
    user_id = secrets.token_hex(10)
    now = now_timestamp()
    profile = {
        "pk": _profile_key(user_id)[0],
        "sk": "PROFILE",
        "userId": user_id,
        "username": username,
        "passwordHash": hash_password(password),
        "admin": admin,
        "createdAt": now,
        "settings": dict(DEFAULT_SETTINGS),
    }
    claim = {
        "pk": _username_key(username)[0],
        "sk": "USERNAME",
        "userId": user_id,
        "gsi2pk": DIRECTORY_PARTITION,
        "gsi2sk": username,
    }
    count = Update(key=USER_COUNT_KEY, add={"count": 1}, condition=Condition(exists=False) if first_user else None)
    try:
        items.transact([Put(claim, Condition(exists=False)), Put(profile, Condition(exists=False)), count])
    except ConditionFailed as failure:
        if failure.index == 2:
            raise SetupAlreadyDone("set-up is done already: an account exists") from None
        raise ValidationError("username %(username)s is taken", username=quoted(username)) from None
    return public_user(profile)


def get_user(items: ItemStore, user_id: str) -> dict[str, Any] | None:
    return items.get(_profile_key(user_id))


def profile_key(user_id: str) -> tuple[str, str]:
    """The profile's key, for a caller that reads it in one batch with other items (the pages)."""
    return _profile_key(user_id)


def find_user_by_name(items: ItemStore, username: str) -> dict[str, Any]:
    claim = items.get(_username_key(username))
    profile = get_user(items, claim["userId"]) if claim else None
    if profile is None:
        raise NotFound("no user named %(username)s", username=quoted(username))
    return profile


def list_users(items: ItemStore) -> list[dict[str, Any]]:
    """Every listed account in username order (public fields only, never the password hash).

    Accounts whose claim predates the directory index are not listed: `count_users` still
    counts them, so a caller can say how many are missing."""
    claims = [claim for claim in walk(items, DIRECTORY_PARTITION, index=DIRECTORY_INDEX) if _is_claim(claim)]
    profiles = {p["userId"]: p for p in items.batch_get([_profile_key(claim["userId"]) for claim in claims])}
    return [public_user(profiles[claim["userId"]]) for claim in claims if claim["userId"] in profiles]


def _is_claim(entry: dict[str, Any]) -> bool:
    """A directory entry that is a username claim (its key is the claim key of the name it is
    listed under). The directory is a global partition: an entry an old import planted there
    (`mesq repair-imports` removes them) is logged and passed."""
    name, user_id = entry.get("gsi2sk"), entry.get("userId")
    if isinstance(name, str) and isinstance(user_id, str) and (entry.get("pk"), entry.get("sk")) == _username_key(name):
        return True
    logger.warning("skipped a malformed user directory entry", extra={"pk": str(entry.get("pk"))[:80]})
    return False


def count_users(items: ItemStore) -> int:
    counter = items.get(USER_COUNT_KEY)
    return int(counter["count"]) if counter else 0


def set_password(items: ItemStore, username: str, password: str) -> dict[str, Any]:
    """Replace a user's password with a fresh argon2 hash; returns the public profile. Ending the
    user's browser sessions is the caller's part (they live in the web layer)."""
    profile = find_user_by_name(items, username)
    _check_password_length(password)
    try:
        updated = items.update(
            Update(
                key=_profile_key(profile["userId"]),
                set={"passwordHash": hash_password(password), "passwordChangedAt": now_timestamp()},
                condition=Condition(exists=True),
            )
        )
    except ConditionFailed:
        raise NotFound("no user named %(username)s", username=quoted(username)) from None
    return public_user(updated)


def check_password(items: ItemStore, username: str, password: str) -> dict[str, Any] | None:
    """The profile when the password matches; None otherwise (same cost for unknown users)."""
    try:
        profile = find_user_by_name(items, username)
    except NotFound:
        verify_password(_dummy_hash(), password)  # equalize timing with the known-user path
        return None
    return profile if verify_password(profile["passwordHash"], password) else None


@cache
def _dummy_hash() -> str:
    # Computed on first use: an argon2 hash costs ~0.3 s, too much for every cold start.
    return hash_password("timing-equalizer-not-a-password")


def note_browser_language(items: ItemStore, user_id: str, language: str) -> None:
    """The language the person's browser asked for when they last signed in (`browserLanguage`):
    what a reminder speaks when Settings → Language is "as the browser says" (no page is open
    then to ask). One write per sign-in, none when it is already known."""
    profile = get_user(items, user_id)
    if profile is None or profile.get("browserLanguage") == language or language not in LANGUAGES:
        return
    with contextlib.suppress(ConditionFailed):  # the account went away meanwhile: nothing to note
        items.update(
            Update(key=_profile_key(user_id), set={"browserLanguage": language}, condition=Condition(exists=True))
        )


def preferred_language(profile: dict[str, Any] | None, requested: str = "", written: str = "") -> str:
    """The language to speak to the person in: their own choice (Settings → Language), else the
    one the request asks for (`requested`, "" when none), else their browser's at their last
    sign-in (or their terminal's, for an account made on the command line), else the one they
    write in (`written`: `kernel.i18n.written_language` of what they sent), else English."""
    profile = profile or {}
    choices = ((profile.get("settings") or {}).get("language"), requested, profile.get("browserLanguage"), written)
    return next((c for c in choices if isinstance(c, str) and c in LANGUAGES), DEFAULT_LANGUAGE)


def set_setting(items: ItemStore, user_id: str, name: str, value: bool | str) -> dict[str, Any]:
    """Change one of the user's interface settings (`doubleClickEdit`: memos open for editing on
    a double click; `language`: the pages' language); the others are kept. Returns the settings
    as stored."""
    if name not in DEFAULT_SETTINGS:
        raise ValidationError(
            "unknown setting %(name)s; known: %(default_settings)s",
            name=quoted(name),
            default_settings=", ".join(sorted(DEFAULT_SETTINGS)),
        )
    if value not in SETTING_CHOICES[name] or type(value) is not type(DEFAULT_SETTINGS[name]):
        raise ValidationError("%(name)s cannot be %(value)s", name=name, value=quoted(value))
    profile = get_user(items, user_id)
    if profile is None:
        raise NotFound("this account no longer exists")
    settings = {**DEFAULT_SETTINGS, **profile.get("settings", {}), name: value}
    try:
        items.update(Update(key=_profile_key(user_id), set={"settings": settings}, condition=Condition(exists=True)))
    except ConditionFailed:
        raise NotFound("this account no longer exists") from None
    return settings
