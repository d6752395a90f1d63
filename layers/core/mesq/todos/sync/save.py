"""save_synced_todo: a sync client's whole copy of one record, written in one transaction.

The client (the CalDAV edge) sends every field it maps: title, notes, priority, tags, due and
time zone, recurrence, reminders, done (and when), the parent's UID, and its own data (`props`).
What the record already holds is kept as it is; only what differs is written, with the rules
the board's own operations apply, through their building blocks:

- a record the name does not name yet is created: in a space a root task (in its first open
  column, on top; in its done column when it arrives done) or, when `parentUid` names a live root
  task of the same space and the copy does not recur, a subtask (its alarms kept as the app's
  own: a subtask has no reminders MeSQ sends); in the inbox
  an inbox item. A record that arrives done stays done: a recurring one is not advanced;
- an existing one is changed like update_todo_task / update_todo_subtask /
  update_todo_inbox_item, then completed or reopened like complete_todo_task (a recurring root
  task moves on to its next due and stays open, its done subtasks reopen; the done rule moves a
  task completed for good to its space's done column) and its reminders set like
  set_todo_reminders;
- a recurring root copy whose own due the client excluded (an EXDATE on it: "delete this
  occurrence", the current one) moves on to its next occurrence, or is done for good when none is
  left (`recurrence.past_excluded_due`);
- a field the record cannot hold (recurrence or reminders on a subtask or an inbox item, a parent
  MeSQ cannot attach, moving a subtask to another task) is listed in `kept`: the edge gives the
  client's own text back for it.

Preconditions: `expectedRevision` (the record must be at it) or `mustBeNew` (the name must be
free); either failing is REVISION_CONFLICT, nothing written. Without either, a save that lost a
race with another write is built again on the fresh state (up to 3 times). A name or UID another live record
holds, or a UID that changes, is refused. A trashed record's name or UID is taken over (it keeps
its data and is called `<id>.ics` again).
"""

from __future__ import annotations

from typing import Any

from ...kernel.context import Call
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.messages import quoted
from ...kernel.ports.storage import Check, Condition, Item, WriteOp
from ...kernel.timestamps import format_timestamp, now_timestamp, parse_timestamp
from .. import keys, model, recurrence
from ..board.tasks import completed, into_done_column, occurrence_reset, open_column_check, reopened
from ..destinations import open_column
from ..inbox import records as inbox_records
from ..reminder_schedule import check_reminders
from ..state import TodoState
from ..writes import Built, apply, bump, put_new, put_revised, tag_registrations
from . import links
from .links import INBOX, SYNC_FIELD, RecordKind
from .reads import is_member

CONTENT = ("title", "notes", "priority", "tags", "due", "timezone")
#: Bookkeeping a save never compares (every write changes them).
_BOOKKEEPING = frozenset({"revision", "updatedAt"})


def save_synced_todo(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    user_id, items = call.principal.user_id, call.services.items
    collection = args["collection"]
    name, uid = links.check_name(args["name"]), links.check_uid(args["uid"])
    props = links.check_props(dict(args.get("props") or {}))

    def build(state: TodoState) -> Built:
        now = now_timestamp()
        found = _read(state, links.by_name(items, user_id, name))
        current = found if found is not None and _member(state, found, collection) else None
        if found is not None and current is None and _live(state, found):
            raise Conflict(
                "the name %(name)s belongs to a task in another collection; delete it there first", name=quoted(name)
            )
        if current is None:
            if "expectedRevision" in args:
                raise RevisionConflict("%(name)s does not exist (any more); nothing was written", name=quoted(name))
            return _create(state, call, args, name, uid, props, stale=found, now=now)
        kind, before = current
        if args.get("mustBeNew"):
            raise RevisionConflict("%(name)s exists already; nothing was written", name=quoted(name))
        if "expectedRevision" in args and int(before["revision"]) != args["expectedRevision"]:
            raise RevisionConflict(
                "%(name)s is at revision %(revision)s, not %(expectedRevision)s; nothing was written",
                name=quoted(name),
                revision=before["revision"],
                expectedRevision=args["expectedRevision"],
            )
        if links.uid_of(before) != uid:
            raise ValidationError(
                "uid: %(name)s has UID %(uid_of)s; a UID never changes",
                name=quoted(name),
                uid_of=quoted(links.uid_of(before)),
            )
        return _update(state, call, args, kind, before, name, uid, props, now)

    def conflict(state: TodoState) -> RevisionConflict:
        return RevisionConflict("%(name)s changed meanwhile; nothing was written", name=quoted(name))

    # Without a precondition the save replaces what is there, whatever committed a moment before
    # (another device, an agent): a lost race is built again on the fresh state, not a 412 for
    # an ETag the client never named. With one, the client asked to be told.
    unconditional = "expectedRevision" not in args and not args.get("mustBeNew")
    for attempt in range(1, _UNCONDITIONAL_ATTEMPTS + 1):
        try:
            return apply(call, build, conflict)
        except RevisionConflict:
            if not unconditional or attempt == _UNCONDITIONAL_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


#: Builds of a save without a precondition: each lost race reads the fresh state and builds again.
_UNCONDITIONAL_ATTEMPTS = 3


def _read(state: TodoState, found: tuple[RecordKind, Item] | None) -> tuple[RecordKind, Item] | None:
    """The record a lookup found, read through the write's state (what the write conditions on)."""
    if found is None:
        return None
    kind, record_id = found[0], str(found[1]["id"])
    current = state.task(record_id) if kind == "task" else state.inbox_item(record_id)
    return None if current is None else (kind, current)


def _parent_of(state: TodoState, found: tuple[RecordKind, Item]) -> Item | None:
    kind, record = found
    return state.task(str(record["parentId"])) if kind == "task" and record.get("parentId") else None


def _member(state: TodoState, found: tuple[RecordKind, Item], collection: str) -> bool:
    return is_member(found[0], found[1], collection, _parent_of(state, found))


def _completed_at(args: dict[str, Any], now: str) -> str:
    given = args.get("completedAt")
    if not given:
        return now
    return min(format_timestamp(parse_timestamp(str(given), "completedAt")), now)


def _link(
    name: str, uid: str, props: dict[str, Any], kept: list[str], held: dict[str, Any] | None = None
) -> dict[str, Any]:
    link = {"name": name, "uid": uid, "props": props, "kept": kept}
    return {**link, "held": held} if held else link


def _held(args: dict[str, Any]) -> dict[str, Any]:
    """What the edge read from an inbox item's RRULE and VALARMs (links.HELD_FIELDS): the item
    cannot act on them, the board task it is moved to can (inbox/move.py)."""
    return {field: args[field] for field in links.HELD_FIELDS if args.get(field)}


# -- creating ----------------------------------------------------------------------------------


def _create(
    state: TodoState,
    call: Call,
    args: dict[str, Any],
    name: str,
    uid: str,
    props: dict[str, Any],
    *,
    stale: tuple[RecordKind, Item] | None,
    now: str,
) -> Built:
    user_id, items = call.principal.user_id, call.services.items
    owner = _read(state, links.by_uid(items, user_id, uid))
    if owner is not None and _live(state, owner):
        raise Conflict("uid: another task already has UID %(uid)s; a UID names one task", uid=quoted(uid))
    content = {field: args[field] for field in CONTENT if field in args}
    kept: list[str] = []
    ops: list[WriteOp] = []
    kind: RecordKind
    if args["collection"] == INBOX:
        kind = "inbox"
        position = model.position_for_index(state.inbox_positions(0), 0)
        record = inbox_records.new_item(content, position, now)
        kept = [field for field in ("recurrence", "reminders", "parentUid") if args.get(field)]
        if args.get("done"):
            record = {**record, "done": True, "completedAt": _completed_at(args, now)}
    else:
        kind = "task"
        record, kept, ops = _new_task(state, user_id, args, content, props, now)
    held = _held(args) if kind == "inbox" else None
    record = {**record, SYNC_FIELD: {**_link(name, uid, props, kept, held), "revision": record["revision"]}}
    ops = [put_new(user_id, kind, record), *ops]
    for key in (links.name_key(user_id, name), links.uid_key(user_id, uid)):
        ops.append(links.lookup_put(key, kind, str(record["id"]), items.get(key)))
    ops += _released(state, user_id, [stale, owner], now)
    ops += tag_registrations(state, user_id, record["tags"], now)
    return _answer(kind, record, created=True), ops


def _live(state: TodoState, found: tuple[RecordKind, Item]) -> bool:
    """A live record (a subtask: of a live task), in whichever collection."""
    collection = INBOX if found[0] == "inbox" else str(found[1].get("spaceId"))
    return is_member(found[0], found[1], collection, _parent_of(state, found))


def _new_task(
    state: TodoState, user_id: str, args: dict[str, Any], content: dict[str, Any], props: dict[str, Any], now: str
) -> tuple[Item, list[str], list[WriteOp]]:
    space = state.spaces.get(args["collection"])
    if space is None:
        raise NotFound("todo space %(collection)s not found", collection=quoted(args["collection"]))
    fields = model.new_task_fields(content, now)
    parent = _parent(state, args, space)
    # A child with alarms is a subtask still: its alarms are the app's own (`kept`), given back
    # as written, and the phone rings them; a repeating child stays a root task, which MeSQ steps.
    if parent is not None and not args.get("recurrence"):
        siblings = state.subtasks_of(parent["id"])
        record: Item = {
            "id": model.new_id(),
            "spaceId": space["id"],
            "columnId": None,
            "parentId": parent["id"],
            "position": model.position_for_index([str(s["position"]) for s in siblings], None),
            **fields,
        }
        ops: list[WriteOp] = [Check(keys.task_key(user_id, parent["id"]), Condition(equals={"deletedAt": None}))]
        kept = ["reminders"] if args.get("reminders") else []
        return _done_if_asked(state, user_id, record, args, now, ops), kept, ops
    column = open_column(state, space)
    record = {
        "id": model.new_id(),
        "spaceId": space["id"],
        "columnId": column["id"],
        "parentId": None,
        "position": model.position_for_index(state.root_positions(column["id"], 0), 0),
        **fields,
        "recurrence": recurrence.normalized(args.get("recurrence")),
    }
    recurrence.check_rule(record["recurrence"], record["due"], record["timezone"])
    record["reminders"] = check_reminders(args.get("reminders") or [], record["due"])
    ops = [open_column_check(user_id, column)]
    kept = ["parentUid"] if args.get("parentUid") else []
    if not args.get("done"):
        record = _off_an_excluded_due(state, user_id, None, record, props, now, ops)
    return _done_if_asked(state, user_id, record, args, now, ops), kept, ops


def _off_an_excluded_due(
    state: TodoState, user_id: str, before: Item | None, record: Item, props: dict[str, Any], now: str,
    ops: list[WriteOp],
) -> Item:  # fmt: skip
    """A recurring copy whose own due the app excluded ("delete this occurrence", the current one)
    moved on to its next occurrence (`recurrence.past_excluded_due`), its done subtasks reopened as
    after a completion; done for good, by the done rule, when none is left. A copy that lands
    where the task already is (the app's retry of the same copy) counts nothing again, and a copy
    behind the task by excluded dates only (the app excluded one more before reading the task
    again) is read from where the task is: the dates it passed are counted once."""
    # the copy's own excluded dates (its app data), which a new record does not carry yet
    probe = {**record, SYNC_FIELD: {**(record.get(SYNC_FIELD) or {}), "props": props}}
    if (
        before is not None
        and not before["done"]
        and recurrence.excluded_up_to(probe, before["due"], now, state.user_zone)
    ):
        # COUNT: MeSQ counted those dates as it passed them (EXCLUDED_COUNT); from the copy's due
        # they were counted again, and a series with dates left ended
        record = probe = _counted_as_before({**probe, "due": before["due"]}, before)
    moved = recurrence.past_excluded_due(probe, now, state.user_zone)
    if moved is probe:
        return record
    if before is not None and not before["done"] and before.get("due") == moved.get("due") and not moved["done"]:
        return _counted_as_before(moved, before)
    if moved["done"]:
        moved, checks = into_done_column(state, user_id, record, moved)
        ops += checks
    elif before is not None:
        resets, _subtasks = occurrence_reset(state, user_id, before, moved, now)
        ops += resets
    return moved


def _counted_as_before(record: Item, before: Item) -> Item:
    """`record` with the excluded dates MeSQ had counted for the task (`before`), none if none."""
    kept = {key: value for key, value in record.items() if key != recurrence.EXCLUDED_COUNT}
    counted = before.get(recurrence.EXCLUDED_COUNT)
    return kept if counted is None else {**kept, recurrence.EXCLUDED_COUNT: counted}


def _done_if_asked(
    state: TodoState, user_id: str, record: Item, args: dict[str, Any], now: str, ops: list[WriteOp]
) -> Item:
    """A copy that arrives done is stored done (never advanced: the client completed it, or the
    series ended, before MeSQ saw it); the done rule takes a root task to the done column."""
    if not args.get("done"):
        return record
    done = {**record, "done": True, "completedAt": _completed_at(args, now)}
    done, checks = into_done_column(state, user_id, record, done)
    ops += checks
    return done


def _parent(state: TodoState, args: dict[str, Any], space: Item) -> Item | None:
    """The live root task of the same space `parentUid` names, while it has room for a subtask."""
    parent_uid = args.get("parentUid")
    if not parent_uid or state.source is None:
        return None
    found = _read(state, links.by_uid(state.source.items, state.source.user_id, str(parent_uid)))
    if found is None or found[0] != "task":
        return None
    parent = found[1]
    fits = parent.get("parentId") is None and keys.live(parent) and parent.get("spaceId") == space["id"]
    if not fits or len(state.subtasks_of(str(parent["id"]))) >= model.MAX_SUBTASKS:
        return None
    return parent


def _released(state: TodoState, user_id: str, holders: list[tuple[RecordKind, Item] | None], now: str) -> list[WriteOp]:
    """The trashed records that held the new record's name or UID give them up (each once), in
    the same transaction: they keep the client's data and are called `<id>.ics` again."""
    ops: list[WriteOp] = []
    seen: set[str] = set()
    for holder in holders:
        if holder is None or str(holder[1]["id"]) in seen:
            continue
        kind, record_id = holder[0], str(holder[1]["id"])
        seen.add(record_id)
        current = state.task(record_id) if kind == "task" else state.inbox_item(record_id)
        if current is not None and current.get(SYNC_FIELD):
            ops.append(put_revised(user_id, kind, current, {**links.without_identity(current), **bump(current, now)}))
    return ops


# -- changing ----------------------------------------------------------------------------------


def _update(
    state: TodoState,
    call: Call,
    args: dict[str, Any],
    kind: RecordKind,
    before: Item,
    name: str,
    uid: str,
    props: dict[str, Any],
    now: str,
) -> Built:
    user_id = call.principal.user_id
    content = {field: args[field] for field in CONTENT if field in args}
    ops: list[WriteOp] = []
    if kind == "inbox":
        after = inbox_records.edited(before, content)
        kept = [field for field in ("recurrence", "reminders", "parentUid") if args.get(field)]
        if bool(args.get("done")) != bool(before.get("done")):
            after = inbox_records.with_done(after, bool(args.get("done")), _completed_at(args, now))
    elif before.get("parentId") is None:
        after, kept, ops = _root_changed(state, user_id, args, before, content, props, now)
    else:
        after, kept = _subtask_changed(state, args, before, content, now)
    written = (before.get(SYNC_FIELD) or {}).get("revision")  # unchanged by a save that changes nothing
    held = _held(args) if kind == "inbox" else None
    after = {**after, SYNC_FIELD: {**_link(name, uid, props, kept, held), "revision": written}}
    if _same(before, after):
        return _answer(kind, before, created=False), []
    after = {**after, **bump(before, now)}
    after[SYNC_FIELD]["revision"] = after["revision"]
    ops = [put_revised(user_id, kind, before, after), *ops]
    ops += tag_registrations(state, user_id, after["tags"], now)
    return _answer(kind, after, created=False), ops


def _root_changed(
    state: TodoState,
    user_id: str,
    args: dict[str, Any],
    before: Item,
    content: dict[str, Any],
    props: dict[str, Any],
    now: str,
) -> tuple[Item, list[str], list[WriteOp]]:
    after = model.with_content(before, {**content, "recurrence": args.get("recurrence")})
    # the app data of this copy (its excluded dates) is what a completion in it steps past
    after[SYNC_FIELD] = {**(before.get(SYNC_FIELD) or {}), "props": props}
    recurrence.check_rule(after.get("recurrence"), after.get("due"), after.get("timezone"))
    after["reminders"] = check_reminders(args.get("reminders") or [], after.get("due"))
    kept = ["parentUid"] if args.get("parentUid") else []
    ops: list[WriteOp] = []
    if not args.get("done"):
        after = _off_an_excluded_due(state, user_id, before, after, props, now, ops)
    if bool(args.get("done")) != bool(before.get("done")):
        toggled = completed(after, now, state.user_zone) if args.get("done") else reopened(after, now)
        toggled = {**toggled, "revision": before["revision"], "updatedAt": before["updatedAt"]}
        if args.get("done") and toggled.get("done"):
            toggled["completedAt"] = _completed_at(args, now)
        moved, checks = into_done_column(state, user_id, before, toggled)
        resets, _subtasks = occurrence_reset(state, user_id, before, moved, now)
        after, ops = moved, [*checks, *resets]
    return after, kept, ops


def _subtask_changed(
    state: TodoState, args: dict[str, Any], before: Item, content: dict[str, Any], now: str
) -> tuple[Item, list[str]]:
    after = model.with_content(before, content)
    if after.get("due") is None and any(r.get("type") == "relative" for r in after.get("reminders") or ()):
        after["reminders"] = []
    kept = [field for field in ("recurrence", "reminders") if args.get(field)]
    parent_uid = args.get("parentUid")
    parent = state.task(str(before["parentId"]))
    if parent_uid and (parent is None or links.uid_of(parent) != parent_uid):
        kept.append("parentUid")
    if bool(args.get("done")) != bool(before.get("done")):
        after = completed(after, now) if args.get("done") else reopened(after, now)
        if args.get("done"):
            after = {**after, "completedAt": _completed_at(args, now)}
    return after, kept


def _same(before: Item, after: Item) -> bool:
    names = (set(before) | set(after)) - _BOOKKEEPING
    return all(before.get(name) == after.get(name) for name in names)


def _answer(kind: RecordKind, record: Item, *, created: bool) -> dict[str, Any]:
    shown = "inbox" if kind == "inbox" else "subtask" if record.get("parentId") else "task"
    public = model.public_inbox_item(record) if kind == "inbox" else model.public_task(record)
    return {"kind": shown, "created": created, "record": public, "link": links.public_link(record)}
