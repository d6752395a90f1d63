"""Connected apps: the person's live grants as one row per app (docs/decisions.md, "one row per
connected app").

Claude, ChatGPT and Cursor register a new client (RFC 7591) when their stored one is lost, or
when the person removes and adds the connector; each reconnection made a grant of its own, and
Settings -> Connected apps listed "Claude" three times with nothing to tell which one was live.
Grants are therefore grouped into one app when they carry the same name, their codes went to the
same redirect URI (a loopback URI's port aside: RFC 8252 §7.3, Claude Code listens on a new port
each time) and they are for the same connection URL. The row shows the newest connection, the
last use of any of them and the scopes they hold together; disconnecting it ends every grant of
the group, all or none (one transaction, read and tried again when a refresh changes a grant
meanwhile; past GRANTS_PER_TRANSACTION, one a part, and a part that fails is said with what is
still connected). A client that borrows the name but sends the person's browser elsewhere has
another redirect URI: it stays a row of its own, named with the host its codes go to. Only the
person's own partition is read, so another account's grants are never touched.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...kernel.errors import Conflict, NotFound
from ...kernel.i18n import Text
from ...kernel.messages import quoted
from ...kernel.ports.storage import MAX_TRANSACTION_OPS, ConditionFailed, ItemStore, StoreError, WriteOp
from ...store.paging import walk
from ..scopes import order_scopes
from .clients import registered_client
from .grants import REVOKE_WRITES, _usable, public_grant, revoke_writes
from .keys import grant_key
from .names import shown_name

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


def _same_destination(uri: str) -> str:
    """A redirect URI as compared between grants: a loopback URI without its port."""
    parts = urlsplit(uri)
    if parts.scheme == "http" and (parts.hostname or "") in LOOPBACK_HOSTS:
        return urlunsplit((parts.scheme, parts.hostname or "", parts.path, parts.query, ""))
    return uri


def _redirect_uri(items: ItemStore, grant: dict[str, Any]) -> str | None:
    """Where the grant's code went: stored on the grant since this rule; for an older grant, its
    registered client's one redirect URI (None when that is unknown or ambiguous)."""
    if grant.get("redirectUri"):
        return str(grant["redirectUri"])
    client = registered_client(items, grant["clientId"])
    if client is not None and len(client.redirect_uris) == 1:
        return client.redirect_uris[0]
    return None


def _app_key(grant: dict[str, Any], redirect_uri: str | None) -> tuple[str, str, str]:
    destination = _same_destination(redirect_uri) if redirect_uri else "client:" + grant["clientId"]
    return (shown_name(grant["clientName"]), destination, grant["resource"])


def _live_grants(items: ItemStore, user_id: str) -> list[tuple[dict[str, Any], str | None]]:
    return [
        (grant, _redirect_uri(items, grant))
        for grant in walk(items, grant_key(user_id, "")[0], prefix="OAUTHGRANT#")
        if _usable(items, grant)
    ]


def _app(members: list[tuple[dict[str, Any], str | None]]) -> dict[str, Any]:
    members = sorted(members, key=lambda member: (member[0]["createdAt"], member[0]["grantId"]), reverse=True)
    newest, redirect_uri = members[0]
    app = public_grant(newest)
    app["scopes"] = order_scopes(scope for grant, _ in members for scope in grant["scopes"])
    used = [str(grant["lastUsedAt"]) for grant, _ in members if grant.get("lastUsedAt")]
    app.pop("lastUsedAt", None)
    if used:
        app["lastUsedAt"] = max(used)
    by_use = sorted(members, key=lambda member: str(member[0].get("lastUsedAt", "")), reverse=True)
    app["grantIds"] = [grant["grantId"] for grant, _ in by_use]
    app["connections"] = len(members)
    app["redirectHost"] = (urlsplit(redirect_uri).hostname or urlsplit(redirect_uri).scheme) if redirect_uri else ""
    return app


def _groups(items: ItemStore, user_id: str) -> dict[tuple[str, str, str], list[tuple[dict[str, Any], str | None]]]:
    groups: dict[tuple[str, str, str], list[tuple[dict[str, Any], str | None]]] = {}
    for grant, redirect_uri in _live_grants(items, user_id):
        groups.setdefault(_app_key(grant, redirect_uri), []).append((grant, redirect_uri))
    return groups


def list_apps(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    """The person's connected apps, one per name, redirect URI and connection URL, newest first:
    the public fields of the newest grant (`id`), the scopes of all, the last use of any
    (`lastUsedAt`), `grantIds` (most recently used first), `connections` and `redirectHost`."""
    apps = [_app(members) for members in _groups(items, user_id).values()]
    return sorted(apps, key=lambda app: (app["createdAt"], app["id"]), reverse=True)


def get_app(items: ItemStore, user_id: str, grant_id: str) -> dict[str, Any]:
    """The connected app one of whose live grants is `grant_id`; NotFound otherwise."""
    if grant_id and len(grant_id) <= 100:
        for members in _groups(items, user_id).values():
            if any(grant["grantId"] == grant_id for grant, _ in members):
                return _app(members)
    raise NotFound("no connected app %(grant_id)s", grant_id=quoted(grant_id))


#: Grants one transaction ends (each REVOKE_WRITES writes): 33, far more than an app's connections.
GRANTS_PER_TRANSACTION = MAX_TRANSACTION_OPS // REVOKE_WRITES
#: Reads and writes of one transaction's grants before a disconnect gives up: a refresh between
#: the read and the write changes the grant, and the whole transaction is tried again.
ATTEMPTS = 3


class NotDisconnected(Conflict):
    """The app's connections could not all be ended (one kept changing, or the store failed);
    `ended` of them were (0: the app is as it was), `still` are connected."""

    def __init__(self, name: str, ended: int, still: int) -> None:
        # Text: the templates go to the catalog (a page says them in its reader's language).
        if ended:
            said = Text(
                "%(name)s is only partly disconnected: %(ended)s of its connections ended and %(still)s are "
                "still connected (listed under its name); revoke it again to end them",
                name=quoted(name), ended=ended, still=still,
            )  # fmt: skip
        else:
            said = Text(
                "%(name)s is still connected: none of its connections was ended (one changed while they "
                "were being ended, or the storage did not answer); revoke it again",
                name=quoted(name),
            )
        super().__init__(said)
        self.ended, self.still = ended, still


def _end_together(items: ItemStore, user_id: str, grant_ids: list[str]) -> None:
    """End `grant_ids` in one transaction, all or none: each read again on every attempt (a grant
    ended meanwhile is left out); ConditionFailed when they keep changing."""
    for _attempt in range(ATTEMPTS):
        writes: list[WriteOp] = []
        for member in grant_ids:
            key = grant_key(user_id, member)
            grant = items.get(key)
            if grant is not None and not grant.get("revokedAt"):
                writes += revoke_writes(key, grant)
        if not writes:
            return
        try:
            items.transact(writes)
            return
        except ConditionFailed:  # one refreshed between the read and the write: none was ended
            continue
    raise ConditionFailed("a connection kept changing while it was being disconnected")


def disconnect_app(items: ItemStore, user_id: str, grant_id: str) -> dict[str, Any]:
    """End every grant of the app `grant_id` belongs to (their access and refresh tokens with
    them), all in one transaction (up to GRANTS_PER_TRANSACTION grants; more, one transaction a
    part); returns the app as it was. NotDisconnected, saying how many ended and how many are still
    connected, when a grant keeps changing under concurrent refreshes or the store fails: nothing
    of the failing part is ended, so the app is never left half disconnected without a word."""
    app = get_app(items, user_id, grant_id)
    members = app["grantIds"]
    ended = 0
    for start in range(0, len(members), GRANTS_PER_TRANSACTION):
        part = members[start : start + GRANTS_PER_TRANSACTION]
        try:
            _end_together(items, user_id, part)
        except StoreError:
            raise NotDisconnected(app["clientName"], ended, len(members) - ended) from None
        ended += len(part)
    return app
