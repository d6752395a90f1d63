"""undo_changes: revert change records, newest first, each record in its own transaction.

- an update or move: the record gets its `before` values back (a new revision); a tag rename is
  renamed back (update_todo_tag, its records too);
- a create: the record goes to the trash; a trash: it is restored; a restore: trashed again;
- a move to the board: the task it made goes to the trash, then the inbox item comes back
  (`_removals_after_their_tasks` orders the pair; todos/revert.py puts the item back);
- a space an undo removed (its `delete` names what it `undoes`): put back with its columns (its
  `members`), and that re-creation undone removes it again: a redo of an undone session, and its
  undo (todos/revert.py);
- never a permanent delete, nor creating a space, column or tag (`records.not_undoable`): such a
  change, asked for by id or matched by a runId, sessionId or actor, is listed in `notUndone` as
  NOT_UNDOABLE with the reason, never skipped silently. When a whole run or session is undone
  (`runId`, `sessionId`), the domains' `Finisher`s then remove what it created that has no trash
  once nothing lives in it any more (the spaces an import or an agent made, with their columns),
  and those entries move to `undone` (`removed: true`).

Within a run, session or actor's set, a change and the undo that cancelled it inside the same
set are both left out (`_cancelled_within`): a script that wrote and then undid its write changed
nothing, so undoing its run changes nothing either; an undo of an undo (a redo) is undone.

A record changed since the change (its revision is not the change's `after` revision) is left
as it is: REVISION_CONFLICT in the undo's own words (`_changed_since`, the same in a dry run),
with the current record in `recoverData`; the others are still undone. A revert that rewrites
records beside its own (a tag rename's undo) leaves those changed since as they are too, and
lists their changes the same way (its data's `left`; `Kinds.leftovers` in a dry run). Changes of one record
undone in the same call are a chain: after undoing the newer one, the older one expects the
revision that undo made; and a change whose record's later changes were all undone since (pin,
trash, undo the trash; then undo the pin) expects the record's revision now (`settled.py`).
Each revert is itself a change (`undoes` names the change it reverts, and the same transaction
marks that change `undoneBy`), so it can be undone in turn; a change already undone is reported,
not reverted twice. Undo needs the write scope of each record's kind.

`dryRun: true` answers the same lists from reads alone (each record's current revision, through
its kind's `RevisionReader`, the chain simulated) and writes nothing. A runId or sessionId no
change carries, or a change id the caller cannot see, is NOT_FOUND naming where ids come from,
and so is an actor that made no change of this user's (`reads.require_known_actor`).

The engine knows no kind: each record kind's `Reverter` (its domain's `revert.py`, gathered in
application/registries.py) puts one change back through that domain's own writes and answers
the record it wrote; the revert's change record is the one the call recorded that `undoes` the
change (`call.recorded`), never read back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..kernel.context import Call
from ..kernel.errors import Conflict, Forbidden, MesqError, NotFound, RevisionConflict, ValidationError
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from ..kernel.timestamps import parse_timestamp
from .reads import (
    PAGE_JSON_BYTES,
    changes,
    kept_words,
    matcher,
    readable_kinds,
    require_known,
    require_known_actor,
    with_me,
)
from .records import (
    FAMILY,
    change_key,
    expanded,
    is_moved_to_board,
    is_tag_an_undo_made,
    is_undo_of_space,
    not_undoable,
    time_prefix,
    undoable,
)
from .settled import settled_revision

#: Puts one change of its kind back (`call` carries `undoes`, so the revert's change record names
#: the change and marks it undone) at the revision the record must be at; answers the record it
#: wrote, as its operation would (`{"memo": {..., "revision": n}}`).
Reverter = Callable[[Call, Item, int], dict[str, Any]]
#: The current revision of each record the changes touch (their own and their `members`'),
#: None for a record that no longer exists: what a dry run compares with.
RevisionReader = Callable[[Call, Sequence[Item]], dict[str, int | None]]
#: After a whole run or session is undone: the NOT_UNDOABLE entries (creations without a trash)
#: it resolves by removing what no longer holds anything; answers those entries' change ids.
Finisher = Callable[[Call, list[dict[str, Any]]], set[str]]
#: For a dry run: the changes of records the undo of a change would leave as they are although
#: its revert rewrites records beside its own (a tag rename's: those changed since), given the
#: change ids the same undo reverts before it; each with the record's current revision. The real
#: run's reverter answers them in its data's `left` (the same pairs).
Leftovers = Callable[[Call, Item, Collection[str]], list[tuple[Item, int]]]
#: A finisher's forecast for a dry run, from reads alone: given the NOT_UNDOABLE entries and the
#: changes the run would undo, the entries' change ids the finisher would then resolve.
Forecast = Callable[[Call, list[dict[str, Any]], list[Item]], set[str]]


@dataclass(frozen=True)
class Kinds:
    """What the engine needs of each record kind (application/registries.py builds it)."""

    reverters: Mapping[str, Reverter]
    revisions: Mapping[str, RevisionReader] = field(default_factory=dict)
    finishers: Sequence[Finisher] = ()
    forecasts: Sequence[Forecast] = ()
    leftovers: Mapping[str, Leftovers] = field(default_factory=dict)


#: The bytes of JSON the records of `notUndone` (`recoverData`) may take in one answer, as a page
#: of list_changes (reads.PAGE_JSON_BYTES): an MCP answer carries its data twice.
RECOVER_JSON_BYTES = PAGE_JSON_BYTES
#: Changes one call reverts; past it `more` says to call again (the undone ones are skipped then).
MAX_UNDO = 100
#: The `notUndone` code of a change undo never reverts (a permanent delete, creating a space,
#: column or tag), with the reason in plain words.
NOT_UNDOABLE = "NOT_UNDOABLE"


def undo_changes(call: Call, args: dict[str, Any], kinds: Kinds | Mapping[str, Reverter]) -> dict[str, Any]:
    """The `undo_changes` operation, with what it needs of each record kind (the registry binds it)."""
    if not isinstance(kinds, Kinds):
        kinds = Kinds(reverters=kinds)
    if not readable_kinds(call, "write"):
        raise Forbidden("undo_changes needs memo:write or todo:write")
    args = _normal(call, args)
    targets, more = _targets(call, args, kinds)
    ordered = _tags_an_undo_made_last(_removals_after_their_tasks(sorted(targets, key=_newest_first, reverse=True)))
    if args.get("dryRun"):
        return _dry_run(call, ordered, more, kinds, whole="runId" in args or "sessionId" in args)
    undone: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    chain: dict[str, tuple[int, int | None]] = {}  # record id -> (revision our undo made, the change's before revision)
    for change in ordered:
        entry = _entry(change)
        reason = not_undoable(change)
        if reason is not None:  # listed, never skipped: the caller asked for it by id, run or actor
            refused.append({**entry, "code": NOT_UNDOABLE, "message": reason})
            continue
        recorded = len(call.recorded)
        change = _chained_members(change, chain)
        try:
            expected = _expected(change, chain.get(change["record"]["id"]))
            try:
                revision, left = _undo_one(call, change, expected, kinds.reverters)
            except RevisionConflict:
                settled = settled_revision(call, change)  # every later change of the record undone since
                if settled is None or settled == expected:
                    raise
                revision, left = _undo_one(call, change, settled, kinds.reverters)
        except MesqError as error:
            refused.append({**entry, **_reason(error, change)})
            continue
        refused += _left_as_they_are(left, refused, undone)
        chain[change["record"]["id"]] = (revision, change["revisions"]["before"])
        for member in change.get("members", []):  # each written once by the revert, as the dry run counts
            chain[member["record"]["id"]] = (_made(member), member["revisions"]["before"])
        undone.append({**entry, "revision": revision, **_revert_of(call, change, recorded)})
    if not more and ("runId" in args or "sessionId" in args):
        finishing = replace(call, operation_id="undo_changes")
        removed: set[str] = set()
        for finish in kinds.finishers:
            removed |= finish(finishing, [item for item in refused if item.get("code") == NOT_UNDOABLE])
        undone += [{**_without_reason(item), "removed": True} for item in refused if item["changeId"] in removed]
        refused = [item for item in refused if item["changeId"] not in removed]
    data: dict[str, Any] = {"undone": undone, "notUndone": _bounded_recovery(_once(refused))}
    if more:
        data["more"] = True
    return data


def _bounded_recovery(refused: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`refused` with each `recoverData` kept while they stay under RECOVER_JSON_BYTES, newest
    first; past it an entry says `recoverDataOmitted` (get the record, or undo again to see it):
    100 memos at the content limit made an answer of 15-30 MB, and a Lambda answers at most 6."""
    used, bounded = 0, []
    for entry in refused:
        recover = entry.get("recoverData")
        if recover is not None:
            size = len(json.dumps(recover, ensure_ascii=False, separators=(",", ":"), default=str).encode())
            if used + size > RECOVER_JSON_BYTES:
                entry = {**{k: v for k, v in entry.items() if k != "recoverData"}, "recoverDataOmitted": True}
            else:
                used += size
        bounded.append(entry)
    return bounded


def _newest_first(change: Item) -> tuple[str, int, str]:
    """The order changes are undone in (by `reverse=True`): newest first, and one record's changes
    by their revisions when their ids' times tie (a driven or coarse clock; the id's tail is random)."""
    moment = str(change["id"]).split("-", 1)[0]
    return moment, int(change.get("revisions", {}).get("after") or 0), str(change["id"])


def _tags_an_undo_made_last(ordered: list[Item]) -> list[Item]:
    """A tag an undo registered again (records.is_tag_an_undo_made) after the other changes: its
    redo removes it once no record carries it, and the records the undo took back, whose own
    changes may be older than the tag's (it was registered while they were rewritten), are
    taken back first by the same redo."""
    return [c for c in ordered if not is_tag_an_undo_made(c)] + [c for c in ordered if is_tag_an_undo_made(c)]


def _removals_after_their_tasks(ordered: list[Item]) -> list[Item]:
    """`ordered`, with an inbox item's removal by a move to the board undone right after the
    creation of the task it became, when both are undone: the item is put back once that task is
    off the board (the move's records are written in one transaction, the removal last)."""
    removals = {change["record"]["id"]: change for change in ordered if is_moved_to_board(change)}
    paired = {change["record"]["id"] for change in ordered if _creates_task(change)} & removals.keys()
    result: list[Item] = []
    for change in ordered:
        record_id = change["record"]["id"]
        if record_id not in paired:
            result.append(change)
        elif _creates_task(change):
            result += [change, removals[record_id]]
        elif not is_moved_to_board(change):
            result.append(change)  # another change of the task: stays where it was
    return result


def _creates_task(change: Item) -> bool:
    return bool(change["record"]["kind"] == "task" and change["action"] == "create")


def _normal(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`changeId` (one id, the name list_changes gives it) read as `changeIds`; `actor: "me"`."""
    if "changeId" in args:
        if "changeIds" in args:
            raise ValidationError("give changeId (one) or changeIds (a list), not both")
        args = {**{k: v for k, v in args.items() if k != "changeId"}, "changeIds": [args["changeId"]]}
    return with_me(call, args)


def _entry(change: Item) -> dict[str, Any]:
    return {"changeId": change["id"], "record": change["record"], "action": change["action"]}


def _without_reason(item: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in item.items() if name not in ("code", "message", "recoverData")}


def _dry_run(call: Call, ordered: list[Item], more: bool, kinds: Kinds, *, whole: bool) -> dict[str, Any]:
    """What `undo_changes` would answer, from reads alone: the chain of one record's changes is
    simulated (each undo makes one revision), and for a whole run or session the finishers'
    forecasts say what they would remove at the end; nothing is written."""
    current = _current_revisions(call, ordered, kinds)
    would: list[dict[str, Any]] = []
    undoing: list[Item] = []  # the changes of `would`
    refused: list[dict[str, Any]] = []
    chain: dict[str, tuple[int, int | None]] = {}
    for change in ordered:
        entry = _entry(change)
        reason = not_undoable(change)
        if reason is not None:
            refused.append({**entry, "code": NOT_UNDOABLE, "message": reason})
            continue
        change = _chained_members(change, chain)
        try:
            _allowed(call, change, kinds.reverters)
            expected = _expected(change, chain.get(change["record"]["id"]))
            for part, wanted in _parts(change, expected):
                record_id = part["record"]["id"]
                now = chain[record_id][0] if record_id in chain else current.get(record_id)
                if wanted is None:  # a removal undone: the record is put back, so it must still be gone
                    if now is not None:
                        raise Conflict(
                            "%(kind)s %(id)s is already back", kind=part["record"]["kind"], id=quoted(record_id)
                        )
                    continue
                if now is None:
                    raise NotFound(
                        "%(kind)s %(id)s no longer exists", kind=part["record"]["kind"], id=quoted(record_id)
                    )
                if now != wanted and not (part is change and record_id not in chain and _settled_at(call, change, now)):
                    raise RevisionConflict(_changed_since(part["record"]["kind"], record_id, now))
        except MesqError as error:
            refused.append({**entry, **_reason(error)})
            continue
        for part, wanted in _parts(change, expected):
            record_id = part["record"]["id"]
            base = chain[record_id][0] if record_id in chain else current.get(record_id) or 0
            made = _made(part) if wanted is None else base + 1
            chain[record_id] = (made, part["revisions"]["before"])
        would.append(entry)
        undoing.append(change)
        leftovers = kinds.leftovers.get(change["record"]["kind"])
        if leftovers is not None:
            done = {str(item["id"]) for item in undoing}
            refused += _left_as_they_are(leftovers(call, change, done), refused, would)
    if not more and whole:
        blocked = [item for item in refused if item.get("code") == NOT_UNDOABLE]
        removed: set[str] = set()
        for forecast in kinds.forecasts:
            removed |= forecast(call, blocked, undoing)
        would += [{**_without_reason(item), "removed": True} for item in refused if item["changeId"] in removed]
        refused = [item for item in refused if item["changeId"] not in removed]
    data: dict[str, Any] = {"undone": would, "notUndone": _once(refused), "dryRun": True}
    if more:
        data["more"] = True
    return data


def _settled_at(call: Call, change: Item, now: int) -> bool:
    """Whether the record is at `now` because every later change of it was undone since (the
    undo would then go through at `now`, `settled.py`)."""
    return settled_revision(call, change) == now


def _parts(change: Item, expected: int) -> list[tuple[Item, int | None]]:
    """The change's own record at `expected`, and its members at their `after` revisions; None
    for a record the change removed and its undo puts back (a space an undo removed, its columns),
    which must still be gone; nothing of a tag an undo deleted (its redo counts it back as it is)."""
    members = [(member, _after(member)) for member in change.get("members", [])]
    if is_tag_an_undo_made(change) and change["action"] == "delete":
        return members  # counted back whether the records' redo registered it again or not
    own = None if is_undo_of_space(change) and change["revisions"]["after"] is None else expected
    return [(change, own), *members]


def _after(entry: Item) -> int | None:
    after = entry["revisions"]["after"]
    return None if after is None else int(after)


def _made(entry: Item) -> int:
    """The revision the undo leaves a member at: the next after its `after` revision, or, for a
    record the change removed and the undo puts back, the next after the one it was removed at."""
    after = entry["revisions"]["after"]
    return int(entry["revisions"]["before"] if after is None else after) + 1


def _current_revisions(call: Call, ordered: list[Item], kinds: Kinds) -> dict[str, int | None]:
    by_reader: dict[int, tuple[RevisionReader, list[Item]]] = {}
    for change in ordered:
        reader = kinds.revisions.get(change["record"]["kind"])
        if reader is not None and undoable(change):
            by_reader.setdefault(id(reader), (reader, []))[1].append(change)
    found: dict[str, int | None] = {}
    for reader, batch in by_reader.values():
        found.update(reader(call, batch))
    return found


def _targets(call: Call, args: dict[str, Any], kinds: Kinds) -> tuple[list[Item], bool]:
    given = [name for name in ("changeIds", "runId", "sessionId", "actor") if name in args]
    if len(given) != 1:
        raise ValidationError(
            "give exactly one of changeIds, runId, sessionId or actor (with since); "
            'get_context names your sessionId, list_changes {actor: "me"} your changes'
        )
    if "actor" in args and "since" not in args:
        raise ValidationError("since: required with actor (a timestamp with an offset, e.g. 2026-10-05T09:00:00+08:00)")
    if "changeIds" in args:
        keys = [change_key(call.principal.user_id, change_id) for change_id in dict.fromkeys(args["changeIds"])]
        found = {item["id"]: expanded(item) for item in call.services.items.batch_get(keys)}
        missing = [change_id for change_id in args["changeIds"] if change_id not in found]
        visible = matcher(call, {})
        hidden = [item["id"] for item in found.values() if not visible(item)]
        if missing or hidden:
            raise NotFound(
                "changeIds: no change %(missing)s visible to this credential (%(kept)s, "
                "and a memo deleted for good takes its history with it); "
                "copy changeId values from list_changes or a write result's changeIds",
                missing=", ".join(missing + hidden),
                kept=kept_words(call.services.deployment.history_days),
            )
        return list(found.values()), False
    require_known(call, args)
    require_known_actor(call, args)
    query: dict[str, Any] = {name: args[name] for name in ("runId", "sessionId", "actor", "since") if name in args}
    wanted = matcher(call, query)
    pending: list[Item] = []
    refused: list[Item] = []  # not undoable: listed with the answer, not counted against MAX_UNDO
    matched: dict[str, Item] = {}
    cursor: str | None = None
    more = True
    judged: dict[str, bool] = {}  # record id -> changed since (its newest pending change stays the newest)
    while True:
        page, cursor = changes(call, {**query, "limit": MAX_UNDO, **({"cursor": cursor} if cursor else {})}, wanted)
        matched.update((str(item["id"]), item) for item in page)
        pending += [item for item in page if "undoneBy" not in item and undoable(item)]
        refused += [item for item in page if not undoable(item)]
        _add_undone_in_set(call, pending, matched, wanted, args.get("since"))
        pending = [item for item in pending if not _cancelled_within(item, matched)]
        if cursor is None:
            more = False
            break
        live, stale = _split_changed_since(call, pending, kinds, judged)
        if len(live) >= MAX_UNDO:  # counted without the reverts this set cancels itself
            break
    live, stale = _split_changed_since(call, pending, kinds, judged)
    return live[:MAX_UNDO] + stale[:MAX_UNDO] + refused[:MAX_UNDO], more or len(live) > MAX_UNDO


def _split_changed_since(
    call: Call, pending: list[Item], kinds: Kinds, judged: dict[str, bool]
) -> tuple[list[Item], list[Item]]:
    """`pending` (newest first) as the changes an undo can still revert and those of records
    changed since by someone else (their newest pending change is not at the record's revision,
    nor settled there): those are refused again by every call, so they are listed but not counted
    against MAX_UNDO. Counted, 100 of them newest in a session made every call answer the same
    100 refusals with `more: true`, and the older changes were never reached. `judged` keeps each
    record's verdict between the pages of one call."""
    newest: dict[str, Item] = {}
    for change in pending:
        newest.setdefault(str(change["record"]["id"]), change)
    fresh = {record_id: change for record_id, change in newest.items() if record_id not in judged}
    current = _current_revisions(call, [c for c in fresh.values() if c["revisions"]["after"] is not None], kinds)
    for record_id, change in fresh.items():
        after, now = change["revisions"]["after"], current.get(record_id, change["revisions"]["after"])
        judged[record_id] = (
            after is not None and now != after and (now is None or not _settled_at(call, change, int(now)))
        )
    changed = {record_id for record_id in newest if judged[record_id]}
    live = [change for change in pending if str(change["record"]["id"]) not in changed]
    stale = [change for change in pending if str(change["record"]["id"]) in changed]
    return live, stale


def _add_undone_in_set(
    call: Call, pending: list[Item], matched: dict[str, Item], wanted: Callable[[Item], bool], since: str | None
) -> None:
    """Adds to `matched` the changes of the set that the pending undo entries undo, read by key
    when the pages read stopped before them (the set's newest 100 pending): a second call of
    `undo_changes {actor: "me", since}` (`more: true`) finds the first call's reverts first, and
    without the changes they cancel it would undo those reverts, bringing back what it undid."""
    low = None if since is None else time_prefix(parse_timestamp(since, "since"))
    wanted_ids = {str(item["undoes"]) for item in pending if item.get("undoes")} - matched.keys()
    while wanted_ids:
        keys = [change_key(call.principal.user_id, change_id) for change_id in sorted(wanted_ids)]
        found = [
            expanded(item)
            for start in range(0, len(keys), 100)
            for item in call.services.items.batch_get(keys[start : start + 100])
        ]
        in_set = [item for item in found if wanted(item) and (low is None or str(item["id"]) >= low)]
        matched.update((str(item["id"]), item) for item in in_set)
        wanted_ids = {str(item["undoes"]) for item in in_set if item.get("undoes")} - matched.keys()


def _cancelled_within(change: Item, matched: Mapping[str, Item]) -> bool:
    """Whether `change` undoes, within the set being undone, a change it cancels: a run that
    created a memo and then undid that creation left nothing, so undoing the run must not undo
    the undo (that would bring the memo back). Its chain of `undoes` inside the set is odd: an
    undo (cancelled), an undo of an undo (a redo, still in effect: it is undone), and so on."""
    links, current = 0, change
    while str(current.get("undoes", "")) in matched:
        links, current = links + 1, matched[str(current["undoes"])]
    return links % 2 == 1


def _chained_members(change: Item, chain: Mapping[str, tuple[int, int | None]]) -> Item:
    """The change with each member expected at the revision this call's undo of a later change of
    it made (a subtask's edit, undone after the move that carried it: the move's undo wrote it)."""
    members = change.get("members")
    if not members:
        return change
    return {
        **change,
        "members": [
            member
            if member["revisions"]["after"] is None  # removed by the change: its undo puts it back
            else {
                **member,
                "revisions": {**member["revisions"], "after": _expected(member, chain.get(member["record"]["id"]))},
            }
            for member in members
        ],
    }


def _expected(change: Item, ours: tuple[int, int | None] | None) -> int:
    """The revision the record must be at: the change's own `after`, or, when this call already
    undid the next change of the same record and that one followed this one directly, the
    revision that undo made."""
    after = change["revisions"]["after"]
    if ours is not None and ours[1] == after:
        return ours[0]
    return int(after) if after is not None else 0  # a removal's undo puts a record that is not there


def _changed_since(kind: str, record_id: str, revision: object) -> Text:
    """Why an undo leaves a record as it is, the same words in a dry run and a real one: the
    record's own write asks to merge and retry with a revision, which an undo (it takes none)
    cannot do."""
    return Text(
        "%(kind)s %(id)s was changed after this change (it is now at revision %(revision)s); undo leaves it as it is",
        kind=kind,
        id=quoted(record_id),
        revision=revision,
    )


def _reason(error: MesqError, reverted: Item | None = None) -> dict[str, Any]:
    """A `notUndone` entry's code, message and recoverData. The revert of `reverted` refused by a
    stale revision is said in the undo's own words, those of the dry run (`_changed_since`), not
    in those of the write it went through."""
    reason: dict[str, Any] = {"code": error.code, "message": error.message}
    recover = getattr(error, "recover_data", None)
    if recover is not None:
        reason["recoverData"] = recover
    if reverted is not None and isinstance(error, RevisionConflict):
        reason["message"] = str(_stale(recover, reverted))
    return reason


def _stale(recover: Any, change: Item) -> Text:
    """The changed record as the revert's conflict found it (`recoverData`: `{kind: record}`, a
    member of the change maybe), else the change's own record."""
    for kind, record in (recover or {}).items():
        if isinstance(record, dict) and "revision" in record:
            return _changed_since(kind, str(record.get("id") or change["record"]["id"]), record["revision"])
    return Text(
        "%(kind)s %(id)s, or a record changed with it, was changed after this change; undo leaves it as it is",
        kind=change["record"]["kind"],
        id=quoted(change["record"]["id"]),
    )


def _revert_of(call: Call, change: Item, recorded: int) -> dict[str, Any]:
    """`undoChangeId`: the change record the revert recorded that names `change` (none when the
    revert wrote nothing: only derived fields had changed)."""
    for revert in call.recorded.since(recorded):
        if revert.get("undoes") == change["id"]:
            return {"undoChangeId": revert["id"]}
    return {}


def _allowed(call: Call, change: Item, reverters: Mapping[str, Reverter]) -> Reverter:
    """The reverter of the change, or why the caller cannot undo it (already undone, scope)."""
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
    return revert


def _undo_one(
    call: Call, change: Item, expected: int, reverters: Mapping[str, Reverter]
) -> tuple[int, list[tuple[Item, int]]]:
    """The revision the revert left the record at, and the changes of records it left as they
    are beside it (`left`: a tag rename's records changed since)."""
    record = change["record"]
    revert = _allowed(call, change, reverters)
    reverting = replace(call, operation_id="undo_changes", undoes=(change["id"], record["id"]))
    data = revert(reverting, change, expected)
    return _revision_in(data), list(data.get("left", []))


def _once(refused: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each change listed once (its first reason): a record a tag rename's undo left may come up
    again as its own change when a clock that stood still ordered it after the rename."""
    first = {entry["changeId"]: index for index, entry in reversed(list(enumerate(refused)))}
    return [entry for index, entry in enumerate(refused) if first[entry["changeId"]] == index]


def _left_as_they_are(
    left: list[tuple[Item, int]], refused: list[dict[str, Any]], undone: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`notUndone` entries for the changes of records an undo left as they are beside the record
    it reverted (changed since: REVISION_CONFLICT in the undo's own words), each once: a change
    the same call already listed or undid is not listed again."""
    listed = {entry["changeId"] for entry in (*refused, *undone)}
    return [
        {
            **_entry(change),
            **_reason(RevisionConflict(_changed_since(change["record"]["kind"], change["record"]["id"], now))),
        }
        for change, now in left
        if change["id"] not in listed
    ]


def _revision_in(data: dict[str, Any]) -> int:
    for value in data.values():
        if isinstance(value, dict) and "revision" in value:
            return int(value["revision"])
    raise AssertionError("an undo answered no record")
