"""Who made a change, as the person recognises it: `{kind, id, name}`.

`kind` is the credential kind (`pat`, `oauth`), `web` for a browser session, `cli` for the
command line; `id` is the credential id (`pat:<tokenId>`, `oauth:<grantId>`, the session's) and
`name` the PAT's name or the OAuth client's client_name. The name travels on the principal
(copied onto the credential's lookup item when it is issued); a credential issued before that
has it read once from its record."""

from __future__ import annotations

import weakref

from ..auth.oauth.keys import grant_key
from ..auth.tokens import record_key
from ..kernel.context import Call
from ..kernel.ports.storage import ItemStore

WEB_NAME = "Web app"


def actor_of(call: Call) -> dict[str, str]:
    principal = call.principal
    if call.channel == "cli":
        return {"kind": "cli", "id": principal.credential_id, "name": principal.name or "Command line"}
    if principal.kind == "session":
        return {"kind": "web", "id": principal.credential_id, "name": principal.name or WEB_NAME}
    name = principal.name or _stored_name(call.services.items, principal.user_id, principal.credential_id)
    return {"kind": principal.kind, "id": principal.credential_id, "name": name}


#: Per store, (user id, credential id) -> name: read once per process (credential ids are random,
#: never reused). Per store, as history/sessions.py keeps its pointers: a process holding two stores
#: (a test worker, a migration) must never name one store's credential from the other's records.
_NAMES: weakref.WeakKeyDictionary[ItemStore, dict[tuple[str, str], str]] = weakref.WeakKeyDictionary()
_NAMES_KEPT = 256


def _names_of(items: ItemStore) -> dict[tuple[str, str], str]:
    """This process's names read from `items` (a fresh, unkept dict for a store that cannot be a
    weak key: every write then reads its name)."""
    try:
        return _NAMES.setdefault(items, {})
    except TypeError:
        return {}


def _stored_name(items: ItemStore, user_id: str, credential_id: str) -> str:
    names = _names_of(items)
    known = names.get((user_id, credential_id))
    if known is None:
        if len(names) >= _NAMES_KEPT:
            names.clear()
        known = names[(user_id, credential_id)] = _read_name(items, user_id, credential_id)
    return known


def _read_name(items: ItemStore, user_id: str, credential_id: str) -> str:
    kind, _, ident = credential_id.partition(":")
    if kind == "pat":
        record = items.get(record_key(user_id, ident))
        return str((record or {}).get("name", "")) or "Access token"
    if kind == "oauth":
        record = items.get(grant_key(user_id, ident))
        return str((record or {}).get("clientName", "")) or "Connected app"
    return credential_id
