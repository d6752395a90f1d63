"""undo_changes: revert change records, newest first, each record in its own transaction.

- an update or move: the record gets its `before` values back (a new revision); a tag rename is
  renamed back (update_todo_tag, its records too);
- a create: the record goes to the trash; a trash: it is restored; a restore: trashed again;
- never a permanent delete, nor creating a space, column or tag (`records.not_undoable`): such a
  change, asked for by id or matched by a runId or actor, is listed in `notUndone` as
  NOT_UNDOABLE with the reason, never skipped silently.

A record changed since the change (its revision is not the change's `after` revision) is left
as it is: REVISION_CONFLICT with the current record in `recoverData`; the others are still
undone. Changes of one record undone in the same call are a chain: after undoing the newer one,
the older one expects the revision that undo made. Each revert is itself a change (`undoes`
names the change it reverts, and the same transaction marks that change `undoneBy`), so it can
be undone in turn; a change already undone is reported, not reverted twice. Undo needs the
write scope of each record's kind.

The engine knows no kind: each record kind's `Reverter` (its domain's `revert.py`, gathered in
application/registries.py) puts one change back through that domain's own writes and answers
the record it wrote; the revert's change record is the one the call recorded that `undoes` the
change (`call.recorded`), never read back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import Conflict, Forbidden, MesqError, NotFound, ValidationError
from ..kernel.ports.storage import Item
from .reads import changes, matcher, readable_kinds
from .records import FAMILY, change_key, not_undoable, undoable

#: Puts one change of its kind back (`call` carries `undoes`, so the revert's change record names
#: the change and marks it undone) at the revision the record must be at; answers the record it
#: wrote, as its operation would (`{"memo": {..., "revision": n}}`).
Reverter = Callable[[Call, Item, int], dict[str, Any]]

#: Changes one call reverts; past it `more` says to call again (the undone ones are skipped then).
MAX_UNDO = 100
#: The `notUndone` code of a change undo never reverts (a permanent delete, creating a space,
#: column or tag), with the reason in plain words.
NOT_UNDOABLE = "NOT_UNDOABLE"


def undo_changes(call: Call, args: dict[str, Any], reverters: Mapping[str, Reverter]) -> dict[str, Any]:
    """The `undo_changes` operation, with the reverter of each record kind (the registry binds them)."""
    if not readable_kinds(call, "write"):
        raise Forbidden("undo_changes needs memo:write or todo:write")
    targets, more = _targets(call, args)
    undone: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    chain: dict[str, tuple[int, int | None]] = {}  # record id -> (revision our undo made, the change's before revision)
    for change in sorted(targets, key=lambda item: item["id"], reverse=True):
        record = change["record"]
        entry = {"changeId": change["id"], "record": record}
        reason = not_undoable(change)
        if reason is not None:  # listed, never skipped: the caller asked for it by id, run or actor
            refused.append({**entry, "code": NOT_UNDOABLE, "message": reason})
            continue
        recorded = len(call.recorded)
        try:
            expected = _expected(change, chain.get(record["id"]))
            revision = _undo_one(call, change, expected, reverters)
        except MesqError as error:
            refused.append({**entry, **_reason(error)})
            continue
        chain[record["id"]] = (revision, change["revisions"]["before"])
        undone.append({**entry, "revision": revision, **_revert_of(call, change, recorded)})
    data: dict[str, Any] = {"undone": undone, "notUndone": refused}
    if more:
        data["more"] = True
    return data


def _targets(call: Call, args: dict[str, Any]) -> tuple[list[Item], bool]:
    given = [name for name in ("changeIds", "runId", "actor") if name in args]
    if len(given) != 1:
        raise ValidationError("give exactly one of changeIds, runId or actor (with since)")
    if "actor" in args and "since" not in args:
        raise ValidationError("since: required with actor")
    if "changeIds" in args:
        keys = [change_key(call.principal.user_id, change_id) for change_id in dict.fromkeys(args["changeIds"])]
        found = {item["id"]: item for item in call.services.items.batch_get(keys)}
        missing = [change_id for change_id in args["changeIds"] if change_id not in found]
        visible = matcher(call, {})
        hidden = [item["id"] for item in found.values() if not visible(item)]
        if missing or hidden:
            raise NotFound("no change %(missing)s visible to this credential", missing=", ".join(missing + hidden))
        return list(found.values()), False
    query: dict[str, Any] = {name: args[name] for name in ("runId", "actor", "since") if name in args}
    wanted = matcher(call, query)
    pending: list[Item] = []
    refused: list[Item] = []  # not undoable: listed with the answer, not counted against MAX_UNDO
    cursor: str | None = None
    while len(pending) < MAX_UNDO:
        page, cursor = changes(call, {**query, "limit": MAX_UNDO, **({"cursor": cursor} if cursor else {})}, wanted)
        pending += [item for item in page if "undoneBy" not in item and undoable(item)]
        refused += [item for item in page if not undoable(item)]
        if cursor is None:
            return pending[:MAX_UNDO] + refused[:MAX_UNDO], len(pending) > MAX_UNDO
    return pending[:MAX_UNDO] + refused[:MAX_UNDO], True


def _expected(change: Item, ours: tuple[int, int | None] | None) -> int:
    """The revision the record must be at: the change's own `after`, or, when this call already
    undid the next change of the same record and that one followed this one directly, the
    revision that undo made."""
    after = change["revisions"]["after"]
    if ours is not None and ours[1] == after:
        return ours[0]
    return int(after)


def _reason(error: MesqError) -> dict[str, Any]:
    reason: dict[str, Any] = {"code": error.code, "message": error.message}
    recover = getattr(error, "recover_data", None)
    if recover is not None:
        reason["recoverData"] = recover
    return reason


def _revert_of(call: Call, change: Item, recorded: int) -> dict[str, Any]:
    """`undoChangeId`: the change record the revert recorded that names `change` (none when the
    revert wrote nothing: only derived fields had changed)."""
    for revert in call.recorded.since(recorded):
        if revert.get("undoes") == change["id"]:
            return {"undoChangeId": revert["id"]}
    return {}


def _undo_one(call: Call, change: Item, expected: int, reverters: Mapping[str, Reverter]) -> int:
    record = change["record"]
    if "undoneBy" in change:
        raise Conflict("change %(id)s was already undone by %(undoneBy)s", id=change["id"], undoneBy=change["undoneBy"])
    if f"{FAMILY[record['kind']]}:write" not in call.principal.scopes:
        raise Forbidden(
            "undoing a %(kind)s change needs %(family)s:write", kind=record["kind"], family=FAMILY[record["kind"]]
        )
    revert = reverters.get(record["kind"])
    if revert is None:
        raise Conflict("a %(kind)s change cannot be undone here", kind=record["kind"])
    reverting = replace(call, operation_id="undo_changes", undoes=(change["id"], record["id"]))
    return _revision_in(revert(reverting, change, expected))


def _revision_in(data: dict[str, Any]) -> int:
    for value in data.values():
        if isinstance(value, dict) and "revision" in value:
            return int(value["revision"])
    raise AssertionError("an undo answered no record")
