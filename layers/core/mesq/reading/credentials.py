"""The stored WeChat Reading credential of a user (API key first, web cookie as fallback), sealed
at rest, and the sync index that lets the scheduled job find the users to sync without a scan.

Items: `U#<user>` / `READ#CREDENTIAL` (kind, sealed secret, updatedAt, and what the settings page
shows of it: an API key's `hint` `wrk-…abcd`, a cookie's `secretLength`, which the page says in
its own language) and
`READSYNC#USERS` / `<userId>`: one fixed partition with an item per user who has a credential,
written and deleted in the same transaction as the credential. The secret is sealed with the
user id as context, so a sealed value moved to another record does not open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ..kernel.errors import ValidationError
from ..kernel.keys import user_partition
from ..kernel.ports.sealer import Sealer
from ..kernel.ports.storage import Delete, ItemStore, Put
from ..store.paging import walk

CredentialKind = Literal["api_key", "cookie"]
KINDS: tuple[CredentialKind, ...] = ("api_key", "cookie")
CREDENTIAL_SK = "READ#CREDENTIAL"
SYNC_INDEX = "READSYNC#USERS"
_API_KEY = re.compile(r"wrk-[A-Za-z0-9._~+/=-]{8,200}")
MAX_COOKIE = 8_000
_HEADER_NAME = re.compile(r"\Acookie\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Credential:
    kind: CredentialKind
    secret: str


def _context(user_id: str) -> dict[str, str]:
    return {"purpose": "reading-credential", "userId": user_id}


def _checked(kind: str, secret: str) -> Credential:
    secret = secret.strip()
    if kind == "api_key":
        if not _API_KEY.fullmatch(secret):
            raise ValidationError("the API key must look like wrk-… (copied from WeChat Reading's Agent Skill page)")
        return Credential("api_key", secret)
    if kind == "cookie":
        # Copied as DevTools' request-header line ("Cookie: wr_vid=…"): the header's name is no
        # cookie, and sent along it would rename the first pair and lose the session.
        secret = _HEADER_NAME.sub("", secret, count=1).strip()
        if not secret or len(secret) > MAX_COOKIE or "=" not in secret or any(c in secret for c in "\r\n\0"):
            raise ValidationError(
                "the cookie must be the name=value pairs of weread.qq.com, at most %(max_cookie)s characters",
                max_cookie=MAX_COOKIE,
            )
        unsendable = next((c for c in secret if not " " <= c <= "~"), None)
        if unsendable is not None:
            # An HTTP header carries printable ASCII only; a full-width semicolon or a note pasted
            # along would make every sync fail, so the cookie is refused here, not then.
            raise ValidationError(
                "the cookie holds %(character)s, which a browser cookie never has (often a full-width semicolon "
                "or a pasted note); copy the cookie again",
                character=repr(unsendable),
            )
        return Credential("cookie", secret)
    raise ValidationError("choose an API key or a web cookie")


def checked(credential: Credential) -> Credential:
    """A loaded credential put through the checks of saving again (ValidationError), for one
    saved before a check was added."""
    return _checked(credential.kind, credential.secret)


def _hint(credential: Credential) -> str:
    """What an API key shows of itself; a cookie shows only its length (`secretLength`), which
    is no text of any language: the page puts it in its own words."""
    if credential.kind == "api_key":
        return f"{credential.secret[:4]}…{credential.secret[-4:]}"
    return ""


#: The English hint a cookie was saved with before its length was kept apart.
_OLD_COOKIE_HINT = re.compile(r"cookie, ([0-9]+) characters")


def save_credential(items: ItemStore, sealer: Sealer, user_id: str, kind: str, secret: str, now: str) -> str:
    """Store (or replace) the credential; returns its display hint."""
    credential = _checked(kind, secret)
    sealed = sealer.seal(credential.secret.encode("utf-8"), _context(user_id))
    hint = _hint(credential)
    record: dict[str, Any] = {
        "pk": user_partition(user_id),
        "sk": CREDENTIAL_SK,
        "kind": credential.kind,
        "sealed": sealed,
        "hint": hint,
        "updatedAt": now,
    }
    if credential.kind == "cookie":
        record["secretLength"] = len(credential.secret)
    index = {"pk": SYNC_INDEX, "sk": user_id, "userId": user_id, "since": now}
    items.transact([Put(record), Put(index)])
    return hint


def remove_credential(items: ItemStore, user_id: str) -> None:
    items.transact([Delete((user_partition(user_id), CREDENTIAL_SK)), Delete((SYNC_INDEX, user_id))])


def credential_summary(items: ItemStore, user_id: str) -> dict[str, Any] | None:
    """`kind`, `updatedAt` and `hint` (an API key's), or a cookie's `length` (None if unknown)."""
    record = items.get((user_partition(user_id), CREDENTIAL_SK))
    if record is None:
        return None
    summary: dict[str, Any] = {"kind": record["kind"], "hint": record["hint"], "updatedAt": record["updatedAt"]}
    if record["kind"] == "cookie":
        old = _OLD_COOKIE_HINT.fullmatch(str(record.get("hint", "")))
        length = record.get("secretLength", int(old.group(1)) if old else None)
        summary.update(hint="", length=int(length) if length is not None else None)
    return summary


def load_credential(items: ItemStore, sealer: Sealer, user_id: str) -> Credential | None:
    record = items.get((user_partition(user_id), CREDENTIAL_SK))
    if record is None:
        return None
    secret = sealer.open(record["sealed"], _context(user_id)).decode("utf-8")
    return Credential(record["kind"], secret)


def users_to_sync(items: ItemStore) -> list[str]:
    """Every user with a stored credential: one Query of the fixed index partition."""
    return [item["userId"] for item in walk(items, SYNC_INDEX)]
