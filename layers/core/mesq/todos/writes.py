"""The write side every todo operation shares: the conditional write ops, the one-transaction
commit, the lazy default space and the write pattern.

Offers:
- ops: `put_new(user_id, kind, record)`, `put_revised(user_id, kind, before, after)`,
  `delete_revised(...)`, `tag_registrations(state, user_id, tags, now)` (Puts for tags not yet
  in the registry), `bump(before, now)` (the next revision + updatedAt of a record),
  `new_space_ops(...)`; `commit(items, ops)` (<= MAX_TRANSACTION_OPS, else VALIDATION_ERROR);
- `ensure_default_space(items, user_id, partial=..., language=...)`: the lazy default space (one
  transaction, race-safe; named in the user's language, `board_language`, its last column the
  done column), returns a TodoState that has it;
- `apply(call, build, on_conflict)`: load the write's partial state (`state.load_partial`: the
  structure up front, the touched records by key, ordered lists from GSI2; never the whole
  board), build `(data, ops)`, add the reminder-index writes of the tasks it puts
  (`reminder_schedule.index_ops`), the list sizes its ops change (`list_sizes.size_ops`; a
  list never sized is counted once and the write retried), the graph counts (`graph_counts.count_ops`:
  a failed count condition rebuilds the write) and one change record per record it
  writes (`changes.todo_changes`), commit them as ONE transaction (the call keeps the
  change records it committed: `call.recorded`)
  (a write that moves a task or inbox item between lists must go through here), mapping a failed revision
  condition to the REVISION_CONFLICT `on_conflict` makes from a fresh state (so recoverData is
  the current record);
- `create_once(call, operation_id, args, build, on_conflict)`: `apply` for a create, through
  `idempotency.create_once` (replay, IDEMPOTENCY_CONFLICT, the claim in the same transaction as
  the record), with one retry when a concurrent tag registration got in first;
- `require_revision(record, expected, conflict)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..attachments import store as attachment_store
from ..auth.users import get_user, preferred_language
from ..kernel.context import Call
from ..kernel.errors import MesqError, ValidationError
from ..kernel.i18n import written_language
from ..kernel.keys import user_partition
from ..kernel.ports.storage import (
    MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_OPS,
    Condition,
    ConditionFailed,
    Delete,
    Item,
    ItemStore,
    Put,
    WriteOp,
    transaction_bytes,
)
from ..kernel.timestamps import now_timestamp, utc_now
from ..store import idempotency
from . import model
from .attachments import link_ops as attachment_links
from .attachments import refused as attachments_refused
from .changes import todo_changes
from .graph_counts import count_ops, is_count_op
from .keys import KIND_PREFIX, Kind, ident, key, settings_key, slug_key, stored
from .list_sizes import BeforeOf, count_list, size_ops, sized_list
from .reminder_schedule import index_ops
from .state import TodoState, load_partial, load_state

Built = tuple[dict[str, Any], list[WriteOp]]
ATTEMPTS = 2  # one retry: a concurrent first use of the same new tag name


# -- ops ---------------------------------------------------------------------------------------


def put_new(user_id: str, kind: Kind, record: Item) -> Put:
    return Put(stored(user_id, kind, record), Condition(exists=False))


def put_revised(user_id: str, kind: Kind, before: Item, after: Item) -> Put:
    """`after` in place of `before`, only if nobody changed it meanwhile (same revision)."""
    return Put(stored(user_id, kind, after), Condition(equals={"revision": before["revision"]}))


def delete_revised(user_id: str, kind: Kind, before: Item) -> Delete:
    return Delete(key(user_id, kind, ident(kind, before)), Condition(equals={"revision": before["revision"]}))


def bump(before: Item, now: str | None = None) -> dict[str, Any]:
    """The revision and updatedAt a change of `before` gets (updatedAt never goes backwards)."""
    moment = now or now_timestamp()
    return {"revision": int(before["revision"]) + 1, "updatedAt": max(moment, str(before["updatedAt"]))}


def tag_registrations(state: TodoState, user_id: str, tags: Iterable[str], now: str) -> list[WriteOp]:
    """Puts registering tags the registry does not know yet (every tag used on a record is a tag
    record, so list_todo_tags is the registry). A concurrent registration of the same name makes
    the transaction fail; callers reload and retry once."""
    ops: list[WriteOp] = []
    for name in dict.fromkeys(tags):
        if name not in state.tags:
            record = {"name": name, "color": None, "revision": 1, "createdAt": now, "updatedAt": now}
            ops.append(put_new(user_id, "tag", record))
    return ops


def commit(items: ItemStore, ops: Sequence[WriteOp]) -> None:
    """One all-or-nothing transaction; more than 100 writes, or more than DynamoDB's payload
    limit (long notes in a batch: the records and their change records), is refused before
    anything is written, on every storage."""
    if len(ops) > MAX_TRANSACTION_OPS:
        raise ValidationError(
            "this change needs %(count)s writes; one atomic change may have at most %(max_transaction_ops)s",
            count=len(ops),
            max_transaction_ops=MAX_TRANSACTION_OPS,
        )
    size = transaction_bytes(ops)
    if size > MAX_TRANSACTION_BYTES:
        megabytes, most = round(size / 1_000_000, 1), round(MAX_TRANSACTION_BYTES / 1_000_000, 1)
        raise ValidationError(
            "this change writes %(size)s MB; one atomic change may write at most %(max)s MB: change fewer "
            "records at once",
            size=megabytes,
            max=most,
        )
    if ops:
        items.transact(list(ops))


# -- the default space -------------------------------------------------------------------------


def _free_slug(state: TodoState, wanted: str) -> str:
    if wanted not in state.slugs:
        return wanted
    number = 2
    while f"{wanted}-{number}" in state.slugs:
        number += 1
    return f"{wanted}-{number}"


def new_space_ops(
    user_id: str,
    state: TodoState,
    name: str,
    slug: str,
    column_names: Sequence[str],
    now: str,
    *,
    done_last: bool = False,
) -> tuple[Item, list[Item], list[WriteOp]]:
    """A space, its slug claim and its columns as conditional Puts (the claim fails on a taken
    slug, which is what keeps slugs unique under races). `done_last`: the last column is the
    space's done column (a new board's default columns)."""
    last = max((s["position"] for s in state.spaces.values()), default=None)
    space: Item = {
        "id": model.new_id(),
        "name": name,
        "slug": slug,
        "position": model.position_between(last, None),
        "revision": 1,
        "createdAt": now,
        "updatedAt": now,
    }
    positions = model.positions_between(None, None, len(column_names))
    columns: list[Item] = [
        {
            "id": model.new_id(),
            "spaceId": space["id"],
            "name": column_name,
            "position": position,
            "archived": False,
            "done": done_last and index == len(column_names) - 1,
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
        }
        for index, (column_name, position) in enumerate(zip(column_names, positions, strict=True))
    ]
    ops: list[WriteOp] = [
        put_new(user_id, "space", space),
        Put({"pk": slug_key(user_id, slug)[0], "sk": slug_key(user_id, slug)[1], "spaceId": space["id"]},
            Condition(exists=False)),
    ]  # fmt: skip
    ops += [put_new(user_id, "column", column) for column in columns]
    return space, columns, ops


def board_language(items: ItemStore, user_id: str, requested: str, arguments: Mapping[str, Any] | None = None) -> str:
    """The language a new board is named in: the user's own choice (Settings → Language), else
    the one the request asked for (the page's, or `Accept-Language` on REST and MCP), else their
    browser's at sign-in (or their terminal's, for an account made on the command line), else
    the language of what they wrote in the call (`arguments`: an agent's first task titled
    "买牛奶" makes a Chinese board), else English (`auth.users.preferred_language`)."""
    return preferred_language(get_user(items, user_id), requested, written_language(arguments or {}))


def ensure_default_space(
    items: ItemStore,
    user_id: str,
    state: TodoState | None = None,
    *,
    partial: bool = False,
    language: str = "",
    arguments: Mapping[str, Any] | None = None,
) -> TodoState:
    """A state that has the default space, creating it on first use in ONE transaction guarded
    by `Condition(exists=False)` on the settings item: of two racing first uses one wins, the
    other re-reads and uses the winner's space. The new board is named in `board_language`
    (`language`: the one the request asked for, `Call.language`; `arguments`: the call's, whose
    words are the last hint), its last column the done column. `partial`: the state is a write's
    `load_partial` one, else the whole `load_state`."""
    load = load_partial if partial else load_state
    state = state if state is not None else load(items, user_id)
    if state.default_space() is not None:
        return state
    now = now_timestamp()
    slug = _free_slug(state, model.DEFAULT_ALIAS)
    name, columns = model.default_board(board_language(items, user_id, language, arguments))
    space, _columns, ops = new_space_ops(user_id, state, name, slug, columns, now, done_last=True)
    pk, sk = settings_key(user_id)
    settings: Item = {"pk": pk, "sk": sk, "defaultSpaceId": space["id"], "revision": 1, "updatedAt": now}
    if state.settings is None:
        ops.append(Put(settings, Condition(exists=False)))
    else:  # settings exist but name no space (never by our writes): repair, still conditional
        revision = int(state.settings.get("revision", 1))
        repaired = {**state.settings, **settings, "revision": revision + 1}
        ops.append(Put(repaired, Condition(equals={"revision": revision})))
    ops += size_ops(user_id, lambda _kind, _ident: None, ops, {})  # the new columns' sizes
    try:
        items.transact(ops)
    except ConditionFailed:
        state = load(items, user_id)
        if state.default_space() is None:
            raise
        return state
    return load(items, user_id)


# -- the write pattern -------------------------------------------------------------------------


def apply(
    call: Call,
    build: Callable[[TodoState], Built],
    on_conflict: Callable[[TodoState], MesqError],
    *,
    extra: Callable[[dict[str, Any]], list[WriteOp]] | None = None,
    settled: Callable[[], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """Build against a fresh (partial) state and commit in one transaction. A failed condition
    means a record changed since it was read: when a tag registration raced, rebuild once;
    otherwise the answer is `settled()` when it has one (an idempotent twin's response), else
    `on_conflict(fresh state)` is raised (build itself raises REVISION_CONFLICT for a stale
    `expectedRevision` it sees in the snapshot). The change records the commit wrote are kept
    on `call.recorded` (a write in parts reverts the parts already written through them)."""
    items, user_id = call.services.items, call.principal.user_id
    state = ensure_default_space(items, user_id, partial=True, language=call.language, arguments=call.arguments)
    seeded: dict[str, int] = {}  # lists counted here because they had no size item yet
    attempt = seedings = recounts = 0
    while attempt < ATTEMPTS:
        data, ops = build(state)
        # The graph counts (graph_counts.py): root guards merged into the write's Checks, count writes appended.
        counted, mine = count_ops(items, user_id, state, ops)
        sizes = size_ops(user_id, _before_of(state), ops, seeded)
        ops = counted + index_ops(user_id, state.tasks, ops, utc_now(), state.user_zone) + sizes
        first_link = len(ops)
        links = attachment_links(user_id, state, ops)  # fail the write if a file was discarded meanwhile
        ops = ops + links
        changes = todo_changes(call, state, ops)  # the change history, in the same transaction
        ops = ops + changes
        if extra is not None:
            ops = ops + extra(data)
        try:
            commit(items, ops)
            call.recorded.kept(changes)
            return data
        except ConditionFailed as failure:
            lost = attachment_store.unlinked(items, user_id, links, failure, first_link)
            if lost is not None:
                raise attachments_refused(lost, ops) from None
            state = load_partial(items, user_id)
            failed = ops[failure.index] if failure.index is not None and failure.index < len(ops) else None
            if is_count_op(failed, mine, state) and recounts < _RECOUNTS:
                recounts += 1  # a root moved, or a count changed or was seeded meanwhile: rebuild
                continue
            unsized = sized_list(user_id, failed)
            if unsized is not None and seedings < _SEEDINGS:
                # A list never sized (count it once), or one another write sized meanwhile.
                seedings += 1
                if seeded.pop(unsized, None) is None:
                    seeded[unsized] = count_list(items, unsized)
                continue
            attempt += 1
            raced_tag = failed is not None and _is_tag_claim(failed)
            if not raced_tag or attempt == ATTEMPTS:
                answer = settled() if settled is not None else None
                if answer is not None:
                    return answer
                raise on_conflict(state) from None
    raise AssertionError("unreachable")


#: Size seedings one write may need: a move between two lists never sized, plus a race each.
_SEEDINGS = 4
#: Rebuilds after a graph count's condition failed (a concurrent write in the same column).
_RECOUNTS = 8


def _before_of(state: TodoState) -> BeforeOf:
    return lambda kind, ident: state.tasks.get(ident) if kind == "task" else state.inbox.get(ident)


def _is_tag_claim(op: WriteOp) -> bool:
    item = getattr(op, "item", None)
    return isinstance(item, dict) and str(item.get("sk", "")).startswith(KIND_PREFIX["tag"])


def create_once(
    call: Call,
    operation_id: str,
    args: dict[str, Any],
    build: Callable[[TodoState], Built],
    on_conflict: Callable[[TodoState], MesqError],
) -> dict[str, Any]:
    """A create honouring `idempotencyKey`: the first response is stored with the record in the
    same transaction; a replay returns it, a reuse with other arguments is IDEMPOTENCY_CONFLICT,
    and a concurrent twin that won the claim answers for both."""
    items = call.services.items

    def create(claim: idempotency.Claim) -> dict[str, Any]:
        return apply(call, build, on_conflict, extra=claim.ops, settled=lambda: claim.replayed(items))

    return idempotency.create_once(items, user_partition(call.principal.user_id), operation_id, args, create)


def require_revision(record: Item, expected: int, conflict: Callable[[], MesqError]) -> None:
    if int(record["revision"]) != expected:
        raise conflict()
